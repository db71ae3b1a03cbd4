/* Times a trace cannot have: a record that ends before it starts, or that lies far outside
 * the run (a corrupt or hostile file: a start at 0 or near 2^64 would stretch "the run" to
 * centuries and every metric with it). The loader leaves such records out and counts them
 * (sc_trace.impossible_times), and the report says how many.
 *
 * The run's bounds: from the PROCESS record's start to the END record's end when the trace
 * has them (every record streamcheck writes lies between the two), widened by
 * SC_TIMES_MARGIN_NS on each side; a trace without an END record (a crash), or whose END
 * claims a longer run, may run up to SC_TIMES_LONGEST_RUN_NS after its start; one without a
 * PROCESS record is bounded by that span around the median start of its records. */
#ifndef SC_TRACE_TIMES_H
#define SC_TRACE_TIMES_H

#include <stdbool.h>
#include <stdint.h>

#include "streamcheck/trace.h"

#define SC_TIMES_MARGIN_NS (10ull * 1000000000ull)                 /* 10 s */
#define SC_TIMES_LONGEST_RUN_NS (366ull * 24 * 3600 * 1000000000ull) /* a year */

/* The bounds of a possible time in t, from its PROCESS and END records (inclusive). Returns
 * false when t has no PROCESS record: the bounds then need every record's start. */
bool sc_times_bounds(const sc_trace *t, uint64_t *lo, uint64_t *hi);

/* Whether a record from `start` to `end` is impossible within the bounds. */
static inline bool sc_times_impossible(uint64_t start, uint64_t end, uint64_t lo, uint64_t hi)
{
    return end < start || start < lo || end > hi;
}

/* What a load saw of the times of the records it kept, as it kept them: enough to tell,
 * once the bounds are known (the END record comes last), that none is impossible, without a
 * pass over every list. */
typedef struct sc_times_seen {
    uint64_t least_start;       /* UINT64_MAX, and most_end 0, before the first */
    uint64_t most_end;
    bool backwards;             /* one ended before it started */
} sc_times_seen;

#define SC_TIMES_SEEN_NONE ((sc_times_seen){.least_start = UINT64_MAX})

static inline void sc_times_see(sc_times_seen *seen, uint64_t start, uint64_t end)
{
    seen->backwards |= end < start;
    seen->least_start = start < seen->least_start ? start : seen->least_start;
    seen->most_end = end > seen->most_end ? end : seen->most_end;
}

/* Adds what `more` saw to *seen. */
static inline void sc_times_merge(sc_times_seen *seen, const sc_times_seen *more)
{
    seen->backwards |= more->backwards;
    seen->least_start = more->least_start < seen->least_start ? more->least_start
                                                               : seen->least_start;
    seen->most_end = more->most_end > seen->most_end ? more->most_end : seen->most_end;
}

/* Removes the impossible records from every timed list of t (calls, kernels, copies,
 * memsets, syncs, ranges, overheads, unified), keeping the order of the others, and counts
 * them in t->impossible_times. Returns 0, or -1 when out of memory (t unchanged). */
int sc_trace_drop_impossible_times(sc_trace *t);
/* The same, for lists whose every record `seen` saw: nothing to look at when seen says that
 * no record is impossible within t's bounds. */
int sc_trace_drop_impossible_times_seen(sc_trace *t, const sc_times_seen *seen);

#endif
