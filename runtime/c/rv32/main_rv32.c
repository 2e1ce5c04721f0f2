/* Bare-metal driver for qemu-system-riscv32 -machine virt with semihosting: reads the inputs (raw little-endian
   bytes, graph order, concatenated) from the host file fg_inputs.bin into the arena, runs the network, writes the
   outputs the same way to fg_outputs.bin. Paths are relative to qemu's working directory; picolibc's open/read/write
   are semihosting calls. Nothing is printed per value. Exit code: 0 ok, 2 an I/O failure (main's return value leaves
   qemu through the semihosting exit call). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "network.h"

/* Runs network_run where the build runs networks: on this hart (hal_rv32.c) or on the cluster (siracusa/hal_iss.c). */
void hal_rv32_run(void (*network)(void));

static int fail(const char *what) {
  fputs("network_rv32: ", stderr);
  fputs(what, stderr);
  fputs("\n", stderr);
  return 2;
}

static int transfer(int fd, uint8_t *p, uint32_t n, int out) {
  while (n > 0) {
    const ssize_t r = out ? write(fd, p, n) : read(fd, p, n);
    if (r <= 0) return -1;
    p += r;
    n -= (uint32_t)r;
  }
  return 0;
}

#if NETWORK_L3_SIZE > 0
#include "firmgen_l3.h"
/* A tensor in L3 (a decoder's cache at home there, generator/midend/l3.ts) moves through a small buffer by the L3 HAL:
   on the ISS build only the HyperRAM DMA reaches L3. */
static int transfer_l3(int fd, uint32_t l3, uint32_t n, int out) {
  uint8_t chunk[256];
  for (uint32_t done = 0; done < n; done += sizeof chunk) {
    const uint32_t k = n - done < sizeof chunk ? n - done : (uint32_t)sizeof chunk;
    if (out) hal_l3_read(chunk, l3 + done, k);
    if (transfer(fd, chunk, k, out) != 0) return -1;
    if (!out) hal_l3_write(l3 + done, chunk, k);
  }
  return 0;
}
#endif

/* One input (out = 0) or output (out = 1) between the file and its place. */
static int move(int fd, const network_io_t *io, int out) {
#if NETWORK_L3_SIZE > 0
  if (io->l3) return transfer_l3(fd, io->offset, io->bytes, out);
#endif
  return transfer(fd, fg_arena + io->offset, io->bytes, out);
}

int main(void) {
  const int in = open("fg_inputs.bin", O_RDONLY);
  if (in < 0) return fail("cannot open fg_inputs.bin");
  for (int i = 0; i < NETWORK_INPUT_COUNT; i++) {
    if (move(in, &network_inputs[i], 0) != 0) {
      close(in);
      return fail("too few input bytes in fg_inputs.bin");
    }
  }
  close(in);
  hal_rv32_run(network_run);
  const int out = open("fg_outputs.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) return fail("cannot create fg_outputs.bin");
  for (int i = 0; i < NETWORK_OUTPUT_COUNT; i++) {
    if (move(out, &network_outputs[i], 1) != 0) {
      close(out);
      return fail("cannot write fg_outputs.bin");
    }
  }
  close(out);
  return 0;
}
