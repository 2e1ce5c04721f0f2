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
   fg_load4(p) / fg_store4(p, v): four bytes at p as one word, in memory order (little-endian lanes); p may be unaligned
   (CV32E40P splits a misaligned word access in two; the portable form goes through memcpy). */
#ifndef FIRMGEN_SIMD_H
#define FIRMGEN_SIMD_H
#include <stdint.h>
#include <string.h>

#if defined(FG_TARGET_PULP) || defined(FG_XPULP)
static inline uint32_t fg_load4(const void *p) { return *(const uint32_t *)p; }
static inline void fg_store4(void *p, uint32_t v) { *(uint32_t *)p = v; }
#else
static inline uint32_t fg_load4(const void *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline void fg_store4(void *p, uint32_t v) { memcpy(p, &v, 4); }
#endif

/* fg_load4u(p) / fg_store4u(p, v): fg_load4 / fg_store4 where p may be off a word and the compiler can tell (a constant
   offset into a buffer of words: the depthwise plane path's rows, conv.c `plane`; the conv gather's columns). There gcc, for a core it takes to
   have slow misaligned accesses, builds the word from four byte loads, shifts and ors (10 instructions where
   CV32E40P's one lw takes 2 cycles: a 3x3 map's depthwise layer spent a sixth of its cycles so). On the cores with
   XpulpV2 one lw / sw as an asm statement, the address folded by the "m" operand; elsewhere fg_load4 / fg_store4. */
#if defined(FG_TARGET_PULP) || defined(FG_XPULP)
static inline __attribute__((always_inline)) uint32_t fg_load4u(const void *p) {
  uint32_t v;
  __asm__("lw %0, %1" : "=r"(v) : "m"(*(const uint32_t *)p));
  return v;
}
static inline __attribute__((always_inline)) void fg_store4u(void *p, uint32_t v) {
  __asm__("sw %1, %0" : "=m"(*(uint32_t *)p) : "r"(v));
}
#else
#define fg_load4u fg_load4
#define fg_store4u fg_store4
#endif

/* fg_transpose4(w0..w3): four words read as a 4x4 byte matrix (byte j of word i) transposed in place (byte i of word
   j): four rows k..k+3 of a B contiguous in n become four columns' words of k..k+3, the operand of a dot product
   along k. Masks and shifts only (24 ALU instructions), the same on every build. */
static inline void fg_transpose4(uint32_t *w0, uint32_t *w1, uint32_t *w2, uint32_t *w3) {
  const uint32_t lo01 = (*w0 & 0x00ff00ffu) | ((*w1 & 0x00ff00ffu) << 8); /* w0.0 w1.0 w0.2 w1.2 */
  const uint32_t hi01 = ((*w0 >> 8) & 0x00ff00ffu) | (*w1 & 0xff00ff00u); /* w0.1 w1.1 w0.3 w1.3 */
  const uint32_t lo23 = (*w2 & 0x00ff00ffu) | ((*w3 & 0x00ff00ffu) << 8);
  const uint32_t hi23 = ((*w2 >> 8) & 0x00ff00ffu) | (*w3 & 0xff00ff00u);
  *w0 = (lo01 & 0xffffu) | (lo23 << 16);
  *w1 = (hi01 & 0xffffu) | (hi23 << 16);
  *w2 = (lo01 >> 16) | (lo23 & 0xffff0000u);
  *w3 = (hi01 >> 16) | (hi23 & 0xffff0000u);
}

/* fg_zero(p, bytes): `bytes` zero bytes from p. On the cluster builds a word per store once p is aligned: a loop of
   element stores would become a call to the C library's memset, which picolibc's rv32 build (the ISS's) runs a byte
   at a time, 3 cycles per byte on the ISS; the empty asm statements keep the compiler from making that call. */
#if defined(FG_TARGET_PULP) || defined(FG_XPULP)
static inline void fg_zero(void *p, int32_t bytes) {
  uint8_t *b = (uint8_t *)p;
  for (; bytes > 0 && ((uintptr_t)b & 3u) != 0; bytes--) {
    *b++ = 0;
    __asm__ volatile("" : : "r"(b) : "memory");
  }
#if defined(FG_XPULP)
  /* Four words a pass of a hardware loop, each a post-increment store of x0 (p.sw): a cycle a word where gcc's loop
     took four (a 280-byte depthwise band buffer, zeroed at every call on every core, ~300 cycles a call). */
  const int32_t quads = bytes >> 4;
  if (quads > 0) {
    __asm__ volatile(".option push\n.option norvc\n.option norelax\n"
      ".insn i 0x7b, 4, x0, %[n], 8\n"
      ".insn s 0x2b, 2, x0, 4(%[b])\n"
      ".insn s 0x2b, 2, x0, 4(%[b])\n"
      ".insn s 0x2b, 2, x0, 4(%[b])\n"
      ".insn s 0x2b, 2, x0, 4(%[b])\n"
      ".option pop\n"
      : [b] "+r"(b)
      : [n] "r"(quads)
      : "memory");
    bytes -= quads << 4;
  }
#endif
  for (; bytes >= 4; bytes -= 4, b += 4) {
    fg_store4(b, 0);
    __asm__ volatile("" : : "r"(b) : "memory");
  }
  for (; bytes > 0; bytes--) {
    *b++ = 0;
    __asm__ volatile("" : : "r"(b) : "memory");
  }
}
#else
static inline void fg_zero(void *p, int32_t bytes) {
  if (bytes > 0) memset(p, 0, (size_t)bytes);
}
#endif

/* fg_mulsplit(v, m, c) = (v >> 16) * m + (((v & 0xffff) * m + c) >> 16): a product past int32 split at bit 16, as the
   requantization emitter writes it where each step fits int32 (backend/expr.ts splitRequantExpr). On the XpulpV2
   build the low half word by p.extractu (bits 0..15) and the high half's product added by p.mac (rD += rs1 * rs2, one
   cycle; CV32E40P manual): 6 instructions where gcc's shifts, subtraction and adds took 8. */
#if defined(FG_XPULP)
static inline __attribute__((always_inline)) int32_t fg_mulsplit(int32_t v, int32_t m, int32_t c) {
  int32_t hi, lo;
  __asm__(".insn r 0x33, 1, 0x6f, %[lo], %[v], x0\n"
          "srai %[hi], %[v], 16\n"
          "mul %[lo], %[lo], %[m]\n"
          "add %[lo], %[lo], %[c]\n"
          "srai %[lo], %[lo], 16\n"
          ".insn r 0x33, 0, 0x21, %[lo], %[hi], %[m]\n"
          : [hi] "=&r"(hi), [lo] "=&r"(lo)
          : [v] "r"(v), [m] "r"(m), [c] "r"(c));
  return lo;
}
#else
static inline int32_t fg_mulsplit(int32_t v, int32_t m, int32_t c) {
  const int32_t ah = v >> 16;
  return ah * m + (((v - ah * 65536) * m + c) >> 16);
}
#endif

/* fg_copy_row(d, s, bytes): `bytes` bytes from s to d, a word per load and store (either off a word costs a cycle more
   on CV32E40P; the plane path aligns its rows for its window words, kernels/dw-plane.ts), the last one to three bytes
   alone. On the XpulpV2 build two words a pass of a
   hardware loop with post-increment loads and stores (p.lw, p.sw; a hardware loop's body is at least 3 instructions,
   CV32E40P manual): 6 cycles for 8 bytes where gcc's loop took 16. Elsewhere the empty asm statements keep the compiler
   from making the loop a call to memcpy (picolibc's rv32 build copies a byte at a time). */
static inline __attribute__((always_inline)) void fg_copy_row(void *d, const void *s, int32_t bytes) {
  uint8_t *o = (uint8_t *)d;
  const uint8_t *i = (const uint8_t *)s;
#if defined(FG_XPULP)
  const int32_t pairs = bytes >> 3;
  if (pairs > 0) {
    uint32_t t0, t1;
    __asm__ volatile(".option push\n.option norvc\n.option norelax\n"
      ".insn i 0x7b, 4, x0, %[n], 8\n"
      ".insn i 0x0b, 2, %[t0], 4(%[i])\n"
      ".insn i 0x0b, 2, %[t1], 4(%[i])\n"
      ".insn s 0x2b, 2, %[t0], 4(%[o])\n"
      ".insn s 0x2b, 2, %[t1], 4(%[o])\n"
      ".option pop\n"
      : [i] "+r"(i), [o] "+r"(o), [t0] "=&r"(t0), [t1] "=&r"(t1)
      : [n] "r"(pairs)
      : "memory");
    bytes -= pairs << 3;
  }
#endif
  for (; bytes >= 4; bytes -= 4, o += 4, i += 4) {
    fg_store4u(o, fg_load4u(i));
    __asm__ volatile("" : : "r"(o) : "memory");
  }
  /* The last one to three bytes straight (the plane path's rows are literals, so gcc unrolls it whole): as a loop each
     byte took ~7 cycles (load, store, two increments, the taken branch), a 3-byte row of MobileNetV1's 3x3 depthwise
     layer 22 of its band fill's ~30 (ISS, --hotspots). */
#pragma GCC unroll 3
  for (; bytes > 0; bytes--) {
    *o++ = *i++;
    __asm__ volatile("" : : "r"(o) : "memory");
  }
}

/* fg_filter_words(wf, w, kh, kw): the kh filter rows of kw <= 4 bytes at w as words, row ky's tap kx in byte kx (the
   depthwise row and plane paths' filter words, conv.c `rowdot` and `plane`); kh and kw constants, the loops unrolled. */
static inline __attribute__((always_inline)) void fg_filter_words(uint32_t *wf, const void *w, int32_t kh, int32_t kw) {
  const uint8_t *b = (const uint8_t *)w;
#pragma GCC unroll 16
  for (int32_t ky = 0; ky < kh; ky++) {
    uint32_t f = 0;
#pragma GCC unroll 4
    for (int32_t kx = 0; kx < kw; kx++) f |= (uint32_t)b[ky * kw + kx] << (8 * kx);
    wf[ky] = f;
  }
}

/* FG_PAIR_LOOP before a loop over a depthwise row's pixel pairs (conv.c `rowdot`): on a core without packed SIMD the
   loop stays a loop. Unrolled (gcc does it to rows of up to 3 pairs) the portable dot products spill registers: a
   16-channel stride-2 depthwise layer at 8x8 on generic, 30,788 -> 25,174 ISS cycles, and the cost of a pair stays one
   figure (docs/timing.md, "The depthwise row path"). With XpulpV2 the interior pairs are a hardware loop and the edge
   loops are left to the compiler: the same pragma there sped Siracusa's stride-2 layers up by 10-24 % (MobileNetV1's
   Conv_46 11,212 -> 8,472 ISS cycles), but its refit moved CALL and put four small layers past 10 % of the ISS (left). */
#if defined(FG_TARGET_PULP) || defined(FG_XPULP)
#define FG_PAIR_LOOP
#else
#define FG_PAIR_LOOP _Pragma("GCC unroll 1")
#endif

/* Reading four bytes of a row of w >= 4 bytes from column x (-4 < x < w) as one word, byte i holding column x + i
   and zero where x + i lies outside the row (the padding of a window): the word is read inside the row, from the
   nearest start q in [0, w - 4], and shifted by the distance from q to x. fg_row_at(x, w) works out where once (a
   window's columns are the same in every row), fg_row_word(row, at) reads one row. The conv kernels' gather and
   depthwise rows take a window row of up to 3 taps, or a pixel pair's 4 bytes, this way (docs/kernels-c.md). */
typedef struct {
  int32_t q, up, down;
} fg_row_pos;
static inline fg_row_pos fg_row_at(int32_t x, int32_t w) {
  const int32_t q = x < 0 ? 0 : x > w - 4 ? w - 4 : x;
  const fg_row_pos p = {q, x < q ? 8 * (q - x) : 0, x > q ? 8 * (x - q) : 0};
  return p;
}
static inline uint32_t fg_row_word(const void *row, fg_row_pos at) {
  return (fg_load4((const uint8_t *)row + at.q) << at.up) >> at.down;
}

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
/* fg_max4_s / fg_max4_u(x, y): the lane-wise maximum of four int8 / uint8 lanes (pv.max.b / pv.maxu.b: funct5 6 / 7,
   CV32E40P user manual, "Packed SIMD" table). */
#if defined(FG_TARGET_PULP)
static inline uint32_t fg_max4_s(uint32_t x, uint32_t y) {
  fg_v4s r = __builtin_pulp_max4(*(fg_v4s *)&x, *(fg_v4s *)&y);
  return *(uint32_t *)&r;
}
static inline uint32_t fg_max4_u(uint32_t x, uint32_t y) {
  fg_v4u r = __builtin_pulp_maxu4(*(fg_v4u *)&x, *(fg_v4u *)&y);
  return *(uint32_t *)&r;
}
#elif defined(FG_XPULP)
static inline uint32_t fg_max4_s(uint32_t x, uint32_t y) {
  uint32_t r;
  __asm__(".insn r 0x57, 1, 0x18, %0, %1, %2" : "=r"(r) : "r"(x), "r"(y)); /* pv.max.b */
  return r;
}
static inline uint32_t fg_max4_u(uint32_t x, uint32_t y) {
  uint32_t r;
  __asm__(".insn r 0x57, 1, 0x1c, %0, %1, %2" : "=r"(r) : "r"(x), "r"(y)); /* pv.maxu.b */
  return r;
}
#else
/* Portable: the four lanes at once in 32-bit words (SWAR), without a branch. A per-lane `a > b ? a : b` compiles to a
   compare and a branch on rv32imc (no max instruction without Zbb): its cycles then follow the data (a 2x2 max pool
   32x16x16 on generic: 170,160 ISS cycles on random bytes, 144,128 on a CNN's activations), which no cost table can
   know. fg_ge4_u marks (bit 7 of each lane) the lanes where x >= y as unsigned bytes: bit 7 of
   (x | 0x80..) - (y & 0x7f..) compares the low seven bits (each lane's difference stays in 1..255: no borrow crosses
   lanes), and the top bits decide where they differ. */
static inline uint32_t fg_ge4_u(uint32_t x, uint32_t y) {
  const uint32_t low = ((x | 0x80808080u) - (y & 0x7f7f7f7fu));
  return ((x & ~y) | (~(x ^ y) & low)) & 0x80808080u;
}
/* The lanes of x where `ge` marks them, else y's: bit 7 of a lane spread over its byte ((ge << 1) - (ge >> 7) sets
   bits 0..7 of each marked lane; the top lane's carry leaves the word). */
static inline uint32_t fg_select4(uint32_t ge, uint32_t x, uint32_t y) {
  const uint32_t mask = (ge << 1) - (ge >> 7);
  return (x & mask) | (y & ~mask);
}
/* Signed lanes compare as unsigned once their sign bits are flipped (int8 -128..127 -> 0..255, order kept). */
static inline uint32_t fg_max4_s(uint32_t x, uint32_t y) {
  return fg_select4(fg_ge4_u(x ^ 0x80808080u, y ^ 0x80808080u), x, y);
}
static inline uint32_t fg_max4_u(uint32_t x, uint32_t y) { return fg_select4(fg_ge4_u(x, y), x, y); }
#endif

/* fg_load2(p): two bytes at p as the low half of a word, in memory order (p may be odd). fg_pair_cols(h0..h3, c0, c1):
   four channels' pixel pairs (h_i: pixel 0 in byte 0, pixel 1 in byte 1, zero above) as the two pixels' words of
   four channel bytes, c0 = (h0.b0, h1.b0, h2.b0, h3.b0) and c1 the same of byte 1: a 1x1 conv's im2col columns
   (conv.c `pointwise`). XpulpV2: pv.packlo.b / pv.packhi.b (funct5 0x1c / 0x1b, byte lanes: funct7 0x70 / 0x6c;
   CV32E40P user manual, "Packed SIMD"), which write one half of rd each. */
#if defined(FG_TARGET_PULP) || defined(FG_XPULP)
static inline uint32_t fg_load2(const void *p) { return *(const uint16_t *)p; }
static inline void fg_pair_cols(uint32_t h0, uint32_t h1, uint32_t h2, uint32_t h3, uint32_t *c0, uint32_t *c1) {
  uint32_t a = h0, b = h1;
  __asm__(".insn r 0x57, 1, 0x70, %0, %1, %2" : "+r"(a) : "r"(h1), "r"(h0)); /* pv.packlo.b: h1.b0 h0.b0 */
  __asm__(".insn r 0x57, 1, 0x6c, %0, %1, %2" : "+r"(a) : "r"(h3), "r"(h2)); /* pv.packhi.b: h3.b0 h2.b0 */
  __asm__(".insn r 0x57, 1, 0x70, %0, %1, %2" : "+r"(b) : "r"(h1 >> 8), "r"(h0 >> 8));
  __asm__(".insn r 0x57, 1, 0x6c, %0, %1, %2" : "+r"(b) : "r"(h3 >> 8), "r"(h2 >> 8));
  *c0 = a;
  *c1 = b;
}
#else
static inline uint32_t fg_load2(const void *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
static inline void fg_pair_cols(uint32_t h0, uint32_t h1, uint32_t h2, uint32_t h3, uint32_t *c0, uint32_t *c1) {
  *c0 = (h0 & 0xffu) | (h1 & 0xffu) << 8 | (h2 & 0xffu) << 16 | h3 << 24;
  *c1 = h0 >> 8 | (h1 & 0xff00u) | (h2 & 0xff00u) << 8 | (h3 & 0xff00u) << 16;
}
#endif

/* Signed activations with unsigned weights: the same products with the operands swapped. */
static inline int32_t fg_dot4_su(int32_t acc, uint32_t x, uint32_t w) { return fg_dot4_us(acc, w, x); }

/* fg_dot4x2_<x><w>(words, x0, x1, w0, ws, acc): the conv kernel's register block, 4 output channels x 2 pixels
   (pulp-nn's 4x2): acc[2 * c + p] += the dot product of `words` words of pixel p's taps (x0, x1) with channel c's
   filter (w0 + c * ws bytes), for c = 0..3. words >= 1 (a misaligned filter word costs the core a second access).
   On the ISS build (FG_XPULP) the loop is a hardware loop of post-increment word loads
   (p.lw rd, 4(rs1!) for the pixels; p.lw rd, rs2(rs1!) walking one pointer down the 4 filters and back) ordered
   so that no loaded value is used by the next instruction, and 8 pv.sdot* (14 instructions, 32 MACs); the board's
   PULP GCC makes the same loop from the C below. Elsewhere, the C below. */
#if defined(FG_XPULP)
/* lp.setup on loop 0 (rd field x0), count in a register, end = halfwords from lp.setup to the body's last
   instruction: opcode 0x7b, funct3 4. The body is 14 uncompressed instructions, so its last one sits 4 + 13 x 4 = 56
   bytes (28 halfwords) after lp.setup (GNU as takes no label difference in .insn). */
#define FG_DOT4X2_ASM(SD, F7)                                                                              \
  __asm__ volatile(".option push\n.option norvc\n.option norelax\n"                                                 \
                   ".insn i 0x7b, 4, x0, %[n], 28\n"                                                  \
                   ".insn i 0x0b, 2, %[xa], 4(%[p0])\n"                                                              \
                   ".insn i 0x0b, 2, %[xb], 4(%[p1])\n"                                                              \
                   ".insn r 0x0b, 7, 0x10, %[f0], %[q], %[ws]\n"                                                              \
                   ".insn r 0x0b, 7, 0x10, %[f1], %[q], %[ws]\n"                                                              \
                   SD(F7, "%[a00]", "%[xa]", "%[f0]")                                               \
                   SD(F7, "%[a01]", "%[xb]", "%[f0]")                                               \
                   ".insn r 0x0b, 7, 0x10, %[f0], %[q], %[ws]\n"                                                              \
                   SD(F7, "%[a10]", "%[xa]", "%[f1]")                                               \
                   SD(F7, "%[a11]", "%[xb]", "%[f1]")                                               \
                   ".insn r 0x0b, 7, 0x10, %[f1], %[q], %[back]\n"                                                              \
                   SD(F7, "%[a20]", "%[xa]", "%[f0]")                                               \
                   SD(F7, "%[a21]", "%[xb]", "%[f0]")                                               \
                   SD(F7, "%[a30]", "%[xa]", "%[f1]")                                               \
                   SD(F7, "%[a31]", "%[xb]", "%[f1]")                                               \
                   ".option pop\n"                                                                                    \
                   : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [a20] "+r"(a20),              \
                     [a21] "+r"(a21), [a30] "+r"(a30), [a31] "+r"(a31), [p0] "+r"(p0), [p1] "+r"(p1), [q] "+r"(q),      \
                     [xa] "=&r"(xa), [xb] "=&r"(xb), [f0] "=&r"(f0),     \
                     [f1] "=&r"(f1)                                                                                    \
                   : [n] "r"(words), [ws] "r"(ws), [back] "r"(4 - 3 * ws)                                              \
                   : "memory")
#define FG_DOT4X2_DEF(NAME, SD, F7)                                                                        \
  static inline __attribute__((always_inline)) void NAME(int32_t words, const void *x0, const void *x1, const void *w0, int32_t ws, int32_t *acc) {  \
    const uint8_t *p0 = (const uint8_t *)x0, *p1 = (const uint8_t *)x1;                                              \
    const uint8_t *q = (const uint8_t *)w0;                                                                            \
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3], a20 = acc[4], a21 = acc[5], a30 = acc[6],       \
            a31 = acc[7];                                                                                              \
    uint32_t xa, xb, f0, f1;                                                                                           \
    FG_DOT4X2_ASM(SD, F7);                                                                                 \
    acc[0] = a00; acc[1] = a01; acc[2] = a10; acc[3] = a11; acc[4] = a20; acc[5] = a21; acc[6] = a30; acc[7] = a31;  \
  }
/* One dot product line: accumulator, activation word, filter word; the swapped form for signed activations with
   unsigned weights (pv.sdotusp.b takes its unsigned operand in rs1). */
#define FG_SD(F7, A, X, F) ".insn r 0x57, 1, " F7 ", " A ", " X ", " F "\n"
#define FG_SD_SWAP(F7, A, X, F) ".insn r 0x57, 1, " F7 ", " A ", " F ", " X "\n"
FG_DOT4X2_DEF(fg_dot4x2_ss, FG_SD, "0x5c")
FG_DOT4X2_DEF(fg_dot4x2_us, FG_SD, "0x54")
FG_DOT4X2_DEF(fg_dot4x2_uu, FG_SD, "0x50")
FG_DOT4X2_DEF(fg_dot4x2_su, FG_SD_SWAP, "0x54")
#elif defined(FG_TARGET_PULP)
/* Accumulators in registers and one pointer per filter, so that a compiler without the XpulpV2 instructions keeps
   the loop to its loads and multiply-adds. Always inlined: gcc called it out of line from the conv (the block's
   accumulators then went through memory, and a call and return per block of 4 channels x 2 pixels). */
#define FG_DOT4X2_DEF(NAME, DOT)                                                                                       \
  static inline __attribute__((always_inline)) void NAME(int32_t words, const void *x0, const void *x1, const void *w0, int32_t ws, int32_t *acc) {  \
    const uint8_t *p0 = (const uint8_t *)x0, *p1 = (const uint8_t *)x1;                                              \
    const uint8_t *q0 = (const uint8_t *)w0, *q1 = q0 + ws, *q2 = q1 + ws, *q3 = q2 + ws;                             \
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3], a20 = acc[4], a21 = acc[5], a30 = acc[6],       \
            a31 = acc[7];                                                                                              \
    for (int32_t i = 0; i < 4 * words; i += 4) {                                                                       \
      const uint32_t xa = fg_load4(p0 + i), xb = fg_load4(p1 + i);                                                     \
      uint32_t f = fg_load4(q0 + i);                                                                                   \
      a00 = DOT(a00, xa, f); a01 = DOT(a01, xb, f);                                                                    \
      f = fg_load4(q1 + i);                                                                                            \
      a10 = DOT(a10, xa, f); a11 = DOT(a11, xb, f);                                                                    \
      f = fg_load4(q2 + i);                                                                                            \
      a20 = DOT(a20, xa, f); a21 = DOT(a21, xb, f);                                                                    \
      f = fg_load4(q3 + i);                                                                                            \
      a30 = DOT(a30, xa, f); a31 = DOT(a31, xb, f);                                                                    \
    }                                                                                                                  \
    acc[0] = a00; acc[1] = a01; acc[2] = a10; acc[3] = a11; acc[4] = a20; acc[5] = a21; acc[6] = a30; acc[7] = a31;  \
  }
