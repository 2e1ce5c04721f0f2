/**
 * XpulpV2 instructions for GNU as without PULP support: `.insn` / `.word` lines with the encodings of the CV32E40P
 * v1.0.0 user manual ("CORE-V Instruction Set Extensions"; immediate layouts as in its RTL, see
 * emulator/assembly/iss/decode.ts). Register arguments are ABI or x-names; label arguments are assembler symbols.
 */

const ABI = ['zero', 'ra', 'sp', 'gp', 'tp', 't0', 't1', 't2', 's0', 's1', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7',
  's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10', 's11', 't3', 't4', 't5', 't6'];

export function regNum(r: string): number {
  if (/^x\d+$/.test(r)) return Number(r.slice(1));
  const i = ABI.indexOf(r);
  if (i < 0) throw new Error(`unknown register ${r}`);
  return i;
}

// ---- hardware loops (opcode 0x7B; rd[0] = L, targets in halfwords from the instruction) ----

export const lpStarti = (l: number, label: string): string =>
  `.word 0x7b | (0 << 12) | (${l} << 7) | ((((${label}) - .) >> 1) << 20)`;
export const lpEndi = (l: number, label: string): string =>
  `.word 0x7b | (1 << 12) | (${l} << 7) | ((((${label}) - .) >> 1) << 20)`;
export const lpCount = (l: number, rs1: string): string =>
  `.word 0x7b | (2 << 12) | (${l} << 7) | (${regNum(rs1)} << 15)`;
export const lpCounti = (l: number, n: number): string =>
  `.word 0x7b | (3 << 12) | (${l} << 7) | (${n} << 20)`;
/** lp.setup L, rs1, end: start = next instruction, end = label of the last instruction of the body. */
export const lpSetup = (l: number, rs1: string, end: string): string =>
  `.word 0x7b | (4 << 12) | (${l} << 7) | (${regNum(rs1)} << 15) | ((((${end}) - .) >> 1) << 20)`;
/** lp.setupi L, count, end (end within 62 bytes). */
export const lpSetupi = (l: number, count: number, end: string): string =>
  `.word 0x7b | (5 << 12) | (${l} << 7) | ((((${end}) - .) >> 1) << 15) | (${count} << 20)`;

// ---- post-increment and register-offset loads/stores ----

const LOAD_F3: Record<string, number> = { lb: 0, lh: 1, lw: 2, lbu: 4, lhu: 5 };
const LOAD_F7: Record<string, number> = { lb: 0x00, lh: 0x08, lw: 0x10, lbu: 0x20, lhu: 0x28 };
const STORE_F3: Record<string, number> = { sb: 0, sh: 1, sw: 2 };

/** p.lX rd, imm(rs1!) */
export const pLoadPi = (k: string, rd: string, rs1: string, imm: number): string =>
  `.insn i 0x0b, ${LOAD_F3[k]}, ${rd}, ${rs1}, ${imm}`;
/** p.lX rd, rs2(rs1!) */
export const pLoadPr = (k: string, rd: string, rs1: string, rs2: string): string =>
  `.insn r 0x0b, 7, ${LOAD_F7[k]}, ${rd}, ${rs1}, ${rs2}`;
/** p.lX rd, rs2(rs1) */
export const pLoadRr = (k: string, rd: string, rs1: string, rs2: string): string =>
  `.insn r 0x03, 7, ${LOAD_F7[k]}, ${rd}, ${rs1}, ${rs2}`;
/** p.sX rs2, imm(rs1!) */
export const pStorePi = (k: string, rs2: string, rs1: string, imm: number): string =>
  `.insn s 0x2b, ${STORE_F3[k]}, ${rs2}, ${imm}(${rs1})`;
/** p.sX rs2, rs3(rs1!) (rs3 in the rd field) */
export const pStorePr = (k: string, rs2: string, rs1: string, rs3: string): string =>
  `.insn r 0x2b, ${4 + STORE_F3[k]}, 0, ${rs3}, ${rs1}, ${rs2}`;
/** p.sX rs2, rs3(rs1) */
export const pStoreRr = (k: string, rs2: string, rs1: string, rs3: string): string =>
  `.insn r 0x23, ${4 + STORE_F3[k]}, 0, ${rs3}, ${rs1}, ${rs2}`;

