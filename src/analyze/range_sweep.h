/* What the NVTX ranges hold, as one sweep in host time instead of a window per kind of item.
 *
 * A range holds (tests/unit/analyze/window_model.h states the rule as a plain index, the
 * reference the sweep is tested against): the items inside [start, end] (both ends inclusive) on
 * its own thread for a push/pop range, on any thread for a start/end range, and on any range
 * the items with no known thread. Walking the items in time order with a running sum per
 * thread (and one for the items with no thread, one for all), a range's share of any sum is
 * its value at the range's end less its value at the range's start: for a push/pop range its
 * thread's sum plus the no-thread sum, for a start/end range the sum over all. So the starts
 * (the ranges lie by start) and the ends (sorted once) are two more streams merged into the
 * walk: at one instant the starts come before the items and the ends after them. Each item
 * costs a few additions, each range two snapshots, whatever the nesting or the overlap of the
 * ranges; nothing is copied or sorted per item.
 *
 * A count of items before a range's start is also a position: walking items that lie in one
 * array per thread (or in one array in all), a range's items are a slice of it from the sum at
 * its start (ranges.c gathers a range's device work so).
 */
#ifndef SC_ANALYZE_RANGE_SWEEP_H
#define SC_ANALYZE_RANGE_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

/* sc_rec_range.depth of a start/end range: not bound to a thread. */
#define SC_RANGE_ANY_THREAD UINT32_MAX

/* sc_range_sweep.slot of a start/end range: every item's sum. */
#define SC_SWEEP_ANY UINT32_MAX

enum { SC_SWEEP_MAX_SUMS = 4 };     /* sums one pass keeps per item */

/* The ranges' events and their threads, built once for every pass. */
typedef struct sc_range_sweep {
    const sc_range *ranges;
    size_t n_ranges;
    uint32_t *by_start;         /* the ranges that can hold anything (end >= start), by start */
    uint32_t *by_end;           /* the same ranges by end */
    size_t n;
    uint32_t *slot;             /* per range: its thread's slot, SC_SWEEP_ANY for start/end */
    size_t n_slots;             /* threads with a push/pop range: slots 0 .. n_slots - 1; an
                                   item of another thread takes slot n_slots (it counts only
                                   in the sum over all), one with no thread n_slots + 1 */
    bool any_thread;            /* some range that can hold anything is start/end */
    bool per_thread;            /* some range that can hold anything is push/pop */
    uint32_t *map_tid;          /* tid -> slot by open addressing: map_mask + 1 places */
    uint32_t *map_slot;         /* UINT32_MAX: a free place */
    size_t map_mask;
} sc_range_sweep;

/* Returns 0, or -1 when out of memory (s is then empty; sc_range_sweep_free is safe). */
int sc_range_sweep_init(sc_range_sweep *s, const sc_range *ranges, size_t n_ranges);
void sc_range_sweep_free(sc_range_sweep *s);

/* The slot of an item on thread tid (never the no-thread slot). */
static inline uint32_t sc_range_sweep_slot(const sc_range_sweep *s, uint32_t tid)
{
    /* an odd factor maps consecutive ids (as threads get them) to distinct places */
    for (size_t at = (size_t)(tid * 2654435769u) & s->map_mask;; at = (at + 1) & s->map_mask) {
        if (s->map_slot[at] == UINT32_MAX)
            return (uint32_t)s->n_slots;
        if (s->map_tid[at] == tid)
            return s->map_slot[at];
    }
}

/* One walk over a kind of items: k sums per item (k <= SC_SWEEP_MAX_SUMS). */
typedef struct sc_sweep_pass {
    const sc_range_sweep *s;
    size_t k;
    uint64_t *sum;              /* (n_slots + 2) rows of k: each slot's running sums */
    uint64_t all[SC_SWEEP_MAX_SUMS];    /* the running sums over every item */
    uint64_t zero[SC_SWEEP_MAX_SUMS];
    uint64_t *share;            /* per range, k: the range's share once the pass is done (its
                                   sums at its start while it is open); 0 for the ranges that
                                   hold nothing */
    uint64_t *from;             /* NULL, or per range, k: its sums at its start (positions); 0
                                   for a range that holds nothing */
    uint64_t *empty;            /* a bit per range: it was seen to hold nothing at its start */
    size_t next_start, next_end;    /* in s->by_start and s->by_end */
    uint64_t start_t, end_t;    /* their times; UINT64_MAX when none is left */
} sc_sweep_pass;

/* share and from (optional): room for n_ranges * k values each, which the pass fills.
 * Returns 0, or -1 when out of memory. */
int sc_sweep_pass_begin(sc_sweep_pass *p, const sc_range_sweep *s, size_t k, uint64_t *share,
                        uint64_t *from);
void sc_sweep_pass_free(sc_sweep_pass *p);

/* The events before an item at time t: the starts at or before t, then the ends before t. */
void sc_sweep_pass_flush(sc_sweep_pass *p, uint64_t t);
/* Every event left, after the last item. */
void sc_sweep_pass_end(sc_sweep_pass *p);

/* Call before each item, in time order. */
static inline void sc_sweep_pass_to(sc_sweep_pass *p, uint64_t t)
{
    if (p->start_t <= t || p->end_t < t)
        sc_sweep_pass_flush(p, t);
}

/* Adds v to sum q of slot's items (a slot from sc_range_sweep_slot, or n_slots + 1 for an
 * item with no thread). */
static inline void sc_sweep_pass_add(sc_sweep_pass *p, uint32_t slot, size_t q, uint64_t v)
{
    p->sum[slot * p->k + q] += v;
    p->all[q] += v;
}

#endif