FG_DOT4X2_DEF(fg_dot4x2_ss, fg_dot4_ss)
FG_DOT4X2_DEF(fg_dot4x2_us, fg_dot4_us)
FG_DOT4X2_DEF(fg_dot4x2_uu, fg_dot4_uu)
FG_DOT4X2_DEF(fg_dot4x2_su, fg_dot4_su)
#else
/* A core without packed SIMD (generic, the plain rv32 and ARM builds, the host): byte by byte. Words would each be
   read through memcpy (four byte loads and their shifts on a core that takes no misaligned word) and then split into
   lanes again; byte loads give the same products with 6 loads and 8 multiply-adds per k (generic on the ISS:
   ResNet-8 6.10 -> 3.88 cycles a MAC, docs/kernels-c.md). The same sums in the same order of k: exact as the words.
   A pass takes a word's four k (the pointer increments and the taken branch once per four); the empty asm with a
   memory clobber between them keeps gcc from hoisting all 24 loads of a pass and spilling (ISS: 3.88 -> 3.41 cycles a
   MAC on ResNet-8; unrolled without it, slower than not unrolled). */
#define FG_BYTE_S(p, i) ((int32_t)((const int8_t *)(p))[i])
#define FG_BYTE_U(p, i) ((int32_t)((const uint8_t *)(p))[i])
#define FG_DOT4X2_DEF(NAME, LX, LW)                                                                                    \
  static inline __attribute__((always_inline)) void NAME(int32_t words, const void *x0, const void *x1, const void *w0, int32_t ws, int32_t *acc) {  \
    const uint8_t *q0 = (const uint8_t *)w0, *q1 = q0 + ws, *q2 = q1 + ws, *q3 = q2 + ws;                             \
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3], a20 = acc[4], a21 = acc[5], a30 = acc[6],       \
            a31 = acc[7];                                                                                              \
    const uint8_t *p0 = (const uint8_t *)x0, *p1 = (const uint8_t *)x1;                                             \
    for (int32_t w = 0; w < words; w++, p0 += 4, p1 += 4, q0 += 4, q1 += 4, q2 += 4, q3 += 4) {                     \
      _Pragma("GCC unroll 4") for (int32_t i = 0; i < 4; i++) {                                                        \
        const int32_t xa = LX(p0, i), xb = LX(p1, i);                                                                  \
        const int32_t f0 = LW(q0, i), f1 = LW(q1, i), f2 = LW(q2, i), f3 = LW(q3, i);                                  \
        a00 += xa * f0; a01 += xb * f0; a10 += xa * f1; a11 += xb * f1;                                                \
        a20 += xa * f2; a21 += xb * f2; a30 += xa * f3; a31 += xb * f3;                                                \
        __asm__ volatile("" ::: "memory");                                                                             \
      }                                                                                                                \
    }                                                                                                                  \
    acc[0] = a00; acc[1] = a01; acc[2] = a10; acc[3] = a11; acc[4] = a20; acc[5] = a21; acc[6] = a30; acc[7] = a31;  \
  }
