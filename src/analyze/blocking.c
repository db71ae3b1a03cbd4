/* What a host-blocking call cost the device: see blocking.h for the definitions. */
#include "analyze/blocking.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap.h"
#include "analyze/work.h"
#include "trace/order_by_time.h"
#include "trace/sort.h"
#include "trace/sort_u64.h"

#define SC_BLOCKING_DISTINCT 256    /* distinct drained streams counted per call */

/* ---- building the index --------------------------------------------------------------- */

/* Entries of one end by start. */
static int sc_work_start_cmp(const void *pa, const void *pb)
{
    const sc_blocking_work *x = pa, *y = pb;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int sc_scope_alloc(sc_blocking_scope *s, size_t n)
{
    size_t m = n ? n : 1;
    s->by_end = malloc(m * sizeof *s->by_end);
    s->by_start = malloc(m * sizeof *s->by_start);
    s->by_corr = malloc(m * sizeof *s->by_corr);
    s->min_issue_from = malloc(m * sizeof *s->min_issue_from);
    s->n = 0;
    return s->by_end && s->by_start && s->by_corr && s->min_issue_from ? 0 : -1;
}

static void sc_scope_free(sc_blocking_scope *s)
{
    free(s->by_end);
    free(s->by_start);
    free(s->by_corr);
    free(s->min_issue_from);
    sc_busy_free(&s->busy);
    memset(s, 0, sizeof(*s));
}

/* The entry of the work at a sc_work_at() position. */
static sc_blocking_work sc_work_entry(const sc_ctx *ctx, uint64_t position)
{
    sc_work w = sc_work_at(ctx->trace, (size_t)position);
    const sc_api_call *call = sc_ctx_call(ctx, w.correlation_id);
    uint64_t issue = call && call->rec.start_ns < w.start_ns ? call->rec.start_ns : w.start_ns;
    return (sc_blocking_work){issue, w.start_ns, w.end_ns, w.stream_id, w.correlation_id,
                              call ? call->rec.tid : 0, (uint32_t)position};
}

/* Fills by_end in order of end, then start, then input order, from what sc_scope_note left:
 * each entry's end in by_corr and work position in min_issue_from. The entries are put in
 * order as 32-bit indexes (in by_start) by their ends as keys (order_by_time.h: a tie by
 * index, which is input order), each made in its place from the trace, and a run of one end
 * sorted by start, stably. Sorting the 40-byte entries themselves took a scratch array of
 * them (123 MB of fresh pages for the 10M-record synthetic trace) and moved each through a
 * comparator. */
static int sc_scope_fill_by_end(const sc_ctx *ctx, sc_blocking_scope *s)
{
    if (sc_order_by_time_in(s->by_corr, s->n, s->by_start) != 0)
        return -1;
    for (size_t k = 0; k < s->n; k++)
        s->by_end[k] = sc_work_entry(ctx, s->min_issue_from[s->by_start[k]]);
    for (size_t lo = 0, hi; lo < s->n; lo = hi) {
        for (hi = lo + 1; hi < s->n && s->by_end[hi].end_ns == s->by_end[lo].end_ns; hi++)
            ;
        if (hi - lo > 1)
            sc_sort(s->by_end + lo, hi - lo, sizeof *s->by_end, sc_work_start_cmp);
    }
    return 0;
}

/* Fills by_corr: the by_start positions by (correlation id, position), each as id << 32 |
 * position. Those values are unique and are the order themselves, so they are sorted as
 * they are (sort_u64.h): the ids are nearly in start order and make few piles, merged value
 * against value. Ordering positions by the ids as keys (order_by_time.h) merged index lists
 * through a lookup per comparison and read every entry again to make the values. Returns
 * 0 (the sort takes no memory it cannot do without). */
static int sc_scope_fill_by_corr(sc_blocking_scope *s)
{
    for (size_t k = 0; k < s->n; k++)
        s->by_corr[k] = (uint64_t)s->by_end[s->by_start[k]].correlation_id << 32 | k;
    sc_sort_u64(s->by_corr, s->n);
    return 0;
}

/* Sorts the work and its two views and merges the busy list (in start order).
 *
 * by_start orders the by_end positions by start, then end, then input order: by (start,
 * position) is the same order, since by_end holds work of one start in the order of its end
 * and, at equal start and end, in input order. So each position's start is its one key. */
static int sc_scope_finish(const sc_ctx *ctx, sc_blocking_scope *s)
{
    if (sc_scope_fill_by_end(ctx, s) != 0)
        return -1;
    /* the keys in by_corr, which is filled after */
    for (size_t i = 0; i < s->n; i++)
        s->by_corr[i] = s->by_end[i].start_ns;
    if (sc_order_by_time_in(s->by_corr, s->n, s->by_start) != 0)
        return -1;
    if (sc_scope_fill_by_corr(s) != 0)
        return -1;
    for (size_t i = s->n; i-- > 0;)
        s->min_issue_from[i] = i + 1 < s->n && s->min_issue_from[i + 1] < s->by_end[i].issue_ns
                                   ? s->min_issue_from[i + 1]
                                   : s->by_end[i].issue_ns;
    for (size_t i = 0; i < s->n; i++) {
        const sc_blocking_work *w = &s->by_end[s->by_start[i]];
        if (sc_busy_append(&s->busy, w->start_ns, w->end_ns) != 0)
            return -1;
    }
    return 0;
}

static void sc_context_note(sc_blocking_index *ix, uint32_t context_id, uint32_t device)
{
    for (size_t i = 0; i < ix->n_contexts; i++)
        if (ix->contexts[i].context_id == context_id)
            return;     /* a context belongs to one device: the first sighting is enough */
    ix->contexts[ix->n_contexts++] = (sc_blocking_context){context_id, device};
}

/* With one device the all-devices scope would be a copy of it: it is built only for more. */
static bool sc_index_has_all(const sc_blocking_index *ix)
{
    return ix->ctx->analysis->n_devices != 1;
}

/* Notes one piece of work in a scope, for sc_scope_finish: its end in by_corr, its position
 * in min_issue_from (both filled again after). */
static void sc_scope_note(sc_blocking_scope *s, const sc_work *w, size_t position)
{
    s->by_corr[s->n] = w->end_ns;
    s->min_issue_from[s->n++] = position;
}

/* Adds one piece of work to its device's scope and to the all-devices scope. */
static void sc_index_put(sc_blocking_index *ix, const sc_work *w, size_t position)
{
    sc_scope_note(&ix->devices[sc_device_index(ix->ctx->analysis, w->device)], w, position);
    if (sc_index_has_all(ix))
        sc_scope_note(&ix->all, w, position);
    sc_context_note(ix, w->context_id, w->device);
}

/* Allocates each device's scope for exactly its work (a multi-GPU trace stays linear). */
static int sc_index_alloc(sc_blocking_index *ix)
{
    const sc_trace *t = ix->ctx->trace;
    size_t n_dev = ix->ctx->analysis->n_devices, n = sc_work_count(t);
    size_t *per = calloc(n_dev ? n_dev : 1, sizeof(*per));
    if (!per)
        return -1;
    if (n_dev == 1)
        per[0] = n;     /* all of it, as sc_device_index says: no pass over the work */
    for (size_t i = 0; n_dev > 1 && i < n; i++)
        per[sc_device_index(ix->ctx->analysis, sc_work_at(t, i).device)]++;
    int rc = sc_scope_alloc(&ix->all, sc_index_has_all(ix) ? n : 0);
    for (size_t d = 0; rc == 0 && d < n_dev; d++)
        rc = sc_scope_alloc(&ix->devices[d], per[d]);
    free(per);
    return rc;
}

static const sc_blocking_scope *sc_scope_of(const sc_blocking_index *ix, uint32_t context_id);
static size_t sc_first_end_after(const sc_blocking_scope *s, uint64_t t);

/* sc_first_end_after for calls taken in start order: per scope a position that only moves
 * forward (a call starting before the one before it searches again). */
typedef struct sc_end_cursor {
    size_t at;
    uint64_t t;
    bool used;
} sc_end_cursor;

static size_t sc_first_end_after_from(const sc_blocking_scope *s, sc_end_cursor *c, uint64_t t)
{
    if (!c->used || t < c->t) {
        c->at = sc_first_end_after(s, t);
    } else {
        while (c->at < s->n && s->by_end[c->at].end_ns <= t)
            c->at++;
    }
    c->used = true;
    c->t = t;
    return c->at;
}

/* Whether any work of the call's scope was in flight when it began: of the work ending after
 * that, some was issued before it. `cursors`: one per device scope, then the all-devices
 * scope's. */
static bool sc_in_flight_at(const sc_blocking_index *ix, const sc_api_call *c,
                            sc_end_cursor *cursors)
{
    const sc_blocking_scope *s = sc_scope_of(ix, c->rec.context_id);
    size_t k = s == &ix->all ? ix->ctx->analysis->n_devices : (size_t)(s - ix->devices);
    size_t i = sc_first_end_after_from(s, &cursors[k], c->rec.start_ns);
    return i < s->n && s->min_issue_from[i] < c->rec.start_ns;
}

/* Per call class, what its calls took with nothing in flight: the lower quartile of those
 * durations (a call never takes less than its own work; the quartile keeps a call slowed by
 * something else out). 0 for a class without such a call. The calls are read once, each
 * class's durations gathered in call order into its own stretch of d (a pass per class read
 * every call SC_CALL_CLASS_COUNT times: a second of a 10M-record report). */
static int sc_own_times(sc_blocking_index *ix)
{
    const sc_trace *t = ix->ctx->trace;
    size_t n = t->n_calls ? t->n_calls : 1;
    uint64_t *d = malloc(n * sizeof(*d));
    uint8_t *cls_of = malloc(n);
    sc_end_cursor *cursors = calloc(ix->ctx->analysis->n_devices + 1, sizeof(*cursors));
    if (!d || !cls_of || !cursors) {
        free(d);
        free(cls_of);
        free(cursors);
        return -1;
    }
    enum { SC_NO_CLASS = 0xff };
    _Static_assert(SC_CALL_CLASS_COUNT < SC_NO_CLASS, "a class fits below the marker");
    size_t first[SC_CALL_CLASS_COUNT + 1] = {0};
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        bool own = c->rec.call_class < SC_CALL_CLASS_COUNT &&
                   !sc_blocking_is_inner(ix->ctx, c) && !sc_in_flight_at(ix, c, cursors);
        cls_of[i] = own ? (uint8_t)c->rec.call_class : SC_NO_CLASS;
        if (own)
            first[c->rec.call_class + 1]++;
    }
    for (size_t cls = 0; cls < SC_CALL_CLASS_COUNT; cls++)
        first[cls + 1] += first[cls];
    size_t next[SC_CALL_CLASS_COUNT];
    memcpy(next, first, sizeof next);
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        if (cls_of[i] != SC_NO_CLASS)
            d[next[cls_of[i]]++] =
                c->rec.end_ns > c->rec.start_ns ? c->rec.end_ns - c->rec.start_ns : 0;
    }
    for (size_t cls = 0; cls < SC_CALL_CLASS_COUNT; cls++) {
        size_t k = first[cls + 1] - first[cls];
        if (k == 0)
            continue;
        sc_sort_u64(d + first[cls], k);
        ix->own_ns[cls] = d[first[cls] + (k - 1) / 4];
    }
    free(d);
    free(cls_of);
    free(cursors);
    return 0;
}

