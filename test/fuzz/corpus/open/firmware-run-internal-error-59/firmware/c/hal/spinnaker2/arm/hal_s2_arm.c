/* s2_hal.h on a SpiNNaker2 PE (ARM Cortex-M4F), for the ARM build (`make arm`). It compiles and links with -Werror
   but has never run: no SpiNNaker2 instruction-set simulator or board is available here, and the DMA, MLA and
   communication-controller registers it drives are ASSUMPTIONS (s2_arm.h says which). What is not assumed: the
   protocol (docs/spinnaker2.md), the FPU and cycle-counter setup (startup_s2_arm.c) and WFI, which are ARMv7-M.

   The scheduler and the workers run in parallel on their own PEs here, so hal_wait_workers only counts completion
   packets and never calls the handler it is given (the host HAL and the emulator, which play every PE in one
   process, run the interrupted workers' handlers there). */
#include <stdint.h>
#include "s2_arm.h"
#include "s2_hal.h"

/* The image's first byte: the PE's SRAM (link_pe.ld defines it at the SRAM's origin). */
extern uint8_t __s2_sram_start[];

/* Packets the communication controller's interrupt handler took (shared with thread mode: volatile). */
static volatile uint32_t completions;
static volatile uint32_t woken;
static volatile int32_t irq_key;
static volatile uint32_t irq_payload;
/* DMA commands issued since reset: the next command's ticket (the controller's DONE counts in the same order). */
static uint32_t dma_issued;

int hal_pe_id(void) { return (int)S2_REG(S2_PE_ID); }
uint8_t *hal_sram(void) { return __s2_sram_start; }
uint32_t hal_dram_base(void) { return S2_DRAM_BASE; }

/* Nothing to mark on the board: the time stamps are the record (hooks for a trace port). */
void hal_layer_begin(int32_t layer) { (void)layer; }
void hal_layer_end(int32_t layer) { (void)layer; }

static int dma(uint32_t local, uint32_t dram, uint32_t bytes, uint32_t row_length, uint32_t row_stride, uint32_t cmd) {
  while (S2_REG(DMA_FREE) == 0u) {
  }
  S2_REG(DMA_SRAM_ADDR) = local;
  S2_REG(DMA_DRAM_ADDR) = dram;
  S2_REG(DMA_BYTES_REG) = bytes;
  S2_REG(DMA_ROW_LEN) = row_length;
  S2_REG(DMA_ROW_STRIDE_REG) = row_stride;
  S2_REG(DMA_CMD) = cmd;
  /* Tickets stay non-negative (the firmware uses -1 for "none"): 2^31 commands per run before they wrap. */
  return (int)(dma_issued++ & 0x7FFFFFFFu);
}

int hal_dma_in(uint8_t *local, uint32_t dram, uint32_t bytes, uint32_t row_length, uint32_t row_stride) {
  return dma((uint32_t)(uintptr_t)local, dram, bytes, row_length, row_stride, DMA_CMD_IN);
}

int hal_dma_out(const uint8_t *local, uint32_t dram, uint32_t bytes, uint32_t row_length, uint32_t row_stride) {
  return dma((uint32_t)(uintptr_t)local, dram, bytes, row_length, row_stride, DMA_CMD_OUT);
}

void hal_dma_wait(int ticket) {
  /* Done when more than `ticket` commands have completed (in queue order). */
  while ((S2_REG(DMA_DONE) & 0x7FFFFFFFu) <= (uint32_t)ticket) {
  }
}

void hal_mla_start(const uint8_t *a, const uint8_t *b, int32_t *out, int32_t m, int32_t n, int32_t k, int32_t a_row,
                   int32_t a_k, int32_t b_k, int32_t b_col, int32_t out_row, int32_t flags) {
  S2_REG(MLA_A) = (uint32_t)(uintptr_t)a;
  S2_REG(MLA_B) = (uint32_t)(uintptr_t)b;
  S2_REG(MLA_OUT) = (uint32_t)(uintptr_t)out;
  S2_REG(MLA_M) = (uint32_t)m;
  S2_REG(MLA_N) = (uint32_t)n;
  S2_REG(MLA_K) = (uint32_t)k;
  S2_REG(MLA_A_ROW) = (uint32_t)a_row;
  S2_REG(MLA_A_K) = (uint32_t)a_k;
  S2_REG(MLA_B_K) = (uint32_t)b_k;
  S2_REG(MLA_B_COL) = (uint32_t)b_col;
  S2_REG(MLA_OUT_ROW) = (uint32_t)out_row;
  S2_REG(MLA_FLAGS) = (uint32_t)flags;
  S2_REG(MLA_START) = 1u;
}

void hal_mla_wait(void) {
  while (S2_REG(MLA_BUSY) != 0u) {
  }
}

static void send(int pe, uint32_t key, uint32_t payload) {
  S2_REG(CC_TX_DEST) = (uint32_t)pe;
  S2_REG(CC_TX_KEY) = key;
  S2_REG(CC_TX_PAYLOAD) = payload;
  S2_REG(CC_TX_SEND) = 1u;
}

void hal_irq_raise(int pe, int32_t key, uint32_t payload) { send(pe, (uint32_t)key, payload); }
void hal_signal(int pe) { send(pe, S2_KEY_DONE, 0u); }
int32_t hal_irq_key(void) { return irq_key; }
uint32_t hal_irq_payload(void) { return irq_payload; }

/* The communication controller's interrupt (vector 16 + S2_CC_IRQ, startup_s2_arm.c): takes every packet waiting. */
void s2_cc_irq_handler(void) {
  while (S2_REG(CC_RX_COUNT) != 0u) {
    const uint32_t key = S2_REG(CC_RX_KEY), payload = S2_REG(CC_RX_PAYLOAD);
    S2_REG(CC_RX_POP) = 1u;
    if (key == S2_KEY_DONE) {
      completions = completions + 1u;
    } else {
      irq_key = (int32_t)key;
      irq_payload = payload;
      woken = woken + 1u;
    }
  }
}

/* Sleeps until *count reaches n, then takes n. Interrupts are masked around the test so a packet arriving between
   the test and WFI still wakes the core (WFI wakes on a pending interrupt even when PRIMASK masks it). */
static void sleep_for(volatile uint32_t *count, uint32_t n) {
  __asm volatile("cpsid i" ::: "memory");
  while (*count < n) {
    __asm volatile("wfi\n\tcpsie i\n\tcpsid i" ::: "memory");
  }
  *count = *count - n;
  __asm volatile("cpsie i" ::: "memory");
}

void hal_wait_workers(int n, int (*handler)(void)) {
  (void)handler;
  sleep_for(&completions, (uint32_t)n);
}

void hal_sleep_until_irq(void) { sleep_for(&woken, 1u); }
