/* SpiNNaker2 HAL on the host: one process plays the chip. PE 0 runs the scheduler; hal_wait_workers runs each
   interrupted worker's handler in turn (as the emulator does), each with its own SRAM. DMA copies at issue and the
   MLA computes at its wait; there are no clocks (hal_cycles is 0), so only the emulator gives times and catches a
   missing DMA wait. Misuse (an address outside the PE's SRAM or the DRAM, a wait for completions nobody sent) ends
   the process with exit code 3 and a `hal_s2:` line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "s2_host.h"

#define SRAM_BYTES (128u * 1024u)
#define MAX_PES 152

uint8_t *s2_dram;
uint32_t s2_dram_bytes;
static uint8_t *sram[MAX_PES];
static int pes;
static int current;
static int queue[MAX_PES];
static int raised, taken, signals;
static int32_t keys[MAX_PES];
static uint32_t payloads[MAX_PES];
static int tickets;

static struct {
  int open;
  const uint8_t *a, *b;
  int32_t *out;
  int32_t m, n, k, a_row, a_k, b_k, b_col, out_row, flags;
} job[MAX_PES];

void s2_fail(const char *what) {
  fprintf(stderr, "hal_s2: %s (PE %d)\n", what, current);
  exit(3);
}

void s2_host_init(int pe_count) {
  if (pe_count < 2 || pe_count > MAX_PES) s2_fail("the image names more PEs than a chip has");
  pes = pe_count;
  for (int p = 0; p < pes; p++) {
    sram[p] = calloc(SRAM_BYTES, 1);
    if (!sram[p]) s2_fail("out of memory for the PE SRAMs");
  }
  current = 0;
}

int hal_pe_id(void) { return current; }
uint8_t *hal_sram(void) { return sram[current]; }
uint32_t hal_dram_base(void) { return S2_DRAM_BASE; }
uint32_t hal_cycles(void) { return 0; }
void hal_layer_begin(int32_t layer) { (void)layer; }
void hal_layer_end(int32_t layer) { (void)layer; }

uint8_t *s2_dram_at(uint32_t addr, uint32_t bytes) {
  if (addr < S2_DRAM_BASE || addr - S2_DRAM_BASE > s2_dram_bytes || bytes > s2_dram_bytes - (addr - S2_DRAM_BASE)) {
    s2_fail("DMA outside the DRAM");
  }
  return s2_dram + (addr - S2_DRAM_BASE);
}

static void check_local(const uint8_t *local, uint32_t bytes) {
  if (local < sram[current] || local + bytes > sram[current] + SRAM_BYTES) s2_fail("DMA outside the PE's own SRAM");
}

static int copy(uint8_t *local, uint32_t dram, uint32_t bytes, uint32_t len, uint32_t stride, int in) {
  check_local(local, bytes);
  for (uint32_t done = 0; done < bytes;) {
    uint32_t piece = bytes - done, at = dram + done;
    if (len > 0) {
      piece = piece < len ? piece : len;
      at = dram + (done / len) * stride;
    }
    uint8_t *d = s2_dram_at(at, piece);
    if (in) memcpy(local + done, d, piece);
    else memcpy(d, local + done, piece);
    done += piece;
  }
  return tickets++;
}

int hal_dma_in(uint8_t *local, uint32_t dram, uint32_t bytes, uint32_t row_length, uint32_t row_stride) {
  return copy(local, dram, bytes, row_length, row_stride, 1);
}

int hal_dma_out(const uint8_t *local, uint32_t dram, uint32_t bytes, uint32_t row_length, uint32_t row_stride) {
  return copy((uint8_t *)local, dram, bytes, row_length, row_stride, 0);
}

void hal_dma_wait(int ticket) {
  if (ticket < 0 || ticket >= tickets) s2_fail("DMA wait for a ticket never issued");
}

void hal_mla_start(const uint8_t *a, const uint8_t *b, int32_t *out, int32_t m, int32_t n, int32_t k, int32_t a_row,
                   int32_t a_k, int32_t b_k, int32_t b_col, int32_t out_row, int32_t flags) {
  if (job[current].open) s2_fail("MLA job started while one runs");
  job[current].open = 1;
  job[current].a = a; job[current].b = b; job[current].out = out;
  job[current].m = m; job[current].n = n; job[current].k = k;
  job[current].a_row = a_row; job[current].a_k = a_k; job[current].b_k = b_k; job[current].b_col = b_col;
  job[current].out_row = out_row; job[current].flags = flags;
}

void hal_mla_wait(void) {
  if (!job[current].open) s2_fail("MLA wait without a job");
  const int sa = job[current].flags & 1, sb = job[current].flags & 2;
  for (int32_t m = 0; m < job[current].m; m++) {
    int32_t *row = (int32_t *)((uint8_t *)job[current].out + m * job[current].out_row);
    for (int32_t n = 0; n < job[current].n; n++) {
      uint32_t acc = 0; /* int32 results wrap, as the MLA's 32-bit accumulators */
      for (int32_t k = 0; k < job[current].k; k++) {
        const uint8_t x = job[current].a[m * job[current].a_row + k * job[current].a_k];
        const uint8_t w = job[current].b[k * job[current].b_k + n * job[current].b_col];
        acc += (uint32_t)((sa ? (int32_t)(int8_t)x : (int32_t)x) * (sb ? (int32_t)(int8_t)w : (int32_t)w));
      }
      row[n] = (int32_t)acc;
    }
  }
  job[current].open = 0;
}

void hal_irq_raise(int pe, int32_t key, uint32_t payload) {
  if (pe <= 0 || pe >= pes) s2_fail("interrupt for a PE the chip does not have");
  queue[raised++] = pe;
  keys[pe] = key;
  payloads[pe] = payload;
}

int32_t hal_irq_key(void) { return keys[current]; }
uint32_t hal_irq_payload(void) { return payloads[current]; }

void hal_signal(int pe) {
  if (pe != 0) s2_fail("completion signal to a PE that is not the scheduler");
  signals++;
}

void hal_wait_workers(int n, int (*handler)(void)) {
  while (taken < raised) {
    current = queue[taken++];
    handler();
    if (job[current].open) s2_fail("worker signalled with an MLA job not waited for");
  }
  current = 0;
  if (signals < n) s2_fail("waits for more completion signals than arrived");
  signals -= n;
  raised = taken = 0;
}
