/**
 * The part of out/firmware.json the runtime reads (format: docs/firmware-abi.md, "Manifest"). Validated on load so
 * a malformed manifest is one clear error naming the field, not a crash later.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DType } from '../../generator/ir/dtype.js';
import { bytesOf } from '../../generator/ir/dtype.js';
import { GenError } from '../../generator/errors.js';
import { sizeOf } from '../../generator/ir/ndarray.js';

export interface ManifestRegion {
  name: string;
  address: number;
  size: number;
}

export interface ManifestTensor {
  name: string;
  role: string;
  dtype: DType;
  shape: number[];
  region: string;
  /** Chip address. */
  address: number;
  /** Linear address, if the generator wrote it; the runtime recomputes it from the region table and compares. */
  linear?: number;
  bytes: number;
  /** Buffer symbol in the generated code; aliases of one buffer share it. */
  symbol?: string;
  /** An input read as a position: its values must lie in [0, limit) (generator/validate/positions.ts). */
  limit?: number;
}

/** A constant image: `file` (relative to out/) copied to `offset` bytes into `region`. */
export interface ManifestImage {
  region: string;
  file: string;
  offset: number;
}

export interface ManifestLayer {
  id: number;
  name: string;
  op?: string;
  kernel?: string;
  engine?: string;
  /** Multiply-accumulates of the layer (0 or absent: none). */
  macs?: number;
  /** Tensors the layer reads and writes (absent in older manifests). */
  reads?: string[];
  writes?: string[];
}

export interface Manifest {
  model?: string;
  platform: string;
  /** Cluster cores to model; 0 or absent: the chip's own count. */
  cores: number;
  /** Platform clock, for microseconds in profiles (absent: cycles only). */
  clockHz?: number;
  /** Peak MACs per cycle of one kernel core, for utilisation (absent: not reported). */
  peakMacsPerCoreCycle?: number;
  regions: ManifestRegion[];
  /** Absent: every out/memory/<region lower-case>.bin at offset 0 of its region. */
  images?: ManifestImage[];
  tensors: ManifestTensor[];
  layers: ManifestLayer[];
  inputs: string[];
  outputs: string[];
  /** A decoder step's generation roles (generator/backend/manifest.ts). */
  generation?: {
    ids: string; position: string; logits: string; next?: string; control?: string; sampling?: string; state: { input: string; output: string }[]; context: number;
    /** The parallel prompt pass, when the firmware has one (generator/backend/manifest.ts). */
    prompt?: { ids: string; logits: string; next?: string; length: number; state: { input: string; output: string }[] };
  };
}

const DTYPES: readonly DType[] = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float32', 'float64', 'bool'];

type Json = Record<string, unknown>;

class Reader {
  constructor(readonly file: string) {}

  fail(where: string, what: string): never {
    throw new GenError('run', `manifest: ${where}: ${what}`, { file: this.file });
  }

  obj(v: unknown, where: string): Json {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(where, 'expected an object');
    return v as Json;
  }

  str(o: Json, key: string, where: string): string {
    const v = o[key];
    if (typeof v !== 'string') this.fail(`${where}.${key}`, 'expected a string');
    return v;
  }

  optStr(o: Json, key: string, where: string): string | undefined {
    return o[key] === undefined ? undefined : this.str(o, key, where);
  }

  /** A non-negative integer; addresses may also be written as "0x..." strings. */
  uint(o: Json, key: string, where: string): number {
    const v = o[key];
    const n = typeof v === 'string' && /^0x[0-9a-f]+$/i.test(v) ? parseInt(v, 16) : v;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) this.fail(`${where}.${key}`, 'expected an unsigned integer');
    return n;
  }

  list(o: Json, key: string, where: string): unknown[] {
    const v = o[key] ?? [];
    if (!Array.isArray(v)) this.fail(`${where}.${key}`, 'expected an array');
    return v;
  }

  strings(o: Json, key: string, where: string): string[] {
    return this.list(o, key, where).map((v, i) => {
      if (typeof v !== 'string') this.fail(`${where}.${key}[${i}]`, 'expected a string');
      return v;
    });
  }
}

function readGeneration(r: Reader, v: unknown): NonNullable<Manifest['generation']> {
  const o = r.obj(v, 'generation');
  return {
    ids: r.str(o, 'ids', 'generation'),
    position: r.str(o, 'position', 'generation'),
    logits: r.str(o, 'logits', 'generation'),
    next: r.optStr(o, 'next', 'generation'),
    control: r.optStr(o, 'control', 'generation'),
    sampling: r.optStr(o, 'sampling', 'generation'),
    context: r.uint(o, 'context', 'generation'),
    state: statePairs(r, o, 'generation'),
    ...(o.prompt === undefined ? {} : { prompt: readPromptPass(r, o.prompt) }),
  };
}

function statePairs(r: Reader, o: Json, where: string): { input: string; output: string }[] {
  return r.list(o, 'state', where).map((p, i) => {
    const e = r.obj(p, `${where}.state[${i}]`);
    return { input: r.str(e, 'input', `${where}.state[${i}]`), output: r.str(e, 'output', `${where}.state[${i}]`) };
  });
}

