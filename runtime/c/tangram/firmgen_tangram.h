/* firmgen HAL: the Tangram engines (docs/tangram.md "Engine programs"; the AS twin is runtime/as/tangram.ts). The C
   firmware holds each engine layer's per-engine program, the very words the AS firmware hands to the emulator's
   engine model, and gives it to the engines with one call. Each build chooses what the call is:
   - FG_TANGRAM_MODEL (`make host-model`, tests): hal/tangram/tangram_model.c runs the program's arithmetic on the
     host's memory, in the order its messages allow (a functional model of the engines, no timing).
   - FG_TANGRAM_ENGINES alone: a board's implementation of the two functions below (its register map is not part of
     the design this platform follows, so none is written here).
   - neither (`make host`, `make rv32`): no engines; the kernels compute their layers on the control core (the
     templates' #else paths), which --on host checks. */
#ifndef FIRMGEN_TANGRAM_H
#define FIRMGEN_TANGRAM_H
#include <stdint.h>

#if defined(FG_TANGRAM_MODEL) && !defined(FG_TANGRAM_ENGINES)
#define FG_TANGRAM_ENGINES 1
#endif

#if defined(FG_TANGRAM_ENGINES)
/* One layer's program (generator/platforms/tangram/programs.ts) on its operands: x, w, the bias, y, the
   requantization's mul and add (0 where the layer has none); returns when the engines are done. */
void fg_tangram_run(const int32_t *program, int32_t words, const void *x, const void *w, const void *b, void *y,
                    const void *mul, const void *add);
/* A pipelined segment's program (segment-programs.ts): seven operands per layer in `table` (x, w, bias, y, mul, add,
   the second map of a two-map element-wise layer; 0 where none). */
void fg_tangram_run_segment(const int32_t *program, int32_t words, void *const *table);
#endif

#endif /* FIRMGEN_TANGRAM_H */
