/* Host test driver for the SpiNNaker2 firmware: loads the DRAM image (../memory/dram.bin beside the binary's folder),
   writes the inputs (raw little-endian bytes, graph order, concatenated, from argv[1]) where the image's I/O table
   says, runs the scheduler on PE 0, writes the outputs the same way to argv[2]. What the host does on the board:
   write the image and the inputs, raise the scheduler's interrupt, read the outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "s2_firmware.h"
#include "s2_host.h"

#define DRAM_BYTES (64u * 1024u * 1024u)

static int fail(const char *what, const char *path) {
  fprintf(stderr, "network_host: %s '%s'\n", what, path);
  return 2;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: network_host <inputs.bin> <outputs.bin>\n");
    return 2;
  }
  char image[4096];
  const char *slash = strrchr(argv[0], '/');
  snprintf(image, sizeof image, "%.*s%s../memory/dram.bin", slash ? (int)(slash - argv[0] + 1) : 0, argv[0], slash ? "" : "./");
  s2_dram = calloc(DRAM_BYTES, 1);
  s2_dram_bytes = DRAM_BYTES;
  FILE *f = fopen(image, "rb");
  if (!s2_dram || !f) return fail("cannot open the DRAM image", image);
  const size_t got = fread(s2_dram, 1, DRAM_BYTES, f);
  fclose(f);
  if (got < G_BYTES || s2_word(s2_dram, G_MAGIC) != MAGIC) return fail("no FGS2 image in", image);
  s2_host_init(1 + (int)s2_word(s2_dram, G_WORKERS));
  const uint32_t inputs = s2_word(s2_dram, 44), outputs = s2_word(s2_dram, 48);
  const uint8_t *io = s2_dram_at(s2_word(s2_dram, 52), 8 * (inputs + outputs));
  FILE *in = fopen(argv[1], "rb");
  if (!in) return fail("cannot open", argv[1]);
  for (uint32_t i = 0; i < inputs; i++) {
    const uint32_t bytes = s2_word(io, 8 * i + 4);
    if (fread(s2_dram_at(s2_word(io, 8 * i), bytes), 1, bytes, in) != bytes) {
      fclose(in);
      return fail("too few input bytes in", argv[1]);
    }
  }
  fclose(in);
  scheduler_main();
  FILE *out = fopen(argv[2], "wb");
  if (!out) return fail("cannot create", argv[2]);
  for (uint32_t i = inputs; i < inputs + outputs; i++) {
    const uint32_t bytes = s2_word(io, 8 * i + 4);
    fwrite(s2_dram_at(s2_word(io, 8 * i), bytes), 1, bytes, out);
  }
  fclose(out);
  return 0;
}
