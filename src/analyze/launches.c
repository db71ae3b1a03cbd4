/* What each kernel found on its device when it was issued: see launches.h. */
#include "analyze/launches.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/work_order.h"
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

/* The item of the work at pos, issued at `issue` by call (SC_LAUNCH_NO_CALL: none): the walk
 * knows both from where it found the work (work_order.h), so no lookup of the call. */
static inline sc_issue_item sc_issue_item_at(const sc_ctx *ctx, uint32_t pos, uint64_t issue,
                                             uint32_t call)
{
    sc_work w = sc_work_at(ctx->trace, pos);
    uint32_t slot;
    if (ctx->work_slot) {
        slot = ctx->work_slot[pos];     /* found by the streams' build */
    } else {
        const sc_stream_summary *s = sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id);
        slot = s ? (uint32_t)(s - ctx->analysis->streams) : UINT32_MAX;
    }
    return (sc_issue_item){issue, w.end_ns, w.device, slot, pos, call};
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
    sc_launch l = {own_prev_end_ns, x->call, x->slot, 0, SC_LAUNCH_NO_FRONT};
    const sc_front_entry *o = sc_front_other(front, x->slot);
    if (o && o->end_ns > x->issue_ns) {
        l.front_slot = o->slot;
        l.front_work = o->pos;
    }
    return l;
}

/* The walk in issue order: per device the front, per stream the latest end so far. */
typedef struct sc_issue_walk {
    const sc_ctx *ctx;
    sc_launch *launches;
    uint64_t *stream_end;
    sc_front *fronts;           /* per analysis->devices entry */
} sc_issue_walk;

static inline void sc_issue_walk_one(sc_issue_walk *w, const sc_issue_item *x)
{
    const sc_ctx *ctx = w->ctx;
    if (x->slot == UINT32_MAX) {
        /* cannot happen: every stream of the work has a summary; the kernel would be found
         * with nothing, its call unknown */
        if (x->pos < ctx->trace->n_kernels)
            w->launches[x->pos] = (sc_launch){.call = SC_LAUNCH_NO_CALL,
                                              .front_work = SC_LAUNCH_NO_FRONT};
        return;
    }
    /* stream slots are per device: stream_end needs no device of its own */
    sc_front *front = ctx->analysis->n_devices > 1
                          ? &w->fronts[sc_device_index(ctx->analysis, x->device)]
                          : &w->fronts[0];
    if (x->pos < ctx->trace->n_kernels)
        w->launches[x->pos] = sc_launch_of(x, w->stream_end[x->slot], front);
    sc_front_add(front, x);
    if (x->end_ns > w->stream_end[x->slot])
        w->stream_end[x->slot] = x->end_ns;
}

/* A piece of work of a run of one issue time, and its call. */
typedef struct sc_run_entry {
    uint32_t pos, call;
} sc_run_entry;

/* the trace whose work sc_run_start_cmp reads; per thread: the report analyzes traces at
 * once (-j) */
static _Thread_local const sc_trace *sc_issue_trace;

/* A run's entries by their work's start, then position. */
static int sc_run_start_cmp(const void *pa, const void *pb)
{
    uint32_t i = ((const sc_run_entry *)pa)->pos, j = ((const sc_run_entry *)pb)->pos;
    uint64_t x = sc_work_start_at(sc_issue_trace, i), y = sc_work_start_at(sc_issue_trace, j);
    if (x != y)
        return x < y ? -1 : 1;
    return i < j ? -1 : i > j;
}

typedef struct sc_issue_run {
    sc_run_entry *e;
    size_t n, cap;
} sc_issue_run;

static int sc_run_push(sc_issue_run *r, uint32_t pos, uint32_t call)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        sc_run_entry *q = realloc(r->e, cap * sizeof *q);
        if (!q)
            return -1;
        r->e = q;
        r->cap = cap;
    }
    r->e[r->n++] = (sc_run_entry){pos, call};
    return 0;
}

/* The calls that issued work in start order: the calls' own order (the loader's), or, for a
 * trace whose calls are not in it, their indexes sorted by start. */
typedef struct sc_issuers {
    const uint32_t *first;      /* the order's call_first */
    uint32_t *sorted;           /* NULL: the calls in their own order */
    size_t at, n;               /* the next one to look at; how many to look through */
} sc_issuers;

/* The next call that issued work, or SC_WORK_END. */
static inline uint32_t sc_issuers_next(sc_issuers *is)
{
    if (is->sorted)
        return is->at < is->n ? is->sorted[is->at++] : SC_WORK_END;
    while (is->at < is->n && is->first[is->at] == SC_WORK_END)
        is->at++;
    return is->at < is->n ? (uint32_t)is->at++ : SC_WORK_END;
}

static int sc_issuers_sort(const sc_trace *t, const sc_work_order *o, sc_issuers *is)
{
    size_t m = 0;
    for (size_t c = 0; c < t->n_calls; c++)
        m += o->call_first[c] != SC_WORK_END;
    uint64_t *at = malloc((m ? m : 1) * sizeof *at);
    uint32_t *idx = malloc((m ? m : 1) * sizeof *idx);
    if (!at || !idx) {
        free(at);
        free(idx);
        return -1;
    }
    m = 0;
    for (size_t c = 0; c < t->n_calls; c++)
        if (o->call_first[c] != SC_WORK_END) {
            at[m] = t->calls[c].rec.start_ns;
            idx[m++] = (uint32_t)c;
        }
    uint32_t *order = sc_order_by_time(at, m);   /* takes at */
    if (!order) {
        free(idx);
        return -1;
    }
    for (size_t k = 0; k < m; k++)
        order[k] = idx[order[k]];
    free(idx);
    *is = (sc_issuers){.first = o->call_first, .sorted = order, .n = m};
    return 0;
}

