/* A worker's interrupt handler, the same for every model (AS twin: as/worker.ts). */
#include "s2_firmware.h"

int worker_on_irq(void) {
  uint8_t *me = hal_sram();
  uint8_t *slot = me + SRAM_STAMPS;
  s2_stamp(slot, WORKER_WAKE);
  const int32_t key = hal_irq_key();
  const uint32_t j = (uint32_t)key & 0xffffu;
  const uint32_t addr = hal_irq_payload();
  uint8_t *header = me + SRAM_HEADER;
  hal_dma_wait(hal_dma_in(header, addr, H_BYTES, 0, 0));
  const uint32_t type = s2_word(header, H_TYPE);
  const uint32_t time = s2_word(header, H_TIME) + (1u + j) * TIME_SLOT;
  if (type == LAYER_FINISH) {
    s2_stamp(slot, WORKER_CONFIGURED);
    s2_stamp(slot, WORKER_COMPUTED);
  } else {
    const int32_t id = (int32_t)s2_word(header, H_ID);
    hal_layer_begin(id);
    const uint32_t param_bytes = s2_word(header, H_PARAM_BYTES);
    const uint32_t block_bytes = s2_word(header, H_WORKER_BYTES);
    uint8_t *params = me + SRAM_PARAMS;
    uint8_t *block = params + ((param_bytes + 3u) & ~3u);
    const uint32_t block_at = addr + H_BYTES + ((param_bytes + 3u) & ~3u) + s2_word(header, H_SCHED_BYTES) + j * block_bytes;
    if (param_bytes > 0) hal_dma_in(params, addr + H_BYTES, param_bytes, 0, 0);
    hal_dma_wait(hal_dma_in(block, block_at, block_bytes, 0, 0));
    s2_stamp(slot, WORKER_CONFIGURED);
    if (type == LAYER_GEMM) gemm_run(me, params, block);
    else if (type == LAYER_ELEMENTWISE) elementwise_run(me, params, block);
    else if (type == LAYER_ROWS) rows_run(me, params, block);
    else if (type == LAYER_CONV) conv_run(me, params, block);
    else if (type == LAYER_MOVE) move_run(me, params, block);
    else if (type == LAYER_INDEXED) indexed_run(me, params, block);
    s2_stamp(slot, WORKER_COMPUTED);
    hal_layer_end(id);
  }
  s2_stamp(slot, WORKER_SIGNAL);
  hal_dma_wait(hal_dma_out(slot, time, TIME_SLOT, 0, 0));
  hal_signal((int)((uint32_t)key >> 16));
  return type != LAYER_FINISH;
}
