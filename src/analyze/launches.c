/* What each kernel found on its device when it was issued: see launches.h. */
#include "analyze/launches.h"

#include <stdbool.h>
#include <stdlib.h>

#include "trace/order_by_time.h"
#include "trace/sort.h"

/* One piece of work as the walk reads it: made from the trace when the walk reaches it, not
 * held for all the work at once (32 bytes a piece, 123 MB of fresh pages at 10M records). */
typedef struct sc_issue_item {
    uint64_t issue_ns, end_ns;
    uint32_t device;
    uint32_t slot;              /* its stream: index into analysis->streams, or UINT32_MAX */
    uint32_t pos;               /* sc_work_at() position: record order, for ties */
    uint32_t call;              /* its call: index into trace->calls, or SC_LAUNCH_NO_CALL */
} sc_issue_item;

/* When the work was issued: its call's start, or its own start without a call. */
static uint64_t sc_issue_time(const sc_ctx *ctx, const sc_work *w, const sc_api_call **call)
{
    *call = sc_ctx_call(ctx, w->correlation_id);
    return *call ? (*call)->rec.start_ns : w->start_ns;
}

static sc_issue_item sc_issue_item_at(const sc_ctx *ctx, uint32_t pos)
{
    sc_work w = sc_work_at(ctx->trace, pos);
    const sc_api_call *call;
    uint64_t issue = sc_issue_time(ctx, &w, &call);
    uint32_t slot;
    if (ctx->work_slot) {
        slot = ctx->work_slot[pos];     /* found by the streams' build */
    } else {
        const sc_stream_summary *s = sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id);
        slot = s ? (uint32_t)(s - ctx->analysis->streams) : UINT32_MAX;
    }
    return (sc_issue_item){issue, w.end_ns, w.device, slot, pos,
                           call ? (uint32_t)(call - ctx->trace->calls) : SC_LAUNCH_NO_CALL};
}

/* the trace whose work sc_issue_start_cmp reads; per thread: the report analyzes traces at
 * once (-j) */
static _Thread_local const sc_trace *sc_issue_trace;

/* Work positions by their work's start. */
static int sc_issue_start_cmp(const void *pa, const void *pb)
{
    uint64_t x = sc_work_at(sc_issue_trace, *(const uint32_t *)pa).start_ns;
    uint64_t y = sc_work_at(sc_issue_trace, *(const uint32_t *)pb).start_ns;
    return x < y ? -1 : x > y;
}

/* Groups the order by device (ascending), each device's positions in the order they had: a
 * counting sort into a new array. Returns it (order freed), or NULL without memory. */
static uint32_t *sc_issue_by_device(const sc_ctx *ctx, uint32_t *order, size_t n)
{
    const sc_analysis *a = ctx->analysis;
    size_t *next = calloc(a->n_devices + 1, sizeof *next);
    uint32_t *grouped = malloc((n ? n : 1) * sizeof *grouped);
    if (!next || !grouped) {
        free(next);
        free(grouped);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        next[sc_device_index(a, sc_work_at(ctx->trace, i).device) + 1]++;
    for (size_t d = 0; d < a->n_devices; d++)
        next[d + 1] += next[d];
    for (size_t i = 0; i < n; i++)
        grouped[next[sc_device_index(a, sc_work_at(ctx->trace, order[i]).device)]++] =
            order[i];
    free(next);
    free(order);
    return grouped;
}

/* The work positions in the order the walk takes them, but for runs of one device and issue
 * time, which the walk puts in start order as it reaches them: by device, then issue time,
 * then position. The issue times are keys (order_by_time.h: a tie breaks by position, which
 * is record order) and, with more than one device, the order is grouped by device, keeping
 * each device's in it. NULL without memory. */
static uint32_t *sc_issue_order(const sc_ctx *ctx, size_t n)
{
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    uint64_t *at = malloc((n ? n : 1) * sizeof *at);
    int rc = order && at ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        sc_work w = sc_work_at(ctx->trace, i);
        const sc_api_call *call;
        at[i] = sc_issue_time(ctx, &w, &call);
    }
    if (rc == 0)
        rc = sc_order_by_time_in(at, n, order);
    free(at);
    if (rc != 0) {
        free(order);
        return NULL;
    }
    return ctx->analysis->n_devices > 1 ? sc_issue_by_device(ctx, order, n) : order;
}

/* The latest end of one stream's issued work; slot UINT32_MAX when empty. */
typedef struct sc_front_entry {
    uint64_t end_ns;
    uint32_t slot, pos;
} sc_front_entry;

/* The two streams whose issued work ends last: best, and the best of any other stream. */
typedef struct sc_front {
    sc_front_entry first, second;
} sc_front;