FG_DOT4X2_DEF(fg_dot4x2_ss, FG_BYTE_S, FG_BYTE_S)
FG_DOT4X2_DEF(fg_dot4x2_us, FG_BYTE_U, FG_BYTE_S)
FG_DOT4X2_DEF(fg_dot4x2_uu, FG_BYTE_U, FG_BYTE_U)
FG_DOT4X2_DEF(fg_dot4x2_su, FG_BYTE_S, FG_BYTE_U)
#endif

/* fg_dot1x2_<x><w>(words, x0, x1, w, acc): one filter (or B row) against two pixels (or A rows), the column the 4x2
   block leaves over: acc[p] += the dot product of `words` words of x_p with w, p = 0, 1. words >= 1. On the ISS
   build a hardware loop of three post-increment word loads (the filter first, so that neither dot product waits for
   its load) and two pv.sdot*: 5 instructions per 8 MACs, where the loop in C takes 12 and a taken branch. */
#if defined(FG_XPULP)
/* The body is 5 uncompressed instructions: its last sits 4 + 4 x 4 = 20 bytes (10 halfwords) after lp.setup. */
#define FG_DOT1X2_DEF(NAME, SD, F7)                                                                        \
  static inline __attribute__((always_inline)) void NAME(int32_t words, const void *x0, const void *x1, const void *w, int32_t *acc) {           \
    const uint8_t *p0 = (const uint8_t *)x0, *p1 = (const uint8_t *)x1, *q = (const uint8_t *)w;                  \
    int32_t a0 = acc[0], a1 = acc[1];                                                                                \
    uint32_t xa, xb, f;                                                                                              \
    __asm__ volatile(".option push\n.option norvc\n.option norelax\n"                                               \
                     ".insn i 0x7b, 4, x0, %[n], 10\n"                                                              \
                     ".insn i 0x0b, 2, %[f], 4(%[q])\n"                                                             \
                     ".insn i 0x0b, 2, %[xa], 4(%[p0])\n"                                                           \
                     ".insn i 0x0b, 2, %[xb], 4(%[p1])\n"                                                           \
                     SD(F7, "%[a0]", "%[xa]", "%[f]")                                                                \
                     SD(F7, "%[a1]", "%[xb]", "%[f]")                                                                \
                     ".option pop\n"                                                                                \
                     : [a0] "+r"(a0), [a1] "+r"(a1), [p0] "+r"(p0), [p1] "+r"(p1), [q] "+r"(q), [xa] "=&r"(xa),    \
                       [xb] "=&r"(xb), [f] "=&r"(f)                                                                  \
                     : [n] "r"(words)                                                                                \
                     : "memory");                                                                                    \
    acc[0] = a0; acc[1] = a1;                                                                                        \
  }
