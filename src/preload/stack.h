/* Call stacks as raw return addresses. Symbolization happens later, in the report tool,
 * never in the application's process. */
#ifndef SC_PRELOAD_STACK_H
#define SC_PRELOAD_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <unwind.h>

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
/* Fills frames with up to max return addresses, innermost first, leaving out the first
 * `skip` frames. Returns the count. */
int sc_stack_capture(uint64_t *frames, int max, int skip);

/* Where an application call's stack ends early: the code (the executable segment) of the
 * module holding `fn`, the Python interpreter's (python.c). A stack reaching it from a
 * CUDA call has only the evaluation loop's frames left, which the Python stack stands in
 * for; in a PyTorch program they were about half of a 24-frame stack (a median of 5-9 us).
 * NULL: no such code. Frames before the first are kept, whatever they are. */
void sc_stack_stop_at_code_of(const void *fn);

/* What sc_stack_capture_app needs of stack.c: libgcc's unwinder step and its state. */
typedef struct sc_unwind_state {
    uint64_t *frames;
    int max, skip, n;
    bool skip_self;     /* leave out this library's frames first, then `skip` more */
    bool stop;          /* end at the code sc_stack_stop_at_code_of named */
} sc_unwind_state;
_Unwind_Reason_Code sc_unwind_step(struct _Unwind_Context *ctx, void *arg);
/* Whether sc_stack_capture_app unwinds inline: libgcc's unwinder, and this library's code
 * found (sc_stack_init). */
extern bool sc_stack_inline;
int sc_stack_capture_app_other(uint64_t *frames, int max);

/* The same from inside a CUPTI callback: the stack of the application's call, leaving out
 * streamcheck's own frames, however many the compiler left (by address: this library's
 * code), and the frame that called the callback (CUPTI's dispatcher). Inline: every frame
 * of ours costs the unwinder as much as one of the application's (a few thousand
 * instructions), and the callback's own frame is then the only one. */
static inline __attribute__((always_inline)) int sc_stack_capture_app(uint64_t *frames, int max)
{
    if (max <= 0) return 0;
    if (!sc_stack_inline) return sc_stack_capture_app_other(frames, max);
    sc_unwind_state s = {frames, max, 1, 0, true, true};
    _Unwind_Backtrace(sc_unwind_step, &s);
    return s.n;
}

#endif
