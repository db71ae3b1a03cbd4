/* The range window index: see window.h. */
#include "analyze/window.h"

#include <stdlib.h>
#include <string.h>

#include "trace/sort.h"

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
    free(w->by_thread);
    free(w->no_thread);
    memset(w, 0, sizeof(*w));
}

int sc_window_build(sc_window *w, const sc_window_item *items, size_t n)
{
    memset(w, 0, sizeof(*w));
    size_t m = n ? n : 1;
    w->by_time = malloc(m * sizeof(*w->by_time));
    w->by_thread = malloc(m * sizeof(*w->by_thread));
    w->no_thread = malloc(m * sizeof(*w->no_thread));
    if (!w->by_time || !w->by_thread || !w->no_thread) {
        sc_window_free(w);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        w->by_time[w->n_by_time++] = items[i];
        if (items[i].has_tid)
            w->by_thread[w->n_by_thread++] = items[i];
        else
            w->no_thread[w->n_no_thread++] = items[i];
    }
    sc_sort(w->by_time, w->n_by_time, sizeof(*w->by_time), sc_window_time_cmp);
    sc_sort(w->by_thread, w->n_by_thread, sizeof(*w->by_thread), sc_window_thread_cmp);
    sc_sort(w->no_thread, w->n_no_thread, sizeof(*w->no_thread), sc_window_time_cmp);
    return 0;
}

/* In an array sorted by time (by_tid false) or by thread then time (by_tid true): the first
 * item at or after (tid, t) when after_t is false, the first one after it when true. */
static size_t sc_window_bound(const sc_window_item *a, size_t n, bool by_tid, uint32_t tid,
                              uint64_t t, bool after_t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        bool left;  /* mid lies before the position sought */
        if (by_tid && a[mid].tid != tid)
            left = a[mid].tid < tid;
        else
            left = after_t ? a[mid].t <= t : a[mid].t < t;
        if (left)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The items with time in [start, end] (and thread tid when by_tid): one slice. */
static void sc_window_slice(const sc_window_item *a, size_t n, bool by_tid, uint32_t tid,
                            uint64_t start, uint64_t end, const sc_window_item **out,
                            size_t *n_out)
{
    size_t lo = sc_window_bound(a, n, by_tid, tid, start, false);
    size_t hi = sc_window_bound(a, n, by_tid, tid, end, true);
    *out = a + lo;
    *n_out = hi > lo ? hi - lo : 0;
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
    sc_window_slice(w->by_thread, w->n_by_thread, true, range->tid, range->start_ns,
                    range->end_ns, &h.slice[0], &h.n[0]);
    sc_window_slice(w->no_thread, w->n_no_thread, false, 0, range->start_ns, range->end_ns,
                    &h.slice[1], &h.n[1]);
    return h;
}

size_t sc_window_hits_count(const sc_window_hits *h)
{
    return h->n[0] + h->n[1];
}
