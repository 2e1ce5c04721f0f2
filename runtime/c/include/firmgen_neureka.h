/* firmgen HAL: the N-EUREKA NPU of Siracusa (docs/neureka.md is the contract; the AS twin is runtime/as/neureka.ts).
   The driver (acquire, set, trigger, wait) is written once, here, as static inline functions on three primitives
   that each build provides:
     uint32_t hal_npu_read(uint32_t offset), void hal_npu_write(uint32_t offset, uint32_t value),
     void hal_npu_event_wait(void)
   - Siracusa (runtime/c/siracusa/neureka_pulp.c): volatile MMIO at the cluster-local alias 0x0020_1000 (inline here:
     FG_NEUREKA_BASE, set by the board's build files) and the event unit's wait-and-clear on event 12; not built here
     (no PULP SDK).
   - host and rv32 (runtime/c/common/neureka_model.c): a functional model that runs a job when it is triggered.
   - the ISS build of Siracusa (rv32-xpulp, runtime/c/siracusa/neureka_iss.c): volatile MMIO at 0x1020_1000 (inline
     here: FG_NEUREKA_BASE, set by the Makefile from the platform's device map), the emulator's N-EUREKA device
     (docs/iss.md).
   Offsets of hal_npu_read/write are byte offsets in the register file; hal_neureka_set takes a job register index.
   A job's pointer registers hold chip addresses: hal_neureka_set_ptr(reg, p, back) / hal_neureka_addr(p) for data
   the cores see (L1); for weights in the neural memory (weight source WMEM) the offset inside it: the constant offset
   of the weights in fg_nms_mram (0 + offset) or fg_nms_sram (0x40_0000 + offset), or hal_neureka_wmem_offset(p)
   (docs/c-builds.md, "N-EUREKA"). */
#ifndef FIRMGEN_NEUREKA_H
#define FIRMGEN_NEUREKA_H
#include <stdint.h>

/* Register file (byte offsets; chip address 0x1020_1000). */
#define NEUREKA_TRIGGER 0x00
#define NEUREKA_ACQUIRE 0x04
#define NEUREKA_FINISHED 0x08
#define NEUREKA_STATUS 0x0C
#define NEUREKA_RUNNING_JOB 0x10
#define NEUREKA_SOFT_CLEAR 0x14
#define NEUREKA_REGISTER_OFFSET 0x20
#define NEUREKA_JOB_REGISTERS 24

/* Job registers (index i at NEUREKA_REGISTER_OFFSET + 4*i; pulp-nnx NEUREKA_REG_*). */
#define NEUREKA_REG_WEIGHTS_PTR 0
#define NEUREKA_REG_INFEAT_PTR 1
#define NEUREKA_REG_OUTFEAT_PTR 2
#define NEUREKA_REG_SCALE_PTR 3
#define NEUREKA_REG_SCALE_SHIFT_PTR 4
#define NEUREKA_REG_SCALE_BIAS_PTR 5
#define NEUREKA_REG_INFEAT_D0 6
#define NEUREKA_REG_INFEAT_D1 7
#define NEUREKA_REG_INFEAT_D2 8
#define NEUREKA_REG_OUTFEAT_D0 9
#define NEUREKA_REG_OUTFEAT_D1 10
#define NEUREKA_REG_OUTFEAT_D2 11
#define NEUREKA_REG_WEIGHTS_D0 12
#define NEUREKA_REG_WEIGHTS_D1 13
#define NEUREKA_REG_WEIGHTS_D2 14
#define NEUREKA_REG_REMAINDER_KOKI 15
#define NEUREKA_REG_REMAINDER_HOWO 16
#define NEUREKA_REG_REMAINDER_HIWI 17
#define NEUREKA_REG_NUMBER_KOKI 18
#define NEUREKA_REG_NUMBER_HOWO 19
#define NEUREKA_REG_PADDING 20
#define NEUREKA_REG_WEIGHT_OFFSET_FACTOR 21
#define NEUREKA_REG_FILTER_MASKING 22
#define NEUREKA_REG_CONF0 23

