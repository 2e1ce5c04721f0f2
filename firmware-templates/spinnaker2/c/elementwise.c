/* The elementwise layer on a worker (not generated yet: the generator rejects elementwise nodes on spinnaker2). */
#include "s2_firmware.h"

void elementwise_run(uint8_t *me, const uint8_t *params, const uint8_t *block) {
  (void)me;
  (void)params;
  (void)block;
}
