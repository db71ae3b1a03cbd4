/* The range window index: see window.h. */
#include "window_model.h"

#include <stdlib.h>
#include <string.h>

#include "trace/sort.h"
#include "trace/order_by_time.h"

static int sc_window_time_cmp(const void *pa, const void *pb)
{
    const sc_window_item *x = pa, *y = pb;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->ref < y->ref ? -1 : x->ref > y->ref;
}

static int sc_window_thread_cmp(const void *pa, const void *pb)
{
    const sc_window_item *x = pa, *y = pb;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return sc_window_time_cmp(pa, pb);
}

void sc_window_free(sc_window *w)
{
    free(w->by_time);
    free(w->by_thread);     /* no_thread lies in the same block */
    free(w->tids);
    free(w->tid_start);
    memset(w, 0, sizeof(*w));
}

#define SC_WINDOW_MAX_THREADS 1024  /* threads bucketed; more are sorted */

/* The threads seen, by open addressing: twice the slots the threads may fill keeps probes
 * short. Each slot counts its items, then holds where its next item goes in by_thread. */
#define SC_WINDOW_SLOTS (2 * SC_WINDOW_MAX_THREADS)

typedef struct sc_thread_slots {
    uint32_t tid[SC_WINDOW_SLOTS];
    bool used[SC_WINDOW_SLOTS];
    size_t fill[SC_WINDOW_SLOTS];
    size_t n_used;
} sc_thread_slots;

/* tid's slot, taken when new; SC_WINDOW_SLOTS when a new thread would pass
 * SC_WINDOW_MAX_THREADS. */
static size_t sc_thread_slot(sc_thread_slots *ts, uint32_t tid)
{
    /* an odd factor maps consecutive ids (as threads get them) to distinct slots */
    size_t at = (size_t)(tid * 2654435769u) % SC_WINDOW_SLOTS;
    while (ts->used[at] && ts->tid[at] != tid)
        at = (at + 1) % SC_WINDOW_SLOTS;
    if (!ts->used[at]) {
        if (ts->n_used == SC_WINDOW_MAX_THREADS)
            return SC_WINDOW_SLOTS;
        ts->used[at] = true;
        ts->tid[at] = tid;
        ts->n_used++;
    }
    return at;
}

/* Turns the slots' counts into where each slot's items start in by_thread: the threads in
 * ascending order, each after the ones before it; w->tids and w->tid_start say the same for
 * the queries. Returns 0, or -1 when out of memory. */
static int sc_thread_slots_place(sc_thread_slots *ts, sc_window *w)
{
    uint16_t order[SC_WINDOW_MAX_THREADS];   /* the used slots, by tid (insertion sort) */
    size_t n = 0;
    for (size_t at = 0; at < SC_WINDOW_SLOTS; at++) {
        if (!ts->used[at])
            continue;
        size_t j = n++;
        for (; j > 0 && ts->tid[order[j - 1]] > ts->tid[at]; j--)
            order[j] = order[j - 1];
        order[j] = (uint16_t)at;
    }
    w->tids = malloc((n ? n : 1) * sizeof *w->tids);
    w->tid_start = malloc((n + 1) * sizeof *w->tid_start);
    if (!w->tids || !w->tid_start)
        return -1;
    w->n_tids = n;
    size_t start = 0;
    for (size_t k = 0; k < n; k++) {
        size_t count = ts->fill[order[k]];
        w->tids[k] = ts->tid[order[k]];
        w->tid_start[k] = ts->fill[order[k]] = start;
        start += count;
    }
    w->tid_start[n] = start;
    return 0;
}

/* w->by_thread from w->by_time: each item with a thread goes to its thread's bucket in time
 * order, the buckets by thread id (a counting sort by thread). Returns 0, or -1 when the
 * items have more than SC_WINDOW_MAX_THREADS threads (or memory is short): nothing written
 * then. Items of one thread tend to come in runs, so the last thread seen is tried before the
 * table, and each item's slot is looked up once and kept for the scatter. */
