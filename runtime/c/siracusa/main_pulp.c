/* The board's main for Siracusa (PULP SDK, pmsis API). Not built in this repository (no PULP toolchain here); its
   rv32 twin runtime/c/rv32/main_rv32.c runs under qemu in the tests.
   The fabric controller opens the cluster, reads the inputs into the arena, sends network_run() to the cluster as one
   task (the network forks the 8 cores per layer itself), reads the cluster's cycle counter per layer
   (hal_layer_begin/end) and writes the outputs. Inputs and outputs: raw little-endian bytes in graph order, in
   fg_inputs.bin / fg_outputs.bin of the SDK's host file system (GVSoC, or a board with a debug link), as in the
   host and rv32 builds; with -DFG_NO_HOSTFS the inputs must be placed in the arena by other means (a debugger, or
   code added here) and the outputs are left in it. */
#include "pmsis.h"
#ifndef FG_NO_HOSTFS
#include "bsp/fs.h"
#include "bsp/fs/hostfs.h"
#endif
#include "network.h"
#include "firmgen_hal.h"
#include "firmgen_pulp.h"
#include "firmgen_neureka.h"
#include "firmgen_l3.h"

static struct pi_device cluster;

static void cluster_entry(void *arg) {
  (void)arg;
  hal_neureka_init(); /* the NPU's clock, interconnect priority and a soft clear (neureka_pulp.c) */
  pi_perf_conf(1 << PI_PERF_CYCLES);
  pi_perf_reset();
  pi_perf_start();
  network_run();
  pi_perf_stop();
}

#ifndef FG_NO_HOSTFS
/* Moves every input (out = 0) or output (out = 1) between the arena and its host file. */
static int host_io(const char *name, const network_io_t *io, int count, int out) {
  struct pi_hostfs_conf conf;
  struct pi_device fs;
  pi_hostfs_conf_init(&conf);
  pi_open_from_conf(&fs, &conf);
  if (pi_fs_mount(&fs)) return -1;
  pi_fs_file_t *f = pi_fs_open(&fs, name, out ? PI_FS_FLAGS_WRITE : PI_FS_FLAGS_READ);
  int rc = f ? 0 : -1;
  for (int i = 0; f && i < count && rc == 0; i++) {
    if (io[i].l3) {
      rc = fg_l3_file(f, io[i].offset, io[i].bytes, out); /* a decoder's cache at home in L3 */
      continue;
    }
    void *p = fg_arena + io[i].offset;
    const int moved = out ? pi_fs_write(f, p, io[i].bytes) : pi_fs_read(f, p, io[i].bytes);
    if (moved != (int)io[i].bytes) rc = -1;
  }
  if (f) pi_fs_close(f);
  pi_fs_unmount(&fs);
  return rc;
}
#endif

int main(void) {
  struct pi_cluster_conf conf;
  pi_cluster_conf_init(&conf);
  conf.id = 0;
  pi_open_from_conf(&cluster, &conf);
  if (pi_cluster_open(&cluster)) return 2;
  if (fg_l3_open(NETWORK_L3_SIZE, NETWORK_L3_IMAGE)) {
    printf("network: cannot load l3.bin into the HyperRAM\n");
    return 2;
  }
#ifndef FG_NO_HOSTFS
  if (host_io("fg_inputs.bin", network_inputs, NETWORK_INPUT_COUNT, 0)) {
    printf("network: cannot read fg_inputs.bin\n");
    return 2;
  }
#endif
  struct pi_cluster_task task;
  pi_cluster_task(&task, cluster_entry, NULL);
  task.stack_size = FG_MASTER_STACK;
  task.slave_stack_size = FG_SLAVE_STACK;
  pi_cluster_send_task_to_cl(&cluster, &task);
  uint32_t total = 0;
  for (int l = 0; l < FG_PERF_LAYERS; l++) {
    if (fg_layer_cycles[l] == 0) continue;
    printf("layer %d: %u cycles\n", l, (unsigned)fg_layer_cycles[l]);
    total += fg_layer_cycles[l];
  }
  printf("Cycles: %u (sum of layers)\n", (unsigned)total);
#ifndef FG_NO_HOSTFS
  if (host_io("fg_outputs.bin", network_outputs, NETWORK_OUTPUT_COUNT, 1)) {
    printf("network: cannot write fg_outputs.bin\n");
    return 2;
  }
#endif
  pi_cluster_close(&cluster);
  return 0;
}
