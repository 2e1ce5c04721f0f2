/* firmgen HAL: what generated C firmware needs from the board support package.
   One implementation per platform SDK (runtime/c/<platform>/), a host implementation (runtime/c/host/: a fork runs
   on threads with a real barrier) and a bare-metal RISC-V one (runtime/c/rv32/: a team of one hart), so the same C
   runs and is tested on the build machine and under qemu. The last two share runtime/c/common/dma_memcpy.c. */
#ifndef FIRMGEN_HAL_H
#define FIRMGEN_HAL_H
#include <stdint.h>

#define FG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define FG_MAX(a, b) ((a) > (b) ? (a) : (b))
#define FG_ABS(a) ((a) < 0 ? -(a) : (a))

/* x / d for 0 <= x < a bound the generator knows, as a multiply and a shift (m, s from generator/kernels/divide.ts:
   exact below that bound): gcc 12 turns a division by a constant into a hardware div on rv32, 3-35 cycles each on
   CV32E40P, where this is a mul and a shift. */
#define FG_DIVC(x, m, s) ((int32_t)(((uint32_t)(x) * (uint32_t)(m)) >> (s)))

/* A decoder's rows written so far: entries 0..pos of an extent of n, at least one, at most n. The one rule of the
   position-bounded iSoftmax and of the attention products around it (frontend/passes/bound-by-position.ts), which
   must agree for those products to be exact; the AS twin is fg_entries_to in runtime/as/support.ts. A macro: the
   kernels' loops then compile as they did with the expression written out. */
#define FG_ENTRIES_TO(pos, n) FG_MIN(FG_MAX((int32_t)(pos) + 1, 1), (n))

/* Linker sections, chosen by the build target (-DFG_TARGET_...), so one network_data.c serves every build. The arena
   (constants, inputs, outputs, activations) goes to the platform's home memory, tile buffers to the cluster's L1:
   - PULP SDK (Siracusa): .l2_data is PI_L2, the shared L2 banks from 0x1C01_0000 where the emulator's arena starts
     too; .bss_l1 is the cluster L1 after the SDK's own L1 data (pulp-sdk chips/siracusa/link.ld).
   - rv32 (qemu virt): sections of the same names as the memory regions of hal/rv32/link.ld, which maps the platform's
     memories into qemu's RAM with their real sizes, so an image that would not fit the board does not link.
   - host: none. A new target (an ARM core of SpiNNaker2, ...) adds its case here and its link script. */
#if defined(FG_TARGET_PULP)
#define FG_ARENA_SECTION __attribute__((section(".l2_data")))
#define FG_L1_SECTION __attribute__((section(".bss_l1")))
#elif defined(FG_TARGET_RV32)
#define FG_ARENA_SECTION __attribute__((section(".fg_arena")))
#define FG_L1_SECTION __attribute__((section(".fg_l1")))
#endif
#ifndef FG_ARENA_SECTION
#define FG_ARENA_SECTION
#endif
#ifndef FG_L1_SECTION
#define FG_L1_SECTION
#endif

typedef void (*hal_closure_t)(void *args);
/* A word of any tensor's bytes (a gather's rows, moved in words): may_alias, as the bytes were written by their type. */
typedef int32_t fg_word_t __attribute__((may_alias));

/* Runs fn(args) on every core of the cluster and returns when all are done (pi_cl_team_fork on PULP). */
void hal_cluster_fork(hal_closure_t fn, void *args);
/* Inside a closure: every core of the team waits here until all have arrived (pi_cl_team_barrier on PULP). */
void hal_barrier(void);
/* Inside a closure: this core's id and the team size. Builds that fix the team (-DFG_CORES: host, board, the ISS's
   cluster) get the size as a constant, so a kernel's work split costs no call and its divisions by the team size
   become shifts (an out-of-line call cost every kernel call about 100 cycles on the ISS, docs/timing.md "The fit");
   a build without it (a team of one hart, or the board's default of every cluster core) asks its HAL. */
int hal_core_id(void);
#ifdef FG_CORES
static inline int hal_num_cores(void) { return FG_CORES; }
#else
int hal_num_cores(void);
#endif
/* The current core's share [begin, end) of n work items: chunks of ceil(n / cores), as pulp-nn splits rows and as
   the AS HAL (runtime/as/cluster.ts) splits them: one definition for every C HAL. */
