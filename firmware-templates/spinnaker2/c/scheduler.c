/* The scheduler loop (PE 0), the same for every model: the model is the DRAM image. The AS twin is
   as/scheduler.ts; the protocol is docs/spinnaker2.md, "The protocol". A decoder step graph with a generation block
   runs the chain once per step and the finish layer only after the last. */
#include "s2_firmware.h"

static int first;

/* Runs the chain from its first layer; the finish layer (the last) only when `finish`. */
static void run_chain(uint8_t *me, int finish) {
  uint8_t *run = me + SRAM_RUN_STAMPS;
  uint8_t *slot = me + SRAM_STAMPS;
  uint8_t *global = me + SRAM_GLOBAL;
  uint8_t *header = me + SRAM_SCHED_HEADER;
  uint8_t *block = me + SRAM_SCHED_BLOCK;
  uint32_t addr = s2_word(global, G_FIRST_LAYER);
  for (;;) {
    s2_stamp(slot, SCHED_BEGIN);
    hal_dma_wait(hal_dma_in(header, addr, H_BYTES, 0, 0));
    const uint32_t type = s2_word(header, H_TYPE);
    if (type == LAYER_FINISH && !finish) return;
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
    if (type == LAYER_FINISH) return;
    addr = s2_word(header, H_NEXT);
  }
}

/* Copies a few bytes between the scratch and DRAM (to_local: into the scratch), waiting for them. */
static void move_word(uint8_t *scratch, uint32_t dram, uint32_t bytes, int to_local) {
  hal_dma_wait(to_local ? hal_dma_in(scratch, dram, bytes, 0, 0) : hal_dma_out(scratch, dram, bytes, 0, 0));
}

/* The generation loop (docs/llm.md), as the core platforms' network.c: the control block holds [steps, prompt length,
   tokens...]; steps 0 runs the chain once on the inputs as written. */
static void generate(uint8_t *me, uint32_t gen) {
  uint8_t *g = me + SRAM_GENERATION;
  uint8_t *scratch = me + SRAM_GEN_SCRATCH;
  hal_dma_wait(hal_dma_in(g, gen, GEN_BYTES, 0, 0));
  const uint32_t ctl = s2_word(g, GEN_CONTROL), nt = s2_word(g, GEN_NEXT_TYPE);
  move_word(scratch, ctl, 8, 1);
  const int32_t context = (int32_t)s2_word(g, GEN_CONTEXT);
  int32_t steps = (int32_t)s2_word(scratch, 0);
  const int32_t prompt = (int32_t)s2_word(scratch, 4);
  if (steps > context) steps = context;
  if (steps <= 0) {
    run_chain(me, 1);
    return;
  }
  for (int32_t t = 0; t < steps; t++) {
    move_word(scratch, ctl + 8u + 4u * (uint32_t)t, 4, 1);
    s2_store(5, scratch, 1, t);
    move_word(scratch, s2_word(g, GEN_IDS), 4, 0);
    move_word(scratch + 4, s2_word(g, GEN_POSITION), 4, 0);
    run_chain(me, t + 1 == steps);
    if (t + 1 >= prompt) {
      move_word(scratch, s2_word(g, GEN_NEXT), s2_type_bytes(nt), 1);
      s2_store(5, scratch, 0, s2_load(nt, scratch, 0));
      move_word(scratch, ctl + 8u + 4u * (uint32_t)(t + 1), 4, 0);
    }
  }
}

void scheduler_main(void) {
  uint8_t *me = hal_sram();
  uint8_t *run = me + SRAM_RUN_STAMPS;
  uint8_t *global = me + SRAM_GLOBAL;
  first = 1;
  s2_stamp(run, RUN_BOOT);
  hal_dma_wait(hal_dma_in(global, hal_dram_base(), G_BYTES, 0, 0));
  if (s2_word(global, G_MAGIC) != MAGIC) return; /* no FGS2 image: nothing to run */
  const uint32_t gen = s2_word(global, G_GENERATION);
  if (gen != 0) generate(me, gen);
  else run_chain(me, 1);
  s2_stamp(run, RUN_END);
  hal_dma_wait(hal_dma_out(run, s2_word(global, G_TIME_AREA), TIME_SLOT, 0, 0));
}