FG_DOT1X2_DEF(fg_dot1x2_ss, FG_SD, "0x5c")
FG_DOT1X2_DEF(fg_dot1x2_us, FG_SD, "0x54")
FG_DOT1X2_DEF(fg_dot1x2_uu, FG_SD, "0x50")
FG_DOT1X2_DEF(fg_dot1x2_su, FG_SD_SWAP, "0x54")
#elif defined(FG_TARGET_PULP)
#define FG_DOT1X2_DEF(NAME, DOT)                                                                                       \
  static inline __attribute__((always_inline)) void NAME(int32_t words, const void *x0, const void *x1, const void *w, int32_t *acc) {           \
    const uint8_t *p0 = (const uint8_t *)x0, *p1 = (const uint8_t *)x1, *q = (const uint8_t *)w;                  \
    int32_t a0 = acc[0], a1 = acc[1];                                                                                \
    for (int32_t i = 0; i < 4 * words; i += 4) {                                                                       \
      const uint32_t f = fg_load4(q + i);                                                                              \
      a0 = DOT(a0, fg_load4(p0 + i), f);                                                                               \
      a1 = DOT(a1, fg_load4(p1 + i), f);                                                                               \
    }                                                                                                                  \
    acc[0] = a0; acc[1] = a1;                                                                                          \
  }
