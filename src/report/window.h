/* --from/--to: the report of a stretch of the run, by cutting the trace before analysis.
 *
 * A record belongs to the window when it starts inside it: calls, kernels, copies, memsets,
 * synchronizations, NVTX ranges, overhead and unified-memory records. Work issued before the
 * window that ran inside it is there without its call (the analyzer treats it as work whose
 * call is not in the trace); work that started inside and ran past its end is there whole.
 * Streams, modules, devices, notes and the environment are kept: they are not time. */
#ifndef SC_REPORT_WINDOW_H
#define SC_REPORT_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "streamcheck/trace.h"

typedef struct sc_window {
    bool has_from, has_to;
    uint64_t from_ns, to_ns;    /* from the run's start */
} sc_window;

/* Parses a time from the run's start: "2.5" or "2.5s", "300ms", "40us", "1000ns". Returns
 * 0, or -1 (not a time, negative, too large). */
int sc_window_parse_time(const char *text, uint64_t *out_ns);

/* The run's start as the analyzer counts it: the earliest call, device work or range (of the
 * whole trace, also when it was loaded between two times). */
uint64_t sc_window_run_start(const sc_trace *trace);

/* The window's absolute times, [*lo, *hi), for a run that starts at run_start. */
void sc_window_bounds(const sc_window *w, uint64_t run_start, uint64_t *lo, uint64_t *hi);

/* Fills `out` with `in` cut to the window: the same storage (free `in` only, never `out`),
 * each time-sorted array narrowed to the records that start inside. */
void sc_window_cut(const sc_trace *in, const sc_window *w, sc_trace *out);

#endif