static int sc_window_by_thread(sc_window *w)
{
    sc_thread_slots *ts = calloc(1, sizeof *ts);
    uint16_t *slot = malloc((w->n_by_time ? w->n_by_time : 1) * sizeof *slot);
    int rc = ts && slot ? 0 : -1;
    size_t last = SC_WINDOW_SLOTS;
    for (size_t i = 0; rc == 0 && i < w->n_by_time; i++) {
        const sc_window_item *x = &w->by_time[i];
        if (!x->has_tid)
            continue;
        if (last == SC_WINDOW_SLOTS || ts->tid[last] != x->tid)
            last = sc_thread_slot(ts, x->tid);
        if (last == SC_WINDOW_SLOTS)
            rc = -1;    /* too many threads */
        else {
            slot[i] = (uint16_t)last;
            ts->fill[last]++;
        }
    }
    if (rc == 0)
        rc = sc_thread_slots_place(ts, w);
    if (rc == 0) {
        for (size_t i = 0; i < w->n_by_time; i++)
            if (w->by_time[i].has_tid)
                w->by_thread[ts->fill[slot[i]]++] = w->by_time[i];
    }
    free(ts);
    free(slot);
    if (rc != 0) {
        free(w->tids);
        free(w->tid_start);
        w->tids = NULL;
        w->tid_start = NULL;
        w->n_tids = 0;
    }
    return rc;
}

/* dst = items by (t, ref), through the positions in time order (order_by_time.h: one 64-bit
 * key each, sorted inline instead of through a comparator). When the refs ascend with the
 * position (as every caller's do), (t, position) is the order of (t, ref). Returns -1, with
 * nothing written, when they do not or when memory is short: the caller then sorts by the
 * comparator. */
static int sc_window_sort_keys(sc_window_item *dst, const sc_window_item *items, size_t n)
{
    if (n == 0)
        return 0;
    if (n >= UINT32_MAX)
        return -1;
    for (size_t i = 1; i < n; i++)
        if (items[i].ref <= items[i - 1].ref)
            return -1;
    uint64_t *at = malloc(n * sizeof *at);
    uint32_t *order = malloc(n * sizeof *order);
    int rc = at && order ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        at[i] = items[i].t;
    if (rc == 0)
        rc = sc_order_by_time_in(at, n, order);
    for (size_t i = 0; rc == 0 && i < n; i++)
        dst[i] = items[order[i]];
    free(at);
    free(order);
    return rc;
}

/* w->no_thread from w->by_time, at the end of by_thread's block (the two split the items, so
 * one block holds both): filled from the back, as the count is not known before, then put
 * back in time order. Sets n_by_thread too. */
static void sc_window_no_thread(sc_window *w)
{
    sc_window_item *end = w->by_thread + w->n_by_time, *at = end;
    for (size_t i = 0; i < w->n_by_time; i++)
        if (!w->by_time[i].has_tid)
            *--at = w->by_time[i];
    w->no_thread = at;
    w->n_no_thread = (size_t)(end - at);
    w->n_by_thread = w->n_by_time - w->n_no_thread;
    for (size_t i = 0, j = w->n_no_thread; i + 1 < j; i++, j--) {
        sc_window_item x = at[i];
        at[i] = at[j - 1];
        at[j - 1] = x;
    }
}

/* The thread orders of a window whose by_time is filled and by_thread allocated. */
static void sc_window_split(sc_window *w)
{
    size_t n = w->n_by_time;
    /* the other two read off the time order (a stable sort keeps ties in input order in all
     * three): those without a thread in that order, those with one bucketed by thread */
    sc_window_no_thread(w);
    if (sc_window_by_thread(w) != 0) {     /* threads too many to bucket: sorted */
        for (size_t i = 0, k = 0; i < n; i++)
            if (w->by_time[i].has_tid)
                w->by_thread[k++] = w->by_time[i];
        sc_sort(w->by_thread, w->n_by_thread, sizeof(*w->by_thread), sc_window_thread_cmp);
    }
}

int sc_window_build(sc_window *w, const sc_window_item *items, size_t n)
{
    memset(w, 0, sizeof(*w));
    size_t m = n ? n : 1;
    w->by_time = malloc(m * sizeof(*w->by_time));
    w->by_thread = malloc(m * sizeof(*w->by_thread));
    if (!w->by_time || !w->by_thread) {
        sc_window_free(w);
        return -1;
    }
    w->n_by_time = n;
    if (sc_window_sort_keys(w->by_time, items, n) != 0)
        sc_sort_copy(w->by_time, items, n, sizeof(*items), sc_window_time_cmp);
    sc_window_split(w);
    return 0;
}

/* Whether items[] lie in order of (t, ref), ties of t broken by ref. */
static bool sc_window_items_in_order(const sc_window_item *items, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (items[i].t < items[i - 1].t ||
            (items[i].t == items[i - 1].t && items[i].ref <= items[i - 1].ref))
            return false;
    return true;
}

