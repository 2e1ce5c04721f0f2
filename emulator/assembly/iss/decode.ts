// Decoder of the RV32 core: one instruction word into one 16-byte slot of the predecoded cache, which the executor
// (core.ts) reads instead of the word. Implemented:
//  - RV32I (fence/fence.i as ordering no-ops), M, Zicsr, ecall/ebreak/mret/wfi;
//  - C: every RV32C form (RISC-V unprivileged spec, "C" chapter, RVC opcode map); F/D forms are illegal (no FPU);
//  - XpulpV2 as the PULP toolchain emits it and CV32E40P v1.0 decodes it (CV32E40P user manual v1.0.0,
//    "CORE-V Instruction Set Extensions": post-increment / register-offset loads and stores (opcodes 0x0B, 0x2B,
//    0x03 funct3 111, 0x23 funct3 1xx), hardware loops (0x7B), ALU (0x33 funct7 0x02/0x04/0x08/0x0A, bit-field
//    f2 = 10/11), MAC (0x33 funct7 0x21), immediate branches (0x63 funct3 010/011), packed SIMD (0x57: add, sub, avg,
//    avgu, min, minu, max, maxu, srl, sra, sll, or, xor, and, abs, extract, extractu, insert, dotup, dotusp, dotsp,
//    sdotup, sdotusp, sdotsp, shuffle, shuffle2, pack, pack.h, packhi, packlo; .h/.b; .sc/.sci where defined).
//    Immediate layouts follow the CV32E40P v1.0.0 RTL (cv32e40p_id_stage.sv: imm_vs/vu = {instr[24:20], instr[25]},
//    the shuffle immediates, hardware-loop targets pc + (uimm << 1), clip bound (1 << instr[24:20]) - 1).
// Not implemented (illegal): the 0x5B group (p.addN/mulsN/macsN...), bit reverse, SIMD compares and complex ops,
// cv.elw, F/D. Slot layout: see SLOT_* below.

import * as O from "./ops";

/** Slot layout (bytes). Register fields hold byte offsets into the register file (x * 4); x0 as a destination
 * becomes SINK, a 33rd register nobody reads, so the executor never tests for x0. */
export const SLOT_BYTES: i32 = 16;
export const S_OP: usize = 0;
export const S_RD: usize = 1;
export const S_RS1: usize = 2;
export const S_RS2: usize = 3;
export const S_IMM: usize = 4;
export const S_IMM2: usize = 8;
export const S_SIZE: usize = 12;
export const S_MODE: usize = 13;
export const S_READS: usize = 14;
export const SINK: i32 = 32 * 4;

/** S_READS bits: which register fields the instruction reads (for the load-use hazard). */
export const R1: i32 = 1;
export const R2: i32 = 2;
export const R3: i32 = 4;

/** SIMD operand-2 modes (S_MODE). */
export const MODE_VEC: i32 = 0;
export const MODE_SC: i32 = 1;
export const MODE_SCI: i32 = 2;

// @ts-ignore: decorator
@inline function put(e: usize, op: i32, rd: i32, rs1: i32, rs2: i32, imm: i32, imm2: i32, size: i32, reads: i32,
  rdIsSource: bool = false): void {
  store<u8>(e + S_OP, <u8>op);
  store<u8>(e + S_RD, <u8>(rd == 0 && !rdIsSource ? SINK : rd << 2));
  store<u8>(e + S_RS1, <u8>(rs1 << 2));
  store<u8>(e + S_RS2, <u8>(rs2 << 2));
  store<i32>(e + S_IMM, imm);
  store<i32>(e + S_IMM2, imm2);
  store<u8>(e + S_SIZE, <u8>size);
  store<u8>(e + S_MODE, 0);
  store<u8>(e + S_READS, <u8>reads);
}

function illegal(e: usize, size: i32): void {
  put(e, O.OP_ILLEGAL, 0, 0, 0, 0, 0, size, 0);
}

