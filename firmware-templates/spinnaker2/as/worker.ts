// The worker's interrupt handler, the same for every model. Woken by the scheduler with key (scheduler << 16 | j)
// and the address of a layer configuration, worker j fetches the header, the parameters and its own worker block,
// runs its tiles, writes its time stamps and signals completion; the finish layer only stamps and acknowledges.

import { layer_begin, layer_end } from "./hal/chip";
import { dma_in, dma_wait, irq_key, irq_payload, pe_signal, sram, stamp, write_stamps } from "./s2";
import {
  H_BYTES, H_ID, H_PARAM_BYTES, H_SCHED_BYTES, H_TIME, H_TYPE, H_WORKER_BYTES, LAYER_ELEMENTWISE, LAYER_FINISH,
  LAYER_CONV, LAYER_GEMM, LAYER_INDEXED, LAYER_MOVE, LAYER_ROWS, SRAM_HEADER, SRAM_PARAMS, SRAM_STAMPS, TIME_SLOT, WORKER_COMPUTED, WORKER_CONFIGURED, WORKER_SIGNAL,
  WORKER_WAKE,
} from "./layout";
import { conv_run, gemm_run } from "./gemm";
import { elementwise_run } from "./elementwise";
import { rows_run } from "./rows";
import { move_run } from "./movement";
import { indexed_run } from "./indexed";
import { word } from "./elements";

export function worker_on_irq(): void {
  const me = sram();
  const slot = me + SRAM_STAMPS;
  stamp(slot, WORKER_WAKE);
  const key = irq_key();
  const j = <u32>(key & 0xffff);
  const addr = irq_payload();
  const header = me + SRAM_HEADER;
  dma_wait(dma_in(header, addr, H_BYTES));
  const type = word(header, H_TYPE);
  const time = word(header, H_TIME) + (1 + j) * TIME_SLOT;
  if (type == LAYER_FINISH) {
    stamp(slot, WORKER_CONFIGURED);
    stamp(slot, WORKER_COMPUTED);
  } else {
    const id = <i32>word(header, H_ID);
    layer_begin(id);
    const paramBytes = word(header, H_PARAM_BYTES);
    const blockBytes = word(header, H_WORKER_BYTES);
    const params = me + SRAM_PARAMS;
    const block = params + <usize>((paramBytes + 3) & ~3);
    const blockAt = addr + H_BYTES + ((paramBytes + 3) & ~3) + word(header, H_SCHED_BYTES) + j * blockBytes;
    if (paramBytes > 0) dma_in(params, addr + H_BYTES, paramBytes);
    dma_wait(dma_in(block, blockAt, blockBytes));
    stamp(slot, WORKER_CONFIGURED);
    if (type == LAYER_GEMM) gemm_run(me, params, block);
    else if (type == LAYER_ELEMENTWISE) elementwise_run(me, params, block);
    else if (type == LAYER_ROWS) rows_run(me, params, block);
    else if (type == LAYER_CONV) conv_run(me, params, block);
    else if (type == LAYER_MOVE) move_run(me, params, block);
    else if (type == LAYER_INDEXED) indexed_run(me, params, block);
    else abort("worker: unknown layer type in the DRAM image");
    stamp(slot, WORKER_COMPUTED);
    layer_end(id);
  }
  stamp(slot, WORKER_SIGNAL);
  write_stamps(slot, time);
  pe_signal(key >> 16);
}
