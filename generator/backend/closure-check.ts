import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GenError } from '../errors.js';
import { isDigit, isIdentPart, isIdentStart, readClosure } from './closure-scan.js';
import { RUNTIME } from './paths.js';

/*
 * Closures are checked, not hoped for. AssemblyScript has no capturing closures, so a kernel body that names a
 * variable of the surrounding network (a buffer, a loop counter of the caller) would either fail to compile or,
 * worse, silently read a global. Every identifier a closure body uses must be its own local, a field of its
 * argument struct (`a.<field>`, declared by the generator), an AssemblyScript builtin or an export of the HAL.
 * The reading is closure-scan.ts's token-level one (milliseconds); test/helpers/closure-lint.ts reads the same closures with
 * ts-morph, and a test keeps the two verdicts equal.
 */

export const AS_BUILTINS = new Set([
  'load', 'store', 'changetype', 'unchecked', 'min', 'max', 'abs', 'sqrt', 'floor', 'select', 'memory', 'v128',
  'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'isize', 'usize', 'bool', 'f32', 'f64', 'void',
  'StaticArray', 'Math', 'NaN', 'Infinity', 'true', 'false', 'null', 'abort', 'unreachable',
  // wasm SIMD namespaces (the kernels' fast paths, built with --enable simd).
  'i8x16', 'i16x8', 'i32x4', 'i64x2', 'f32x4', 'f64x2',
]);

let halExports: Set<string> | undefined;

/** Names the HAL (runtime/as) exports: what generated code may call from inside a closure. */
export function halNames(): Set<string> {
  if (halExports) return halExports;
  halExports = new Set();
  const dir = join(RUNTIME, 'as');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.ts'))) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:function|const|let|class)\s+([A-Za-z_]\w*)/g)) halExports.add(m[1]);
  }
  return halExports;
}

export interface ClosureSource {
  fn: string;
  /** Fields the generator declared as the closure's free variables. */
  fields: string[];
  /** The rendered AS of the struct class and the function. */
  source: string;
}

export function checkClosures(closures: ClosureSource[]): void {
  for (const c of closures) {
    const key = closureKey(c);
    if (key !== undefined && passed.has(key)) continue;
    const why = closureFault(c);
    if (why) throw new GenError('closure', `closure ${c.fn}: ${why}`);
    if (key === undefined) continue;
    if (passed.size >= MAX_PASSED) passed.clear();
    passed.add(key);
  }
}

/*
 * The closures of one template differ in little but their function's name, their numbers and their comments (an
 * 8-layer decoder: 128 closures, 10 shapes), and the verdict reads none of these: the check sees identifiers and
 * punctuation only (closure-scan.ts drops comments and reads a number as one token whatever its digits), and the
 * function's name only as itself and as <name>_args. So a closure whose source, with the comments dropped, each number
 * made 0 and its function's name made one placeholder, is one already passed, passes. The scan reads comments, strings
 * (kept as they are), identifiers and numbers as closure-scan.ts does, in the same order; a source holding the
 * placeholder character or a number the tokenizer would split (64 characters or more) is always read in full.
 */
