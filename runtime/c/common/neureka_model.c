/* A functional model of the N-EUREKA NPU for the builds that have none (host, rv32): the three primitives of
   firmgen_neureka.h on a register file in memory. docs/neureka.md is the contract; this is written from it, apart
   from the emulator's model, so that the two check each other.

   A job runs when it is triggered, to the end, so it has finished before the core's next instruction: STATUS shows
   only entries reserved by ACQUIRE and not yet triggered, RUNNING_JOB is the last job started, FINISHED counts, and
   the completion event stays pending (one, as in the event unit) until an event wait clears it. An event wait with
   nothing pending would wait forever on the chip (every job has finished): the model stops the program instead.
   A program that ends right after a TRIGGER, before any core read a register or waited, never observed that job's
   completion: the model says so at exit (code 3), as the emulator does. Faults (stderr, exit code 3) name the
   register: unsupported mode, bits or flags, padding above 2, counts or remainders out of range, WMEM offsets outside
   the neural memory. Pointers into L1 are not range-checked here (the emulator does that): the model reaches whatever
   the address names near the image's static data. One core drives the NPU (the generated tile loop runs it on core
   0): the model has no lock.

   Neural memory: the weight arrays fg_nms_mram (offsets 0..4 MiB) and fg_nms_sram (0x40_0000..8 MiB) that the
   generated data defines (docs/c-builds.md); referenced weakly, so a network without NPU weights links. Built as an
   archive member by the Makefile, so nothing of it is linked into a network that does not use the NPU. */
#include "firmgen_neureka.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint8_t fg_nms_mram[] __attribute__((weak));
extern const uint8_t fg_nms_sram[] __attribute__((weak));

static struct {
  uint32_t regs[NEUREKA_JOB_REGISTERS];
  uint32_t next_id;      /* the id ACQUIRE gives next */
  uint32_t reserved[2];  /* ids reserved and not yet triggered, oldest first */
  int reserved_count;
  uint32_t running;      /* RUNNING_JOB */
  uint32_t finished;     /* FINISHED */
  int event;             /* a completion event is pending in the event unit */
  int unobserved;        /* a job finished and no core has read a register or waited for the event since */
  int at_exit;           /* the exit check is registered */
} npu;

static void npu_fault(const char *what, uint32_t value) {
  fprintf(stderr, "hal_neureka: %s (%lu, 0x%lx)\n", what, (unsigned long)value, (unsigned long)value);
  exit(3);
}

/* A chip address (32 bits) as a pointer: on a 64-bit host the object nearest to the model's own static data with
   those low 32 bits; on rv32 the address itself. */
static uint8_t *npu_mem(uint32_t a) {
  const uintptr_t ref = (uintptr_t)&npu;
  return (uint8_t *)(ref + (uintptr_t)(intptr_t)(int32_t)(a - (uint32_t)ref));
}

static uint32_t load_u32(uint32_t a) {
  uint32_t v;
  memcpy(&v, npu_mem(a), 4);
  return v;
}

/* A weight byte: from L1 (TCDM) at the address, or from the neural memory at the offset (WMEM). */
static const uint8_t *weight_byte(uint32_t a, int wmem) {
  if (!wmem) return npu_mem(a);
  if (a < NEUREKA_NMS_SRAM_OFFSET) {
    if (!fg_nms_mram) npu_fault("WEIGHTS_PTR: WMEM weights in MRAM, but this build has no fg_nms_mram", a);
    return fg_nms_mram + a;
  }
  if (a < NEUREKA_NMS_BYTES) {
    if (!fg_nms_sram) npu_fault("WEIGHTS_PTR: WMEM weights in SRAM, but this build has no fg_nms_sram", a);
    return fg_nms_sram + (a - NEUREKA_NMS_SRAM_OFFSET);
  }
  npu_fault("WEIGHTS_PTR: WMEM weights outside the neural memory (8 MiB)", a);
  return NULL;
}