/** Decodes the instruction at `pc` whose first 32 bits (little-endian, possibly past a 16-bit instruction) are `w`. */
export function decodeInto(e: usize, w: u32, pc: u32): void {
  if ((w & 3) != 3) decodeCompressed(e, w & 0xffff);
  else decode32(e, w, pc);
}

function decode32(e: usize, w: u32, pc: u32): void {
  const opcode = w & 0x7f;
  const rd = <i32>((w >> 7) & 31);
  const f3 = <i32>((w >> 12) & 7);
  const rs1 = <i32>((w >> 15) & 31);
  const rs2 = <i32>((w >> 20) & 31);
  const f7 = <i32>(w >> 25);
  const immI = <i32>w >> 20;
  const immS = ((<i32>w >> 25) << 5) | <i32>((w >> 7) & 31);
  const immB = ((<i32>w >> 31) << 12) | <i32>(((w >> 7) & 1) << 11) | <i32>(((w >> 25) & 63) << 5) | <i32>(((w >> 8) & 15) << 1);
  switch (opcode) {
    case 0x37: put(e, O.OP_LUI, rd, 0, 0, <i32>(w & 0xfffff000), 0, 4, 0); return;
    case 0x17: put(e, O.OP_AUIPC, rd, 0, 0, <i32>(w & 0xfffff000), 0, 4, 0); return;
    case 0x6f: {
      const immJ = ((<i32>w >> 31) << 20) | <i32>(w & 0xff000) | <i32>(((w >> 20) & 1) << 11) | <i32>(((w >> 21) & 0x3ff) << 1);
      put(e, O.OP_JAL, rd, 0, 0, immJ, 0, 4, 0);
      return;
    }
    case 0x67:
      if (f3 != 0) break;
      put(e, O.OP_JALR, rd, rs1, 0, immI, 0, 4, R1);
      return;
    case 0x63: {
      let op = -1;
      if (f3 == 0) op = O.OP_BEQ;
      else if (f3 == 1) op = O.OP_BNE;
      else if (f3 == 2) op = O.OP_P_BEQIMM;
      else if (f3 == 3) op = O.OP_P_BNEIMM;
      else if (f3 == 4) op = O.OP_BLT;
      else if (f3 == 5) op = O.OP_BGE;
      else if (f3 == 6) op = O.OP_BLTU;
      else op = O.OP_BGEU;
      if (op == O.OP_P_BEQIMM || op == O.OP_P_BNEIMM) {
        // imm_bi_type: the rs2 field as a signed 5-bit immediate
        put(e, op, 0, rs1, 0, immB, (<i32>(w << 7)) >> 27, 4, R1);
      } else {
        put(e, op, 0, rs1, rs2, immB, 0, 4, R1 | R2);
      }
      return;
    }
    case 0x03:
      if (f3 == 7) {
        // register-offset loads: funct7 selects the size (0x00 lb, 0x20 lbu, 0x08 lh, 0x28 lhu, 0x10 lw)
        const kind = loadKindOfF7(f7);
        if (kind < 0) break;
        put(e, O.OP_PLOAD_RR, rd, rs1, rs2, 0, kind, 4, R1 | R2);
        return;
      }
      if (f3 == 3 || f3 == 6) break; // 110 is cv.elw (not modelled), 011 is ld (RV64)
      put(e, O.OP_LB + (f3 == 0 ? 0 : f3 == 1 ? 1 : f3 == 2 ? 2 : f3 == 4 ? 3 : 4), rd, rs1, 0, immI, 0, 4, R1);
      return;
    case 0x0b:
      if (f3 == 7) {
        const kind = loadKindOfF7(f7);
        if (kind < 0) break;
        put(e, O.OP_PLOAD_PR, rd, rs1, rs2, 0, kind, 4, R1 | R2);
        return;
      }
      if (f3 == 3 || f3 == 6) break;
      put(e, O.OP_PLOAD_PI, rd, rs1, 0, immI, f3, 4, R1);
      return;
    case 0x23:
      if (f3 <= 2) {
        put(e, O.OP_SB + f3, 0, rs1, rs2, immS, 0, 4, R1 | R2);
        return;
      }
      if (f3 <= 6 && f7 == 0) {
        // register-offset stores: the offset register rs3 sits in the rd field
        put(e, O.OP_PSTORE_RR, rd, rs1, rs2, 0, f3 - 4, 4, R1 | R2 | R3, true);
        return;
      }
      break;
    case 0x2b:
      if (f3 <= 2) {
        put(e, O.OP_PSTORE_PI, 0, rs1, rs2, immS, f3, 4, R1 | R2);
        return;
      }
      if (f3 >= 4 && f3 <= 6 && f7 == 0) {
        put(e, O.OP_PSTORE_PR, rd, rs1, rs2, 0, f3 - 4, 4, R1 | R2 | R3, true);
        return;
      }
      break;
    case 0x13: {
      if (f3 == 1 || f3 == 5) {
        const shamt = rs2;
        if (f3 == 1 && f7 == 0) { put(e, O.OP_SLLI, rd, rs1, 0, shamt, 0, 4, R1); return; }
        if (f3 == 5 && f7 == 0) { put(e, O.OP_SRLI, rd, rs1, 0, shamt, 0, 4, R1); return; }
        if (f3 == 5 && f7 == 0x20) { put(e, O.OP_SRAI, rd, rs1, 0, shamt, 0, 4, R1); return; }
        break;
      }
      const op = f3 == 0 ? O.OP_ADDI : f3 == 2 ? O.OP_SLTI : f3 == 3 ? O.OP_SLTIU : f3 == 4 ? O.OP_XORI : f3 == 6 ? O.OP_ORI : O.OP_ANDI;
      put(e, op, rd, rs1, 0, immI, 0, 4, R1);
      return;
    }
    case 0x33:
      decodeOp(e, w, rd, f3, rs1, rs2, f7);
      return;
    case 0x0f:
      if (f3 == 0) { put(e, O.OP_FENCE, 0, 0, 0, 0, 0, 4, 0); return; }
      if (f3 == 1) { put(e, O.OP_FENCE_I, 0, 0, 0, 0, 0, 4, 0); return; }
      break;
    case 0x73:
      if (f3 == 0) {
        if (w == 0x00000073) { put(e, O.OP_ECALL, 0, 0, 0, 0, 0, 4, 0); return; }
        if (w == 0x00100073) { put(e, O.OP_EBREAK, 0, 0, 0, 0, 0, 4, 0); return; }
        if (w == 0x30200073) { put(e, O.OP_MRET, 0, 0, 0, 0, 0, 4, 0); return; }
        if (w == 0x10500073) { put(e, O.OP_WFI, 0, 0, 0, 0, 0, 4, 0); return; }
        break;
      }
      if (f3 == 4) break;
      // imm2: 1 rw, 2 rs, 3 rc; S_MODE 1 for the immediate forms (uimm5 kept in imm2's high half)
      put(e, O.OP_CSR, rd, rs1, 0, <i32>(w >> 20), (f3 & 3) | (rs1 << 8), 4, (f3 & 4) != 0 ? 0 : R1);
      store<u8>(e + S_MODE, <u8>((f3 >> 2) & 1));
      return;
    case 0x7b:
      decodeHwloop(e, w, f3, rs1, rd);
      return;
    case 0x57:
      decodeSimd(e, w, rd, f3, rs1, rs2);
      return;
    default:
      break;
  }
  illegal(e, 4);
}

