/* L3: Siracusa's off-chip HyperRAM, reached only by its own DMA, which blocks (HARDWARE.md "L3"); the AS twin is
   runtime/as/l3.ts. The generator keeps in L3 the tensors L2 cannot hold and stages them through L2 between layers
   (generator/midend/l3.ts); generated code names an L3 tensor by its byte offset in the L3 image (memory/l3.bin).
   - PULP SDK (Siracusa): l3_pulp.c opens the HyperRAM, loads l3.bin into it at start (fg_l3_open, from main_pulp.c)
     and copies with the cluster-side RAM driver (pi_cl_ram_read/write and their wait).
   - host and rv32: L3 is the array fg_l3 (network_data.c; on rv32 in its own section .fg_l3, link.ld), and a copy is
     a memcpy: the same bytes land in the same place, so the results are the emulator's.
   - the ISS build of Siracusa (rv32-xpulp with -DFG_ISS_L3): the same array, copied by the emulator's HyperRAM DMA
     device (siracusa/l3_iss.c), with its timing. */
#ifndef FIRMGEN_L3_H
#define FIRMGEN_L3_H
#include <stdint.h>

#if defined(FG_TARGET_PULP)
/* Opens the HyperRAM, takes `bytes` of it and loads l3.bin (`image` bytes: the constants) at its start; 0 on
   success. Nothing to do when bytes is 0. */
int fg_l3_open(uint32_t bytes, uint32_t image);
/* Moves an input (out = 0) or output (out = 1) at `l3` between an open host file (pi_fs_file_t *) and L3. */
int fg_l3_file(void *file, uint32_t l3, uint32_t bytes, int out);
void hal_l3_read(void *l2, uint32_t l3, uint32_t bytes);
void hal_l3_write(uint32_t l3, const void *l2, uint32_t bytes);
#elif defined(FG_ISS_L3)
#include <string.h>
#define FG_L3_SECTION __attribute__((section(".fg_l3")))
extern uint8_t fg_l3[];
void hal_l3_read(void *l2, uint32_t l3, uint32_t bytes);
void hal_l3_write(uint32_t l3, const void *l2, uint32_t bytes);
#else
#include <string.h>
#if defined(FG_TARGET_RV32)
#define FG_L3_SECTION __attribute__((section(".fg_l3")))
#else
#define FG_L3_SECTION
#endif
extern uint8_t fg_l3[];
static inline void hal_l3_read(void *l2, uint32_t l3, uint32_t bytes) { memcpy(l2, fg_l3 + l3, bytes); }
static inline void hal_l3_write(uint32_t l3, const void *l2, uint32_t bytes) { memcpy(fg_l3 + l3, l2, bytes); }
#endif

#endif