/* Bit `i` of the 32-byte weight word at `a`. */
static unsigned word_bit(uint32_t a, int wmem, unsigned i) {
  return (unsigned)(*weight_byte(a + (i >> 3), wmem) >> (i & 7u)) & 1u;
}

/* The count and the remainder of one dimension; the number of elements is (count - 1) * subtile + remainder. */
static int32_t extent(uint32_t count, uint32_t rem, uint32_t subtile, const char *what) {
  if (count < 1) npu_fault(what, count);
  if (rem < 1 || rem > subtile) npu_fault(what, rem);
  return (int32_t)((count - 1) * subtile + rem);
}

#define MIN32(a, b) ((a) < (b) ? (a) : (b))
#define OUT_PIXELS (NEUREKA_SUBTILE_HW * NEUREKA_SUBTILE_HW)
#define MAX_TAPS (9 * NEUREKA_SUBTILE_KO)

static void run_job(const uint32_t *r) {
  const uint32_t conf = r[NEUREKA_REG_CONF0];
  const uint32_t bits = (conf & NEUREKA_MASK_WEIGHT_BITS) + 1;
  const uint32_t mode = conf & NEUREKA_MASK_MODE;
  if (bits < 2) npu_fault("CONF0: weights have 2..8 bits", bits);
  if (mode != NEUREKA_FLAG_MODE_3x3 && mode != NEUREKA_FLAG_MODE_3x3_DW && mode != NEUREKA_FLAG_MODE_1x1) {
    npu_fault("CONF0: mode 3 is not a mode", conf);
  }
  if (conf & NEUREKA_FLAG_STREAMIN) npu_fault("CONF0: streamin is not supported", conf);
  const int norm = (conf & NEUREKA_FLAG_NORM_QUANT) != 0;
  const uint32_t quant_mode = conf & NEUREKA_MASK_QUANT_MODE, norm_mode = conf & NEUREKA_MASK_NORM_MODE;
  if (quant_mode != NEUREKA_QUANT_MODE_8BIT && quant_mode != NEUREKA_QUANT_MODE_32BIT) {
    npu_fault("CONF0: quant mode is 0 (8-bit) or 2 (32-bit)", conf);
  }
  if (norm && quant_mode != NEUREKA_QUANT_MODE_8BIT) npu_fault("CONF0: 32-bit output with norm/quant", conf);
  if (norm && norm_mode != NEUREKA_NORM_MODE_8BIT && norm_mode != NEUREKA_NORM_MODE_32BIT) {
    npu_fault("CONF0: norm mode is 0 (8-bit scale) or 2 (32-bit scale)", conf);
  }
  const int dw = mode == NEUREKA_FLAG_MODE_3x3_DW, k = mode == NEUREKA_FLAG_MODE_1x1 ? 1 : 3;
  const int wmem = (conf & NEUREKA_FLAG_WEIGHT_SOURCE_WMEM) != 0, is_signed = (conf & NEUREKA_FLAG_INPUT_SIGNED) != 0;
  const int relu = (conf & NEUREKA_FLAG_QUANT_FUNCTION_IDENTITY) == 0;

  const uint32_t pad = r[NEUREKA_REG_PADDING];
  const int32_t top = (int32_t)(pad >> 28), right = (int32_t)((pad >> 24) & 15u);
  const int32_t bottom = (int32_t)((pad >> 20) & 15u), left = (int32_t)((pad >> 16) & 15u);
  if (top > 2 || right > 2 || bottom > 2 || left > 2) npu_fault("PADDING: a side pads more than 2", pad);
  const int32_t pad_value = is_signed ? (int32_t)(int8_t)(pad & 0xffu) : (int32_t)(pad & 0xffu);

  const uint32_t ko_sub = dw ? NEUREKA_SUBTILE_DW : NEUREKA_SUBTILE_KO;
  const uint32_t ki_sub = k == 1 ? NEUREKA_SUBTILE_KI_1x1 : NEUREKA_SUBTILE_KI_3x3;
  const uint32_t num_k = r[NEUREKA_REG_NUMBER_KOKI], rem_k = r[NEUREKA_REG_REMAINDER_KOKI];
  const uint32_t num_hw = r[NEUREKA_REG_NUMBER_HOWO], rem_hw = r[NEUREKA_REG_REMAINDER_HOWO];
  const int32_t cout = extent(num_k >> 16, rem_k >> 16, ko_sub, "NUMBER_KoKi / REMAINDER_KoKi: output channels");
  const int32_t cin = extent(num_k & 0xffffu, rem_k & 0xffffu, ki_sub, "NUMBER_KoKi / REMAINDER_KoKi: input channels");
  if (dw && cin != cout) npu_fault("NUMBER_KoKi / REMAINDER_KoKi: depthwise counts the same channels in Ko and Ki", rem_k);
  const int32_t ho = extent(num_hw >> 16, rem_hw >> 16, NEUREKA_SUBTILE_HW, "NUMBER_HoWo / REMAINDER_HoWo: rows");
  const int32_t wo = extent(num_hw & 0xffffu, rem_hw & 0xffffu, NEUREKA_SUBTILE_HW, "NUMBER_HoWo / REMAINDER_HoWo: columns");
  const int32_t hp = ho + k - 1, wp = wo + k - 1;

  const uint32_t in = r[NEUREKA_REG_INFEAT_PTR], in_d0 = r[NEUREKA_REG_INFEAT_D0], in_d1 = r[NEUREKA_REG_INFEAT_D1];
  const uint32_t out = r[NEUREKA_REG_OUTFEAT_PTR], out_d1 = r[NEUREKA_REG_OUTFEAT_D1], out_d2 = r[NEUREKA_REG_OUTFEAT_D2];
  const uint32_t wptr = r[NEUREKA_REG_WEIGHTS_PTR], w_d1 = r[NEUREKA_REG_WEIGHTS_D1];
  const uint32_t woff = r[NEUREKA_REG_WEIGHT_OFFSET_FACTOR];
  const uint32_t subtiles = num_k & 0xffffu;
  const uint32_t out_bytes = norm ? 1 : 4;

  uint8_t stored[MAX_TAPS]; /* the stored (unsigned) weights of one output channel and input subtile: [c][tap] */
  uint32_t acc[OUT_PIXELS];

  for (int32_t co = 0; co < cout; co++) {
    for (int32_t y0 = 0; y0 < ho; y0 += NEUREKA_SUBTILE_HW) {
      for (int32_t x0 = 0; x0 < wo; x0 += NEUREKA_SUBTILE_HW) {
        const int32_t sh = MIN32(NEUREKA_SUBTILE_HW, ho - y0), sw = MIN32(NEUREKA_SUBTILE_HW, wo - x0);
        memset(acc, 0, sizeof acc);
        for (uint32_t sub = 0; sub < (dw ? 1u : subtiles); sub++) {
          /* Decode this subtile's weights (weights.ts: the memory format). */
          const int32_t c0 = dw ? co : (int32_t)(sub * ki_sub);
          const int32_t nc = dw ? 1 : MIN32((int32_t)ki_sub, cin - c0);
          for (int32_t c = 0; c < nc; c++) {
            for (int32_t tap = 0; tap < k * k; tap++) {
              unsigned s = 0;
              for (uint32_t b = 0; b < bits; b++) {
                unsigned bit;
                if (k == 1) {
                  const uint32_t word = wptr + (uint32_t)co * w_d1 + sub * NEUREKA_WORD_BYTES;
                  bit = word_bit(word, wmem, ((unsigned)c >> 2) * 32u + b * 4u + ((unsigned)c & 3u));
                } else if (dw) {
                  const uint32_t word = wptr + ((uint32_t)co / NEUREKA_SUBTILE_DW * bits + b) * NEUREKA_WORD_BYTES;
                  bit = word_bit(word, wmem, (unsigned)tap * NEUREKA_SUBTILE_DW + (unsigned)co % NEUREKA_SUBTILE_DW);
                } else {
                  const uint32_t word = wptr + (uint32_t)co * w_d1 + (sub * bits + b) * NEUREKA_WORD_BYTES;
                  bit = word_bit(word, wmem, (unsigned)tap * NEUREKA_SUBTILE_KI_3x3 + (unsigned)c);
                }
                s |= bit << b;
              }
              stored[c * k * k + tap] = (uint8_t)s;
            }
          }
          for (int32_t py = 0; py < sh; py++) {
            for (int32_t px = 0; px < sw; px++) {
              uint32_t sum = acc[py * NEUREKA_SUBTILE_HW + px];
              for (int32_t ky = 0; ky < k; ky++) {
                const int32_t row = y0 + py + ky;
                for (int32_t kx = 0; kx < k; kx++) {
                  const int32_t col = x0 + px + kx;
                  const int padded = row < top || row >= hp - bottom || col < left || col >= wp - right;
                  const uint32_t at = in + (uint32_t)row * in_d1 + (uint32_t)col * in_d0;
                  for (int32_t c = 0; c < nc; c++) {
                    int32_t x = pad_value;
                    if (!padded) {
                      const uint8_t byte = *npu_mem(at + (uint32_t)(c0 + c));
                      x = is_signed ? (int32_t)(int8_t)byte : (int32_t)byte;
                    }
                    const uint32_t w = (uint32_t)stored[c * k * k + ky * k + kx] + woff; /* s + WEIGHT_OFFSET_FACTOR */
                    sum += (uint32_t)x * w;                                                /* wrap_int32 */
                  }
                }
              }
              acc[py * NEUREKA_SUBTILE_HW + px] = sum;
            }
          }
        }
        /* The output stage (SEMANTICS.md section 3). */
        for (int32_t py = 0; py < sh; py++) {
          for (int32_t px = 0; px < sw; px++) {
            const int32_t a = (int32_t)acc[py * NEUREKA_SUBTILE_HW + px];
            uint8_t *dst = npu_mem(out + (uint32_t)(y0 + py) * out_d2 + (uint32_t)(x0 + px) * out_d1 + (uint32_t)co * out_bytes);
            if (!norm) {
              memcpy(dst, &a, 4);
              continue;
            }
            const uint32_t scale = norm_mode == NEUREKA_NORM_MODE_32BIT ? load_u32(r[NEUREKA_REG_SCALE_PTR] + 4u * (uint32_t)co)
                                                                        : *npu_mem(r[NEUREKA_REG_SCALE_PTR] + (uint32_t)co);
            int64_t t = (int64_t)a * (int64_t)scale;
            if (conf & NEUREKA_FLAG_NORM_BIAS) {
              const int64_t bias = (int32_t)load_u32(r[NEUREKA_REG_SCALE_BIAS_PTR] + 4u * (uint32_t)co);
              t = (int64_t)(int32_t)(uint32_t)t + bias;
              t = t > INT32_MAX ? INT32_MAX : t < INT32_MIN ? INT32_MIN : t;
            }
            if (relu && t < 0) t = 0;
            const uint32_t shift = (conf & NEUREKA_FLAG_NORM_SHIFT) ? *npu_mem(r[NEUREKA_REG_SCALE_SHIFT_PTR] + (uint32_t)co) & 31u
                                                                    : (conf >> NEUREKA_SHIFT_QUANT_SHIFT) & 31u;
            t >>= shift;
            const int64_t lo = relu ? 0 : -128, hi = relu ? 255 : 127;
            t = t < lo ? lo : t > hi ? hi : t;
            *dst = (uint8_t)(relu ? (uint32_t)t : (uint32_t)(int8_t)t);
          }
        }
      }
    }
  }
}