FG_DOT1X2_DEF(fg_dot1x2_ss, fg_dot4_ss)
FG_DOT1X2_DEF(fg_dot1x2_us, fg_dot4_us)
FG_DOT1X2_DEF(fg_dot1x2_uu, fg_dot4_uu)
FG_DOT1X2_DEF(fg_dot1x2_su, fg_dot4_su)
#else
/* Byte by byte, as fg_dot4x2's portable form (3 loads and 2 multiply-adds per k). */
#define FG_DOT1X2_DEF(NAME, LX, LW)                                                                                    \
  static inline __attribute__((always_inline)) void NAME(int32_t words, const void *x0, const void *x1, const void *w, int32_t *acc) {           \
    int32_t a0 = acc[0], a1 = acc[1];                                                                                \
    const uint8_t *p0 = (const uint8_t *)x0, *p1 = (const uint8_t *)x1, *q = (const uint8_t *)w;                    \
    for (int32_t n = 0; n < words; n++, p0 += 4, p1 += 4, q += 4) {                                                  \
      _Pragma("GCC unroll 4") for (int32_t i = 0; i < 4; i++) {                                                        \
        const int32_t f = LW(q, i);                                                                                    \
        a0 += LX(p0, i) * f;                                                                                           \
        a1 += LX(p1, i) * f;                                                                                           \
      }                                                                                                                \
    }                                                                                                                  \
    acc[0] = a0; acc[1] = a1;                                                                                          \
  }
