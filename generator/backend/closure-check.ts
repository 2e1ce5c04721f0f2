import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GenError } from '../errors.js';
import { readClosure } from './closure-scan.js';
import { COMMENT_OR_STRING } from './comments.js';
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
 * function's name only as itself and as <name>_args. So a closure whose source, with the comments dropped, its
 * function's name made one placeholder and each run of digits that is not part of a word made 0, is one already
 * passed, passes. Each step keeps the tokens closure-scan.ts reads apart from those:
 *   - comments and strings are found as its tokenizer finds them, left to right (one alternation: a '//' inside a
 *     string is string, a quote inside a comment is comment; neither '/' nor a quote is part of a word or a
 *     number); a comment becomes one space, a string stays (its text is never read, its extent is kept);
 *   - the name is replaced where it is a whole word or followed by `_args` and nothing more of a word;
 *   - a run of digits with no word character on either side is a whole number, or the digits of one after '.', 'e+'
 *     or 'e-': as '0' it reads as a number of the same form. A run touching a letter, `_` or `$` (0x1f, 1e5, i8) stays.
 * A source holding the placeholder character, or what could be a number of 64 characters or more (which the
 * tokenizer reads in pieces), is read in full. Three regular-expression passes: a character-by-character scan in
 * JavaScript was ~20 ms of a cold `gen firmware` of the decoder (node --cpu-prof), most of it before the code warmed.
 */
const passed = new Set<string>();
const MAX_PASSED = 4096;
const PLACEHOLDER = '\u0000';
const LONG_NUMBER = /(?<![\w$])\.?\d[\w$.+-]{62}/;
const DIGITS = /(?<![\w$])\d+(?![\w$])/g;
const WORD = /^[A-Za-z_$][\w$]*$/;

/** The closure's verdict-relevant content (see above), or undefined when it is not to be cached. */
export function closureKey(c: ClosureSource): string | undefined {
  if (c.source.includes(PLACEHOLDER) || !WORD.test(c.fn)) return undefined;
  const code = c.source.replace(COMMENT_OR_STRING, (m) => (m[0] === '/' ? ' ' : m));
  if (LONG_NUMBER.test(code)) return undefined;
  return `${c.fields.join(',')}\n${withPlaceholder(code, c.fn).replace(DIGITS, '0')}`;
}

const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;

/**
 * `code` with the placeholder for `fn` where it is a whole word or followed by `_args` and no more of a word. Found
 * by indexOf (a few places a closure): a regular expression made per closure was compiled per closure, ~10 ms of a
 * cold decoder run. An occurrence inside a word is preceded by a word character, so none is missed by skipping
 * past each one.
 */
function withPlaceholder(code: string, fn: string): string {
  let out = '';
  let from = 0;
  for (let at = code.indexOf(fn); at >= 0; at = code.indexOf(fn, at + fn.length)) {
    if (at > 0 && isWordChar(code.charCodeAt(at - 1))) continue;
    const end = at + fn.length;
    if (isWordChar(code.charCodeAt(end)) && !(code.startsWith('_args', end) && !isWordChar(code.charCodeAt(end + 5)))) continue;
    out += code.slice(from, at) + PLACEHOLDER;
    from = end;
  }
  return out + code.slice(from);
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