// ---- scalar ALU and MAC (opcode 0x33) ----

const ALU: Record<string, [number, number]> = {
  'p.abs': [0x02, 0], 'p.slet': [0x02, 2], 'p.sletu': [0x02, 3], 'p.min': [0x02, 4], 'p.minu': [0x02, 5],
  'p.max': [0x02, 6], 'p.maxu': [0x02, 7], 'p.ror': [0x04, 5], 'p.ff1': [0x08, 0], 'p.fl1': [0x08, 1],
  'p.clb': [0x08, 2], 'p.cnt': [0x08, 3], 'p.exths': [0x08, 4], 'p.exthz': [0x08, 5], 'p.extbs': [0x08, 6],
  'p.extbz': [0x08, 7], 'p.clipr': [0x0a, 5], 'p.clipur': [0x0a, 6], 'p.mac': [0x21, 0], 'p.msu': [0x21, 1],
};

export function alu(name: string, rd: string, rs1: string, rs2 = 'zero'): string {
  const [f7, f3] = ALU[name];
  return `.insn r 0x33, ${f3}, ${f7}, ${rd}, ${rs1}, ${rs2}`;
}

/** p.clip / p.clipu rd, rs1, bits (assembly operand: the bit width; the field holds bits - 1). */
export const pClip = (unsigned: boolean, rd: string, rs1: string, bits: number): string =>
  `.insn r 0x33, ${unsigned ? 2 : 1}, 0x0a, ${rd}, ${rs1}, x${bits - 1}`;

/** Bit-field immediate forms: extract/extractu/insert/bclr/bset rd, rs1, Is3 (width - 1), Is2 (position). */
export function bitfield(name: string, rd: string, rs1: string, is3: number, is2: number): string {
  const f3 = { 'p.extract': 0, 'p.extractu': 1, 'p.insert': 2, 'p.bclr': 3, 'p.bset': 4 }[name];
  if (f3 === undefined) throw new Error(name);
  return `.insn r 0x33, ${f3}, ${0x60 | is3}, ${rd}, ${rs1}, x${is2}`;
}

/** p.beqimm / p.bneimm rs1, imm5, label */
export const pBimm = (ne: boolean, rs1: string, imm5: number, label: string): string =>
  `.insn b 0x63, ${ne ? 3 : 2}, ${rs1}, x${imm5 & 31}, ${label}`;

// ---- packed SIMD (opcode 0x57) ----

const SIMD_F5: Record<string, number> = {
  add: 0x00, sub: 0x01, avg: 0x02, avgu: 0x03, min: 0x04, minu: 0x05, max: 0x06, maxu: 0x07, srl: 0x08, sra: 0x09,
  sll: 0x0a, or: 0x0b, xor: 0x0c, and: 0x0d, abs: 0x0e, extract: 0x0f, dotup: 0x10, dotusp: 0x11, extractu: 0x12,
  dotsp: 0x13, sdotup: 0x14, sdotusp: 0x15, insert: 0x16, sdotsp: 0x17, shuffle: 0x18, shuffle2: 0x19, pack: 0x1a,
  packhi: 0x1b, packlo: 0x1c,
};

/**
 * pv.<fn>[.sc|.sci].<h|b>. `mode`: '' (vector), 'sc', 'sci'. For sci, `src` is the 6-bit immediate (number).
 */
export function pv(fn: string, mode: '' | 'sc' | 'sci', width: 'h' | 'b', rd: string, rs1: string, src: string | number): string {
  const f5 = SIMD_F5[fn];
  if (f5 === undefined) throw new Error(fn);
  const f3 = (width === 'b' ? 1 : 0) | (mode === 'sc' ? 4 : mode === 'sci' ? 6 : 0);
  if (mode === 'sci') {
    const imm = Number(src) & 63;
    return `.insn r 0x57, ${f3}, ${(f5 << 2) | (imm & 1)}, ${rd}, ${rs1}, x${imm >> 1}`;
  }
  return `.insn r 0x57, ${f3}, ${f5 << 2}, ${rd}, ${rs1}, ${src}`;
}

/** pv.pack.h (bit 25 set) */
export const pvPackH = (rd: string, rs1: string, rs2: string): string => `.insn r 0x57, 0, ${(0x1a << 2) | 1}, ${rd}, ${rs1}, ${rs2}`;
