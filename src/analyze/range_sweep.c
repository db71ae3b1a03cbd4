/* The ranges as a sweep in host time: see range_sweep.h. */
#include "analyze/range_sweep.h"

#include <stdlib.h>
#include <string.h>

#include "trace/order_by_time.h"

void sc_range_sweep_free(sc_range_sweep *s)
{
    free(s->by_start);
    free(s->by_end);
    free(s->slot);
    free(s->map_tid);
    free(s->map_slot);
    memset(s, 0, sizeof(*s));
}

/* Room for places places in the table, its slots placed again. Returns 0, or -1 when out of
 * memory (the old table then stays). */
static int sc_range_sweep_map(sc_range_sweep *s, size_t places)
{
    uint32_t *tid = malloc(places * sizeof *tid), *slot = malloc(places * sizeof *slot);
    if (!tid || !slot) {
        free(tid);
        free(slot);
        return -1;
    }
    memset(slot, 0xff, places * sizeof *slot);
    for (size_t at = 0; s->map_slot && at <= s->map_mask; at++) {
        if (s->map_slot[at] == UINT32_MAX)
            continue;
        size_t to = (size_t)(s->map_tid[at] * 2654435769u) & (places - 1);
        while (slot[to] != UINT32_MAX)
            to = (to + 1) & (places - 1);
        tid[to] = s->map_tid[at];
        slot[to] = s->map_slot[at];
    }
    free(s->map_tid);
    free(s->map_slot);
    s->map_tid = tid;
    s->map_slot = slot;
    s->map_mask = places - 1;
    return 0;
}

/* Gives tid a slot, the next one when it has none yet; the table doubles before it is half
 * full, so a place stays free and the probes stay short. Returns 0, or -1 when out of
 * memory. */
static int sc_range_sweep_take(sc_range_sweep *s, uint32_t tid, uint32_t *slot)
{
    size_t at = (size_t)(tid * 2654435769u) & s->map_mask;
    while (s->map_slot[at] != UINT32_MAX && s->map_tid[at] != tid)
        at = (at + 1) & s->map_mask;
    if (s->map_slot[at] != UINT32_MAX) {
        *slot = s->map_slot[at];
        return 0;
    }
    if (2 * (s->n_slots + 1) > s->map_mask) {
        if (sc_range_sweep_map(s, 2 * (s->map_mask + 1)) != 0)
            return -1;
        return sc_range_sweep_take(s, tid, slot);
    }
    s->map_tid[at] = tid;
    *slot = s->map_slot[at] = (uint32_t)s->n_slots++;
    return 0;
}

/* The slots: one per thread of a push/pop range, in the order the ranges first name them
 * (a handful of threads, however many ranges). */
static int sc_range_sweep_slots(sc_range_sweep *s)
{
    s->slot = malloc((s->n_ranges ? s->n_ranges : 1) * sizeof *s->slot);
    if (!s->slot || sc_range_sweep_map(s, 16) != 0)
        return -1;
    for (size_t i = 0; i < s->n_ranges; i++) {
        const sc_rec_range *r = &s->ranges[i].rec;
        if (r->depth == SC_RANGE_ANY_THREAD)
            s->slot[i] = SC_SWEEP_ANY;
        else if (sc_range_sweep_take(s, r->tid, &s->slot[i]) != 0)
            return -1;
    }
    return 0;
}

/* The ranges that can hold anything, by start (as they lie, unless a caller's ranges do not)
 * and by end (sorted: nested ranges end in the reverse order of their starts). */
static int sc_range_sweep_events(sc_range_sweep *s)
{
    size_t m = s->n_ranges ? s->n_ranges : 1;
    s->by_start = malloc(m * sizeof *s->by_start);
    s->by_end = malloc(m * sizeof *s->by_end);
    uint64_t *at = malloc(m * sizeof *at);
    int rc = s->by_start && s->by_end && at ? 0 : -1;
    bool in_order = true;
    uint64_t prev = 0;
    for (size_t i = 0; rc == 0 && i < s->n_ranges; i++) {
        const sc_rec_range *r = &s->ranges[i].rec;
        if (r->end_ns < r->start_ns)
            continue;   /* a broken range holds nothing */
        in_order = in_order && r->start_ns >= prev;
        prev = r->start_ns;
        s->by_start[s->n++] = (uint32_t)i;
        if (r->depth == SC_RANGE_ANY_THREAD)
            s->any_thread = true;
        else
            s->per_thread = true;
    }
    if (rc == 0 && !in_order) {
        for (size_t j = 0; j < s->n; j++)
            at[j] = s->ranges[s->by_start[j]].rec.start_ns;
        rc = sc_order_by_time_in(at, s->n, s->by_end);  /* by_end as scratch */
        for (size_t j = 0; rc == 0 && j < s->n; j++)
            s->by_end[j] = s->by_start[s->by_end[j]];
        if (rc == 0)
            memcpy(s->by_start, s->by_end, s->n * sizeof *s->by_start);
    }
    uint32_t *order = rc == 0 ? malloc(m * sizeof *order) : NULL;
    if (rc == 0 && !order)
        rc = -1;
    for (size_t j = 0; rc == 0 && j < s->n; j++)
        at[j] = s->ranges[s->by_start[j]].rec.end_ns;
    if (rc == 0)
        rc = sc_order_by_time_in(at, s->n, order);
    for (size_t j = 0; rc == 0 && j < s->n; j++)
        s->by_end[j] = s->by_start[order[j]];
    free(order);
    free(at);
    return rc;
}