/* CONF0 (pulp-nnx NEUREKA_FLAG_*): weight bits - 1 in bits 0..2, the output shift in bits 16..20. */
#define NEUREKA_CONF0_WEIGHT_BITS(bits) ((uint32_t)((bits) - 1) & 0x7u)
#define NEUREKA_MASK_WEIGHT_BITS 0x7u
#define NEUREKA_FLAG_NORM_QUANT (1u << 4)
#define NEUREKA_FLAG_MODE_3x3 (0u << 5)
#define NEUREKA_FLAG_MODE_3x3_DW (1u << 5)
#define NEUREKA_FLAG_MODE_1x1 (2u << 5)
#define NEUREKA_MASK_MODE (3u << 5)
#define NEUREKA_FLAG_WEIGHT_SOURCE_TCDM (0u << 9)
#define NEUREKA_FLAG_WEIGHT_SOURCE_WMEM (1u << 9)
#define NEUREKA_FLAG_ACTIVATION_PREFETCH (1u << 10)
#define NEUREKA_NORM_MODE_8BIT (0u << 12)
#define NEUREKA_NORM_MODE_32BIT (2u << 12)
#define NEUREKA_MASK_NORM_MODE (3u << 12)
#define NEUREKA_FLAG_STREAMIN (1u << 14)
#define NEUREKA_SHIFT_QUANT_SHIFT 16
#define NEUREKA_CONF0_SHIFT(s) (((uint32_t)(s) & 0x1fu) << NEUREKA_SHIFT_QUANT_SHIFT)
#define NEUREKA_MASK_SHIFT_AMOUNT (0x1fu << 16)
#define NEUREKA_QUANT_MODE_8BIT (0u << 21)
#define NEUREKA_QUANT_MODE_32BIT (2u << 21)
#define NEUREKA_MASK_QUANT_MODE (3u << 21)
#define NEUREKA_FLAG_QUANT_FUNCTION_RELU (0u << 23)
#define NEUREKA_FLAG_QUANT_FUNCTION_IDENTITY (1u << 23)
#define NEUREKA_FLAG_NORM_SHIFT (1u << 24)
#define NEUREKA_FLAG_NORM_BIAS (1u << 25)
#define NEUREKA_FLAG_INPUT_SIGNED (1u << 26)

/* PADDING: top << 28 | right << 24 | bottom << 20 | left << 16 | value (8 bits). */
#define NEUREKA_PADDING(top, right, bottom, left, value)                                                            \
  (((uint32_t)(top) << 28) | ((uint32_t)(right) << 24) | ((uint32_t)(bottom) << 20) | ((uint32_t)(left) << 16) |    \
   ((uint32_t)(value) & 0xffu))
/* Two 16-bit halves (REMAINDER_*, NUMBER_*): (hi << 16) | lo. */
#define NEUREKA_PAIR(hi, lo) (((uint32_t)(hi) << 16) | ((uint32_t)(lo) & 0xffffu))

/* Engine geometry. */
#define NEUREKA_SUBTILE_HW 6
#define NEUREKA_SUBTILE_KO 32
#define NEUREKA_SUBTILE_KI_3x3 28
#define NEUREKA_SUBTILE_KI_1x1 32
#define NEUREKA_SUBTILE_DW 28
#define NEUREKA_WORD_BYTES 32
/* ACQUIRE returns this or more while both queue entries are taken. */
#define NEUREKA_ACQUIRE_BUSY 256
/* The neural memory as the NPU sees it (WEIGHTS_PTR with WMEM): MRAM at offset 0, SRAM at 0x40_0000, 4 MiB each. */
#define NEUREKA_NMS_SRAM_OFFSET 0x400000u
#define NEUREKA_NMS_BYTES 0x800000u

/* Where the weight arrays fg_nms_mram / fg_nms_sram go, by build (docs/c-builds.md): the SDK's weight-memory
   sections on the board, the link script's NMS sections on rv32, ordinary data on the host. */
#if defined(FG_TARGET_PULP)
#define FG_NMS_MRAM_SECTION __attribute__((section(".weightmem_mram")))
#define FG_NMS_SRAM_SECTION __attribute__((section(".weightmem_sram")))
#elif defined(FG_TARGET_RV32)
#define FG_NMS_MRAM_SECTION __attribute__((section(".fg_nms_mram")))
#define FG_NMS_SRAM_SECTION __attribute__((section(".fg_nms_sram")))
#else
#define FG_NMS_MRAM_SECTION
#define FG_NMS_SRAM_SECTION
#endif

