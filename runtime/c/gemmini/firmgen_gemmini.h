/* firmgen HAL: Gemmini's RoCC commands (docs/gemmini.md is the contract; the AS twin is runtime/as/gemmini.ts).
   The commands are written once, here, as static inline functions on one primitive, FG_GEMMINI_ROCC(funct, rs1, rs2),
   with the register encodings of gemmini.h's macros (ucb-bar/gemmini-rocc-tests include/gemmini.h: opcode custom-3
   0x7b (XCUSTOM_ACC 3), funct3 3 (rs1 and rs2 read, no rd), funct7 the command's k_* number; gemmini_fence is the
   RISC-V fence, which a Rocket core holds until the accelerator is idle). Each build chooses what it is:
   - FG_GEMMINI_ROCC (the board, rv64 bare metal: `make rv64`): the custom instruction itself (.insn); pointers are
     physical addresses, which is what the commands take.
   - FG_GEMMINI_MODEL (`make host-model`, tests): hal/gemmini/gemmini_model.c runs each command functionally on the
     host's memory (pointers are the "physical" addresses there).
   - neither (`make host`, `make rv32`): no commands; the kernels compute their sums on the core (the templates'
     #else paths), which --on host checks. */
#ifndef FIRMGEN_GEMMINI_H
#define FIRMGEN_GEMMINI_H
#include <stdint.h>

#if defined(FG_GEMMINI_ROCC) || defined(FG_GEMMINI_MODEL)
#define FG_GEMMINI_COMMANDS 1

