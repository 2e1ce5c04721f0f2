/* firmgen SIMD: the int8 dot products of XpulpV2 that the cluster kernels are built on, one definition per build.
   fg_dot4_<x><w>(acc, x, w): acc + the sum of the four products of the bytes of x and w (lane i with lane i), where
   <x><w> says each side's signedness (s int8, u uint8). Every variant computes the same value; a kernel may rely on it
   as long as the generator proved that the accumulator never leaves int32 (it does, per layer).
   - FG_TARGET_PULP (the board, PULP GCC): the toolchain's builtins (pulp-sdk's pulp_nn conventions: v4s/v4u vectors).
     Not compiled here: no PULP toolchain on this machine (TOOLCHAIN.md); written from the builtin signatures.
   - FG_XPULP (the rv32 build that firmgen's RV32 core runs, `gen run --on iss`): the real XpulpV2 encodings as .insn
     directives (opcode 0x57, funct3 1 = byte lanes, vector form; funct7 = funct5 << 2: sdotup 0x14, sdotusp 0x15,
     sdotsp 0x17; CV32E40P user manual, "Packed SIMD" table), so plain binutils assemble them.
   - otherwise (host, qemu rv32imc): portable C.
   fg_load4(p): four bytes at p as one word, in memory order (little-endian lanes); p may be unaligned (CV32E40P splits
   a misaligned word load in two; the portable form goes through memcpy). */
#ifndef FIRMGEN_SIMD_H
#define FIRMGEN_SIMD_H
#include <stdint.h>
#include <string.h>

#if defined(FG_TARGET_PULP) || defined(FG_XPULP)
static inline uint32_t fg_load4(const void *p) { return *(const uint32_t *)p; }
#else
static inline uint32_t fg_load4(const void *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
#endif

#if defined(FG_TARGET_PULP)
typedef signed char fg_v4s __attribute__((vector_size(4)));
typedef unsigned char fg_v4u __attribute__((vector_size(4)));
static inline int32_t fg_dot4_ss(int32_t acc, uint32_t x, uint32_t w) {
  return __builtin_pulp_sdotsp4(*(fg_v4s *)&x, *(fg_v4s *)&w, acc);
}
static inline int32_t fg_dot4_us(int32_t acc, uint32_t x, uint32_t w) {
  return __builtin_pulp_sdotusp4(*(fg_v4u *)&x, *(fg_v4s *)&w, acc);
}
static inline int32_t fg_dot4_uu(int32_t acc, uint32_t x, uint32_t w) {
  return (int32_t)__builtin_pulp_sdotup4(*(fg_v4u *)&x, *(fg_v4u *)&w, (uint32_t)acc);
}
#elif defined(FG_XPULP)
static inline int32_t fg_dot4_ss(int32_t acc, uint32_t x, uint32_t w) {
  __asm__(".insn r 0x57, 1, 0x5c, %0, %1, %2" : "+r"(acc) : "r"(x), "r"(w)); /* pv.sdotsp.b */
  return acc;
}
static inline int32_t fg_dot4_us(int32_t acc, uint32_t x, uint32_t w) {
  __asm__(".insn r 0x57, 1, 0x54, %0, %1, %2" : "+r"(acc) : "r"(x), "r"(w)); /* pv.sdotusp.b: rs1 unsigned */
  return acc;
}
static inline int32_t fg_dot4_uu(int32_t acc, uint32_t x, uint32_t w) {
  __asm__(".insn r 0x57, 1, 0x50, %0, %1, %2" : "+r"(acc) : "r"(x), "r"(w)); /* pv.sdotup.b */
  return acc;
}
#else
#define FG_LANE_S(v, i) ((int32_t)(int8_t)((v) >> (8 * (i))))
#define FG_LANE_U(v, i) ((int32_t)(uint8_t)((v) >> (8 * (i))))
static inline int32_t fg_dot4_ss(int32_t acc, uint32_t x, uint32_t w) {
  return acc + FG_LANE_S(x, 0) * FG_LANE_S(w, 0) + FG_LANE_S(x, 1) * FG_LANE_S(w, 1) + FG_LANE_S(x, 2) * FG_LANE_S(w, 2) +
         FG_LANE_S(x, 3) * FG_LANE_S(w, 3);
}
static inline int32_t fg_dot4_us(int32_t acc, uint32_t x, uint32_t w) {
  return acc + FG_LANE_U(x, 0) * FG_LANE_S(w, 0) + FG_LANE_U(x, 1) * FG_LANE_S(w, 1) + FG_LANE_U(x, 2) * FG_LANE_S(w, 2) +
         FG_LANE_U(x, 3) * FG_LANE_S(w, 3);
}
static inline int32_t fg_dot4_uu(int32_t acc, uint32_t x, uint32_t w) {
  return acc + FG_LANE_U(x, 0) * FG_LANE_U(w, 0) + FG_LANE_U(x, 1) * FG_LANE_U(w, 1) + FG_LANE_U(x, 2) * FG_LANE_U(w, 2) +
         FG_LANE_U(x, 3) * FG_LANE_U(w, 3);
}
#endif
/* Signed activations with unsigned weights: the same products with the operands swapped. */
static inline int32_t fg_dot4_su(int32_t acc, uint32_t x, uint32_t w) { return fg_dot4_us(acc, w, x); }

#endif
