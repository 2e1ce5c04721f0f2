/* Entry on the chip: every PE runs this image. PE 0 is the scheduler; the others sleep until an interrupt and run
   one layer per interrupt until the finish layer. (The host build has its own main: hal/spinnaker2/host.) */
#include "s2_firmware.h"

void hal_sleep_until_irq(void);

int main(void) {
  if (hal_pe_id() == 0) {
    scheduler_main();
    return 0;
  }
  do hal_sleep_until_irq();
  while (worker_on_irq());
  return 0;
}
