/* Benchmark driver for generated host C (bench/emulation-speed.ts): fills the inputs with the bytes of argv[1],
   runs network_run() argv[3] times and prints the best wall time of one run in nanoseconds, then writes the outputs
   to argv[2] (so the benchmark checks the native result against the emulator's). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "network.h"

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  FILE *in = fopen(argv[1], "rb");
  if (!in) return 2;
  for (int i = 0; i < NETWORK_INPUT_COUNT; i++) {
    if (fread(fg_arena + network_inputs[i].offset, 1, network_inputs[i].bytes, in) != network_inputs[i].bytes) return 2;
  }
  fclose(in);
  int reps = atoi(argv[3]);
  long long best = -1;
  for (int r = 0; r < reps; r++) {
    long long t0 = now_ns();
    network_run();
    long long dt = now_ns() - t0;
    if (best < 0 || dt < best) best = dt;
  }
  FILE *out = fopen(argv[2], "wb");
  if (!out) return 2;
  for (int i = 0; i < NETWORK_OUTPUT_COUNT; i++) {
    fwrite(fg_arena + network_outputs[i].offset, 1, network_outputs[i].bytes, out);
  }
  fclose(out);
  printf("%lld\n", best);
  return 0;
}