static void sc_front_reset(sc_front *f)
{
    f->first = f->second = (sc_front_entry){0, UINT32_MAX, 0};
}

static void sc_front_add(sc_front *f, const sc_issue_item *x)
{
    sc_front_entry e = {x->end_ns, x->slot, x->pos};
    if (f->first.slot == x->slot) {
        if (e.end_ns > f->first.end_ns)
            f->first = e;
    } else if (f->first.slot == UINT32_MAX || e.end_ns > f->first.end_ns) {
        f->second = f->first;
        f->first = e;
    } else if (f->second.slot == UINT32_MAX || e.end_ns > f->second.end_ns) {
        f->second = e;
    }
}

/* The latest-ending work issued so far on any stream but `slot`. */
static const sc_front_entry *sc_front_other(const sc_front *f, uint32_t slot)
{
    const sc_front_entry *e = f->first.slot != slot ? &f->first : &f->second;
    return e->slot == UINT32_MAX ? NULL : e;
}

/* Kernel x's entry: its call, stream and own stream's last end, and the other-stream work
 * in flight at its issue, if any. */
static sc_launch sc_launch_of(const sc_issue_item *x, uint64_t own_prev_end_ns,
                              const sc_front *front)
{
    sc_launch l = {x->issue_ns, own_prev_end_ns, 0, x->call, x->slot, 0, 0};
    const sc_front_entry *o = sc_front_other(front, x->slot);
    if (o && o->end_ns > x->issue_ns) {
        l.front_end_ns = o->end_ns;
        l.front_slot = o->slot;
        l.front_work = o->pos;
    }
    return l;
}

/* The walk in issue order: per device the front, per stream the latest end so far. */
typedef struct sc_issue_walk {
    const sc_trace *trace;
    sc_launch *launches;
    uint64_t *stream_end;
    sc_front front;
    uint32_t device;
    bool started;
} sc_issue_walk;

static inline void sc_issue_walk_one(sc_issue_walk *w, const sc_issue_item *x)
{
    if (x->slot == UINT32_MAX) {
        /* cannot happen: every stream of the work has a summary; the kernel would be found
         * with nothing, its call unknown */
        if (x->pos < w->trace->n_kernels)
            w->launches[x->pos] = (sc_launch){.call = SC_LAUNCH_NO_CALL};
        return;
    }
    if (!w->started || x->device != w->device)
        sc_front_reset(&w->front);  /* stream slots are per device: stream_end needs none */
    w->started = true;
    w->device = x->device;
    if (x->pos < w->trace->n_kernels)
        w->launches[x->pos] = sc_launch_of(x, w->stream_end[x->slot], &w->front);
    sc_front_add(&w->front, x);
    if (x->end_ns > w->stream_end[x->slot])
        w->stream_end[x->slot] = x->end_ns;
}

/* Walks the work in order, a run of one device and issue time in start order (stably). The
 * item that ends a run is the next run's first: each is made once, but for runs of more. */
static void sc_issue_walk_all(const sc_ctx *ctx, sc_issue_walk *w, uint32_t *order, size_t n)
{
    sc_issue_item next = n ? sc_issue_item_at(ctx, order[0]) : (sc_issue_item){0};
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        sc_issue_item first = next;
        for (hi = lo + 1; hi < n; hi++) {
            next = sc_issue_item_at(ctx, order[hi]);
            if (next.device != first.device || next.issue_ns != first.issue_ns)
                break;
        }
        if (hi - lo == 1) {
            sc_issue_walk_one(w, &first);
            continue;
        }
        sc_issue_trace = ctx->trace;
        sc_sort(order + lo, hi - lo, sizeof *order, sc_issue_start_cmp);
        for (size_t i = lo; i < hi; i++) {
            sc_issue_item x = sc_issue_item_at(ctx, order[i]);
            sc_issue_walk_one(w, &x);
        }
    }
}

int sc_launches_build(const sc_ctx *ctx, sc_launch **out)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t);
    if (n >= UINT32_MAX || ctx->analysis->n_streams >= UINT32_MAX)
        return -1;  /* positions and stream slots are held in 32 bits */
    sc_launch *l = calloc(t->n_kernels ? t->n_kernels : 1, sizeof(*l));
    uint64_t *stream_end = calloc(ctx->analysis->n_streams + 1, sizeof(uint64_t));
    uint32_t *order = l && stream_end ? sc_issue_order(ctx, n) : NULL;
    if (!order) {
        free(l);
        free(stream_end);
        return -1;
    }
    sc_issue_walk w = {.trace = t, .launches = l, .stream_end = stream_end};
    sc_issue_walk_all(ctx, &w, order, n);
    free(order);
    free(stream_end);
    *out = l;
    return 0;
}
