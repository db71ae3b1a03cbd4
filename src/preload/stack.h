/* Call stacks as raw return addresses. Symbolization happens later, in the report tool,
 * never in the application's process. */
#ifndef SC_PRELOAD_STACK_H
#define SC_PRELOAD_STACK_H

#include <stdint.h>

/* Chooses the unwinder (STREAMCHECK_UNWINDER overrides: "libgcc" or "libunwind").
 *
 * libgcc's _Unwind_Backtrace where the C library has _dl_find_object (glibc 2.35 and later):
 * it then finds each frame's unwind table without a lock and keeps no per-thread state, so a
 * thread's first stack costs what any other does (about 0.6 us for a shallow stack).
 * libunwind's unw_backtrace is faster once warm (0.1-0.5 us, GPU-FACTS.md) but its first
 * call on each thread builds a per-thread cache under a process-wide lock: 70-150 us, and
 * 16 threads starting at once waited up to 2 ms for each other (measured on glibc 2.36 with
 * libunwind 1.6). So libunwind is used only where libgcc would take the loader's lock on
 * every frame instead (older glibc), if it is installed. */
void sc_stack_init(void);
/* "libgcc" or "libunwind": what sc_stack_init chose. */
const char *sc_stack_unwinder(void);
/* Fills frames with up to max return addresses, innermost first, leaving out `skip`
 * frames of streamcheck itself. Returns the count. */
int sc_stack_capture(uint64_t *frames, int max, int skip);

#endif