/* At exit, as the emulator's npu_finish: a job whose completion no core observed (docs/neureka.md) is a firmware bug
   (on the chip its outputs might not have landed). */
static void npu_exit_check(void) {
  if (npu.unobserved) {
    fputs("hal_neureka: the program ended before any core observed the last job's completion (hal_neureka_wait)\n", stderr);
    _Exit(3);
  }
}

uint32_t hal_npu_read(uint32_t offset) {
  npu.unobserved = 0;
  switch (offset) {
    case NEUREKA_ACQUIRE: {
      if (npu.reserved_count == 2) return NEUREKA_ACQUIRE_BUSY;
      const uint32_t id = npu.next_id;
      npu.reserved[npu.reserved_count++] = id;
      npu.next_id = (id + 1) & 0xffu;
      return id;
    }
    case NEUREKA_FINISHED: return npu.finished;
    case NEUREKA_STATUS: {
      /* The entry of job id is id & 1 (ids alternate between the two entries); busy from ACQUIRE to the end. */
      uint32_t status = 0;
      for (int i = 0; i < npu.reserved_count; i++) status |= (npu.reserved[i] & 1u) ? 0x100u : 0x001u;
      return status;
    }
    case NEUREKA_RUNNING_JOB: return npu.running;
    case NEUREKA_TRIGGER:
    case NEUREKA_SOFT_CLEAR: return 0;
    default:
      if (offset >= NEUREKA_REGISTER_OFFSET && offset < NEUREKA_REGISTER_OFFSET + 4 * NEUREKA_JOB_REGISTERS && (offset & 3u) == 0) {
        return npu.regs[(offset - NEUREKA_REGISTER_OFFSET) / 4];
      }
      npu_fault("read of an offset that is no register", offset);
      return 0;
  }
}

