/* Call stacks as raw return addresses. Symbolization happens later, in the report tool,
 * never in the application's process. */
#ifndef SC_PRELOAD_STACK_H
#define SC_PRELOAD_STACK_H

#include <stdint.h>

/* Chooses the unwinder: libunwind's unw_backtrace when libunwind.so.8 is installed (it
 * caches unwind info: 0.1-0.5 us a stack, GPU-FACTS.md), else libgcc's _Unwind_Backtrace. */
void sc_stack_init(void);
/* Fills frames with up to max return addresses, innermost first, leaving out `skip`
 * frames of streamcheck itself. Returns the count. */
int sc_stack_capture(uint64_t *frames, int max, int skip);

#endif
