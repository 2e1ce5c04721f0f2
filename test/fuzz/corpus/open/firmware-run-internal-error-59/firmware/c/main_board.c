/* Entry on the chip. PE 0 is the scheduler; the others sleep until an interrupt and run one layer per interrupt
   until the finish layer. The ARM build (make arm) makes one image per role: -DS2_ROLE_SCHEDULER or
   -DS2_ROLE_WORKER fixes the role, so the other loop is dead code and the scheduler's image carries no layer code.
   Without either, one image serves every PE and takes its role from its PE number. (The host build has its own
   main: hal/spinnaker2/host.) */
#include "s2_firmware.h"

int main(void) {
#if defined(S2_ROLE_SCHEDULER)
  const int scheduler = 1;
#elif defined(S2_ROLE_WORKER)
  const int scheduler = 0;
#else
  const int scheduler = hal_pe_id() == 0;
#endif
  if (scheduler) {
    scheduler_main();
    return 0;
  }
  do hal_sleep_until_irq();
  while (worker_on_irq());
  return 0;
}

#if defined(S2_ROLE_SCHEDULER)
/* On the chip the workers run on their own PEs: hal_wait_workers counts their completion packets and never calls the
   handler it is passed (the host HAL and the emulator, which play every PE in one process, do). */
int worker_on_irq(void) { return 0; }
#endif
