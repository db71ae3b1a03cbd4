/* Which things happened inside an NVTX range: a time index with a per-thread view.
 *
 * A range holds what started inside its host window: on its own thread for a push/pop
 * range, on any thread for a start/end range; an item whose thread is unknown (device work
 * whose call is not in the trace) belongs to any range whose window holds its time. The
 * index sorts the items once, by time and by (thread, time), so each range is answered with
 * binary searches and comes back as at most two contiguous slices: building costs
 * O(n log n), a range O(log n) plus what it holds, whatever the number of ranges.
 *
 * The analyzer builds none: ranges.c measures the ranges in one sweep in time order
 * (range_sweep.h), which needs no copy of the items. The window lives with the tests, as the
 * plain statement of the rule that the sweep is checked against (test_range_sweep.c).
 */
#ifndef SC_TEST_WINDOW_MODEL_H
#define SC_TEST_WINDOW_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/range_sweep.h"
#include "streamcheck/trace.h"

typedef struct sc_window_item {
    uint64_t t;                 /* when it started (host time for a call) */
    uint32_t tid;
    bool has_tid;               /* false: the thread is unknown, any range may hold it */
    size_t ref;                 /* what the caller indexes with */
} sc_window_item;

typedef struct sc_window {
    sc_window_item *by_time;    /* every item, by (t, ref) */
    size_t n_by_time;
    sc_window_item *by_thread;  /* items with a thread, by (tid, t, ref) */
    size_t n_by_thread;
    sc_window_item *no_thread;  /* items without one, by (t, ref): in by_thread's block, after
                                   its items */
    size_t n_no_thread;
    uint32_t *tids;             /* by_thread's threads, ascending; NULL when they were too many
                                   to bucket (a query then searches by (tid, t)) */
    size_t *tid_start;          /* n_tids + 1: where each one's items start in by_thread */
    size_t n_tids;
} sc_window;

/* At most two slices; a range's items are slice[0] then slice[1] (no item twice). */
typedef struct sc_window_hits {
    const sc_window_item *slice[2];
    size_t n[2];
} sc_window_hits;

/* Takes n items (copied). Returns 0, or -1 when out of memory (w is then empty). */
int sc_window_build(sc_window *w, const sc_window_item *items, size_t n);
/* The same from a malloc'd block of n items, which the window takes (freed with it, or here
 * on failure): items already in order of (t, ref) become the time order as they lie, with no
 * copy and no sort. */
int sc_window_build_owned(sc_window *w, sc_window_item *items, size_t n);
void sc_window_free(sc_window *w);
/* The items inside [range.start, range.end] under the thread rule above. */
sc_window_hits sc_window_query(const sc_window *w, const sc_rec_range *range);
size_t sc_window_hits_count(const sc_window_hits *h);

#endif
