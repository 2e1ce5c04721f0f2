import type { Requant } from '../ir/graph.js';

/*
 * The depthwise row path's interior pairs as one XpulpV2 hardware loop (conv.c `rowdot`, ISS build only:
 * FG_XPULP). gcc 12 has no XpulpV2, so the C loop pays a taken branch per pair, an add per window row for its
 * row pointers and one more per pointer step, and the requantization's two adds: 31 instructions for 18 MACs
 * (ISS hot spots, 3x3 stride 1). Here a pair is post-increment word loads (p.lw), the dot products, the output stage
 * and two post-increment byte stores (p.sb): 22 instructions at stride 1, no branch.
 *
 * The output stage computes sum*m + bb with bb = bias*m + add + 2^(s-1) (the C forms bb modulo 2^32 before the
 * loop), then the shift and one p.clip/p.clipu: equal to clip(((sum + bias)*m + add + 2^(s-1)) >> s) because the
 * requantization's emitter proved that the exact value before the shift fits int32 (form 'int32'), so its value
 * modulo 2^32 is the value. The first window row takes pv.dotsp (no accumulate), the bias being in bb. Where the
 * product needs 64 bits (real models' per-channel scales: MobileNetV1-class depthwise layers at a shift of 22), the
 * loop forms sum*m + c in two words (mulh, mul, the carry of c's low word) and takes bits s..s+31, as the C's
 * 64-bit expression does where the value after the shift fits int32 (form 'int64', the emitter's own decision:
 * kernels/epilogue.ts shiftedInt32); where the C splits the product at bit 16 instead (form 'split') (backend/expr.ts splitRequantExpr: multipliers below 2^15, shifts of 16 or more), so does
 * the loop, with the same steps (no mulh).
 */

/** funct7 of the .b dot products (CV32E40P manual, SIMD table; funct3 1): accumulating and plain. */
const SDOT_F7: Record<string, string> = { ss: '0x5c', us: '0x54', uu: '0x50', su: '0x54' };
const DOT_F7: Record<string, string> = { ss: '0x4c', us: '0x44', uu: '0x40', su: '0x44' };

export interface DwAsm {
  /** The asm statement, operands included (C text). */
  text: string;
  /** Interior pixel pairs the loop takes, from ox = ix0 (a lone last pixel stays with the C loop). */
  pairs: number;
  /** The first ox the C interior loop takes after it. */
  next: number;
  /** C declarations before the statement: row pointers at the first pair, the output pointer, bb, the registers. */
  setup: string;
}

/**
 * p.clip rD, rs1, Is2 clamps to [-2^(Is2-1), 2^(Is2-1) - 1], p.clipu to [0, 2^(Is2-1) - 1] (CV32E40P manual, ALU
 * table); the encoding holds Is2 - 1 in the rs2 field. Other bounds: no asm (the C loop's clamp).
 */
function clipInsn(lo: number, hi: number): string | undefined {
  const top = hi + 1;
  if (top < 2 || (top & (top - 1)) !== 0 || top > 2 ** 30) return undefined;
  const k = Math.log2(top);
  if (lo === -top) return `.insn r 0x33, 1, 0x0a, %[ACC], %[ACC], x${k}\\n`;
  if (lo === 0) return `.insn r 0x33, 2, 0x0a, %[ACC], %[ACC], x${k}\\n`;
  return undefined;
}

/** How the C's requantization computes (kernels/epilogue.ts): all in int32, split at bit 16, 64-bit to the shift. */
export type OutputForm = 'int32' | 'split' | 'int64';

/**
 * The loop for a layer, or undefined where the C loop stays: outputs wider than a byte, a 64-bit requantization
 * shifting by 32 or more, a clamp no p.clip takes, more than 3 window rows, or no full interior pair.
 */