#if defined(FG_GEMMINI_ROCC)
/* funct must be a literal: it is the instruction's funct7 field. */
#define FG_GEMMINI_ROCC(funct, rs1, rs2) \
  __asm__ volatile(".insn r 0x7b, 3, " #funct ", x0, %0, %1" : : "r"((uint64_t)(rs1)), "r"((uint64_t)(rs2)) : "memory")
#define fg_gemmini_fence() __asm__ volatile("fence" : : : "memory")
#else
void fg_gemmini_model(int funct, uint64_t rs1, uint64_t rs2);
#define FG_GEMMINI_ROCC(funct, rs1, rs2) fg_gemmini_model((funct), (uint64_t)(rs1), (uint64_t)(rs2))
#define fg_gemmini_fence() ((void)0)
#endif

/* Local addresses (docs/gemmini.md "Local addresses"). */
#define FG_GEMMINI_ACC 0x80000000u
#define FG_GEMMINI_ACC_RAW 0x20000000u
/* float32 1.0: the mvin and mvout scales the generated code uses (exact on integers). */
#define FG_GEMMINI_SCALE_ONE 0x3f800000u

static inline uint64_t fg_gemmini_addr(const void *p) { return (uint64_t)(uintptr_t)p; }

static inline uint64_t fg_gemmini_operand(uint32_t addr, uint32_t cols, uint32_t rows) {
  return ((uint64_t)rows << 48) | ((uint64_t)cols << 32) | addr;
}

/* mvin (k_MVIN 2), mvin2 (1), mvin3 (14) by id 0, 1, 2. */
static inline void fg_gemmini_mvin(uint64_t dram, uint32_t local, uint32_t cols, uint32_t rows, int id) {
  const uint64_t op = fg_gemmini_operand(local, cols, rows);
  if (id == 0) FG_GEMMINI_ROCC(2, dram, op);
  else if (id == 1) FG_GEMMINI_ROCC(1, dram, op);
  else FG_GEMMINI_ROCC(14, dram, op);
}

static inline void fg_gemmini_mvout(uint64_t dram, uint32_t local, uint32_t cols, uint32_t rows) {
  FG_GEMMINI_ROCC(3, dram, fg_gemmini_operand(local, cols, rows));
}

/* gemmini_extended3_config_ex (k_CONFIG, rs1[1:0] = 0): dataflow, activation, shift, A and C strides, transposes. */
static inline void fg_gemmini_config_ex(uint32_t dataflow, uint32_t act, uint32_t shift, uint32_t a_stride, uint32_t c_stride,
                                        uint32_t a_transpose, uint32_t b_transpose) {
  const uint64_t rs1 = ((uint64_t)FG_GEMMINI_SCALE_ONE << 32) | ((uint64_t)a_stride << 16) | ((uint64_t)b_transpose << 9) |
                       ((uint64_t)a_transpose << 8) | ((uint64_t)act << 3) | ((uint64_t)dataflow << 2);
  FG_GEMMINI_ROCC(0, rs1, ((uint64_t)c_stride << 48) | shift);
}

/* gemmini_extended4_config_ld (rs1[1:0] = 1): main-memory stride in bytes, int8 rows into the accumulator, block
   stride, mvin state id; scale 1.0. */
static inline void fg_gemmini_config_ld(uint64_t stride, uint32_t shrunk, uint32_t block_stride, uint32_t id) {
  const uint64_t rs1 = ((uint64_t)FG_GEMMINI_SCALE_ONE << 32) | ((uint64_t)block_stride << 16) | ((uint64_t)1 << 8) |
                       ((uint64_t)id << 3) | ((uint64_t)shrunk << 2) | 1;
  FG_GEMMINI_ROCC(0, rs1, stride);
}

/* gemmini_extended_config_st (rs1[1:0] = 2): store stride in bytes, activation, acc_scale 1.0, no pooling. */
static inline void fg_gemmini_config_st(uint32_t stride, uint32_t act) {
  FG_GEMMINI_ROCC(0, ((uint64_t)act << 2) | 2, ((uint64_t)FG_GEMMINI_SCALE_ONE << 32) | stride);
}

/* gemmini_extended2_config_st with max-pooling (docs/gemmini.md "mvout with max-pooling"): store stride in bytes,
   no activation, acc_scale 1.0; pool stride, size, output row pitch in pixels, pooled rows and columns, the image's
   rows and columns, upper and left padding. */
static inline void fg_gemmini_config_st_pool(uint32_t stride, uint32_t pool_stride, uint32_t pool_size, uint32_t pool_out_dim,
                                             uint32_t porows, uint32_t pocols, uint32_t orows, uint32_t ocols, uint32_t upad,
                                             uint32_t lpad) {
  const uint64_t rs1 = ((uint64_t)ocols << 56) | ((uint64_t)orows << 48) | ((uint64_t)pocols << 40) | ((uint64_t)porows << 32) |
                       ((uint64_t)pool_out_dim << 24) | ((uint64_t)lpad << 10) | ((uint64_t)upad << 8) |
                       ((uint64_t)pool_size << 6) | ((uint64_t)pool_stride << 4) | 2;
  FG_GEMMINI_ROCC(0, rs1, ((uint64_t)FG_GEMMINI_SCALE_ONE << 32) | stride);
}

/* gemmini_loop_ws: C = A.B + D over I x J x K blocks of 16; strides in elements (k_LOOP_WS_CONFIG_* 9..13, then 8). */
static inline void fg_gemmini_loop_ws(uint32_t I, uint32_t J, uint32_t K, uint32_t pad_I, uint32_t pad_J, uint32_t pad_K,
                                      uint64_t A, uint64_t B, uint64_t D, uint64_t C, uint64_t stride_A, uint64_t stride_B,
                                      uint64_t stride_D, uint64_t stride_C, uint32_t a_transpose, uint32_t b_transpose,
                                      uint32_t full_C, uint32_t low_D, uint32_t ex_accumulate, uint32_t act) {
  FG_GEMMINI_ROCC(9, ((uint64_t)pad_K << 32) | ((uint64_t)pad_J << 16) | pad_I, ((uint64_t)K << 32) | ((uint64_t)J << 16) | I);
  FG_GEMMINI_ROCC(10, A, B);
  FG_GEMMINI_ROCC(11, D, C);
  FG_GEMMINI_ROCC(12, stride_A, stride_B);
  FG_GEMMINI_ROCC(13, stride_D, stride_C);
  FG_GEMMINI_ROCC(8, ((uint64_t)act << 8) | ((uint64_t)low_D << 2) | ((uint64_t)full_C << 1) | ex_accumulate,
                  ((uint64_t)b_transpose << 1) | a_transpose);
}

/* gemmini_loop_conv_ws (k_LOOP_CONV_WS_CONFIG_1..6 16..21, then 15) without pooling, transposes, input dilation or
   downsampling; depthwise 1: one channel, weights read with stride 1; bias or output 0: none moved (the sums
   accumulate onto the accumulator rows as they are). */
static inline void fg_gemmini_loop_conv_ws(
    uint32_t batch_size, uint32_t in_row_dim, uint32_t in_col_dim, uint32_t in_channels, uint32_t out_channels,
    uint32_t out_row_dim, uint32_t out_col_dim, uint32_t stride, uint32_t kernel_dim, uint32_t kernel_dilation,
    uint32_t batches, uint32_t orows, uint32_t ocols, uint32_t ochs, uint32_t krows, uint32_t kcols, uint32_t kchs,
    uint32_t lpad, uint32_t rpad, uint32_t upad, uint32_t dpad, uint32_t in_stride, uint32_t weight_stride,
    uint32_t out_stride, uint64_t weights, uint64_t output, uint64_t bias, uint64_t input, uint32_t max_pixels_per_row,
    uint32_t act, uint32_t a_spad_id, uint32_t b_spad_id, uint32_t depthwise) {
  FG_GEMMINI_ROCC(16, ((uint64_t)out_channels << 48) | ((uint64_t)in_channels << 32) | ((uint64_t)in_row_dim << 16) | batch_size,
                  ((uint64_t)stride << 48) | ((uint64_t)out_col_dim << 32) | ((uint64_t)out_row_dim << 16) | out_row_dim);
  FG_GEMMINI_ROCC(17, ((uint64_t)kernel_dim << 48) | ((uint64_t)out_col_dim << 32) | ((uint64_t)1 << 16) | ((uint64_t)1 << 8),
                  ((uint64_t)batches << 48) | ((uint64_t)orows << 32) | ((uint64_t)ocols << 16) | ochs);
  FG_GEMMINI_ROCC(18, ((uint64_t)krows << 48) | ((uint64_t)kcols << 32) | ((uint64_t)kchs << 16) | lpad,
                  ((uint64_t)rpad << 48) | ((uint64_t)upad << 32) | ((uint64_t)dpad << 24) | in_col_dim);
  FG_GEMMINI_ROCC(19, ((uint64_t)orows << 48) | kernel_dilation,
                  ((uint64_t)in_stride << 48) | ((uint64_t)weight_stride << 32) | ((uint64_t)out_stride << 16) | ocols);
  FG_GEMMINI_ROCC(20, weights, output);
  FG_GEMMINI_ROCC(21, bias, input);
  FG_GEMMINI_ROCC(15, ((uint64_t)a_spad_id << 18) | ((uint64_t)b_spad_id << 16) | ((uint64_t)max_pixels_per_row << 8) |
                      ((uint64_t)depthwise << 6) | (bias == 0 ? 1u : 0u),
                  ((uint64_t)act << 3) | 1);
}

#endif /* FG_GEMMINI_ROCC || FG_GEMMINI_MODEL */
#endif /* FIRMGEN_GEMMINI_H */
