/* The rv32 builds' layer marks (layer_marks.c): each HAL's hal_layer_begin/end records one (end = 0 or 1). */
#ifndef FG_LAYER_MARKS_H
#define FG_LAYER_MARKS_H
#include <stdint.h>
void fg_layer_mark(int32_t layer, uint32_t end);
#endif
