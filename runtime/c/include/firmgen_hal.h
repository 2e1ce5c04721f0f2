/* firmgen HAL: what generated C firmware needs from the board support package.
   One implementation per platform SDK (runtime/c/<platform>/) plus a host implementation (runtime/c/host/)
   that runs each core's share of a fork in turn, so the same C runs and is tested on the build machine. */
#ifndef FIRMGEN_HAL_H
#define FIRMGEN_HAL_H
#include <stdint.h>

#define FG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define FG_MAX(a, b) ((a) > (b) ? (a) : (b))
#define FG_ABS(a) ((a) < 0 ? -(a) : (a))

/* Where the tensor arena goes: the linker section of the platform's home memory (empty on the host). */
#ifndef FG_ARENA_SECTION
#define FG_ARENA_SECTION
#endif

typedef void (*hal_closure_t)(void *args);

/* Runs fn(args) on every core of the cluster and returns when all are done (pi_cl_team_fork on PULP). */
void hal_cluster_fork(hal_closure_t fn, void *args);
/* Inside a closure: this core's id and the team size. */
int hal_core_id(void);
int hal_num_cores(void);
/* The current core's share [begin, end) of n work items: chunks of ceil(n / cores), as every kernel splits. */
int32_t hal_share_begin(int32_t n);
int32_t hal_share_end(int32_t n);
/* Per-layer markers (performance counters on a board; nothing on the host). */
void hal_layer_begin(int32_t layer);
void hal_layer_end(int32_t layer);

/* floor(sqrt(v)) for v >= 0, exact for every 64-bit value (the norms of SEMANTICS.md need it). */
int64_t fg_isqrt64(int64_t v);

#endif
