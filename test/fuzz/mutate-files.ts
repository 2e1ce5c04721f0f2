import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import type { Rng } from '../helpers/random.js';

/*
 * Damaged side files: sample/input .npz archives (truncated, wrong dtype or shape, hostile .npy headers) and
 * generated firmware folders (edited firmware.json, missing or truncated files, paths that leave the folder).
 */

function npyBytes(descr: string, shape: string, body: Uint8Array, fortran = false): Uint8Array {
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shape}, }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const out = new Uint8Array(10 + header.length + body.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  out.set(new TextEncoder().encode(header), 10);
  out.set(body, 10 + header.length);
  return out;
}

/** A damaged inputs.npz for `inputs` (the valid sample of the model). */
export function mutateNpz(rng: Rng, inputs: NDArray[]): { bytes: Uint8Array; what: string } {
  const good = encodeNpz(new Map(inputs.map((a, i) => [`in${i}`, a])));
  const first = inputs[0];
  const n = first.data.length;
  const shape = `(${first.shape.join(', ')}${first.shape.length === 1 ? ',' : ''})`;
  const k = rng.int(0, 10);
  const zip = (files: Record<string, Uint8Array>): Uint8Array => zipSync(files);
  if (k === 0) return { bytes: good.slice(0, rng.int(0, good.length - 1)), what: 'truncated npz' };
  if (k === 1) return { bytes: zip({ 'in0.npy': npyBytes('<f8', shape, new Uint8Array(new Float64Array(n).fill(0.5).buffer)) }), what: 'float64 with fractions' };
  if (k === 2) return { bytes: zip({ 'in0.npy': npyBytes('<i8', shape, new Uint8Array(new BigInt64Array(n).fill(2n ** 40n).buffer)) }), what: 'int64 2^40' };
  if (k === 3) return { bytes: zip({ 'in0.npy': npyBytes('<i1', '(4000000000, 4000000000)', new Uint8Array(16)) }), what: 'declared-huge shape' };
  if (k === 4) return { bytes: zip({ 'in0.npy': npyBytes('<i1', `(${n + 7},)`, new Uint8Array(n)) }), what: 'shape larger than data' };
  if (k === 5) return { bytes: zip({ 'in0.npy': npyBytes(rng.pick(['>i4', '|b1', '<c8', '|O', '<U3', 'zz', '<f2']), shape, new Uint8Array(n * 8)) }), what: 'odd dtype' };
  if (k === 6) return { bytes: zip({ 'in0.npy': npyBytes('<i1', shape, new Uint8Array(n), true) }), what: 'fortran order' };
  if (k === 7) return { bytes: zip({}), what: 'empty npz' };
  if (k === 8) return { bytes: zip({ 'in0.npy': new TextEncoder().encode("\u0093NUMPY\u0001\u0000{'descr': '<i1'") }), what: 'broken header' };
  if (k === 9) return { bytes: zip({ 'in0.npy': npyBytes('<i1', `(${[...first.shape, 2].join(', ')})`, new Uint8Array(n * 2)) }), what: 'one more rank' };
  return { bytes: new TextEncoder().encode('not a zip at all'), what: 'not a zip' };
}

const HOSTILE_JSON: unknown[] = [-1, 0, 1e18, 2 ** 53 + 1, 'x', '../../../outside.bin', '/etc/passwd', null, [], {}, 'a\n\u001b[31m', true, 1.5];

/** Walks to a random leaf or node of a JSON value and replaces it. */
function editJson(rng: Rng, v: unknown, depth = 0): { value: unknown; path: string } {
  if (v === null || typeof v !== 'object' || depth > 6 || rng.next() < 0.15) return { value: rng.pick(HOSTILE_JSON), path: '' };
  if (Array.isArray(v)) {
    if (v.length === 0) return { value: [rng.pick(HOSTILE_JSON)], path: '[]' };
    const i = rng.int(0, v.length - 1);
    const r = editJson(rng, v[i], depth + 1);
    const copy = [...v];
    copy[i] = r.value;
    return { value: copy, path: `[${i}]${r.path}` };
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return { value: rng.pick(HOSTILE_JSON), path: '' };
  const key = rng.pick(keys);
  if (rng.next() < 0.1) {
    const copy = { ...(v as Record<string, unknown>) };
    delete copy[key];
    return { value: copy, path: `.${key} (deleted)` };
  }
  const r = editJson(rng, (v as Record<string, unknown>)[key], depth + 1);
  return { value: { ...(v as Record<string, unknown>), [key]: r.value }, path: `.${key}${r.path}` };
}

function files(dir: string, sub = ''): string[] {
  return readdirSync(join(dir, sub), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(dir, join(sub, e.name)) : [join(sub, e.name)]);
}

/** Damages a generated firmware folder in place; says what it did. */
export function mutateFirmwareDir(rng: Rng, out: string): string {
  const manifest = join(out, 'firmware.json');
  const k = rng.int(0, 5);
  if (k <= 2 && existsSync(manifest)) {
    const { value, path } = editJson(rng, JSON.parse(readFileSync(manifest, 'utf8')));
    writeFileSync(manifest, JSON.stringify(value));
    return `firmware.json${path} edited`;
  }
  if (k === 3) {
    const image = files(out).find((f) => f.startsWith('memory') && f.endsWith('.bin'));
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as { images?: { file: string }[] };
    if (json.images?.[0]) json.images[0].file = rng.pick(['../../outside.bin', '/etc/hostname', '../firmware.json', 'memory/../../x.bin', image ?? 'x']);
    writeFileSync(manifest, JSON.stringify(json));
    return `image path ${json.images?.[0]?.file}`;
  }
  const all = files(out);
  const victim = rng.pick(all);
  if (k === 4) {
    rmSync(join(out, victim));
    return `${victim} removed`;
  }
  const b = readFileSync(join(out, victim));
  writeFileSync(join(out, victim), b.subarray(0, rng.int(0, b.length)));
  return `${victim} truncated`;
}
