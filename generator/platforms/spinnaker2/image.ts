import { GenError } from '../../errors.js';
import type { LayerEncoding } from './encoding.js';
import {
  align, coordinate, GENERATION, GLOBAL, HEADER, LAYER_FINISH, MAGIC, TIME_SLOT, VERSION,
} from './layout.js';
import { Words } from './words.js';

export interface ImageLayer {
  /** firmware.json layer id. */
  id: number;
  enc: LayerEncoding;
}

export interface ImageInput {
  dramBase: number;
  dramBytes: number;
  /** PEs of the chip: PE 0 is the scheduler, PEs 1 .. pes-1 the workers. */
  pes: number;
  layers: ImageLayer[];
  /** Data memory: bytes, and each tensor's offset in it. */
  dataBytes: number;
  tensorOffset: (name: string) => number;
  inputs: { name: string; bytes: number }[];
  outputs: { name: string; bytes: number }[];
  /** A decoder step graph whose steps the scheduler loops over: its tensors, the ArgMax's type code, the context. */
  generation?: { control: string; ids: string; position: string; next: string; nextType: number; context: number };
}

export interface Area {
  address: number;
  bytes: number;
}

/** Where everything went: the manifest's byte-exact description (emit.ts) is made from this. */
export interface PlacedLayer {
  id: number | null;
  type: number;
  workers: number;
  header: number;
  next: number;
  time: number;
  params: Area;
  scheduler: Area;
  workerBlocks: Area & { each: number };
  constants: Area[];
  bytes: number;
}

export interface DramImage {
  /** The file: the configuration areas (data memory is not part of it; inputs arrive at run time). */
  bytes: Uint8Array;
  global: Area;
  time: Area & { run: number; layerBytes: number };
  chain: Area;
  data: Area;
  layers: PlacedLayer[];
  io: { inputs: Area[]; outputs: Area[] };
}

const AREA_ALIGN = 64;

/**
 * Lays out the four areas of the DRAM image in order (HARDWARE.md, SpiNNaker2 execution model): global
 * configuration, time measurement, the chain of layer configurations ending with the finish layer, data memory.
 */