FG_DOT1X2_DEF(fg_dot1x2_ss, FG_BYTE_S, FG_BYTE_S)
FG_DOT1X2_DEF(fg_dot1x2_us, FG_BYTE_U, FG_BYTE_S)
FG_DOT1X2_DEF(fg_dot1x2_uu, FG_BYTE_U, FG_BYTE_U)
FG_DOT1X2_DEF(fg_dot1x2_su, FG_BYTE_S, FG_BYTE_U)
#endif

/* fg_cols2(words, b, stride, d0, d1): two adjacent byte columns of a matrix whose rows lie `stride` bytes apart, from
   b down 4 x words rows, copied out as rows: d0[i] = b[i * stride], d1[i] = b[i * stride + 1]. d0 and d1 word-aligned;
   words >= 1. The GEMM's transposed-B path (gemm.c `kdot.runs`): B contiguous in n becomes the k-contiguous operand of
   the 1x2 loop and the 4x2 block. Per 4 rows four half-word loads, the columns' two words packed from them
   (fg_pair_cols), two word stores. On the ISS build a hardware loop of 14 instructions: p.lhu rd, rs2(rs1!) walks
   the rows (opcode 0x0b, funct3 7, funct7 0x28), p.sw rs2, 4(rs1!) stores (opcode 0x2b, funct3 2), pv.packlo.b /
   pv.packhi.b build the words (CV32E40P user manual, "Post-Increment Load/Store", "Packed SIMD"); no loaded value
   is used by the next instruction. */