/** Load kind (imm2 of the load ops: 0 lb, 1 lh, 2 lw, 4 lbu, 5 lhu, i.e. the funct3 of the plain loads) from the
 * funct7 of the register-offset forms. */
function loadKindOfF7(f7: i32): i32 {
  if (f7 == 0x00) return 0;
  if (f7 == 0x08) return 1;
  if (f7 == 0x10) return 2;
  if (f7 == 0x20) return 4;
  if (f7 == 0x28) return 5;
  return -1;
}

function decodeOp(e: usize, w: u32, rd: i32, f3: i32, rs1: i32, rs2: i32, f7: i32): void {
  const f2 = f7 >> 5;
  if (f2 >= 2) {
    // bit-field ops: f2 = 11 immediate form (Is3 = width - 1 in [29:25], Is2 = position in [24:20]); 10 register form
    const is3 = f7 & 31;
    if (f2 == 3) {
      const op = f3 == 0 ? O.OP_P_EXTRACT : f3 == 1 ? O.OP_P_EXTRACTU : f3 == 2 ? O.OP_P_INSERT : f3 == 3 ? O.OP_P_BCLR : f3 == 4 ? O.OP_P_BSET : -1;
      if (op < 0) { illegal(e, 4); return; }
      put(e, op, rd, rs1, 0, rs2, is3, 4, op == O.OP_P_INSERT ? R1 | R3 : R1);
      return;
    }
    // register forms: position and width-1 come from rs2[4:0] and rs2[9:5]; marked by S_MODE 1
    if (is3 != 0 || f3 > 4) { illegal(e, 4); return; }
    const op = f3 == 0 ? O.OP_P_EXTRACT : f3 == 1 ? O.OP_P_EXTRACTU : f3 == 2 ? O.OP_P_INSERT : f3 == 3 ? O.OP_P_BCLR : O.OP_P_BSET;
    put(e, op, rd, rs1, rs2, 0, 0, 4, op == O.OP_P_INSERT ? R1 | R2 | R3 : R1 | R2);
    store<u8>(e + S_MODE, 1);
    return;
  }
  let op = -1;
  let reads = R1 | R2;
  if (f7 == 0x00) {
    op = f3 == 0 ? O.OP_ADD : f3 == 1 ? O.OP_SLL : f3 == 2 ? O.OP_SLT : f3 == 3 ? O.OP_SLTU
      : f3 == 4 ? O.OP_XOR : f3 == 5 ? O.OP_SRL : f3 == 6 ? O.OP_OR : O.OP_AND;
  } else if (f7 == 0x20) {
    op = f3 == 0 ? O.OP_SUB : f3 == 5 ? O.OP_SRA : -1;
  } else if (f7 == 0x01) {
    op = O.OP_MUL + f3;
  } else if (f7 == 0x02) {
    // p.abs (rs2 = 0), p.slet, p.sletu, p.min, p.minu, p.max, p.maxu
    if (f3 == 0 && rs2 == 0) { op = O.OP_P_ABS; reads = R1; }
    else if (f3 >= 2) op = O.OP_P_SLET + (f3 - 2);
  } else if (f7 == 0x04) {
    if (f3 == 5) op = O.OP_P_ROR;
  } else if (f7 == 0x08) {
    // p.ff1, p.fl1, p.clb, p.cnt, p.exths, p.exthz, p.extbs, p.extbz (rs2 = 0)
    if (rs2 == 0) {
      // ff1, fl1, clb, cnt, exths, exthz, extbs, extbz are consecutive ids in funct3 order
      op = O.OP_P_FF1 + (f3 < 4 ? f3 : 0);
      if (f3 >= 4) op = O.OP_P_EXTHS + (f3 - 4);
      reads = R1;
    }
  } else if (f7 == 0x0a) {
    if (f3 == 1 || f3 == 2) {
      // p.clip / p.clipu: the field holds Is2 - 1 (assembly operand Is2 = bit width); bounds per the RTL
      // (imm_clip_type = (1 << field) - 1): clip [-2^field, 2^field - 1], clipu [0, 2^field - 1]
      const hi = <i32>((<u32>1 << <u32>rs2) - 1);
      put(e, O.OP_P_CLIP, rd, rs1, 0, f3 == 1 ? -hi - 1 : 0, hi, 4, R1);
      return;
    }
    if (f3 == 5) op = O.OP_P_CLIPR;
    else if (f3 == 6) op = O.OP_P_CLIPUR;
  } else if (f7 == 0x21) {
    if (f3 == 0) { op = O.OP_P_MAC; reads = R1 | R2 | R3; }
    else if (f3 == 1) { op = O.OP_P_MSU; reads = R1 | R2 | R3; }
  }
  if (op < 0) { illegal(e, 4); return; }
  put(e, op, rd, rs1, rs2, 0, 0, 4, reads);
}