/* ---- per build ---- */
#if defined(FG_NEUREKA_BASE)
/* Builds that reach the NPU by its registers (the board, the ISS build) set FG_NEUREKA_BASE, the register file's
   address, and get the two accesses inline: a job's two dozen register writes are then a store each, where a call
   into the HAL file cost ~10 cycles a write on the ISS (call, return, the callee's cold line; 274 cycles of a 64 x 64
   GEMM job's driving). */
static inline uint32_t hal_npu_read(uint32_t offset) { return *(volatile uint32_t *)(FG_NEUREKA_BASE + offset); }
static inline void hal_npu_write(uint32_t offset, uint32_t value) { *(volatile uint32_t *)(FG_NEUREKA_BASE + offset) = value; }
#else
uint32_t hal_npu_read(uint32_t offset);
void hal_npu_write(uint32_t offset, uint32_t value);
#endif
/* Waits for the NPU's completion event and clears it (returns at once when one is pending). */
void hal_npu_event_wait(void);
/* Once before the first job, on the core that drives the NPU (the board's main calls it on the cluster): clock,
   interconnect priority and a soft clear on the board; a soft clear of the model elsewhere. */
void hal_neureka_init(void);
/* WEIGHTS_PTR for weights the build placed in fg_nms_mram / fg_nms_sram (p points into one of them). */
uint32_t hal_neureka_wmem_offset(const void *p);

/* A pointer register's value for data the cores see: its chip address. On the 64-bit host this is the low 32 bits
   of the address; the model finds the object again near its own static data (so the NPU reaches the image's static
   memories, the arena and L1 buffers, as on the chip it reaches L1), and address arithmetic in 32 bits (INFEAT_PTR
   before a padded origin) wraps the same way in every build. */
static inline uint32_t hal_neureka_addr(const void *p) { return (uint32_t)(uintptr_t)p; }

/* ---- the driver, one for every build ---- */

/* Reserves a queue entry: reads ACQUIRE until it gives a job id (< 256), waiting for a completion between reads. */
static inline int hal_neureka_acquire(void) {
  uint32_t id;
  while ((id = hal_npu_read(NEUREKA_ACQUIRE)) >= NEUREKA_ACQUIRE_BUSY) hal_npu_event_wait();
  return (int)id;
}

/* Writes job register `reg` (NEUREKA_REG_*) of the job being programmed. */
static inline void hal_neureka_set(int reg, uint32_t value) {
  hal_npu_write(NEUREKA_REGISTER_OFFSET + 4u * (uint32_t)reg, value);
}

/* Writes a pointer register: the chip address of p less `back` bytes (INFEAT_PTR: the input's origin moved back over
   the padding, docs/neureka.md). */
static inline void hal_neureka_set_ptr(int reg, const void *p, uint32_t back) {
  hal_neureka_set(reg, hal_neureka_addr(p) - back);
}

/* Commits the job registers as the job the last hal_neureka_acquire reserved. */
static inline void hal_neureka_trigger(void) { hal_npu_write(NEUREKA_TRIGGER, 0); }

/* Has job `id` finished? (pulp-nnx neureka_nnx_resolve_check: not while the job before it is the last started, nor
   while it is itself the last started and the queue is not empty; ids are 8 bits and wrap.) */
static inline int hal_neureka_finished(int id) {
  const uint32_t running = hal_npu_read(NEUREKA_RUNNING_JOB) & 0xffu;
  const uint32_t self = (uint32_t)id & 0xffu, previous = (self + 0xffu) & 0xffu;
  if (running == previous) return 0;
  if (running == self && hal_npu_read(NEUREKA_STATUS) != 0) return 0;
  return 1;
}

/* Returns when job `id` has finished: its outputs may be used and its inputs and weights overwritten. */
static inline void hal_neureka_wait(int id) {
  while (!hal_neureka_finished(id)) hal_npu_event_wait();
}

/* Returns when every queued job has finished (STATUS empty). */
static inline void hal_neureka_wait_all(void) {
  while (hal_npu_read(NEUREKA_STATUS) != 0) hal_npu_event_wait();
}

#endif
