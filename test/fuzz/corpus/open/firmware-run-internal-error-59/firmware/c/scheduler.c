/* The scheduler loop (PE 0), the same for every model: the model is the DRAM image. The AS twin is
   as/scheduler.ts; the protocol is docs/spinnaker2.md, "The protocol". */
#include "s2_firmware.h"

void scheduler_main(void) {
  uint8_t *me = hal_sram();
  uint8_t *run = me + SRAM_RUN_STAMPS;
  uint8_t *slot = me + SRAM_STAMPS;
  uint8_t *global = me + SRAM_GLOBAL;
  uint8_t *header = me + SRAM_SCHED_HEADER;
  uint8_t *block = me + SRAM_SCHED_BLOCK;
  s2_stamp(run, RUN_BOOT);
  hal_dma_wait(hal_dma_in(global, hal_dram_base(), G_BYTES, 0, 0));
  if (s2_word(global, G_MAGIC) != MAGIC) return; /* no FGS2 image: nothing to run */
  uint32_t addr = s2_word(global, G_FIRST_LAYER);
  int first = 1;
  for (;;) {
    s2_stamp(slot, SCHED_BEGIN);
    hal_dma_wait(hal_dma_in(header, addr, H_BYTES, 0, 0));
    const uint32_t type = s2_word(header, H_TYPE);
    const int workers = (int)s2_word(header, H_WORKERS);
    const int32_t id = (int32_t)s2_word(header, H_ID);
    if (first) s2_stamp(run, RUN_FIRST);
    first = 0;
    if (type == LAYER_FINISH) s2_stamp(run, RUN_FINISH);
    else hal_layer_begin(id);
    const uint32_t sched = addr + H_BYTES + ((s2_word(header, H_PARAM_BYTES) + 3u) & ~3u);
    hal_dma_wait(hal_dma_in(block, sched, s2_word(header, H_SCHED_BYTES), 0, 0));
    /* Worker j of the layer gets key (scheduler << 16 | j) and the layer's address as payload. */
    for (int j = 0; j < workers; j++) {
      const uint32_t c = s2_word(block, 4u * (uint32_t)j);
      hal_irq_raise((int)(((c >> 8) << 2) | (c & 3u)), (int32_t)(((uint32_t)hal_pe_id() << 16) | (uint32_t)j), addr);
    }
    s2_stamp(slot, SCHED_WOKEN);
    hal_wait_workers(workers, worker_on_irq);
    s2_stamp(slot, SCHED_DONE);
    if (type != LAYER_FINISH) hal_layer_end(id);
    s2_stamp(slot, SCHED_END);
    hal_dma_wait(hal_dma_out(slot, s2_word(header, H_TIME), TIME_SLOT, 0, 0));
    if (type == LAYER_FINISH) break;
    addr = s2_word(header, H_NEXT);
  }
  s2_stamp(run, RUN_END);
  hal_dma_wait(hal_dma_out(run, s2_word(global, G_TIME_AREA), TIME_SLOT, 0, 0));
}
