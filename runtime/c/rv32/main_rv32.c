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

int main(void) {
  const int in = open("fg_inputs.bin", O_RDONLY);
  if (in < 0) return fail("cannot open fg_inputs.bin");
  for (int i = 0; i < NETWORK_INPUT_COUNT; i++) {
    if (transfer(in, fg_arena + network_inputs[i].offset, network_inputs[i].bytes, 0) != 0) {
      close(in);
      return fail("too few input bytes in fg_inputs.bin");
    }
  }
  close(in);
  hal_rv32_run(network_run);
  const int out = open("fg_outputs.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) return fail("cannot create fg_outputs.bin");
  for (int i = 0; i < NETWORK_OUTPUT_COUNT; i++) {
    if (transfer(out, fg_arena + network_outputs[i].offset, network_outputs[i].bytes, 1) != 0) {
      close(out);
      return fail("cannot write fg_outputs.bin");
    }
  }
  close(out);
  return 0;
}
