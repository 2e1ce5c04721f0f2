// The scheduler loop (PE 0), the same for every model: the model is the DRAM image. It walks the chain of layer
// configurations: per layer it fetches the header and its scheduler block, wakes the layer's workers with an
// interrupt whose payload is the layer's address, sleeps until they all signal completion, and records its time
// stamps; the finish layer stops the workers and ends the run. docs/spinnaker2.md describes the protocol.

import { layer_begin, layer_end } from "./hal/chip";
import { dram_base, dma_in, dma_wait, irq_raise, pe_id, sram, stamp, wait_workers, write_stamps } from "./s2";
import {
  G_BYTES, G_FIRST_LAYER, G_MAGIC, G_TIME_AREA, H_BYTES, H_ID, H_NEXT, H_PARAM_BYTES, H_SCHED_BYTES, H_TIME, H_TYPE,
  H_WORKERS, LAYER_FINISH, MAGIC, RUN_BOOT, RUN_END, RUN_FINISH, RUN_FIRST, SCHED_BEGIN, SCHED_DONE, SCHED_END,
  SCHED_WOKEN, SRAM_GLOBAL, SRAM_RUN_STAMPS, SRAM_SCHED_BLOCK, SRAM_SCHED_HEADER, SRAM_STAMPS,
} from "./layout";
import { worker_on_irq } from "./worker";
import { word } from "./elements";

export function scheduler_main(): void {
  const me = sram();
  const run = me + SRAM_RUN_STAMPS;
  const slot = me + SRAM_STAMPS;
  const global = me + SRAM_GLOBAL;
  const header = me + SRAM_SCHED_HEADER;
  const block = me + SRAM_SCHED_BLOCK;
  stamp(run, RUN_BOOT);
  dma_wait(dma_in(global, dram_base(), G_BYTES));
  if (word(global, G_MAGIC) != MAGIC) abort("the DRAM image has no FGS2 global configuration");
  let addr = word(global, G_FIRST_LAYER);
  let first = true;
  for (;;) {
    stamp(slot, SCHED_BEGIN);
    dma_wait(dma_in(header, addr, H_BYTES));
    const type = word(header, H_TYPE);
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
    if (type == LAYER_FINISH) break;
    addr = word(header, H_NEXT);
  }
  stamp(run, RUN_END);
  write_stamps(run, word(global, G_TIME_AREA));
}
