/* The host test drivers' file I/O (host/main_host.c, spinnaker2/host/main_s2_host.c): inputs are read from argv[1]
   and outputs written to argv[2] as raw little-endian bytes, tensor after tensor in graph order (the runtime converts
   .npz to and from these files: runtime/node/raw-io.ts). Each driver says where its tensors are and how to run;
   this header does the rest. Header-only, so each build compiles it into its driver. */
#ifndef FG_RAW_IO_H
#define FG_RAW_IO_H
#include <stdint.h>
#include <stdio.h>

/* A tensor's bytes in the driver's memory. */
typedef struct {
  uint8_t *data;
  uint32_t bytes;
} fg_span_t;

static int fg_io_fail(const char *what, const char *path) {
  fprintf(stderr, "network_host: %s '%s'\n", what, path);
  return 2;
}

/* Fills the inputs from argv[1], runs, writes the outputs to argv[2]; main's return code (2 on a file error). */
static int fg_raw_io_run(const char *inputs_path, const char *outputs_path, const fg_span_t *inputs, int n_inputs,
                         const fg_span_t *outputs, int n_outputs, void (*run)(void)) {
  FILE *in = fopen(inputs_path, "rb");
  if (!in) return fg_io_fail("cannot open", inputs_path);
  for (int i = 0; i < n_inputs; i++) {
    if (fread(inputs[i].data, 1, inputs[i].bytes, in) != inputs[i].bytes) {
      fclose(in);
      return fg_io_fail("too few input bytes in", inputs_path);
    }
  }
  fclose(in);
  run();
  FILE *out = fopen(outputs_path, "wb");
  if (!out) return fg_io_fail("cannot create", outputs_path);
  for (int i = 0; i < n_outputs; i++) fwrite(outputs[i].data, 1, outputs[i].bytes, out);
  fclose(out);
  return 0;
}

/* 0 when the command line is `<program> <inputs.bin> <outputs.bin>`, else the usage line and 2. */
static int fg_raw_io_usage(int argc) {
  if (argc == 3) return 0;
  fprintf(stderr, "usage: network_host <inputs.bin> <outputs.bin>\n");
  return 2;
}

#endif
