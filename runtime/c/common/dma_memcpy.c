/* The cluster DMA of the firmgen HAL for targets that have none (the host build and the bare-metal rv32 build): a
   memcpy with the chip's bookkeeping checks. The fork itself (threads, or a team of one hart) lives in each target's
   own file. */
#include "firmgen_hal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cluster DMA in software: every copy is a synchronous memcpy, so the data lands at issue and a wait has nothing to
   wait for. That hides a missing hal_dma_wait: the emulator, which lands data at completion, is the one that catches
   it. What is checked here is what would break on the chip regardless of timing: channel bookkeeping and sizes. */
static uint32_t dma_allocated = 0;
static int dma_active = -1;

static void dma_fail(const char *what, int ch, int32_t value) {
  fprintf(stderr, "hal_dma: %s (channel %d, %ld)\n", what, ch, (long)value);
  exit(3);
}

int hal_dma_channel_alloc(void) {
  for (int ch = 0; ch < HAL_DMA_CHANNELS; ch++) {
    if (!(dma_allocated & (1u << ch))) {
      dma_allocated |= 1u << ch;
      dma_active = ch;
      return ch;
    }
  }
  dma_fail("all channels are allocated", -1, HAL_DMA_CHANNELS);
  return -1;
}

void hal_dma_channel_free(int ch) {
  if (ch < 0 || ch >= HAL_DMA_CHANNELS || !(dma_allocated & (1u << ch))) dma_fail("free of a channel not allocated", ch, 0);
  dma_allocated &= ~(1u << ch);
  if (dma_active == ch) dma_active = -1;
}

/* The byte stream in pieces contiguous on both sides (a side with length 0 is contiguous), as the emulator walks it. */
void hal_dma_copy_2d_both(int ch, void *l1, void *ext, int32_t bytes, int32_t ext_stride, int32_t ext_length,
                          int32_t l1_stride, int32_t l1_length, int to_l1) {
  if (ch != dma_active) dma_fail("a copy counts on the channel allocated last", ch, dma_active);
  if (bytes < 1 || bytes > HAL_DMA_MAX_BYTES) dma_fail("a copy moves 1 to 131071 bytes", ch, bytes);
  if (ext_length < 0 || ext_stride < 0 || l1_length < 0 || l1_stride < 0) dma_fail("negative row length or stride", ch, 0);
  for (int32_t done = 0; done < bytes;) {
    int32_t piece = bytes - done;
    uint8_t *e = (uint8_t *)ext + done, *l = (uint8_t *)l1 + done;
    if (ext_length > 0) {
      e = (uint8_t *)ext + (size_t)(done / ext_length) * (size_t)ext_stride + done % ext_length;
      piece = FG_MIN(piece, ext_length - done % ext_length);
    }
    if (l1_length > 0) {
      l = (uint8_t *)l1 + (size_t)(done / l1_length) * (size_t)l1_stride + done % l1_length;
      piece = FG_MIN(piece, l1_length - done % l1_length);
    }
    if (to_l1) memcpy(l, e, (size_t)piece);
    else memcpy(e, l, (size_t)piece);
    done += piece;
  }
}


void hal_dma_wait(int ch) {
  if (ch < 0 || ch >= HAL_DMA_CHANNELS || !(dma_allocated & (1u << ch))) dma_fail("wait on a channel not allocated", ch, 0);
}