function decodeHwloop(e: usize, w: u32, f3: i32, rs1: i32, rd: i32): void {
  // rd[4:1] must be 0, rd[0] = L (loop index)
  if ((rd >> 1) != 0) { illegal(e, 4); return; }
  const loop = rd & 1;
  const uimm = <i32>(w >> 20);
  switch (f3) {
    case 0: put(e, O.OP_LP_STARTI, 0, 0, 0, uimm << 1, loop, 4, 0); return;
    case 1: put(e, O.OP_LP_ENDI, 0, 0, 0, uimm << 1, loop, 4, 0); return;
    case 2: put(e, O.OP_LP_COUNT, 0, rs1, 0, 0, loop, 4, R1); return;
    case 3: put(e, O.OP_LP_COUNTI, 0, 0, 0, uimm, loop, 4, 0); return;
    case 4: put(e, O.OP_LP_SETUP, 0, rs1, 0, uimm << 1, loop, 4, R1); return;
    case 5:
      // lp.setupi: count = uimmL (bits 31:20), end = pc + (uimmS << 1) with uimmS in the rs1 field
      put(e, O.OP_LP_SETUPI, 0, 0, 0, rs1 << 1, loop, 4, 0);
      store<i32>(e + S_IMM2, loop | (uimm << 1));
      return;
    default: illegal(e, 4);
  }
}