int sc_blocking_index_build(const sc_ctx *ctx, sc_blocking_index *ix)
{
    size_t n_dev = ctx->analysis->n_devices;
    size_t n = sc_work_count(ctx->trace);
    memset(ix, 0, sizeof(*ix));
    ix->ctx = ctx;
    if (n > UINT32_MAX)     /* sc_blocking_work.work holds 32 bits */
        return -1;
    ix->devices = calloc(n_dev ? n_dev : 1, sizeof(*ix->devices));
    ix->contexts = malloc((n ? n : 1) * sizeof(*ix->contexts));
    if (!ix->devices || !ix->contexts || sc_index_alloc(ix) != 0)
        return -1;
    for (size_t i = 0; n_dev && i < n; i++) {
        sc_work w = sc_work_at(ctx->trace, i);
        sc_index_put(ix, &w, i);
    }
    for (size_t d = 0; d < n_dev; d++)
        if (sc_scope_finish(ctx, &ix->devices[d]) != 0)
            return -1;
    if (sc_scope_finish(ctx, &ix->all) != 0)
        return -1;
    return sc_own_times(ix);
}

void sc_blocking_index_free(sc_blocking_index *ix)
{
    if (ix->devices)
        for (size_t d = 0; d < ix->ctx->analysis->n_devices; d++)
            sc_scope_free(&ix->devices[d]);
    free(ix->devices);
    sc_scope_free(&ix->all);
    free(ix->contexts);
    memset(ix, 0, sizeof(*ix));
}

