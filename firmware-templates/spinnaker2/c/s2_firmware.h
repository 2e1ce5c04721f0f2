/* The SpiNNaker2 firmware's entry points and the word helpers its files share. */
#ifndef S2_FIRMWARE_H
#define S2_FIRMWARE_H
#include <stdint.h>
#include "s2_hal.h"
#include "s2_layout.h"

static inline uint32_t s2_word(const uint8_t *p, uint32_t off) {
  uint32_t v;
  __builtin_memcpy(&v, p + off, 4); /* little-endian, as the image (the Cortex-M4 and every host we build on) */
  return v;
}

static inline void s2_stamp(uint8_t *slot, uint32_t field) {
  uint32_t t = hal_cycles();
  __builtin_memcpy(slot + field, &t, 4);
}

/* The scheduler loop (PE 0): walks the layer chain until the finish layer. */
void scheduler_main(void);
/* A worker's interrupt handler: one layer. Returns 0 after the finish layer (the worker stops), else 1. */
int worker_on_irq(void);
void gemm_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void elementwise_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void rows_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void conv_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void move_run(uint8_t *me, const uint8_t *params, const uint8_t *block);
void im2col(uint8_t *me, const uint8_t *params, const uint8_t *tile);
void pool_max(uint8_t *me, const uint8_t *params, const uint8_t *tile, uint8_t *y);

#endif
