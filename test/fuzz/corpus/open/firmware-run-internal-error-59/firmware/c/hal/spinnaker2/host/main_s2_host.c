/* Host test driver for the SpiNNaker2 firmware: loads the DRAM image (../memory/dram.bin beside the binary's folder),
   writes the inputs (raw little-endian bytes, graph order, concatenated, from argv[1]) where the image's I/O table
   says, runs the scheduler on PE 0, writes the outputs the same way to argv[2] (the file handling: fg_raw_io.h).
   What the host does on the board: write the image and the inputs, raise the scheduler's interrupt, read the
   outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "s2_firmware.h"
#include "s2_host.h"
#include "../../host/fg_raw_io.h"

#define DRAM_BYTES (64u * 1024u * 1024u)
/* The image's I/O table has room for this many tensors in this driver (the generator writes a handful). */
#define MAX_IO 64u

int main(int argc, char **argv) {
  if (fg_raw_io_usage(argc) != 0) return 2;
  char image[4096];
  const char *slash = strrchr(argv[0], '/');
  snprintf(image, sizeof image, "%.*s%s../memory/dram.bin", slash ? (int)(slash - argv[0] + 1) : 0, argv[0], slash ? "" : "./");
  s2_dram = calloc(DRAM_BYTES, 1);
  s2_dram_bytes = DRAM_BYTES;
  FILE *f = fopen(image, "rb");
  if (!s2_dram || !f) return fg_io_fail("cannot open the DRAM image", image);
  const size_t got = fread(s2_dram, 1, DRAM_BYTES, f);
  fclose(f);
  if (got < G_BYTES || s2_word(s2_dram, G_MAGIC) != MAGIC) return fg_io_fail("no FGS2 image in", image);
  s2_host_init(1 + (int)s2_word(s2_dram, G_WORKERS));
  const uint32_t inputs = s2_word(s2_dram, 44), outputs = s2_word(s2_dram, 48);
  if (inputs + outputs > MAX_IO) return fg_io_fail("too many inputs and outputs in", image);
  const uint8_t *io = s2_dram_at(s2_word(s2_dram, 52), 8 * (inputs + outputs));
  fg_span_t spans[MAX_IO];
  for (uint32_t i = 0; i < inputs + outputs; i++) {
    const uint32_t bytes = s2_word(io, 8 * i + 4);
    spans[i] = (fg_span_t){ s2_dram_at(s2_word(io, 8 * i), bytes), bytes };
  }
  return fg_raw_io_run(argv[1], argv[2], spans, (int)inputs, spans + inputs, (int)outputs, scheduler_main);
}