int sc_range_sweep_init(sc_range_sweep *s, const sc_range *ranges, size_t n_ranges)
{
    memset(s, 0, sizeof(*s));
    s->ranges = ranges;
    s->n_ranges = n_ranges;
    if (n_ranges >= UINT32_MAX || sc_range_sweep_slots(s) != 0 ||
        sc_range_sweep_events(s) != 0) {
        sc_range_sweep_free(s);
        return -1;
    }
    return 0;
}

int sc_sweep_pass_begin(sc_sweep_pass *p, const sc_range_sweep *s, size_t k, uint64_t *share,
                        uint64_t *from)
{
    memset(p, 0, sizeof(*p));
    p->s = s;
    p->k = k;
    p->share = share;
    p->from = from;
    p->sum = calloc((s->n_slots + 2) * k, sizeof *p->sum);
    p->empty = calloc(s->n_ranges / 64 + 1, sizeof *p->empty);
    if (!p->sum || !p->empty) {
        sc_sweep_pass_free(p);
        return -1;
    }
    memset(share, 0, s->n_ranges * k * sizeof *share);
    if (from)
        memset(from, 0, s->n_ranges * k * sizeof *from);
    p->start_t = s->n ? s->ranges[s->by_start[0]].rec.start_ns : UINT64_MAX;
    p->end_t = s->n ? s->ranges[s->by_end[0]].rec.end_ns : UINT64_MAX;
    return 0;
}

void sc_sweep_pass_free(sc_sweep_pass *p)
{
    free(p->sum);
    free(p->empty);
    p->sum = NULL;
    p->empty = NULL;
}

/* Range r's running sums now: its slot's plus the no-thread ones, or those over all; two rows
 * added (the second all zero for a start/end range), so the loops need no test. */
static inline void sc_sweep_pass_rows(const sc_sweep_pass *p, uint32_t r, const uint64_t **a,
                                      const uint64_t **b)
{
    uint32_t slot = p->s->slot[r];
    if (slot == SC_SWEEP_ANY) {
        *a = p->all;
        *b = p->zero;
    } else {
        *a = &p->sum[slot * p->k];
        *b = &p->sum[(p->s->n_slots + 1) * p->k];
    }
}

/* The starts at or before t, the time of the next item (UINT64_MAX: none is left): a range
 * that ends before it holds nothing, and takes no snapshot (its share stays 0; its end is
 * passed over), which makes a pass over sparse items (a finding's few marks) cost little more
 * than a look at each range. */
static void sc_sweep_pass_starts(sc_sweep_pass *p, uint64_t t)
{
    const sc_range_sweep *s = p->s;
    size_t k = p->k;
    while (p->next_start < s->n && p->start_t <= t) {
        uint32_t r = s->by_start[p->next_start++];
        p->start_t = p->next_start < s->n ? s->ranges[s->by_start[p->next_start]].rec.start_ns
                                          : UINT64_MAX;
        if (s->ranges[r].rec.end_ns < t) {
            p->empty[r / 64] |= (uint64_t)1 << (r % 64);
            continue;
        }
        const uint64_t *a, *b;
        sc_sweep_pass_rows(p, r, &a, &b);
        uint64_t *share = &p->share[(size_t)r * k];
        for (size_t q = 0; q < k; q++)
            share[q] = a[q] + b[q];
        if (p->from)
            for (size_t q = 0; q < k; q++)
                p->from[(size_t)r * k + q] = share[q];
    }
}

static void sc_sweep_pass_ends(sc_sweep_pass *p, uint64_t t, bool all)
{
    const sc_range_sweep *s = p->s;
    size_t k = p->k;
    while (p->next_end < s->n && (all || p->end_t < t)) {
        uint32_t r = s->by_end[p->next_end++];
        p->end_t = p->next_end < s->n ? s->ranges[s->by_end[p->next_end]].rec.end_ns
                                      : UINT64_MAX;
        if (p->empty[r / 64] >> (r % 64) & 1)
            continue;
        const uint64_t *a, *b;
        sc_sweep_pass_rows(p, r, &a, &b);
        uint64_t *share = &p->share[(size_t)r * k];
        for (size_t q = 0; q < k; q++)
            share[q] = a[q] + b[q] - share[q];
    }
}

void sc_sweep_pass_flush(sc_sweep_pass *p, uint64_t t)
{
    /* starts first: a range that starts and ends before t is opened before it is closed */
    sc_sweep_pass_starts(p, t);
    sc_sweep_pass_ends(p, t, false);
}

void sc_sweep_pass_end(sc_sweep_pass *p)
{
    sc_sweep_pass_starts(p, UINT64_MAX);
    sc_sweep_pass_ends(p, UINT64_MAX, true);
}