/* ---- measuring ------------------------------------------------------------------------ */

static const sc_blocking_scope *sc_scope_of(const sc_blocking_index *ix, uint32_t context_id)
{
    for (size_t i = 0; i < ix->n_contexts; i++) {
        if (ix->contexts[i].context_id != context_id)
            continue;
        for (size_t d = 0; d < ix->ctx->analysis->n_devices; d++)
            if (ix->ctx->analysis->devices[d].device == ix->contexts[i].device)
                return &ix->devices[d];
    }
    return sc_index_has_all(ix) ? &ix->all : &ix->devices[0];
}

/* First position in by_end whose end is after t. */
static size_t sc_first_end_after(const sc_blocking_scope *s, uint64_t t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->by_end[mid].end_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The work at a position of by_start. */
static const sc_blocking_work *sc_at_start(const sc_blocking_scope *s, size_t i)
{
    return &s->by_end[s->by_start[i]];
}

/* First position in by_start whose start is at or after t. */
static size_t sc_first_start_from(const sc_blocking_scope *s, uint64_t t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_at_start(s, mid)->start_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The call's own work (same correlation id): the earliest-starting piece, or NULL. */
static const sc_blocking_work *sc_own_work(const sc_blocking_scope *s, uint32_t correlation_id)
{
    if (correlation_id == 0)
        return NULL;
    uint64_t key = (uint64_t)correlation_id << 32;
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->by_corr[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->by_corr[lo] >> 32 == correlation_id
               ? sc_at_start(s, (uint32_t)s->by_corr[lo])
               : NULL;
}

/* Records a drained stream: counts it once, keeps the smallest ids. */
static void sc_drained_stream(sc_blocking *m, uint32_t *seen, size_t *n_seen, uint32_t stream)
{
    for (size_t i = 0; i < *n_seen; i++)
        if (seen[i] == stream)
            return;
    if (*n_seen < SC_BLOCKING_DISTINCT)
        seen[(*n_seen)++] = stream;
    m->n_streams++;
    size_t keep = m->n_streams < SC_BLOCKING_MAX_STREAMS ? m->n_streams
                                                          : SC_BLOCKING_MAX_STREAMS;
    /* insertion into the sorted head; a larger id than all kept falls off the end */
    size_t at = keep - 1;
    if (m->n_streams > SC_BLOCKING_MAX_STREAMS && stream > m->streams[at])
        return;
    while (at > 0 && m->streams[at - 1] > stream) {
        m->streams[at] = m->streams[at - 1];
        at--;
    }
    m->streams[at] = stream;
}

static void sc_measure_drained(const sc_blocking_scope *s, const sc_blocking_call *c,
                               uint64_t own_ns, sc_blocking *m)
{
    uint32_t seen[SC_BLOCKING_DISTINCT];
    size_t n_seen = 0;
    for (size_t i = sc_first_end_after(s, c->start_ns);
         i < s->n && s->by_end[i].end_ns <= m->wait_point_ns; i++) {
        const sc_blocking_work *w = &s->by_end[i];
        if (w->issue_ns >= c->start_ns)
            continue;   /* not in flight when the call began */
        if (c->correlation_id != 0 && w->correlation_id == c->correlation_id)
            continue;   /* the call's own work */
        if (c->skip_own_stream && m->has_own && w->stream_id == m->own_stream)
            continue;
        m->n_drained++;
        m->drained_end_ns = w->end_ns;     /* by_end is ascending: the last one wins */
        m->last_stream = w->stream_id;
        m->last_work = w->work;
        m->last_tid = w->tid;
        if (w->tid && c->tid && w->tid != c->tid)
            m->other_thread = true;
        sc_drained_stream(m, seen, &n_seen, w->stream_id);
    }
    uint64_t tol = (uint64_t)(SC_BLOCKING_TOL_SHARE * (double)m->blocked_ns);
    if (tol < SC_BLOCKING_TOL_NS)
        tol = SC_BLOCKING_TOL_NS;
    if (c->call_class < SC_CALL_CLASS_COUNT && !m->has_own)
        tol += own_ns;      /* what the call does after its wait */
    m->explained = m->n_drained > 0 && m->wait_point_ns - m->drained_end_ns <= tol;
}

/* The busy interval in progress at t or the first one after it; NULL when none follows. */
static const sc_ival *sc_busy_from(const sc_busy_list *b, uint64_t t)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {   /* first busy interval that ends after t */
        size_t mid = lo + (hi - lo) / 2;
        if (b->ivals[mid].end_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->n ? &b->ivals[lo] : NULL;
}

/* Time from the call's return to the next work when the host could not have queued it. */
static uint64_t sc_measure_starve(const sc_blocking_scope *s, const sc_ival *after,
                                  uint64_t end_ns)
{
    if (after->start_ns <= end_ns)
        return 0;       /* the device was busy at the return */
    uint64_t next = after->start_ns;
    for (size_t i = sc_first_start_from(s, next);
         i < s->n && sc_at_start(s, i)->start_ns == next; i++)
        if (sc_at_start(s, i)->issue_ns < end_ns)
            return 0;   /* queued before the return: something else held it back */
    return next - end_ns;
}

void sc_blocking_measure(const sc_blocking_index *ix, const sc_blocking_call *c,
                         sc_blocking *m)
{
    memset(m, 0, sizeof(*m));
    const sc_blocking_scope *s = sc_scope_of(ix, c->context_id);
    uint64_t end = c->end_ns > c->start_ns ? c->end_ns : c->start_ns;
    m->blocked_ns = end - c->start_ns;
    m->wait_point_ns = end;
    const sc_blocking_work *own = sc_own_work(s, c->correlation_id);
    if (own) {
        m->has_own = true;
        m->own_stream = own->stream_id;
        if (own->start_ns >= c->start_ns && own->start_ns < end)
            m->wait_point_ns = own->start_ns;
    }
    sc_measure_drained(s, c, c->call_class < SC_CALL_CLASS_COUNT ? ix->own_ns[c->call_class] : 0,
                       m);
    m->idle_ns = sc_busy_uncovered(&s->busy, c->start_ns, end);
    const sc_ival *after = sc_busy_from(&s->busy, end);
    m->followed = after != NULL;
    uint64_t lost;
    if (after) {
        m->starve_ns = sc_measure_starve(s, after, end);
        lost = m->idle_ns + m->starve_ns;
    } else {
        /* nothing left to run: only gaps that work inside the call closed were lost */
        uint64_t last = s->busy.n ? s->busy.ivals[s->busy.n - 1].end_ns : 0;
        lost = last > c->start_ns ? sc_busy_uncovered(&s->busy, c->start_ns, last) : 0;
    }
    m->cost_ns = lost < m->blocked_ns ? lost : m->blocked_ns;
}

bool sc_blocking_sync_class(uint16_t call_class)
{
    return call_class == SC_CALL_DEVICE_SYNC || call_class == SC_CALL_STREAM_SYNC ||
           call_class == SC_CALL_EVENT_SYNC;
}

bool sc_blocking_implicit_class(uint16_t call_class)
{
    switch (call_class) {
    case SC_CALL_MALLOC: case SC_CALL_FREE: case SC_CALL_HOST_ALLOC: case SC_CALL_HOST_FREE:
    case SC_CALL_HOST_REGISTER: case SC_CALL_HOST_UNREGISTER: case SC_CALL_MEMCPY:
    case SC_CALL_MEMSET: case SC_CALL_SET_LIMIT:
        return true;
    default:
        return false;
    }
}

void sc_blocking_streams_text(const sc_blocking *m, char *buf, size_t size)
{
    size_t used = 0, shown = m->n_streams < SC_BLOCKING_MAX_STREAMS ? m->n_streams
                                                                     : SC_BLOCKING_MAX_STREAMS;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < shown && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%u", i ? ", " : "", m->streams[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (m->n_streams > shown && used < size)
        snprintf(buf + used, size - used, ", ... (%zu streams)", m->n_streams);
}
