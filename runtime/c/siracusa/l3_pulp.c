/* Siracusa's L3 on the board: the HyperRAM through the PULP SDK's RAM driver (PMSIS bsp/ram.h, bsp/ram/hyperram.h).
   Calls used: pi_hyperram_conf_init, pi_open_from_conf, pi_ram_open, pi_ram_alloc, pi_ram_write (fabric controller,
   at start), pi_ram_read/pi_ram_write (fabric controller: inputs and outputs at home in L3, a decoder's caches),
   pi_cl_ram_read/pi_cl_ram_write + pi_cl_ram_read_wait/pi_cl_ram_write_wait (cluster core 0, during the network). The L3 image comes from memory/l3.bin, read with the host file system like the inputs (main_pulp.c)
   and written to the HyperRAM in chunks through an L2 buffer. Unverified here: no PULP SDK on the build machine. */
#include <stdint.h>
#include "pmsis.h"
#include "bsp/bsp.h"
#include "bsp/ram.h"
#include "bsp/ram/hyperram.h"
#include "bsp/fs.h"
#include "bsp/fs/hostfs.h"
#include "firmgen_l3.h"

static struct pi_device ram;
static uint32_t l3_base;

/* Bytes moved per pi_ram_write/pi_ram_read between a host file and the HyperRAM, through this L2 buffer. */
#define FG_L3_CHUNK 4096
static PI_L2 uint8_t chunk[FG_L3_CHUNK];

int fg_l3_open(uint32_t bytes, uint32_t image) {
  if (bytes == 0) return 0;
  struct pi_hyperram_conf conf;
  pi_hyperram_conf_init(&conf);
  pi_open_from_conf(&ram, &conf);
  if (pi_ram_open(&ram)) return -1;
  if (pi_ram_alloc(&ram, &l3_base, bytes)) return -1;
  struct pi_hostfs_conf fs_conf;
  struct pi_device fs;
  pi_hostfs_conf_init(&fs_conf);
  pi_open_from_conf(&fs, &fs_conf);
  if (pi_fs_mount(&fs)) return -1;
  pi_fs_file_t *f = image ? pi_fs_open(&fs, "l3.bin", PI_FS_FLAGS_READ) : 0;
  int status = f || !image ? 0 : -1;
  for (uint32_t done = 0; status == 0 && done < image; done += FG_L3_CHUNK) {
    const uint32_t n = image - done < FG_L3_CHUNK ? image - done : FG_L3_CHUNK;
    if (pi_fs_read(f, chunk, n) != (int)n) status = -1;
    else pi_ram_write(&ram, l3_base + done, chunk, n);
  }
  if (f) pi_fs_close(f);
  pi_fs_unmount(&fs);
  return status;
}

void hal_l3_read(void *l2, uint32_t l3, uint32_t bytes) {
  pi_cl_ram_req_t req;
  pi_cl_ram_read(&ram, l3_base + l3, l2, bytes, &req);
  pi_cl_ram_read_wait(&req);
}

void hal_l3_write(uint32_t l3, const void *l2, uint32_t bytes) {
  pi_cl_ram_req_t req;
  pi_cl_ram_write(&ram, l3_base + l3, (void *)l2, bytes, &req);
  pi_cl_ram_write_wait(&req);
}

/* An input or output at home in L3 between a host file (pi_fs_file_t) and the HyperRAM, in chunks through an L2
   buffer, from the fabric controller (main_pulp.c host_io); 0 on success. */
int fg_l3_file(void *file, uint32_t l3, uint32_t bytes, int out) {
  pi_fs_file_t *f = (pi_fs_file_t *)file;
  for (uint32_t done = 0; done < bytes; done += FG_L3_CHUNK) {
    const uint32_t n = bytes - done < FG_L3_CHUNK ? bytes - done : FG_L3_CHUNK;
    if (out) {
      pi_ram_read(&ram, l3_base + l3 + done, chunk, n);
      if (pi_fs_write(f, chunk, n) != (int)n) return -1;
    } else {
      if (pi_fs_read(f, chunk, n) != (int)n) return -1;
      pi_ram_write(&ram, l3_base + l3 + done, chunk, n);
    }
  }
  return 0;
}