/** Packed SIMD, opcode 0x57: funct5 [31:27], F [26] (1: compare/complex group, not modelled), funct3 selects
 * width and operand-2 mode: 000 .h, 001 .b, 100 .sc.h, 101 .sc.b, 110 .sci.h, 111 .sci.b. */
function decodeSimd(e: usize, w: u32, rd: i32, f3: i32, rs1: i32, rs2: i32): void {
  const f5 = <i32>(w >> 27);
  const fbit = <i32>((w >> 26) & 1);
  const bit25 = <i32>((w >> 25) & 1);
  if (fbit != 0 || f3 == 2 || f3 == 3) { illegal(e, 4); return; }
  const isB = (f3 & 1) != 0;
  const mode = f3 < 4 ? MODE_VEC : f3 < 6 ? MODE_SC : MODE_SCI;
  // vector and .sc forms need bit 25 clear (pv.pack.h uses it)
  const imm6s = ((<i32>(w << 7)) >> 27 << 1) | bit25; // {instr[24:20], instr[25]} sign-extended
  const imm6u = (<i32>((w >> 20) & 31) << 1) | bit25;
  let op = -1;
  let unsignedImm = false;
  let reads = R1 | R2;
  switch (f5) {
    case 0x00: op = isB ? O.OP_PV_ADD_B : O.OP_PV_ADD_H; break;
    case 0x01: op = isB ? O.OP_PV_SUB_B : O.OP_PV_SUB_H; break;
    case 0x02: op = isB ? O.OP_PV_AVG_B : O.OP_PV_AVG_H; break;
    case 0x03: op = isB ? O.OP_PV_AVGU_B : O.OP_PV_AVGU_H; unsignedImm = true; break;
    case 0x04: op = isB ? O.OP_PV_MIN_B : O.OP_PV_MIN_H; break;
    case 0x05: op = isB ? O.OP_PV_MINU_B : O.OP_PV_MINU_H; unsignedImm = true; break;
    case 0x06: op = isB ? O.OP_PV_MAX_B : O.OP_PV_MAX_H; break;
    case 0x07: op = isB ? O.OP_PV_MAXU_B : O.OP_PV_MAXU_H; unsignedImm = true; break;
    case 0x08: op = isB ? O.OP_PV_SRL_B : O.OP_PV_SRL_H; unsignedImm = true; break;
    case 0x09: op = isB ? O.OP_PV_SRA_B : O.OP_PV_SRA_H; unsignedImm = true; break;
    case 0x0a: op = isB ? O.OP_PV_SLL_B : O.OP_PV_SLL_H; unsignedImm = true; break;
    case 0x0b: op = O.OP_PV_OR; break;
    case 0x0c: op = O.OP_PV_XOR; break;
    case 0x0d: op = O.OP_PV_AND; break;
    case 0x0e:
      if (mode != MODE_VEC || rs2 != 0 || bit25 != 0) break;
      op = isB ? O.OP_PV_ABS_B : O.OP_PV_ABS_H; reads = R1;
      break;
    case 0x0f: case 0x12: case 0x16: {
      // extract / extractu / insert: .sci only, the lane index is the immediate
      if (mode != MODE_SCI) break;
      op = f5 == 0x0f ? (isB ? O.OP_PV_EXTRACT_B : O.OP_PV_EXTRACT_H)
        : f5 == 0x12 ? (isB ? O.OP_PV_EXTRACTU_B : O.OP_PV_EXTRACTU_H)
        : (isB ? O.OP_PV_INSERT_B : O.OP_PV_INSERT_H);
      put(e, op, rd, rs1, 0, imm6u & (isB ? 3 : 1), 0, 4, f5 == 0x16 ? R1 | R3 : R1);
      return;
    }
    case 0x10: op = isB ? O.OP_PV_DOTUP_B : O.OP_PV_DOTUP_H; unsignedImm = true; break;
    case 0x11: op = isB ? O.OP_PV_DOTUSP_B : O.OP_PV_DOTUSP_H; break;
    case 0x13: op = isB ? O.OP_PV_DOTSP_B : O.OP_PV_DOTSP_H; break;
    case 0x14: op = isB ? O.OP_PV_SDOTUP_B : O.OP_PV_SDOTUP_H; unsignedImm = true; reads = R1 | R2 | R3; break;
    case 0x15: op = isB ? O.OP_PV_SDOTUSP_B : O.OP_PV_SDOTUSP_H; reads = R1 | R2 | R3; break;
    case 0x17: op = isB ? O.OP_PV_SDOTSP_B : O.OP_PV_SDOTSP_H; reads = R1 | R2 | R3; break;
    case 0x18: case 0x1d: case 0x1e: case 0x1f: {
      // shuffle: vector form (f5 0x18, modes vec), .sci.h (0x18), shuffleI0..I3.sci.b (0x18, 0x1d, 0x1e, 0x1f)
      if (mode == MODE_SC) break;
      if (mode == MODE_VEC) {
        if (f5 != 0x18 || bit25 != 0) break;
        put(e, isB ? O.OP_PV_SHUFFLE_B : O.OP_PV_SHUFFLE_H, rd, rs1, rs2, 0, 0, 4, R1 | R2);
        return;
      }
      let sel: i32;
      if (isB) {
        // imm_shuffleb_type: lane 3 from instr[28:27], lane 2 [24:23], lane 1 [22:21], lane 0 {[20], [25]}
        sel = (<i32>((w >> 27) & 3) << 24) | (<i32>((w >> 23) & 3) << 16) | (<i32>((w >> 21) & 3) << 8) | (<i32>((w >> 20) & 1) << 1) | bit25;
      } else {
        if (f5 != 0x18) break;
        sel = (<i32>((w >> 20) & 1) << 16) | bit25;
      }
      put(e, isB ? O.OP_PV_SHUFFLE_B : O.OP_PV_SHUFFLE_H, rd, rs1, 0, sel, 0, 4, R1);
      store<u8>(e + S_MODE, <u8>MODE_SCI);
      return;
    }
    case 0x19:
      if (mode != MODE_VEC || bit25 != 0) break;
      put(e, isB ? O.OP_PV_SHUFFLE2_B : O.OP_PV_SHUFFLE2_H, rd, rs1, rs2, 0, 0, 4, R1 | R2 | R3);
      return;
    case 0x1a:
      if (f3 != 0) break;
      put(e, bit25 != 0 ? O.OP_PV_PACK_H : O.OP_PV_PACK, rd, rs1, rs2, 0, 0, 4, R1 | R2);
      return;
    case 0x1b: case 0x1c:
      if (f3 != 1 || bit25 != 0) break;
      put(e, f5 == 0x1b ? O.OP_PV_PACKHI_B : O.OP_PV_PACKLO_B, rd, rs1, rs2, 0, 0, 4, R1 | R2 | R3);
      return;
    default: break;
  }
  if (op < 0) { illegal(e, 4); return; }
  if (mode == MODE_SCI) {
    // replicate the immediate into every lane now, so the executor treats .sci like a vector operand
    const v = unsignedImm ? imm6u : imm6s;
    const rep = isB ? (v & 0xff) * 0x01010101 : (v & 0xffff) * 0x00010001;
    put(e, op, rd, rs1, 0, rep, 0, 4, reads & ~R2);
  } else {
    if (bit25 != 0) { illegal(e, 4); return; }
    put(e, op, rd, rs1, rs2, 0, 0, 4, reads);
  }
  store<u8>(e + S_MODE, <u8>mode);
}