#if defined(FG_XPULP)
static inline void fg_cols2(int32_t words, const void *b, int32_t stride, void *d0, void *d1) {
  const uint8_t *p = (const uint8_t *)b;
  uint8_t *q0 = (uint8_t *)d0, *q1 = (uint8_t *)d1;
  uint32_t h0, h1, h2, h3, c0, c1;
  /* 14 uncompressed instructions: the last sits 4 + 13 x 4 = 56 bytes (28 halfwords) after lp.setup. */
  __asm__ volatile(".option push\n.option norvc\n.option norelax\n"
                   ".insn i 0x7b, 4, x0, %[n], 28\n"
                   ".insn r 0x0b, 7, 0x28, %[h0], %[p], %[s]\n"
                   ".insn r 0x0b, 7, 0x28, %[h1], %[p], %[s]\n"
                   ".insn r 0x0b, 7, 0x28, %[h2], %[p], %[s]\n"
                   ".insn r 0x0b, 7, 0x28, %[h3], %[p], %[s]\n"
                   ".insn r 0x57, 1, 0x70, %[c0], %[h1], %[h0]\n"
                   "srli %[h0], %[h0], 8\n"
                   "srli %[h1], %[h1], 8\n"
                   ".insn r 0x57, 1, 0x6c, %[c0], %[h3], %[h2]\n"
                   "srli %[h2], %[h2], 8\n"
                   "srli %[h3], %[h3], 8\n"
                   ".insn r 0x57, 1, 0x70, %[c1], %[h1], %[h0]\n"
                   ".insn r 0x57, 1, 0x6c, %[c1], %[h3], %[h2]\n"
                   ".insn s 0x2b, 2, %[c0], 4(%[q0])\n"
                   ".insn s 0x2b, 2, %[c1], 4(%[q1])\n"
                   ".option pop\n"
                   : [p] "+r"(p), [q0] "+r"(q0), [q1] "+r"(q1), [h0] "=&r"(h0), [h1] "=&r"(h1), [h2] "=&r"(h2),
                     [h3] "=&r"(h3), [c0] "=&r"(c0), [c1] "=&r"(c1)
                   : [n] "r"(words), [s] "r"(stride)
                   : "memory");
}
#else
static inline void fg_cols2(int32_t words, const void *b, int32_t stride, void *d0, void *d1) {
  const uint8_t *p = (const uint8_t *)b;
  uint8_t *q0 = (uint8_t *)d0, *q1 = (uint8_t *)d1;
  for (int32_t i = 0; i < words; i++, p += 4 * stride, q0 += 4, q1 += 4) {
    uint32_t c0, c1;
    fg_pair_cols(fg_load2(p), fg_load2(p + stride), fg_load2(p + 2 * stride), fg_load2(p + 3 * stride), &c0, &c1);
    fg_store4(q0, c0);
    fg_store4(q1, c1);
  }
}
#endif

