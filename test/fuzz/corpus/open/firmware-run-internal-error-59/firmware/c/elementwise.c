/* The elementwise layer on a worker (AS twin: as/elementwise.ts): the fused expression arrives as stack-machine code
   in the layer's parameters; every value is 64-bit; tiles are rows of the outermost loop, double-buffered.
   Format: generator/platforms/spinnaker2/elementwise.ts and ew-code.ts. */
#include "s2_firmware.h"

#define TILE_BYTES 224u
#define LEAVES 44u
#define LEAF_BYTES 20u
#define CODE (44u + 8u * 20u)
#define MAX_DEPTH 16

enum { LEAF = 1, CONST, ADD, SUB, MUL, TDIV, MIN, MAX, SHR, CLIP, ABS, SIGN, SIGNP, WRAP8 };

typedef struct {
  const uint8_t *base;
  uint32_t type, s[4];
} operand_t;

static int64_t imm64(const uint8_t *code, uint32_t word) {
  return (int64_t)((uint64_t)s2_word(code, 4 * word) | ((uint64_t)s2_word(code, 4 * word + 4) << 32));
}

static int64_t evaluate(const uint8_t *code, uint32_t words, const operand_t *ops, uint32_t i, uint32_t j1, uint32_t j2, uint32_t j3) {
  int64_t st[MAX_DEPTH];
  int sp = 0;
  for (uint32_t pc = 0; pc < words; pc++) {
    const uint32_t w = s2_word(code, 4 * pc), op = w & 0xffu;
    if (op == LEAF) {
      const operand_t *o = &ops[w >> 8];
      const uint32_t idx = i * o->s[0] + j1 * o->s[1] + j2 * o->s[2] + j3 * o->s[3];
      st[sp++] = s2_load(o->type, o->base + idx * s2_type_bytes(o->type), 0);
    } else if (op == CONST) {
      st[sp++] = imm64(code, pc + 1);
      pc += 2;
    } else if (op == SHR) {
      st[sp - 1] >>= (w >> 8);
    } else if (op == CLIP) {
      const int64_t lo = imm64(code, pc + 1), hi = imm64(code, pc + 3), v = st[sp - 1];
      st[sp - 1] = v < lo ? lo : v > hi ? hi : v;
      pc += 4;
    } else if (op >= ABS) {
      const int64_t v = st[sp - 1];
      st[sp - 1] = op == ABS ? (v < 0 ? -v : v) : op == SIGN ? (v > 0) - (v < 0) : op == SIGNP ? (v >= 0 ? 1 : -1) : (int8_t)v;
    } else {
      const int64_t b = st[sp - 1], a = st[sp - 2];
      sp--;
      st[sp - 1] = op == ADD ? a + b : op == SUB ? a - b : op == MUL ? a * b : op == TDIV ? a / b : op == MIN ? (a < b ? a : b) : (a > b ? a : b);
    }
  }
  return st[0];
}

static int fetch(uint8_t *me, const uint8_t *tile) {
  int ticket = -1;
  const uint32_t n = s2_word(tile, 40);
  for (uint32_t k = 0; k < n; k++) {
    const uint8_t *d = tile + 44 + k * DMA_SIZE;
    ticket = hal_dma_in(me + s2_word(d, DMA_SRAM), s2_word(d, DMA_DRAM), s2_word(d, DMA_BYTES), 0, 0);
  }
  return ticket;
}

/* Tile i writes the output slot tile i-2 used: its write-back must be done first. */
static int run_tile(uint8_t *me, const uint8_t *p, const uint8_t *tile, int slot_write_back) {
  operand_t ops[8];
  const uint32_t n = s2_word(p, 0), out_type = s2_word(p, 4), words = s2_word(p, 36);
  const uint32_t d1 = s2_word(p, 8), d2 = s2_word(p, 12), d3 = s2_word(p, 16);
  const uint32_t o0 = s2_word(p, 20), o1 = s2_word(p, 24), o2 = s2_word(p, 28), o3 = s2_word(p, 32);
  for (uint32_t k = 0; k < n && k < 8; k++) {
    const uint8_t *leaf = p + LEAVES + k * LEAF_BYTES;
    ops[k].base = me + s2_word(tile, 8 + 4 * k);
    ops[k].type = s2_word(leaf, 0);
    for (int d = 0; d < 4; d++) ops[k].s[d] = s2_word(leaf, 4 + 4 * (uint32_t)d);
  }
  const uint32_t rows = s2_word(tile, 0), y_bytes = s2_type_bytes(out_type);
  uint8_t *y = me + s2_word(tile, 4);
  s2_wait(slot_write_back);
  for (uint32_t i = 0; i < rows; i++)
    for (uint32_t j1 = 0; j1 < d1; j1++)
      for (uint32_t j2 = 0; j2 < d2; j2++)
        for (uint32_t j3 = 0; j3 < d3; j3++)
          s2_store(out_type, y + (i * o0 + j1 * o1 + j2 * o2 + j3 * o3) * y_bytes, 0, evaluate(p + CODE, words, ops, i, j1, j2, j3));
  const uint8_t *out = tile + 204;
  return hal_dma_out(me + s2_word(out, DMA_SRAM), s2_word(out, DMA_DRAM), s2_word(out, DMA_BYTES), 0, 0);
}

void elementwise_run(uint8_t *me, const uint8_t *p, const uint8_t *block) {
  s2_tile_loop(me, p, block, TILE_BYTES, fetch, run_tile);
}