function readPromptPass(r: Reader, v: unknown): NonNullable<NonNullable<Manifest['generation']>['prompt']> {
  const where = 'generation.prompt';
  const o = r.obj(v, where);
  const length = r.uint(o, 'length', where);
  if (length < 1) r.fail(`${where}.length`, 'expected at least 1');
  return { ids: r.str(o, 'ids', where), logits: r.str(o, 'logits', where), next: r.optStr(o, 'next', where), length, state: statePairs(r, o, where) };
}

export function readManifest(outDir: string): Manifest {
  const file = join(outDir, 'firmware.json');
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new GenError('run', `cannot read the manifest: ${(e as Error).message}`, { file });
  }
  const r = new Reader(file);
  const top = r.obj(json, 'firmware.json');
  const regions = r.list(top, 'regions', 'firmware').map((v, i) => {
    const where = `regions[${i}]`;
    const o = r.obj(v, where);
    return { name: r.str(o, 'name', where), address: r.uint(o, 'address', where), size: r.uint(o, 'size', where) };
  });
  const images = top.images === undefined ? undefined : r.list(top, 'images', 'firmware').map((v, i) => {
    const where = `images[${i}]`;
    const o = r.obj(v, where);
    return { region: r.str(o, 'region', where), file: r.str(o, 'file', where), offset: r.uint(o, 'offset', where) };
  });
  const tensors = r.list(top, 'tensors', 'firmware').map((v, i) => readTensor(r, v, `tensors[${i}]`));
  const layers = r.list(top, 'layers', 'firmware').map((v, i) => {
    const where = `layers[${i}]`;
    const o = r.obj(v, where);
    return {
      id: r.uint(o, 'id', where),
      name: r.str(o, 'name', where),
      op: r.optStr(o, 'op', where),
      kernel: r.optStr(o, 'kernel', where),
      engine: r.optStr(o, 'engine', where),
      macs: o.macs === undefined ? undefined : r.uint(o, 'macs', where),
      reads: o.reads === undefined ? undefined : r.strings(o, 'reads', where),
      writes: o.writes === undefined ? undefined : r.strings(o, 'writes', where),
    };
  });
  const m: Manifest = {
    model: r.optStr(top, 'model', 'firmware'),
    platform: r.str(top, 'platform', 'firmware'),
    cores: top.cores === undefined ? 0 : r.uint(top, 'cores', 'firmware'),
    clockHz: top.clockHz === undefined ? undefined : r.uint(top, 'clockHz', 'firmware'),
    peakMacsPerCoreCycle: top.peakMacsPerCoreCycle === undefined ? undefined : r.uint(top, 'peakMacsPerCoreCycle', 'firmware'),
    regions,
    images,
    tensors,
    layers,
    generation: top.generation === undefined ? undefined : readGeneration(r, top.generation),
    inputs: r.strings(top, 'inputs', 'firmware'),
    outputs: r.strings(top, 'outputs', 'firmware'),
  };
  const g = m.generation;
  if (g && [g.ids, g.position, ...g.state.map((p) => p.input)].some((n) => !m.inputs.includes(n))) r.fail('generation', 'names a tensor that is no input');
  if (g && [g.logits, ...(g.next ? [g.next] : []), ...g.state.map((p) => p.output)].some((n) => !m.outputs.includes(n))) r.fail('generation', 'names a tensor that is no output');
  // One set of names: a search of the tensor list per name was layers x names x tensors (a decoder step's manifest,
  // ~330 layers and ~700 tensors, spent ~7 % of a `gen run --on iss` in it).
  const named = new Set(m.tensors.map((t) => t.name));
  for (const name of [...m.inputs, ...m.outputs]) {
    if (!named.has(name)) r.fail('inputs/outputs', `no tensor named '${name}'`);
  }
  m.layers.forEach((l, i) => {
    for (const name of [...(l.reads ?? []), ...(l.writes ?? [])]) {
      if (!named.has(name)) r.fail(`layers[${i}]`, `reads or writes '${name}', which is no tensor`);
    }
  });
  return m;
}

function readTensor(r: Reader, v: unknown, where: string): ManifestTensor {
  const o = r.obj(v, where);
  const dtype = r.str(o, 'dtype', where) as DType;
  if (!DTYPES.includes(dtype)) r.fail(`${where}.dtype`, `unknown dtype '${dtype}'`);
  const shape = r.list(o, 'shape', where).map((d, i) => r.uint({ d }, 'd', `${where}.shape[${i}]`));
  const t: ManifestTensor = {
    name: r.str(o, 'name', where),
    role: r.str(o, 'role', where),
    dtype,
    shape,
    region: r.str(o, 'region', where),
    address: r.uint(o, 'address', where),
    linear: o.linear === undefined ? undefined : r.uint(o, 'linear', where),
    bytes: r.uint(o, 'bytes', where),
    symbol: r.optStr(o, 'symbol', where),
    limit: o.limit === undefined ? undefined : r.uint(o, 'limit', where),
  };
  if (sizeOf(shape) * bytesOf(dtype) > t.bytes) {
    r.fail(where, `'${t.name}' needs ${sizeOf(shape) * bytesOf(dtype)} bytes but has ${t.bytes}`);
  }
  return t;
}