enum { SC_WALK_DONE = 0, SC_WALK_FAILED = -1, SC_WALK_CALLS_UNSORTED = 1 };

/* Walks the work in issue order, each device's apart from the others' (its front), as the
 * shared order (work_order.h) gives it: the calls that issued work in start order, each
 * call's work from its chain, merged with the work that had no call (issued at its own
 * start) in start order. No sort of every piece of work by its issue: a run of one issue time
 * (the work of one call, or of calls that started together) is sorted by start, then
 * position, when it has more than one. Returns SC_WALK_CALLS_UNSORTED, having walked part
 * of the work, when the calls in their own order are found out of start order. */
static int sc_issue_walk_all(const sc_ctx *ctx, sc_issue_walk *w, sc_issuers *is,
                             sc_issue_run *run)
{
    const sc_trace *t = ctx->trace;
    const sc_work_order *o = ctx->order;
    uint32_t c = sc_issuers_next(is), cn = sc_issuers_next(is);
    size_t b = 0;   /* the next work without a call: in by_start */
    while (b < o->n && o->call_next[o->by_start[b]] != SC_WORK_NO_CALL)
        b++;
    uint64_t last = 0;
    while (c != SC_WORK_END || b < o->n) {
        uint64_t tc = c != SC_WORK_END ? t->calls[c].rec.start_ns : UINT64_MAX;
        uint64_t tb = b < o->n ? sc_work_start_at(t, o->by_start[b]) : UINT64_MAX;
        if (c != SC_WORK_END && tc < last)
            return SC_WALK_CALLS_UNSORTED;
        last = tc != UINT64_MAX ? tc : last;
        uint32_t p1 = c != SC_WORK_END ? o->call_first[c] : SC_WORK_END;
        if (tc < tb && o->call_next[p1] == SC_WORK_END &&
            (cn == SC_WORK_END || t->calls[cn].rec.start_ns != tc)) {
            /* one call of its time with one piece of work: the usual launch */
            sc_issue_item x = sc_issue_item_at(ctx, p1, tc, c);
            sc_issue_walk_one(w, &x);
            c = cn;
            cn = sc_issuers_next(is);
            continue;
        }
        uint64_t at = tc < tb ? tc : tb;
        run->n = 0;
        while (c != SC_WORK_END && t->calls[c].rec.start_ns == at) {
            for (uint32_t p = o->call_first[c]; p != SC_WORK_END; p = o->call_next[p])
                if (sc_run_push(run, p, c) != 0)
                    return SC_WALK_FAILED;
            c = cn;
            cn = sc_issuers_next(is);
        }
        while (b < o->n && sc_work_start_at(t, o->by_start[b]) == at) {
            if (sc_run_push(run, o->by_start[b++], SC_LAUNCH_NO_CALL) != 0)
                return SC_WALK_FAILED;
            while (b < o->n && o->call_next[o->by_start[b]] != SC_WORK_NO_CALL)
                b++;
        }
        if (run->n > 1) {
            sc_issue_trace = t;
            sc_sort(run->e, run->n, sizeof *run->e, sc_run_start_cmp);
        }
        for (size_t i = 0; i < run->n; i++) {
            sc_issue_item x = sc_issue_item_at(ctx, run->e[i].pos, at, run->e[i].call);
            sc_issue_walk_one(w, &x);
        }
    }
    return SC_WALK_DONE;
}

/* The walk's state, as it is before the walk. */
static void sc_issue_walk_reset(const sc_ctx *ctx, sc_issue_walk *w)
{
    memset(w->launches, 0, (ctx->trace->n_kernels ? ctx->trace->n_kernels : 1) *
                               sizeof *w->launches);
    memset(w->stream_end, 0, (ctx->analysis->n_streams + 1) * sizeof *w->stream_end);
    for (size_t d = 0; d <= ctx->analysis->n_devices; d++)
        sc_front_reset(&w->fronts[d]);
}

int sc_launches_build(const sc_ctx *ctx, sc_launch **out)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t);
    if (n >= UINT32_MAX || ctx->analysis->n_streams >= UINT32_MAX)
        return -1;  /* positions and stream slots are held in 32 bits */
    sc_launch *l = calloc(t->n_kernels ? t->n_kernels : 1, sizeof(*l));
    uint64_t *stream_end = calloc(ctx->analysis->n_streams + 1, sizeof(uint64_t));
    sc_front *fronts = malloc((ctx->analysis->n_devices + 1) * sizeof *fronts);
    sc_issue_walk w = {.ctx = ctx, .launches = l, .stream_end = stream_end, .fronts = fronts};
    sc_issue_run run = {0};
    int rc = l && stream_end && fronts ? SC_WALK_DONE : SC_WALK_FAILED;
    for (size_t d = 0; rc == SC_WALK_DONE && d <= ctx->analysis->n_devices; d++)
        sc_front_reset(&fronts[d]);
    if (rc == SC_WALK_DONE) {
        sc_issuers is = {.first = ctx->order->call_first, .n = t->n_calls};
        rc = sc_issue_walk_all(ctx, &w, &is, &run);
        if (rc == SC_WALK_CALLS_UNSORTED) {
            /* a trace the loader did not sort: again from the start, the calls sorted */
            sc_issue_walk_reset(ctx, &w);
            rc = sc_issuers_sort(t, ctx->order, &is) == 0
                     ? sc_issue_walk_all(ctx, &w, &is, &run) : SC_WALK_FAILED;
            free(is.sorted);
        }
    }
    free(run.e);
    free(stream_end);
    free(fronts);
    if (rc != SC_WALK_DONE) {
        free(l);
        return -1;
    }
    *out = l;
    return 0;
}
