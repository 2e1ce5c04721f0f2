import { createEmulator, type EmulatorExports, faultError } from '../../runtime/node/emulator.js';
import { ARGS_PER_LAYER } from '../../generator/platforms/tangram/segment-programs.js';

/**
 * Runs one engine program (generator/platforms/tangram/programs.ts) on the emulator's Tangram engine model
 * (emulator/assembly/tangram/engines.ts), outside a firmware: the program and the operands are written into the
 * chip's DRAM and tangram_run is called directly. `operands` absent: timing only.
 */
export interface EngineRun {
  cycles: number;
  dramWords: number;
  wordHops: number;
  computeCycles: number;
  linkWait: number;
  /** The int32 output (functional runs). */
  y?: Int32Array;
}

interface EngineExports {
  memory: WebAssembly.Memory;
  region_linear_base(i: number): number;
  tangram_run(p: number, words: number, x: number, w: number, b: number, y: number, mul: number, add: number, functional: number): bigint;
  tangram_dram_words(): bigint;
  tangram_word_hops(): bigint;
  tangram_compute_cycles(): bigint;
  tangram_link_wait(): number;
}

export async function runEngines(program: Int32Array, operands?: { x: ArrayBufferView; w: ArrayBufferView; bias?: ArrayBufferView; yLength: number }): Promise<EngineRun> {
  const emu = (await createEmulator('tangram')) as unknown as EngineExports;
  const base = emu.region_linear_base(0) >>> 0;
  const mem = new Uint8Array(emu.memory.buffer);
  let at = base;
  const place = (bytes: Uint8Array): number => {
    const addr = at;
    mem.set(bytes, addr);
    at = addr + Math.ceil(bytes.length / 16) * 16 + 16;
    return addr;
  };
  const p = place(new Uint8Array(program.buffer, program.byteOffset, program.byteLength));
  let x = 0, w = 0, b = 0, y = 0;
  if (operands) {
    x = place(new Uint8Array(operands.x.buffer, operands.x.byteOffset, operands.x.byteLength));
    w = place(new Uint8Array(operands.w.buffer, operands.w.byteOffset, operands.w.byteLength));
    if (operands.bias) b = place(new Uint8Array(operands.bias.buffer, operands.bias.byteOffset, operands.bias.byteLength));
    y = place(new Uint8Array(operands.yLength * 4).fill(0xa5));
  }
  let cycles: number;
  try {
    cycles = Number(emu.tangram_run(p, program.length, x, w, b, y, 0, 0, operands ? 1 : 0));
  } catch (e) {
    throw faultError(emu as unknown as EmulatorExports, e);
  }
  const out: EngineRun = {
    cycles,
    dramWords: Number(emu.tangram_dram_words()),
    wordHops: Number(emu.tangram_word_hops()),
    computeCycles: Number(emu.tangram_compute_cycles()),
    linkWait: emu.tangram_link_wait(),
  };
  if (operands) out.y = new Int32Array(emu.memory.buffer.slice(y, y + operands.yLength * 4));
  return out;
}

/** One segment layer's operands (absent ones 0): bytes placed in the chip's DRAM; `y` gets `yBytes` of 0xa5. */
export interface SegmentOperands { x?: ArrayBufferView; w?: ArrayBufferView; bias?: ArrayBufferView; mul?: ArrayBufferView; add?: ArrayBufferView; x2?: ArrayBufferView; yBytes: number }

/**
 * Runs a pipeline segment's program (segment-programs.ts): with `layers`, functionally, each layer's x either its
 * own bytes or (`from`) the y of an earlier layer of the segment; returns every layer's y bytes.
 */
export async function runSegment(program: Int32Array, layers?: Array<SegmentOperands & { from?: number; from2?: number }>): Promise<EngineRun & { ys?: Uint8Array[] }> {
  const emu = (await createEmulator('tangram')) as unknown as EngineExports;
  const mem = new Uint8Array(emu.memory.buffer);
  let at = emu.region_linear_base(0) >>> 0;
  const place = (bytes: Uint8Array): number => {
    const addr = at;
    mem.set(bytes, addr);
    at = addr + Math.ceil(bytes.length / 16) * 16 + 16;
    return addr;
  };
  const view = (v?: ArrayBufferView): number => (v ? place(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)) : 0);
  const p = place(new Uint8Array(program.buffer, program.byteOffset, program.byteLength));
  let args = 0;
  const ys: number[] = [];
  if (layers) {
    const table = new Uint32Array(layers.length * ARGS_PER_LAYER);
    layers.forEach((l, i) => {
      ys.push(place(new Uint8Array(l.yBytes).fill(0xa5)));
      const x2 = l.from2 !== undefined ? ys[l.from2] : view(l.x2);
      table.set([l.from !== undefined ? ys[l.from] : view(l.x), view(l.w), view(l.bias), ys[i], view(l.mul), view(l.add), x2], i * ARGS_PER_LAYER);
    });
    args = place(new Uint8Array(table.buffer));
  }
  let cycles: number;
  try {
    cycles = Number(emu.tangram_run(p, program.length, args, 0, 0, 0, 0, 0, layers ? 1 : 0));
  } catch (e) {
    throw faultError(emu as unknown as EmulatorExports, e);
  }
  return {
    cycles,
    dramWords: Number(emu.tangram_dram_words()),
    wordHops: Number(emu.tangram_word_hops()),
    computeCycles: Number(emu.tangram_compute_cycles()),
    linkWait: emu.tangram_link_wait(),
    ys: layers ? ys.map((y, i) => new Uint8Array(emu.memory.buffer.slice(y, y + layers[i].yBytes))) : undefined,
  };
}