void hal_npu_write(uint32_t offset, uint32_t value) {
  if (offset == NEUREKA_TRIGGER) {
    if (npu.reserved_count == 0) npu_fault("TRIGGER without a job reserved by ACQUIRE", value);
    const uint32_t id = npu.reserved[0];
    npu.running = id;
    run_job(npu.regs);
    npu.reserved[0] = npu.reserved[1];
    npu.reserved_count--;
    npu.finished++;
    npu.event = 1;
    npu.unobserved = 1;
    if (!npu.at_exit) npu.at_exit = atexit(npu_exit_check) == 0;
  } else if (offset == NEUREKA_SOFT_CLEAR) {
    npu.next_id = 0;
    npu.reserved_count = 0;
    npu.running = 0;
    npu.finished = 0;
  } else if (offset >= NEUREKA_REGISTER_OFFSET && offset < NEUREKA_REGISTER_OFFSET + 4 * NEUREKA_JOB_REGISTERS && (offset & 3u) == 0) {
    npu.regs[(offset - NEUREKA_REGISTER_OFFSET) / 4] = value;
  } else {
    npu_fault("write to an offset that is no writable register", offset);
  }
}

void hal_npu_event_wait(void) {
  if (!npu.event) {
    npu_fault("an event wait with no NPU event to come (every triggered job has finished and its event was taken; "
              "a job reserved by ACQUIRE and not triggered never ends)", npu.running);
  }
  npu.event = 0;
  npu.unobserved = 0;
}

void hal_neureka_init(void) { hal_npu_write(NEUREKA_SOFT_CLEAR, 0); }

uint32_t hal_neureka_wmem_offset(const void *p) {
  const uintptr_t a = (uintptr_t)p;
  if (fg_nms_mram && a - (uintptr_t)fg_nms_mram < NEUREKA_NMS_SRAM_OFFSET) return (uint32_t)(a - (uintptr_t)fg_nms_mram);
  if (fg_nms_sram && a - (uintptr_t)fg_nms_sram < NEUREKA_NMS_BYTES - NEUREKA_NMS_SRAM_OFFSET) {
    return NEUREKA_NMS_SRAM_OFFSET + (uint32_t)(a - (uintptr_t)fg_nms_sram);
  }
  npu_fault("hal_neureka_wmem_offset: a pointer outside fg_nms_mram and fg_nms_sram", (uint32_t)a);
  return 0;
}
