// The scheduler loop (PE 0), the same for every model: the model is the DRAM image. It walks the chain of layer
// configurations: per layer it fetches the header and its scheduler block, wakes the layer's workers with an
// interrupt whose payload is the layer's address, sleeps until they all signal completion, and records its time
// stamps; the finish layer stops the workers and ends the run. A decoder step graph with a generation block runs the
// chain once per step (token t at position t, the cores' next token appended after the prompt) and the finish layer
// only after the last. docs/spinnaker2.md describes the protocol.

import { layer_begin, layer_end } from "./hal/chip";
import { dram_base, dma_in, dma_out, dma_wait, irq_raise, pe_id, sram, stamp, wait_workers, write_stamps } from "./s2";
import {
  G_BYTES, G_FIRST_LAYER, G_GENERATION, G_MAGIC, G_TIME_AREA, GEN_BYTES, GEN_CONTEXT, GEN_CONTROL, GEN_IDS, GEN_NEXT,
  GEN_NEXT_TYPE, GEN_POSITION, H_BYTES, H_ID, H_NEXT, H_PARAM_BYTES, H_SCHED_BYTES, H_TIME, H_TYPE, H_WORKERS,
  LAYER_FINISH, MAGIC, RUN_BOOT, RUN_END, RUN_FINISH, RUN_FIRST, SCHED_BEGIN, SCHED_DONE, SCHED_END, SCHED_WOKEN,
  SRAM_GEN_SCRATCH, SRAM_GENERATION, SRAM_GLOBAL, SRAM_RUN_STAMPS, SRAM_SCHED_BLOCK, SRAM_SCHED_HEADER, SRAM_STAMPS,
} from "./layout";
import { worker_on_irq } from "./worker";
import { loadElement, typeBytes, word } from "./elements";

let first = true;

/** Runs the chain from its first layer; the finish layer (the last) only when `finish`. */
function run_chain(me: usize, finish: bool): void {
  const run = me + SRAM_RUN_STAMPS;
  const slot = me + SRAM_STAMPS;
  const global = me + SRAM_GLOBAL;
  const header = me + SRAM_SCHED_HEADER;
  const block = me + SRAM_SCHED_BLOCK;
  let addr = word(global, G_FIRST_LAYER);
  for (;;) {
    stamp(slot, SCHED_BEGIN);
    dma_wait(dma_in(header, addr, H_BYTES));
    const type = word(header, H_TYPE);
    if (type == LAYER_FINISH && !finish) return;
    const workers = <i32>word(header, H_WORKERS);
    const id = <i32>word(header, H_ID);
    if (first) stamp(run, RUN_FIRST);
    first = false;
    if (type == LAYER_FINISH) stamp(run, RUN_FINISH);
    else layer_begin(id);
    const sched = addr + H_BYTES + ((word(header, H_PARAM_BYTES) + 3) & ~3);
    dma_wait(dma_in(block, sched, word(header, H_SCHED_BYTES)));
    // Worker j of the layer gets key (scheduler << 16 | j) and the layer's address as payload.
    for (let j = 0; j < workers; j++) {
      const c = load<u32>(block + (<usize>j << 2));
      irq_raise(<i32>(((c >> 8) << 2) | (c & 3)), (pe_id() << 16) | j, addr);
    }
    stamp(slot, SCHED_WOKEN);
    wait_workers(workers, worker_on_irq);
    stamp(slot, SCHED_DONE);
    if (type != LAYER_FINISH) layer_end(id);
    stamp(slot, SCHED_END);
    write_stamps(slot, word(header, H_TIME));
    if (type == LAYER_FINISH) return;
    addr = word(header, H_NEXT);
  }
}

/** Copies one word between the scratch and DRAM (in: to the scratch), waiting for it. */
function move_word(scratch: usize, dram: u32, bytes: u32, toLocal: bool): void {
  dma_wait(toLocal ? dma_in(scratch, dram, bytes) : dma_out(scratch, dram, bytes));
}

/**
 * The generation loop (docs/llm.md), as the core platforms' network.ts: the control block holds [steps, prompt
 * length, tokens...]; steps 0 runs the chain once on the inputs as written. ASSUMPTION: the loop's few word transfers
 * per step are charged as the DMAs they are, its own loads and stores not (against ~600,000 cycles of a step).
 */
function generate(me: usize, gen: u32): void {
  const g = me + SRAM_GENERATION;
  const scratch = me + SRAM_GEN_SCRATCH;
  dma_wait(dma_in(g, gen, GEN_BYTES));
  const ctl = word(g, GEN_CONTROL);
  move_word(scratch, ctl, 8, true);
  const steps = min(load<i32>(scratch), <i32>word(g, GEN_CONTEXT));
  const prompt = load<i32>(scratch + 4);
  if (steps <= 0) {
    run_chain(me, true);
    return;
  }
  const nt = word(g, GEN_NEXT_TYPE);
  for (let t = 0; t < steps; t++) {
    move_word(scratch, ctl + 8 + (<u32>t << 2), 4, true);
    store<i32>(scratch + 4, t);
    move_word(scratch, word(g, GEN_IDS), 4, false);
    move_word(scratch + 4, word(g, GEN_POSITION), 4, false);
    run_chain(me, t + 1 == steps);
    if (t + 1 >= prompt) {
      move_word(scratch, word(g, GEN_NEXT), typeBytes(nt), true);
      store<i32>(scratch, <i32>loadElement(nt, scratch));
      move_word(scratch, ctl + 8 + (<u32>(t + 1) << 2), 4, false);
    }
  }
}

export function scheduler_main(): void {
  const me = sram();
  const run = me + SRAM_RUN_STAMPS;
  const global = me + SRAM_GLOBAL;
  first = true;
  stamp(run, RUN_BOOT);
  dma_wait(dma_in(global, dram_base(), G_BYTES));
  if (word(global, G_MAGIC) != MAGIC) abort("the DRAM image has no FGS2 global configuration");
  const gen = word(global, G_GENERATION);
  if (gen != 0) generate(me, gen);
  else run_chain(me, true);
  stamp(run, RUN_END);
  write_stamps(run, word(global, G_TIME_AREA));
}
