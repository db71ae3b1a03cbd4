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

#include "streamcheck/trace.h"

#define SC_TIMES_MARGIN_NS (10ull * 1000000000ull)                 /* 10 s */
#define SC_TIMES_LONGEST_RUN_NS (366ull * 24 * 3600 * 1000000000ull) /* a year */

/* Removes the impossible records from every timed list of t (calls, kernels, copies,
 * memsets, syncs, ranges, overheads, unified), keeping the order of the others, and counts
 * them in t->impossible_times. Returns 0, or -1 when out of memory (t unchanged). */
int sc_trace_drop_impossible_times(sc_trace *t);

#endif