/* fg_max(a, b): the larger of two int32. XpulpV2: p.max (opcode 0x33, funct7 2, funct3 6: CV32E40P user manual,
   "ALU" table); the PULP compiler emits it for the plain expression; portable C without a branch (a compare and a
   branch on rv32imc would make a max pool's cycles follow its data, which no cost table can know). */
#if defined(FG_XPULP)
static inline __attribute__((always_inline)) int32_t fg_max(int32_t a, int32_t b) {
  int32_t r;
  __asm__(".insn r 0x33, 6, 0x02, %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); /* p.max */
  return r;
}
#elif defined(FG_TARGET_PULP)
static inline int32_t fg_max(int32_t a, int32_t b) { return a > b ? a : b; }
#else
static inline int32_t fg_max(int32_t a, int32_t b) { return b ^ ((a ^ b) & -(int32_t)(a > b)); }
#endif

/* FG_CLIP(x, lo, hi): x clamped to [lo, hi] (int32; generated code passes literal bounds). On the XpulpV2 build the
   int8, uint8, int16 and uint16 ranges take one p.clip / p.clipu (CV32E40P manual: p.clip rD, rs1, Is2 clamps to
   [-2^(Is2-1), 2^(Is2-1) - 1], p.clipu to [0, 2^(Is2-1) - 1]; the encoding holds Is2 - 1), as pulp-nn's clip8 does;
   otherwise two compares. */
#if defined(FG_XPULP)
#define FG_CLIP_INSN(F3, FIELD, x)                                                                                     \
  ({                                                                                                                   \
    int32_t r_;                                                                                                        \
    __asm__(".insn r 0x33, " #F3 ", 0x0a, %0, %1, x" #FIELD : "=r"(r_) : "r"(x));                                      \
    r_;                                                                                                                \
  })
static inline __attribute__((always_inline)) int32_t fg_clip(int32_t x, int32_t lo, int32_t hi) {
  if (__builtin_constant_p(lo) && __builtin_constant_p(hi)) {
    if (lo == -128 && hi == 127) return FG_CLIP_INSN(1, 7, x);
    if (lo == 0 && hi == 255) return FG_CLIP_INSN(2, 8, x);
    if (lo == -32768 && hi == 32767) return FG_CLIP_INSN(1, 15, x);
    if (lo == 0 && hi == 65535) return FG_CLIP_INSN(2, 16, x);
  }
  return x < lo ? lo : x > hi ? hi : x;
}
#else
/* One unsigned compare tells in-range from out-of-range, and the in-range value (the common case of a calibrated
   requantization) falls through: on a core without a branch predictor a taken branch costs 2 cycles more than one
   not taken (CV32E40P manual, instruction timing), and the two-sided test compiled to a taken branch per value. */
static inline int32_t fg_clip(int32_t x, int32_t lo, int32_t hi) {
  if (__builtin_expect((uint32_t)x - (uint32_t)lo > (uint32_t)hi - (uint32_t)lo, 0)) return x < lo ? lo : hi;
  return x;
}
#endif
#define FG_CLIP(x, lo, hi) fg_clip((x), (lo), (hi))

/* FG_NEXT(F3, p, s): the element at p, then p moved on by s elements; FG_PUT(F3, q, v, s): v stored at q, then q moved
   on by s elements (the elementwise loops' streamed operands and output, elementwise.c.mustache). F3 is the load's or
   store's width code (lb 0, lh 1, lw 2, lbu 4, lhu 5; sb 0, sh 1, sw 2) and s * the element's size fits a 12-bit
   immediate (the generator checks both, kernels/parts.ts). On the XpulpV2 build one post-increment access each
   (p.lb rD, Imm(rs1!): opcode 0x0b; p.sb rs2, Imm(rs1!): opcode 0x2b; CV32E40P user manual, "Post-Incrementing Load
   & Store Instructions"), where plain rv32 spends an add on each operand's address every element; the board's PULP
   GCC makes the same from the pointer walk below, which every other build compiles as it stands. */
#if defined(FG_XPULP)
#define FG_NEXT(F3, p, s)                                                                                              \
  ({                                                                                                                   \
    int32_t v_;                                                                                                        \
    __asm__(".insn i 0x0b, " #F3 ", %0, %2(%1)" : "=r"(v_), "+r"(p) : "i"((s) * (int32_t)sizeof(*(p))), "m"(*(p))); \
    v_;                                                                                                                \
  })
#define FG_PUT(F3, q, v, s)                                                                                            \
  __asm__ volatile(".insn s 0x2b, " #F3 ", %2, %3(%0)" : "+r"(q), "=m"(*(q)) : "r"(v), "i"((s) * (int32_t)sizeof(*(q))))
#else
#define FG_NEXT(F3, p, s) ((p) += (s), (p)[-(s)])
#define FG_PUT(F3, q, v, s) (*(q) = (v), (q) += (s))
#endif

#endif