export function dwAsm(p: {
  rq: Requant; form: OutputForm; outBytes: number; variant: string; KH: number; SX: number; shared: boolean;
  ix0: number; ix1: number; WO: number; PL: number;
}): DwAsm | undefined {
  const { rq, form, KH, SX, shared } = p;
  if (p.outBytes !== 1 || KH < 1 || KH > 3) return undefined;
  // The 64-bit form takes the product's high word (mulh) and the carry of the constant's low word, then bits s..s+31.
  if (form === 'int64' && (rq.shift < 1 || rq.shift > 31)) return undefined;
  // Registers past the dot products: the split and 64-bit forms' high half, the carry or low half in t.
  const wide = form !== 'int32';
  const clip = clipInsn(rq.min, rq.max);
  if (!clip) return undefined;
  const end = Math.min(p.ix1, p.WO & ~1);
  const pairs = Math.max(0, (end - p.ix0) >> 1);
  // Even one pair takes the loop (its set-up, bb and the pointers, is about what it saves: ISS, 10x10 stride 2), so
  // that on the XpulpV2 build every interior pair costs the same, as the AS charges them.
  if (pairs < 1) return undefined;
  const sd = SDOT_F7[p.variant];
  const d = DOT_F7[p.variant];
  // pv.sdotusp.b takes its unsigned operand in rs1: signed activations with unsigned weights swap the operands.
  const dot = (f7: string, acc: string, x: string, w: string): string =>
    p.variant === 'su' ? `.insn r 0x57, 1, ${f7}, ${acc}, ${w}, ${x}\\n` : `.insn r 0x57, 1, ${f7}, ${acc}, ${x}, ${w}\\n`;
  const body: string[] = [];
  const rows = Array.from({ length: KH }, (_, ky) => ky);
  if (shared) {
    // One word per window row serves both pixels: pixel 1's taps are the word moved down a lane.
    for (const ky of rows) body.push(`.insn i 0x0b, 2, %[v${ky}], 2(%[r${ky}])\\n`);
    for (const ky of rows) {
      body.push(dot(ky === 0 ? d : sd, '%[a0]', `%[v${ky}]`, `%[w${ky}]`));
      body.push(`srli %[t], %[v${ky}], 8\\n`);
      body.push(dot(ky === 0 ? d : sd, '%[a1]', '%[t]', `%[w${ky}]`));
    }
  } else {
    // A word per pixel: pixel 1's starts SX bytes on; the pointer moves 2 x SX a pair.
    for (const ky of rows) {
      body.push(`.insn i 0x0b, 2, %[v${ky}], ${SX}(%[r${ky}])\\n`);
      body.push(`.insn i 0x0b, 2, %[u${ky}], ${SX}(%[r${ky}])\\n`);
    }
    for (const ky of rows) {
      body.push(dot(ky === 0 ? d : sd, '%[a0]', `%[v${ky}]`, `%[w${ky}]`));
      body.push(dot(ky === 0 ? d : sd, '%[a1]', `%[u${ky}]`, `%[w${ky}]`));
    }
  }
  if (form === 'int32') {
    for (const a of ['a0', 'a1']) body.push(`mul %[${a}], %[${a}], %[m]\\n`);
    for (const a of ['a0', 'a1']) body.push(`add %[${a}], %[${a}], %[bb]\\n`);
    if (rq.shift > 0) for (const a of ['a0', 'a1']) body.push(`srai %[${a}], %[${a}], ${rq.shift}\\n`);
  } else if (form === 'split') {
    // The C's split at bit 16 (backend/expr.ts splitRequantExpr; its steps proven to fit int32): acc = sum + bias,
    // ah = acc >> 16, al = acc's low half word, then (ah*m + ((al*m + c) >> 16)) >> (s - 16) with c = add + 2^(s-1).
    // The low half word by p.extractu (bits 0..15; funct7 0b11 then width - 1, CV32E40P manual, bit manipulation)
    // and ah*m added by p.mac (rD += rs1 * rs2, one cycle): 7 instructions an output where shifts and adds took 9.
    for (const a of ['a0', 'a1']) {
      body.push(`add %[${a}], %[${a}], %[b0]\\n`, `srai %[hi], %[${a}], 16\\n`, `.insn r 0x33, 1, 0x6f, %[t], %[${a}], x0\\n`,
        `mul %[t], %[t], %[m]\\n`, `add %[t], %[t], %[c]\\n`, `srai %[${a}], %[t], 16\\n`,
        `.insn r 0x33, 0, 0x21, %[${a}], %[hi], %[m]\\n`);
      if (rq.shift > 16) body.push(`srai %[${a}], %[${a}], ${rq.shift - 16}\\n`);
    }
  } else {
    // sum*m + c in 64 bits (c = bias*m + add + 2^(s-1), its words cl and ch), shifted: the low word's bits s.. and
    // the high word's bits moved up. mulh is 5 cycles on CV32E40P (manual, instruction timing).
    for (const a of ['a0', 'a1']) {
      body.push(`mulh %[hi], %[${a}], %[m]\\n`, `mul %[${a}], %[${a}], %[m]\\n`, `add %[${a}], %[${a}], %[cl]\\n`,
        `sltu %[t], %[${a}], %[cl]\\n`, `add %[hi], %[hi], %[ch]\\n`, `add %[hi], %[hi], %[t]\\n`,
        `srli %[${a}], %[${a}], ${rq.shift}\\n`, `slli %[hi], %[hi], ${32 - rq.shift}\\n`, `or %[${a}], %[${a}], %[hi]\\n`);
    }
  }
  for (const a of ['a0', 'a1']) body.push(clip.replaceAll('ACC', a));
  for (const a of ['a0', 'a1']) body.push(`.insn s 0x2b, 0, %[${a}], 1(%[o])\\n`);
  // lp.setup (opcode 0x7b, funct3 4, loop 0): the end is in halfwords from lp.setup to the body's last
  // instruction, every one 4 bytes under norvc: 2 x body.
  const lines = [
    '.option push\\n.option norvc\\n.option norelax\\n',
    `.insn i 0x7b, 4, x0, %[n], ${2 * body.length}\\n`,
    ...body,
    '.option pop\\n',
  ];
  const outs = [
    ...rows.map((ky) => `[r${ky}] "+r"(r${ky})`), '[o] "+r"(o)', '[a0] "=&r"(a0)', '[a1] "=&r"(a1)',
    ...rows.map((ky) => `[v${ky}] "=&r"(v${ky})`),
    ...(shared || wide ? ['[t] "=&r"(t)'] : []), ...(shared ? [] : rows.map((ky) => `[u${ky}] "=&r"(u${ky})`)),
    ...(wide ? ['[hi] "=&r"(hi)'] : []),
  ];
  const ins = ['[n] "r"(n)', ...rows.map((ky) => `[w${ky}] "r"(wk[${ky}])`), '[m] "r"(m)',
    ...{ int32: ['[bb] "r"(bb)'], split: ['[b0] "r"(b0)', '[c] "r"(c)'], int64: ['[cl] "r"(cl)', '[ch] "r"(ch)'] }[form]];
  const text = `__asm__ volatile(${lines.map((l) => `"${l}"`).join('\n        ')}\n        : ${outs.join(', ')}\n        : ${ins.join(', ')}\n        : "memory");`;
  const start = p.ix0 * SX - p.PL;
  const round = rq.shift > 0 ? 2 ** (rq.shift - 1) : 0;
  const setup = [
    ...rows.map((ky) => `const uint8_t *r${ky} = (const uint8_t *)(xr[${ky}] + (${start}));`),
    `uint8_t *o = (uint8_t *)(yrow + ${p.ix0});`,
    `const int32_t n = ${pairs};`,
    // Modulo 2^32 (unsigned: no overflow in C); the loop's sum*m + bb wraps to the exact value (see above).
    ...{
      int32: [`const int32_t bb = (int32_t)((uint32_t)b0 * (uint32_t)m + (uint32_t)b + ${round}u);`],
      split: [`const int32_t c = b + ${round};`],
      int64: [`const int64_t c = (int64_t)b0 * m + b + ${round}LL;`, 'const uint32_t cl = (uint32_t)c, ch = (uint32_t)((uint64_t)c >> 32);'],
    }[form],
    `int32_t a0, a1;`,
    `uint32_t ${[...rows.map((ky) => `v${ky}`), ...(shared || wide ? ['t'] : []), ...(shared ? [] : rows.map((ky) => `u${ky}`)), ...(wide ? ['hi'] : [])].join(', ')};`,
  ];
  return { text, setup: setup.map((l) => `      ${l}`).join('\n'), pairs, next: p.ix0 + 2 * pairs };
}