// ---- RV32C ----

// @ts-ignore: decorator
@inline function bits(h: u32, hi: i32, lo: i32): i32 {
  return <i32>((h >> <u32>lo) & ((<u32>1 << <u32>(hi - lo + 1)) - 1));
}

function decodeCompressed(e: usize, h: u32): void {
  const quadrant = h & 3;
  const f3 = bits(h, 15, 13);
  const rdp = 8 + bits(h, 4, 2); // rd' / rs2'
  const rs1p = 8 + bits(h, 9, 7);
  const rd = bits(h, 11, 7);
  const rs2 = bits(h, 6, 2);
  const imm6 = ((<i32>(h << 19)) >> 31 << 5) | bits(h, 6, 2); // sign-extended [12|6:2]
  if (quadrant == 0) {
    if (f3 == 0) {
      const nz = (bits(h, 12, 11) << 4) | (bits(h, 10, 7) << 6) | (bits(h, 6, 6) << 2) | (bits(h, 5, 5) << 3);
      if (nz == 0) { illegal(e, 2); return; } // includes the all-zero word
      put(e, O.OP_ADDI, rdp, 2, 0, nz, 0, 2, R1);
      return;
    }
    const off = (bits(h, 12, 10) << 3) | (bits(h, 6, 6) << 2) | (bits(h, 5, 5) << 6);
    if (f3 == 2) { put(e, O.OP_LW, rdp, rs1p, 0, off, 0, 2, R1); return; }
    if (f3 == 6) { put(e, O.OP_SW, 0, rs1p, rdp, off, 0, 2, R1 | R2); return; }
    illegal(e, 2);
    return;
  }
  if (quadrant == 1) {
    switch (f3) {
      case 0: put(e, O.OP_ADDI, rd, rd, 0, imm6, 0, 2, R1); return;
      case 1: case 5: {
        const off = ((<i32>(h << 19)) >> 31 << 11) | (bits(h, 11, 11) << 4) | (bits(h, 10, 9) << 8) | (bits(h, 8, 8) << 10)
          | (bits(h, 7, 7) << 6) | (bits(h, 6, 6) << 7) | (bits(h, 5, 3) << 1) | (bits(h, 2, 2) << 5);
        put(e, O.OP_JAL, f3 == 1 ? 1 : 0, 0, 0, off, 0, 2, 0);
        return;
      }
      case 2: put(e, O.OP_ADDI, rd, 0, 0, imm6, 0, 2, 0); return;
      case 3: {
        if (rd == 2) {
          const nz = ((<i32>(h << 19)) >> 31 << 9) | (bits(h, 6, 6) << 4) | (bits(h, 5, 5) << 6) | (bits(h, 4, 3) << 7) | (bits(h, 2, 2) << 5);
          if (nz == 0) break;
          put(e, O.OP_ADDI, 2, 2, 0, nz, 0, 2, R1);
          return;
        }
        if (imm6 == 0) break;
        put(e, O.OP_LUI, rd, 0, 0, imm6 << 12, 0, 2, 0);
        return;
      }
      case 4: {
        const f2 = bits(h, 11, 10);
        if (f2 < 2) {
          if (bits(h, 12, 12) != 0) break; // shamt[5] must be 0 on RV32
          put(e, f2 == 0 ? O.OP_SRLI : O.OP_SRAI, rs1p, rs1p, 0, rs2, 0, 2, R1);
          return;
        }
        if (f2 == 2) { put(e, O.OP_ANDI, rs1p, rs1p, 0, imm6, 0, 2, R1); return; }
        if (bits(h, 12, 12) != 0) break; // subw/addw are RV64
        const sub = bits(h, 6, 5);
        const op = sub == 0 ? O.OP_SUB : sub == 1 ? O.OP_XOR : sub == 2 ? O.OP_OR : O.OP_AND;
        put(e, op, rs1p, rs1p, rdp, 0, 0, 2, R1 | R2);
        return;
      }
      case 6: case 7: {
        const off = ((<i32>(h << 19)) >> 31 << 8) | (bits(h, 11, 10) << 3) | (bits(h, 6, 5) << 6) | (bits(h, 4, 3) << 1) | (bits(h, 2, 2) << 5);
        put(e, f3 == 6 ? O.OP_BEQ : O.OP_BNE, 0, rs1p, 0, off, 0, 2, R1 | R2);
        return;
      }
    }
    illegal(e, 2);
    return;
  }
  if (quadrant == 2) {
    switch (f3) {
      case 0:
        if (bits(h, 12, 12) != 0) break;
        put(e, O.OP_SLLI, rd, rd, 0, rs2, 0, 2, R1);
        return;
      case 2: {
        if (rd == 0) break;
        const off = (bits(h, 12, 12) << 5) | (bits(h, 6, 4) << 2) | (bits(h, 3, 2) << 6);
        put(e, O.OP_LW, rd, 2, 0, off, 0, 2, R1);
        return;
      }
      case 4: {
        const b12 = bits(h, 12, 12);
        if (b12 == 0) {
          if (rs2 == 0) {
            if (rd == 0) break;
            put(e, O.OP_JALR, 0, rd, 0, 0, 0, 2, R1); // c.jr
          } else {
            put(e, O.OP_ADD, rd, 0, rs2, 0, 0, 2, R1 | R2); // c.mv
          }
          return;
        }
        if (rs2 == 0) {
          if (rd == 0) { put(e, O.OP_EBREAK, 0, 0, 0, 0, 0, 2, 0); return; }
          put(e, O.OP_JALR, 1, rd, 0, 0, 0, 2, R1); // c.jalr
          return;
        }
        put(e, O.OP_ADD, rd, rd, rs2, 0, 0, 2, R1 | R2);
        return;
      }
      case 6: {
        const off = (bits(h, 12, 9) << 2) | (bits(h, 8, 7) << 6);
        put(e, O.OP_SW, 0, 2, rs2, off, 0, 2, R1 | R2);
        return;
      }
    }
    illegal(e, 2);
  }
}