export function buildImage(a: ImageInput): DramImage {
  const W = a.pes - 1;
  const L = a.layers.length;
  const genAt = GLOBAL.bytes + 4 * W + 8 * (a.inputs.length + a.outputs.length);
  const globalBytes = genAt + (a.generation ? GENERATION.bytes : 0);
  const timeAt = align(globalBytes, AREA_ALIGN);
  const layerTime = (1 + W) * TIME_SLOT;
  const timeBytes = TIME_SLOT + (L + 1) * layerTime;
  const chainAt = align(timeAt + timeBytes, AREA_ALIGN);

  // The finish layer stops the workers that ever ran; the others never left their sleep.
  const used = Math.max(1, ...a.layers.map((l) => l.enc.workers));
  const finish: LayerEncoding = {
    type: LAYER_FINISH, workers: used, paramBytes: 0, blockBytes: 0, consts: [],
    encode: () => ({ params: new Uint8Array(0), blocks: Array.from({ length: used }, () => new Uint8Array(0)) }),
  };
  const all = [...a.layers.map((l) => ({ id: l.id as number | null, enc: l.enc })), { id: null, enc: finish }];
  let at = chainAt;
  const placed: PlacedLayer[] = all.map((l, i) => {
    const { enc } = l;
    if (enc.workers < 1 || enc.workers > W) throw new GenError('internal', `layer ${l.id} wants ${enc.workers} workers, the chip has ${W}`);
    const header = at;
    const params = { address: header + HEADER.bytes, bytes: enc.paramBytes };
    const scheduler = { address: params.address + align(enc.paramBytes, 4), bytes: 4 * enc.workers };
    const workerBlocks = { address: scheduler.address + scheduler.bytes, bytes: enc.workers * enc.blockBytes, each: enc.blockBytes };
    let c = align(workerBlocks.address + workerBlocks.bytes, 16);
    const constants = enc.consts.map((blob) => {
      const area = { address: c, bytes: blob.length };
      c = align(c + blob.length, 16);
      return area;
    });
    at = align(c, AREA_ALIGN);
    return { id: l.id, type: enc.type, workers: enc.workers, header, next: 0, time: timeAt + TIME_SLOT + i * layerTime, params, scheduler, workerBlocks, constants, bytes: c - header };
  });
  placed.forEach((p, i) => { p.next = i + 1 < placed.length ? placed[i + 1].header : 0; });
  const dataAt = align(at, AREA_ALIGN);
  if (dataAt + a.dataBytes > a.dramBytes) {
    throw new GenError('capacity', `the DRAM image needs ${dataAt + a.dataBytes} bytes (configuration ${dataAt}, data ${a.dataBytes}); the emulated DRAM has ${a.dramBytes}`);
  }

  const abs = (off: number): number => a.dramBase + off;
  const img = new Words(dataAt);
  const io = {
    inputs: a.inputs.map((t) => ({ address: abs(dataAt + a.tensorOffset(t.name)), bytes: t.bytes })),
    outputs: a.outputs.map((t) => ({ address: abs(dataAt + a.tensorOffset(t.name)), bytes: t.bytes })),
  };
  const coordsAt = GLOBAL.bytes;
  const ioAt = coordsAt + 4 * W;
  img.u32(GLOBAL.magic, MAGIC).u32(GLOBAL.version, VERSION).u32(GLOBAL.scheduler, coordinate(0))
    .u32(GLOBAL.workers, W).u32(GLOBAL.coords, abs(coordsAt)).u32(GLOBAL.layers, L).u32(GLOBAL.firstLayer, abs(chainAt))
    .u32(GLOBAL.timeArea, abs(timeAt)).u32(GLOBAL.timeLayerBytes, layerTime).u32(GLOBAL.dataBase, abs(dataAt))
    .u32(GLOBAL.dataBytes, a.dataBytes).u32(GLOBAL.inputs, a.inputs.length).u32(GLOBAL.outputs, a.outputs.length)
    .u32(GLOBAL.ioTable, abs(ioAt)).u32(GLOBAL.imageBytes, dataAt);
  for (let w = 0; w < W; w++) img.u32(coordsAt + 4 * w, coordinate(w + 1));
  [...io.inputs, ...io.outputs].forEach((t, i) => img.u32(ioAt + 8 * i, t.address).u32(ioAt + 8 * i + 4, t.bytes));
  const gen = a.generation;
  if (gen) {
    const tensor = (name: string): number => abs(dataAt + a.tensorOffset(name));
    img.u32(GLOBAL.generation, abs(genAt)).u32(genAt + GENERATION.control, tensor(gen.control)).u32(genAt + GENERATION.ids, tensor(gen.ids))
      .u32(genAt + GENERATION.position, tensor(gen.position)).u32(genAt + GENERATION.next, tensor(gen.next))
      .u32(genAt + GENERATION.nextType, gen.nextType).u32(genAt + GENERATION.context, gen.context);
  }

  all.forEach((l, i) => {
    const p = placed[i];
    const { params, blocks } = l.enc.encode({
      constant: (k) => abs(p.constants[k].address),
      tensor: (name) => abs(dataAt + a.tensorOffset(name)),
    });
    if (params.length !== l.enc.paramBytes || blocks.length !== l.enc.workers || blocks.some((b) => b.length !== l.enc.blockBytes)) {
      throw new GenError('internal', `layer ${l.id}: the encoder wrote other sizes than it declared`);
    }
    img.u32(p.header + HEADER.type, l.enc.type).u32(p.header + HEADER.workers, l.enc.workers)
      .u32(p.header + HEADER.next, p.next ? abs(p.next) : 0).u32(p.header + HEADER.id, l.id ?? 0xffff_ffff)
      .u32(p.header + HEADER.time, abs(p.time)).u32(p.header + HEADER.paramBytes, l.enc.paramBytes)
      .u32(p.header + HEADER.schedBytes, p.scheduler.bytes).u32(p.header + HEADER.workerBytes, l.enc.blockBytes);
    img.bytes.set(params, p.params.address);
    for (let w = 0; w < l.enc.workers; w++) img.u32(p.scheduler.address + 4 * w, coordinate(w + 1));
    blocks.forEach((b, w) => img.bytes.set(b, p.workerBlocks.address + w * l.enc.blockBytes));
    l.enc.consts.forEach((c, k) => img.bytes.set(c, p.constants[k].address));
  });

  const absArea = (x: Area): Area => ({ address: abs(x.address), bytes: x.bytes });
  return {
    bytes: img.bytes,
    global: { address: abs(0), bytes: globalBytes },
    time: { address: abs(timeAt), bytes: timeBytes, run: abs(timeAt), layerBytes: layerTime },
    chain: { address: abs(chainAt), bytes: at - chainAt },
    data: { address: abs(dataAt), bytes: a.dataBytes },
    layers: placed.map((p) => ({
      ...p,
      header: abs(p.header), next: p.next ? abs(p.next) : 0, time: abs(p.time),
      params: absArea(p.params), scheduler: absArea(p.scheduler),
      workerBlocks: { ...absArea(p.workerBlocks), each: p.workerBlocks.each },
      constants: p.constants.map(absArea),
    })),
    io,
  };
}
