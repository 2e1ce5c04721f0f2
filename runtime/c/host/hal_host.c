/* Host implementation of the firmgen HAL's cluster: a fork runs the closure on FG_CORES threads, one per cluster core,
   with a real barrier, so code that synchronises inside a closure (a tiled layer's loop: core 0 drives the DMA, all
   cores compute, barriers between) runs as it does on the chip. DMA: common/dma_memcpy.c. */
/* pthread barriers are POSIX, not C11: ask for them before any system header. */
#define _POSIX_C_SOURCE 200809L
/* The team size before the HAL header, which then makes hal_num_cores() this constant. */
#ifndef FG_CORES
#define FG_CORES 1
#endif
#include "firmgen_hal.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static _Thread_local int current_core = 0;
static pthread_barrier_t team_barrier;

struct fg_share { hal_closure_t fn; void *args; int core; };

static void *fg_core_main(void *p) {
  const struct fg_share *s = (const struct fg_share *)p;
  current_core = s->core;
  s->fn(s->args);
  return NULL;
}

void hal_cluster_fork(hal_closure_t fn, void *args) {
  if (FG_CORES == 1) {
    fn(args);
    return;
  }
  pthread_t threads[FG_CORES];
  struct fg_share shares[FG_CORES];
  pthread_barrier_init(&team_barrier, NULL, FG_CORES);
  for (int c = 1; c < FG_CORES; c++) {
    shares[c] = (struct fg_share){ fn, args, c };
    if (pthread_create(&threads[c], NULL, fg_core_main, &shares[c]) != 0) {
      fprintf(stderr, "hal_cluster_fork: cannot start core %d\n", c);
      exit(3);
    }
  }
  current_core = 0;
  fn(args);
  for (int c = 1; c < FG_CORES; c++) pthread_join(threads[c], NULL);
  pthread_barrier_destroy(&team_barrier);
}

void hal_barrier(void) {
  if (FG_CORES > 1) pthread_barrier_wait(&team_barrier);
}

int hal_core_id(void) { return current_core; }

void hal_layer_begin(int32_t layer) { (void)layer; }
void hal_layer_end(int32_t layer) { (void)layer; }
