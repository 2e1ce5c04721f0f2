/* firmgen HAL of Siracusa for firmgen's RV32 cores (`gen run --on iss`, the rv32-xpulp build): the board HAL
   (hal_pulp.c) at register level, without PMSIS. Hart 0 is the fabric controller: main_rv32.c reads the inputs, sends
   network_run() to the cluster as one task and sleeps until it ends, as main_pulp.c does with pi_cluster_send_task.
   Harts 1..8 are the cluster cores: each starts in fg_cluster_core() (the runtime sets its pc, stack and gp) and
   sleeps on its event-unit mailbox; core 0 runs the task and forks the team for each kernel.
   The event unit's registers are firmgen's model (emulator/assembly/iss/cluster-eu.ts); the DMA is mchan v7, driven
   as on the board (firmgen_mchan.h). Stacks: in L1, the board HAL's sizes (firmgen_pulp.h). */
#include "firmgen_hal.h"
#include "firmgen_pulp.h"
#include "network.h"
#include "rv32/layer_marks.h"

#define EU_BASE 0x10204000u
#define EU_REG(off) (*(volatile uint32_t *)(EU_BASE + (off)))
#define EU_CORE_ID 0x00u
#define EU_TEAM 0x04u
#define EU_FN 0x08u
#define EU_ARG 0x0cu
#define EU_WAKE 0x10u
#define EU_BARRIER 0x14u
#define EU_TASK_END 0x18u
#define EU_DMA_SLEEP 0x1cu
#define EU_MARK 0x20u

#ifdef FG_CORES
#define FG_TEAM FG_CORES
#else
#define FG_TEAM 8
#endif

/* A read during which the core may sleep: it runs again when the core wakes, so its result register must not be
   its address register (early clobber). */
static inline uint32_t eu_sleep_read(uint32_t off) {
  uint32_t v;
  __asm__ volatile("lw %0, 0(%1)" : "=&r"(v) : "r"(EU_BASE + off) : "memory");
  return v;
}

#define FG_MCHAN_SLEEP() ((void)eu_sleep_read(EU_DMA_SLEEP))
#include "firmgen_mchan.h"

/* ---- cluster ---- */

void hal_cluster_fork(hal_closure_t fn, void *args) {
  EU_REG(EU_TEAM) = FG_TEAM;
  EU_REG(EU_FN) = (uint32_t)(uintptr_t)fn;
  EU_REG(EU_ARG) = (uint32_t)(uintptr_t)args;
  EU_REG(EU_WAKE) = ((1u << FG_TEAM) - 1u) & ~1u; /* every team member but this one, core 0 */
  fn(args);
  hal_barrier(); /* the join: pi_cl_team_fork returns once every core's share is done */
}

void hal_barrier(void) { (void)eu_sleep_read(EU_BARRIER); }
int hal_core_id(void) { return (int)EU_REG(EU_CORE_ID); }
#ifndef FG_CORES
int hal_num_cores(void) { return FG_TEAM; } /* else the constant of firmgen_hal.h */
#endif

/* The cluster stacks, as the board's: core 0 runs the task (network_run and the tile loops), the others kernel
   shares only. The runtime points core k's sp at the end of its slot. */
uint8_t fg_cluster_stack_master[FG_MASTER_STACK] FG_L1_SECTION __attribute__((aligned(16)));
uint8_t fg_cluster_stack_slaves[7][FG_SLAVE_STACK] FG_L1_SECTION __attribute__((aligned(16)));

/* Every cluster core's life: take what the mailbox brings, run it, then (core 0) end the task or (the others) meet
   the team at the fork's closing barrier. */
void fg_cluster_core(void) __attribute__((noreturn));
void fg_cluster_core(void) {
  const uint32_t core = EU_REG(EU_CORE_ID);
  for (;;) {
    const hal_closure_t fn = (hal_closure_t)(uintptr_t)eu_sleep_read(EU_FN);
    void *const arg = (void *)(uintptr_t)EU_REG(EU_ARG);
    fn(arg);
    if (core == 0) EU_REG(EU_TASK_END) = 1;
    else hal_barrier();
  }
}

/* Layer markers: core 0's cycle counter into fg_layer_marks (layer_marks.c), and the mark to the event unit, at
   which the emulator records the whole cluster's instruction and stall counters (the per-layer breakdown). */
void hal_layer_begin(int32_t layer) {
  fg_layer_mark(layer, 0);
  EU_REG(EU_MARK) = (uint32_t)layer << 1;
}
void hal_layer_end(int32_t layer) {
  fg_layer_mark(layer, 1);
  EU_REG(EU_MARK) = ((uint32_t)layer << 1) | 1u;
}

/* ---- fabric controller ---- */

static void network_task(void *network) { ((void (*)(void))network)(); }

void hal_rv32_run(void (*network)(void)) {
  /* Nothing calls the cluster cores' entry or names their stacks (the runtime finds them by symbol): this keeps the
     linker's section garbage collection from dropping them. */
  __asm__ volatile("" : : "r"(fg_cluster_core), "r"(fg_cluster_stack_master), "r"(fg_cluster_stack_slaves));
  EU_REG(EU_FN) = (uint32_t)(uintptr_t)network_task;
  EU_REG(EU_ARG) = (uint32_t)(uintptr_t)network;
  EU_REG(EU_WAKE) = 1u; /* cluster core 0 */
  (void)eu_sleep_read(EU_TASK_END);
}