static inline int32_t hal_share_begin(int32_t n) {
  const int32_t chunk = (n + hal_num_cores() - 1) / hal_num_cores();
  return FG_MIN(hal_core_id() * chunk, n);
}
static inline int32_t hal_share_end(int32_t n) {
  const int32_t chunk = (n + hal_num_cores() - 1) / hal_num_cores();
  return FG_MIN(hal_share_begin(n) + chunk, n);
}
/* Per-layer markers (performance counters on a board; nothing on the host). */
void hal_layer_begin(int32_t layer);
void hal_layer_end(int32_t layer);

/* The leading zeros of x != 0 in five compares: gcc's __builtin_clz on an RV32 core without Zbb is a libgcc call
   that reads a table from L2 (__clz_tab: ~37 ISS cycles on a cluster core, its load ~20). */
static inline uint32_t fg_clz32(uint32_t x) {
  uint32_t n = 0;
  if (x <= 0xFFFFu) { n += 16; x <<= 16; }
  if (x <= 0xFFFFFFu) { n += 8; x <<= 8; }
  if (x <= 0xFFFFFFFu) { n += 4; x <<= 4; }
  if (x <= 0x3FFFFFFFu) { n += 2; x <<= 2; }
  if (x <= 0x7FFFFFFFu) { n += 1; }
  return n;
}
/* floor(sqrt(x)) for 0 < x < 2^32, bit by bit from x's highest even bit. */
static inline uint32_t fg_isqrt32(uint32_t x) {
  uint32_t r = 0, bit = (uint32_t)1 << ((31u - fg_clz32(x)) & ~1u);
  while (bit) {
    if (x >= r + bit) { x -= r + bit; r = (r >> 1) + bit; }
    else r >>= 1;
    bit >>= 2;
  }
  return r;
}
/* floor(sqrt(v)) for v >= 0, exact for every 64-bit value (the norms of SEMANTICS.md need it): bit by bit, no
   floating point (the board has none to spare); in 32-bit words where v fits them (an RV32 core's 64-bit compare,
   subtract and shift are three to five instructions each). */
static inline int64_t fg_isqrt64(int64_t v) {
  if (v <= 0) return 0;
  if (((uint64_t)v >> 32) == 0) return (int64_t)fg_isqrt32((uint32_t)v);
  uint64_t x = (uint64_t)v, r = 0, bit = (uint64_t)1 << ((63u - fg_clz32((uint32_t)(x >> 32))) & ~1u);
  while (bit) {
    if (x >= r + bit) { x -= r + bit; r = (r >> 1) + bit; }
    else r >>= 1;
    bit >>= 2;
  }
  return (int64_t)r;
}

/* Cluster DMA between L1 and L2/L3, shaped like the mchan v7 driver (Deeploy mchan_v7.h); the AS twin is
   runtime/as/dma.ts and docs/firmware-abi.md is the contract. A channel id is 0..15. A copy counts on the channel its
   core allocated last (the ch argument must be that channel), returns at once, and moves 1..131071 bytes; its data
   may be used, and its source overwritten, only after hal_dma_wait(ch). to_l1 != 0: external -> L1, else L1 -> external.
   2-D: the strided side is rows of `length` bytes whose starts are `stride` bytes apart; `bytes` is the total.
   The host implementation copies at issue; the emulator lands data at completion, so only it catches a missing wait. */
#define HAL_DMA_CHANNELS 16
#define HAL_DMA_MAX_BYTES 131071
int hal_dma_channel_alloc(void);
void hal_dma_channel_free(int ch);
/* Strided on both sides (bits 19 and 23), each with its own rows; a side with length 0 is contiguous. Each HAL
   implements this one; the three below are its special cases. */
void hal_dma_copy_2d_both(int ch, void *l1, void *ext, int32_t bytes, int32_t ext_stride, int32_t ext_length,
                          int32_t l1_stride, int32_t l1_length, int to_l1);
static inline void hal_dma_copy_1d(int ch, void *l1, void *ext, int32_t bytes, int to_l1) {
  hal_dma_copy_2d_both(ch, l1, ext, bytes, 0, 0, 0, 0, to_l1);
}
/* Strided on the external side (mchan command bit 19), contiguous in L1. */
static inline void hal_dma_copy_2d(int ch, void *l1, void *ext, int32_t bytes, int32_t stride, int32_t length, int to_l1) {
  hal_dma_copy_2d_both(ch, l1, ext, bytes, stride, length, 0, 0, to_l1);
}
/* Strided on the L1 side (bit 23), contiguous outside. */
static inline void hal_dma_copy_2d_l1(int ch, void *l1, void *ext, int32_t bytes, int32_t stride, int32_t length, int to_l1) {
  hal_dma_copy_2d_both(ch, l1, ext, bytes, 0, 0, stride, length, to_l1);
}
/* Waits until every copy on the channel is complete. */
void hal_dma_wait(int ch);

#endif
