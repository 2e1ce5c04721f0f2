/* Host test driver: reads the inputs (raw little-endian bytes, in graph order, concatenated) from argv[1] into
   the arena, runs the network, writes the outputs the same way to argv[2] (fg_raw_io.h). */
#include "network.h"
#include "fg_raw_io.h"
#if NETWORK_L3_SIZE > 0
#include "firmgen_l3.h"
#endif

/* Where an input or output is: the arena, or L3 (on the host the array fg_l3). */
static uint8_t *io_bytes(const network_io_t *io) {
#if NETWORK_L3_SIZE > 0
  if (io->l3) return fg_l3 + io->offset;
#endif
  return fg_arena + io->offset;
}

int main(int argc, char **argv) {
  if (fg_raw_io_usage(argc) != 0) return 2;
  fg_span_t in[NETWORK_INPUT_COUNT], out[NETWORK_OUTPUT_COUNT];
  for (int i = 0; i < NETWORK_INPUT_COUNT; i++) in[i] = (fg_span_t){ io_bytes(&network_inputs[i]), network_inputs[i].bytes };
  for (int i = 0; i < NETWORK_OUTPUT_COUNT; i++) out[i] = (fg_span_t){ io_bytes(&network_outputs[i]), network_outputs[i].bytes };
  return fg_raw_io_run(argv[1], argv[2], in, NETWORK_INPUT_COUNT, out, NETWORK_OUTPUT_COUNT, network_run);
}
