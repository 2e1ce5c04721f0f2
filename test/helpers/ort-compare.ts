import * as ort from 'onnxruntime-node';
import * as assert from 'uvu/assert';
import type { DType } from '../../generator/ir/dtype.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { ortSession } from '../../examples/ort-session.js';
import type { OnnxBuilder } from './onnx-builder.js';

/* Runs a built model in the reference interpreter and in onnxruntime-node and compares, keeping statistics. */

const ORT_TYPES: Partial<Record<DType, ort.Tensor.Type>> = {
  int8: 'int8', uint8: 'uint8', int32: 'int32', int64: 'int64', float32: 'float32',
};

function toOrt(a: NDArray): ort.Tensor {
  const d = a.data;
  switch (a.dtype) {
    case 'int8': return new ort.Tensor('int8', Int8Array.from(d), a.shape);
    case 'uint8': return new ort.Tensor('uint8', Uint8Array.from(d), a.shape);
    case 'int32': return new ort.Tensor('int32', Int32Array.from(d), a.shape);
    case 'int64': return new ort.Tensor('int64', BigInt64Array.from(d, (v) => BigInt(v)), a.shape);
    case 'float32': return new ort.Tensor('float32', Float32Array.from(d), a.shape);
    default: throw new Error(`no ORT tensor for ${a.dtype}`);
  }
}

function fromOrt(t: ort.Tensor): NDArray {
  const type = (Object.keys(ORT_TYPES) as DType[]).find((k) => ORT_TYPES[k] === t.type) ?? 'float32';
  const data = t.data as ArrayLike<number | bigint>;
  return ndarray(type, t.dims as number[], Array.from(data, Number));
}

export async function runOrt(bytes: Uint8Array, names: string[], inputs: NDArray[], optimize: boolean): Promise<NDArray[]> {
  const session = await ortSession(bytes, optimize);
  const feeds = Object.fromEntries(names.map((n, i) => [n, toOrt(inputs[i])]));
  const out = await session.run(feeds);
  const results = session.outputNames.map((n) => fromOrt(out[n]));
  await session.release();
  return results;
}

export interface Tolerance {
  /** Largest allowed |reference - ORT| (0: identical). */
  lsb: number;
  /** Largest allowed fraction of differing elements. */
  fraction: number;
}
export const EXACT: Tolerance = { lsb: 0, fraction: 0 };

interface Stats { total: number; differ: number; maxDiff: number }
const totals = new Map<string, Stats>();

/** One line per case: how many outputs differed from ORT, and by how much at most. */
export function printStats(): void {
  for (const [label, st] of totals) {
    console.log(`  ${label.padEnd(34)} ${String(st.differ).padStart(5)} of ${String(st.total).padStart(6)} differ`
      + ` (${((100 * st.differ) / st.total).toFixed(3)} %), max ${st.maxDiff} LSB`);
  }
}

/** Runs both, checks shapes and the tolerance, and accumulates the per-case statistics printed at the end. */
export async function compare(label: string, b: OnnxBuilder, inputs: NDArray[], tol: Tolerance, optimize = true): Promise<void> {
  const bytes = b.bytes();
  const g = loadOnnxBytes(bytes, `${label}.onnx`);
  const ref = runReference(g, inputs);
  const got = await runOrt(bytes, g.inputs, inputs, optimize);
  const st = totals.get(label) ?? { total: 0, differ: 0, maxDiff: 0 };
  g.outputs.forEach((name, i) => {
    const r = ref.get(name) as NDArray;
    const o = got[i];
    assert.equal(r.shape, o.shape, `${label}/${name}: shape`);
    assert.is(r.dtype === 'float32', o.dtype === 'float32', `${label}/${name}: float-ness`);
    for (let k = 0; k < o.data.length; k++) {
      const d = Math.abs(r.data[k] - o.data[k]);
      if (d !== 0) st.differ++;
      st.maxDiff = Math.max(st.maxDiff, d);
    }
    st.total += o.data.length;
  });
  totals.set(label, st);
  assert.ok(st.maxDiff <= tol.lsb, `${label}: max difference ${st.maxDiff} > ${tol.lsb}`);
  assert.ok(st.differ <= tol.fraction * st.total, `${label}: ${st.differ} of ${st.total} differ (bound ${tol.fraction})`);
}
