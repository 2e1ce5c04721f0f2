/**
 * The bytes of C a layer's compiled code follows, for a kernel whose template renders only code that runs
 * (KernelDef.liveCode): its source without comments (c-image.ts codeBytes), the body of a loop under
 * `#pragma GCC unroll N` counted as often as gcc copies it (N times, or the trip count when the loop's bounds are
 * literals, stepping by 1 or a literal K, and it runs fewer). Counted once, an elementwise expression of 17
 * operations unrolled 4 times weighed like one of a single operation: the tiny-llama's rotary join compiled to 1.2x
 * its estimate, a lone multiply to 1.0x.
 * (Measured on the 640 layers of the Models, MLPerf-class and decoder networks built for Siracusa: the elementwise
 * layers' compiled bytes per byte of this count lie within 0.92-1.07 of one ratio, 0.90-1.10 per byte of their C.
 * Templates with sections gcc finds dead, the GEMM's and the conv's, are counted by their C's bytes: weighted so,
 * their dead unrolled sections spread them wider. The copies share the elementwise template but keep their C's count,
 * KernelDef.liveCode.)
 */
import { codeBytes } from './c-image.js';

export function compiledShapeBytes(src: string): number {
  return weigh(stripComments(src));
}

/** The source with its comments replaced by a space (literals kept). */
function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, (m) => (m.startsWith('/') ? ' ' : m));
}

/** Bytes of `text` with each unrolled loop body counted once per copy. */
function weigh(text: string): number {
  let n = codeBytes(text);
  const pragma = /#pragma GCC unroll (\d+)\s*\n\s*for\s*\(/g;
  for (let m = pragma.exec(text); m; m = pragma.exec(text)) {
    const header = balanced(text, m.index + m[0].length - 1, '(', ')');
    if (!header) continue;
    const body = statementAt(text, header.end);
    const copies = Math.min(Number(m[1]), tripCount(text.slice(header.start + 1, header.end - 1)) ?? Infinity);
    if (copies > 1) n += (copies - 1) * weigh(body);
    pragma.lastIndex = header.end;
  }
  return n;
}

/** The loop's trip count when its header is `type v = A; v < B; v++` (or `v += K`) with literal A, B and K. */
function tripCount(header: string): number | undefined {
  const m = /^\s*(?:[\w ]+\s)?(\w+)\s*=\s*(-?\d+)\s*;\s*\1\s*<\s*(-?\d+)\s*;\s*(?:\1\s*\+\+|\+\+\s*\1|\1\s*\+=\s*(\d+))\s*$/.exec(header);
  const step = m ? Number(m[4] ?? 1) : 0;
  return m && step > 0 ? Math.max(0, Math.ceil((Number(m[3]) - Number(m[2])) / step)) : undefined;
}

/** The bracketed span starting at `open` (its index), or undefined when unbalanced. */
function balanced(text: string, open: number, o: string, c: string): { start: number; end: number } | undefined {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === o) depth++;
    else if (text[i] === c && --depth === 0) return { start: open, end: i + 1 };
  }
  return undefined;
}

/** The statement starting at `from`: a braced block, or up to its `;` (a nested for/if/while header and its statement). */
function statementAt(text: string, from: number): string {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] === '{') return text.slice(i, balanced(text, i, '{', '}')?.end ?? text.length);
  const head = /^(for|if|while)\s*\(/.exec(text.slice(i));
  if (head) {
    const h = balanced(text, i + head[0].length - 1, '(', ')');
    if (h) return text.slice(i, h.end) + statementAt(text, h.end);
  }
  const end = text.indexOf(';', i);
  return text.slice(i, end < 0 ? text.length : end + 1);
}
