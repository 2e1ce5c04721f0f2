/* Host test driver: reads the inputs (raw little-endian bytes, in graph order, concatenated) from argv[1] into
   the arena, runs the network, writes the outputs the same way to argv[2]. The runtime converts .npz to and
   from these files, so nothing is printed per value. */
#include <stdio.h>
#include <stdlib.h>
#include "network.h"

static int fail(const char *what, const char *path) {
  fprintf(stderr, "network_host: %s '%s'\n", what, path);
  return 2;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: network_host <inputs.bin> <outputs.bin>\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "rb");
  if (!in) return fail("cannot open", argv[1]);
  for (int i = 0; i < NETWORK_INPUT_COUNT; i++) {
    if (fread(fg_arena + network_inputs[i].offset, 1, network_inputs[i].bytes, in) != network_inputs[i].bytes) {
      fclose(in);
      return fail("too few input bytes in", argv[1]);
    }
  }
  fclose(in);
  network_run();
  FILE *out = fopen(argv[2], "wb");
  if (!out) return fail("cannot create", argv[2]);
  for (int i = 0; i < NETWORK_OUTPUT_COUNT; i++) {
    fwrite(fg_arena + network_outputs[i].offset, 1, network_outputs[i].bytes, out);
  }
  fclose(out);
  return 0;
}