int sc_window_build_owned(sc_window *w, sc_window_item *items, size_t n)
{
    if (!sc_window_items_in_order(items, n)) {
        int rc = sc_window_build(w, items, n);
        free(items);
        return rc;
    }
    memset(w, 0, sizeof(*w));
    w->by_time = items;
    w->by_thread = malloc((n ? n : 1) * sizeof(*w->by_thread));
    if (!w->by_thread) {
        sc_window_free(w);
        return -1;
    }
    w->n_by_time = n;
    sc_window_split(w);
    return 0;
}

/* In an array sorted by time (by_tid false) or by thread then time (by_tid true): whether x
 * lies before the first item at or after (tid, t) when after_t is false, before the first one
 * after it when true. */
static bool sc_window_before(const sc_window_item *x, bool by_tid, uint32_t tid, uint64_t t,
                             bool after_t)
{
    if (by_tid && x->tid != tid)
        return x->tid < tid;
    return after_t ? x->t <= t : x->t < t;
}

/* The position sc_window_before describes, by binary search. */
static size_t sc_window_bound(const sc_window_item *a, size_t n, bool by_tid, uint32_t tid,
                              uint64_t t, bool after_t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_window_before(&a[mid], by_tid, tid, t, after_t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* sc_window_bound when every item before from lies before the position: the steps double
 * from there, then a binary search in the last one. A range's end is seldom far past its
 * start, so this costs about twice the log of the range's items, not the log of all. */
static size_t sc_window_bound_from(const sc_window_item *a, size_t n, size_t from, bool by_tid,
                                   uint32_t tid, uint64_t t, bool after_t)
{
    size_t lo = from, hi = n, step = 1;
    while (lo < n) {
        size_t probe = lo + step - 1 < n ? lo + step - 1 : n - 1;
        if (!sc_window_before(&a[probe], by_tid, tid, t, after_t)) {
            hi = probe;     /* at or before probe: found as hi when all below lie before */
            break;
        }
        lo = probe + 1;
        step *= 2;
    }
    return lo + sc_window_bound(a + lo, hi - lo, by_tid, tid, t, after_t);
}

/* The items with time in [start, end] (and thread tid when by_tid): one slice. */
static void sc_window_slice(const sc_window_item *a, size_t n, bool by_tid, uint32_t tid,
                            uint64_t start, uint64_t end, const sc_window_item **out,
                            size_t *n_out)
{
    size_t lo = sc_window_bound(a, n, by_tid, tid, start, false);
    /* end >= start (sc_window_query): what lies before the start lies before the end */
    size_t hi = sc_window_bound_from(a, n, lo, by_tid, tid, end, true);
    *out = a + lo;
    *n_out = hi > lo ? hi - lo : 0;
}

/* Where tid is in w->tids; w->n_tids when it is not there. */
static size_t sc_window_thread_at(const sc_window *w, uint32_t tid)
{
    size_t lo = 0, hi = w->n_tids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->tids[mid] < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->n_tids && w->tids[lo] == tid ? lo : w->n_tids;
}

sc_window_hits sc_window_query(const sc_window *w, const sc_rec_range *range)
{
    sc_window_hits h = {{NULL, NULL}, {0, 0}};
    if (range->end_ns < range->start_ns)
        return h;   /* a broken range holds nothing */
    if (range->depth == SC_RANGE_ANY_THREAD) {
        sc_window_slice(w->by_time, w->n_by_time, false, 0, range->start_ns, range->end_ns,
                        &h.slice[0], &h.n[0]);
        return h;
    }
    if (w->tids) {  /* bucketed: the thread's own items, searched by time alone */
        size_t k = sc_window_thread_at(w, range->tid);
        if (k < w->n_tids)
            sc_window_slice(w->by_thread + w->tid_start[k], w->tid_start[k + 1] -
                            w->tid_start[k], false, 0, range->start_ns, range->end_ns,
                            &h.slice[0], &h.n[0]);
    } else {
        sc_window_slice(w->by_thread, w->n_by_thread, true, range->tid, range->start_ns,
                        range->end_ns, &h.slice[0], &h.n[0]);
    }
    sc_window_slice(w->no_thread, w->n_no_thread, false, 0, range->start_ns, range->end_ns,
                    &h.slice[1], &h.n[1]);
    return h;
}

size_t sc_window_hits_count(const sc_window_hits *h)
{
    return h->n[0] + h->n[1];
}