const passed = new Set<string>();
const MAX_PASSED = 4096;
const PLACEHOLDER = '\u0000';
const SLASH = 47, STAR = 42, DOT = 46, UNDERSCORE = 95, ZERO = 48, BACKSLASH = 92;
const isDigitOr_ = (c: number): boolean => isDigit(c) || c === UNDERSCORE;
const isHex = (c: number): boolean => isDigitOr_(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/**
 * The closure's verdict-relevant content (see above), or undefined when it is not to be cached. One scan of the
 * source that copies no token (reading every closure in full is a tokenizer's work: ~15 ms for the decoder's 520 KB).
 */
export function closureKey(c: ClosureSource): string | undefined {
  const s = c.source;
  if (s.includes(PLACEHOLDER)) return undefined;
  const fn = c.fn;
  const n = s.length;
  let key = `${c.fields.join(',')}\n`;
  let from = 0; // the start of the source not yet in the key
  let i = 0;
  while (i < n) {
    const ch = s.charCodeAt(i);
    let skipTo = -1; // when set: s[i, skipTo) goes into the key as `by`
    let by = ' ';
    if (ch === SLASH && s.charCodeAt(i + 1) === SLASH) {
      const end = s.indexOf('\n', i);
      skipTo = end < 0 ? n : end;
    } else if (ch === SLASH && s.charCodeAt(i + 1) === STAR) {
      const end = s.indexOf('*/', i + 2);
      skipTo = end < 0 ? n : end + 2;
    } else if (ch === 34 || ch === 39 || ch === 96) {
      // A string, kept as it is, read as closure-scan.ts reads it (so a '//' inside is no comment).
      let j = i + 1;
      while (j < n && s.charCodeAt(j) !== ch) j += s.charCodeAt(j) === BACKSLASH ? 2 : 1;
      i = j + 1;
      continue;
    } else if (isIdentStart(ch)) {
      let j = i;
      if (s.startsWith(fn, i)) {
        key += s.slice(from, i) + PLACEHOLDER;
        j = from = i + fn.length;
      }
      while (j < n && isIdentPart(s.charCodeAt(j))) j++;
      i = j;
      continue;
    } else if (isDigit(ch) || (ch === DOT && isDigit(s.charCodeAt(i + 1)))) {
      skipTo = numberEnd(s, i);
      if (skipTo - i >= 64) return undefined;
      by = '0';
    } else {
      i++;
      continue;
    }
    key += s.slice(from, i) + by;
    i = from = skipTo;
  }
  return key + s.slice(from);
}

/** Where closure-scan.ts's number starting at i ends: 0x.. (0b.., 0o..), or [0-9_]*.?[0-9_]+ with an optional exponent. */
function numberEnd(s: string, i: number): number {
  let j = i;
  const radix = s.charCodeAt(j + 1) | 0x20;
  if (s.charCodeAt(j) === ZERO && (radix === 120 || radix === 98 || radix === 111) && isHex(s.charCodeAt(j + 2))) {
    j += 2;
    while (isHex(s.charCodeAt(j))) j++;
    return j;
  }
  while (isDigitOr_(s.charCodeAt(j))) j++;
  if (s.charCodeAt(j) === DOT && isDigitOr_(s.charCodeAt(j + 1))) {
    j++;
    while (isDigitOr_(s.charCodeAt(j))) j++;
  }
  if ((s.charCodeAt(j) | 0x20) === 101) {
    const sign = s.charCodeAt(j + 1) === 43 || s.charCodeAt(j + 1) === 45 ? 1 : 0;
    if (isDigit(s.charCodeAt(j + 1 + sign))) {
      j += 1 + sign;
      while (isDigit(s.charCodeAt(j))) j++;
    }
  }
  return j;
}

/** Why a closure is not closed (null when it is): the check's verdict, shared with the ts-morph lint's wording. */
export function closureFault(c: ClosureSource): string | null {
  const s = readClosure(c.source, c.fn);
  if (!s.fields) return 'has no argument struct';
  if (s.fields.join(',') !== c.fields.join(',')) {
    return `argument struct holds [${s.fields.join(', ')}] but the generator declared [${c.fields.join(', ')}]`;
  }
  if (!s.hasFunction) return 'function missing';
  if (s.unsupported.length > 0) return `uses ${s.unsupported[0]}, which the check does not follow`;
  const field = s.structReads.find((f) => !c.fields.includes(f));
  if (field !== undefined) return `uses a.${field}, which its argument struct does not declare`;
  const allowed = halNames();
  const captured = s.names.find((n) => !s.locals.has(n) && !AS_BUILTINS.has(n) && !allowed.has(n) && n !== `${c.fn}_args`);
  if (captured !== undefined) return `captures '${captured}', which is neither a local, a field of its argument struct, nor a HAL function`;
  return null;
}
