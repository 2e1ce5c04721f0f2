/* What the SpiNNaker2 firmware (firmware-templates/spinnaker2/c) needs from a PE's board support: its SRAM, its DMA
   to DRAM, its MAC array (MLA), interrupt packets to and from other PEs, a cycle counter. The AS twin is the
   firmware's as/s2.ts over the emulator's device calls (docs/firmware-abi.md); the timing model of each call is in
   docs/timing.md, "SpiNNaker2". Implementations: host/hal_s2_host.c (runs the scheduler and, when it waits, the
   interrupted workers' handlers in turn on this machine); arm/hal_s2_arm.c (the ARM build for the board, on
   register interfaces that are assumptions: arm/s2_arm.h). The build target picks the case below (-DFG_TARGET_...). */
#ifndef S2_HAL_H
#define S2_HAL_H
#include <stdint.h>

/* The running PE (0: the scheduler) and its SRAM (on the chip its local address 0). */
int hal_pe_id(void);
uint8_t *hal_sram(void);
/* The DRAM's chip address: the global configuration starts there. */
uint32_t hal_dram_base(void);

/* DMA between the running PE's SRAM and DRAM; the DRAM side 2-D when row_length > 0 (rows every row_stride bytes).
   Returns a ticket; the data is there only after hal_dma_wait(ticket). */
int hal_dma_in(uint8_t *local, uint32_t dram, uint32_t bytes, uint32_t row_length, uint32_t row_stride);
int hal_dma_out(const uint8_t *local, uint32_t dram, uint32_t bytes, uint32_t row_length, uint32_t row_stride);
void hal_dma_wait(int ticket);

/* MLA job: out[m][n] (int32, rows out_row bytes apart) = sum_k A(m, k) * B(k, n), A(m, k) at a + m*a_row + k*a_k,
   B(k, n) at b + k*b_k + n*b_col, bytes signed or unsigned by flags bit 0 (A) and bit 1 (B). Runs beside the core
   until hal_mla_wait(). */
void hal_mla_start(const uint8_t *a, const uint8_t *b, int32_t *out, int32_t m, int32_t n, int32_t k, int32_t a_row,
                   int32_t a_k, int32_t b_k, int32_t b_col, int32_t out_row, int32_t flags);
void hal_mla_wait(void);

/* Interrupt packets: the scheduler wakes worker `pe` with a key and a payload; a worker reads the ones it took;
   hal_signal sends the completion packet; the scheduler sleeps until `n` completions have arrived (on the host,
   this is where the workers' handlers run). */
void hal_irq_raise(int pe, int32_t key, uint32_t payload);
int32_t hal_irq_key(void);
uint32_t hal_irq_payload(void);
void hal_signal(int pe);
void hal_wait_workers(int n, int (*handler)(void));

/* The PE's 32-bit cycle counter (the time stamps), and per-layer markers (nothing on the host). */
#if defined(FG_TARGET_S2_ARM)
/* The board: the Cortex-M4's DWT cycle counter (ARMv7-M ARM C1.8, DWT_CYCCNT at 0xE000_1004; the startup code
   enables it), read inline so that a stamp is one load. */
static inline uint32_t hal_cycles(void) { return *(volatile const uint32_t *)0xE0001004u; }
#else
uint32_t hal_cycles(void);
#endif
void hal_layer_begin(int32_t layer);
void hal_layer_end(int32_t layer);

/* A worker PE sleeps (WFI) until the scheduler's interrupt packet has arrived (main_board.c; not in the host build,
   where the scheduler's wait runs the handlers). */
void hal_sleep_until_irq(void);

#endif
