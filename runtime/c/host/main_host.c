/* Host test driver: reads the inputs (raw little-endian bytes, in graph order, concatenated) from argv[1] into
   the arena, runs the network, writes the outputs the same way to argv[2] (fg_raw_io.h). */
#include "network.h"
#include "fg_raw_io.h"

int main(int argc, char **argv) {
  if (fg_raw_io_usage(argc) != 0) return 2;
  fg_span_t in[NETWORK_INPUT_COUNT], out[NETWORK_OUTPUT_COUNT];
  for (int i = 0; i < NETWORK_INPUT_COUNT; i++) in[i] = (fg_span_t){ fg_arena + network_inputs[i].offset, network_inputs[i].bytes };
  for (int i = 0; i < NETWORK_OUTPUT_COUNT; i++) out[i] = (fg_span_t){ fg_arena + network_outputs[i].offset, network_outputs[i].bytes };
  return fg_raw_io_run(argv[1], argv[2], in, NETWORK_INPUT_COUNT, out, NETWORK_OUTPUT_COUNT, network_run);
}
