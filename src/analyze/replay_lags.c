/* The replay's measured constants: the typical lag of each kind of edge, the work the model
 * does not explain (held or late), how long a pageable copy would take from pinned memory,
 * and the module loads inside launch calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/peer_copy.h"
#include "analyze/pinned_rate.h"
#include "analyze/replay_parts.h"
#include "analyze/unified.h"
#include "analyze/work.h"
#include "trace/grow.h"
#include "trace/sort_u64.h"

#define SC_RP_LATE_NS 20000u        /* later than the model by more than this: look for why */
#define SC_RP_TOUCH_NS 1000u

/* Defaults for what a trace has no sample of (an H200 with CUDA 13: GPU-FACTS.md). */
#define SC_RP_DEFAULT_ISSUE_NS 5000u
#define SC_RP_DEFAULT_STREAM_NS 1000u
#define SC_RP_DEFAULT_CROSS_NS 2000u
#define SC_RP_DEFAULT_QUEUE_NS 2000u
#define SC_RP_DEFAULT_WAKE_NS 5000u
#define SC_RP_DEFAULT_ASYNC_CALL_NS 5000u

typedef enum {
    SC_BIND_ISSUE, SC_BIND_STREAM, SC_BIND_CROSS, SC_BIND_ROOM, SC_BIND_QUEUE, SC_BINDS
} sc_rp_bind;

typedef struct sc_rp_samples {
    uint64_t *v;
    size_t n;
} sc_rp_samples;

/* The typical lag of an edge kind: its lower quartile. Lags only ever grow past the typical
 * one (a delay is always extra), so the lower quartile keeps the delayed few, which are what
 * the model must explain, out of what it calls typical. */
static uint64_t sc_rp_typical(sc_rp_samples *s, uint64_t fallback)
{
    if (s->n == 0)
        return fallback;
    sc_sort_u64(s->v, s->n);
    return s->v[(s->n - 1) / 4];
}

/* The same for the lag that follows other work (stream, cross, queue): a few samples cannot
 * tell a delay from the typical, so below SC_RP_MIN_SAMPLES no more than the default (one
 * delayed copy in a set-up made a whole run's stream lag 8.7 us, on an H200 whose stream work
 * follows on in 1-4: every step of the run then came out 3 us late in the replay). */
#define SC_RP_MIN_SAMPLES 4u

static uint64_t sc_rp_typical_after(sc_rp_samples *s, uint64_t fallback)
{
    uint64_t q = sc_rp_typical(s, fallback);
    return s->n < SC_RP_MIN_SAMPLES && q > fallback ? fallback : q;
}

/* The middle value: for quantities that vary both ways (how long a call takes). */
static uint64_t sc_rp_median(sc_rp_samples *s, uint64_t fallback)
{
    if (s->n == 0)
        return fallback;
    sc_sort_u64(s->v, s->n);
    return s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
}

/* Raises a bound to candidate v of kind b when v is later: at a tie the kind raised first
 * (the lower sc_rp_bind) binds. */
static inline void sc_rp_bound_raise(uint64_t *best, sc_rp_bind *bind, uint64_t v, sc_rp_bind b)
{
    if (v > *best) {
        *best = v;
        *bind = b;
    }
}

/* The recorded time each constraint of a piece of work allowed it to start, before any lag:
 * the latest of them and which kind it was. Its issue always binds it at least; the other
 * kinds are raised in their order, each the latest of its constraints (plus its lag).
 * Inlined into its three loops, which ask it of every op: GCC made this shorter body a call,
 * which cost more than the rewrite saved. */
static inline __attribute__((always_inline)) uint64_t
sc_rp_recorded_bound(const sc_replay *r, int32_t i, sc_rp_bind *bind,
                     const uint64_t lag[SC_BINDS])
{
    const sc_rp_op *o = &r->ops[i];
    static const uint64_t no_lag[SC_BINDS] = {0};
    if (!lag)
        lag = no_lag;
    uint64_t issue;
    if (o->item != SC_RP_NONE) {
        /* the kernel of a launch that loaded its module is issued when the load ends */
        uint64_t load_end = o->item_loads ? sc_rp_load_end(r, o->item) : 0;
        issue = o->item_loads && sc_rp_rec_start(r, i) >= load_end ? load_end
                                                                   : sc_rp_issue(r, i);
    } else {
        /* work without its call in the trace is anchored at its recorded start (the pass
         * starts it there): that start binds it, and its gap is no lag of anything */
        issue = sc_rp_rec_start(r, i);
    }
    uint64_t best = issue + lag[SC_BIND_ISSUE];
    *bind = SC_BIND_ISSUE;
    uint64_t stream = 0;
    bool has_stream = false;
    if (o->stream_prev != SC_RP_NONE) {
        stream = sc_rp_rec_end(r, o->stream_prev);
        has_stream = true;
    }
    int32_t engine_prev = sc_rp_engine_prev(r, o);
    if (engine_prev != SC_RP_NONE && sc_rp_rec_end(r, engine_prev) > stream) {
        stream = sc_rp_rec_end(r, engine_prev);
        has_stream = true;
    }
    if (has_stream)
        sc_rp_bound_raise(&best, bind, stream + lag[SC_BIND_STREAM], SC_BIND_STREAM);
    uint64_t cross = 0, room = 0;   /* the latest end among its edges of each kind */
    bool has_cross = false, has_room = false;
    uint32_t n_edges;
    const sc_rp_edge *edges = sc_rp_op_edges(r->edges, r->links, o, &n_edges);
    for (uint32_t k = 0; k < n_edges; k++) {
        uint64_t end = sc_rp_rec_end(r, edges[k].op);
        if (edges[k].kind == SC_RP_EDGE_ROOM) {
            room = end > room ? end : room;
            has_room = true;
        } else {
            cross = end > cross ? end : cross;
            has_cross = true;
        }
    }
    if (has_cross)
        sc_rp_bound_raise(&best, bind, cross + lag[SC_BIND_CROSS], SC_BIND_CROSS);
    if (has_room)
        sc_rp_bound_raise(&best, bind, room + lag[SC_BIND_ROOM], SC_BIND_ROOM);
    int32_t queue_prev = sc_rp_queue_prev(r, o);
    if (queue_prev != SC_RP_NONE)       /* starts once its queue predecessor started */
        sc_rp_bound_raise(&best, bind, sc_rp_rec_start(r, queue_prev) + lag[SC_BIND_QUEUE],
                          SC_BIND_QUEUE);
    return best;
}

/* Marks the first work issued on a stream after each host function queued on it: if it
 * started late, the function held it (the stream runs nothing while the function runs on
 * CUDA's callback thread), however the device's other work happened to end around then. */
void sc_rp_mark_host_funcs(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    if (!sc_trace_may_have_class(t, SC_CALL_HOST_FUNC))
        return;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        if (sc_call_class_id(t, c) != SC_CALL_HOST_FUNC)
            continue;
        const sc_stream_summary *s = sc_ctx_call_stream(r->ctx, c);
        size_t slot = s ? (size_t)(s - r->ctx->analysis->streams) : r->n_slots;
        if (slot >= r->n_slots)
            continue;
        size_t pos;
        sc_rp_last_issued_before(r, (uint32_t)slot, c->rec.start_ns, &pos);
        if (pos < r->slot_count[slot])
            r->ops[r->slot_ops[r->slot_first[slot] + pos]].after_host_func = true;
    }
}

/* The ends of the module loads inside launch calls, sorted: a load waits for the device, so
 * work issued before a load ended and started after it was held by the load. */
static uint64_t *sc_rp_load_ends(const sc_replay *r, size_t *n_out)
{
    uint64_t *ends = malloc((r->n_load_ends ? r->n_load_ends : 1) * sizeof *ends);
    size_t n = 0;
    for (size_t k = 0; ends && k < r->n_load_ends; k++)
        if (r->items[r->load_ends[k].index].loads && r->load_ends[k].value)
            ends[n++] = r->load_ends[k].value;
    if (ends)
        sc_sort_u64(ends, n);
    *n_out = n;
    return ends;
}

/* A load ended after `issued` and no later than `started`. */
static bool sc_rp_load_between(const uint64_t *ends, size_t n, uint64_t issued, uint64_t started)
{
    size_t first = sc_u64_upper_bound(ends, n, issued);     /* the first load end after it */
    return first < n && ends[first] <= started;
}

static int sc_rp_measure_lags(sc_replay *r)
{
    const sc_trace *tr = r->ctx->trace;
    size_t n_loads = 0;
    uint64_t *load_ends = sc_rp_load_ends(r, &n_loads);
    /* Each pass takes at most one sample per op, so one buffer of a sample per op holds
     * either pass's, each kind of sample in a part as large as the count that bounds it: the
     * issue lags' of a kind of work, that work (its positions are one run: work.h); the
     * second pass's, taken once the issue lags are read, of an edge kind, the work the first
     * pass found bound by it. */
    /* the passes' item_start when it has room (nothing reads it before the passes write
     * it: pages they touch anyway), else a buffer of its own */
    uint64_t *own_buf = r->n_items >= r->n_ops
                            ? NULL
                            : malloc((r->n_ops ? r->n_ops : 1) * sizeof *own_buf);
    uint64_t *buf = r->n_items >= r->n_ops ? r->item_start : own_buf;
    sc_rp_samples issue[3] = {{buf, 0}, {buf + tr->n_kernels, 0},
                              {buf + tr->n_kernels + tr->n_copies, 0}};
    size_t n_bound[SC_BINDS] = {0};
    int rc = buf && load_ends ? 0 : -1;
    sc_rp_samples after[SC_BINDS] = {{NULL, 0}};
    /* Two passes: the issue lags first; then the gaps after a predecessor, counted only for
     * work that was ready well before that predecessor ended (issued, plus the issue lag most
     * launches took, the median: the typical one, the lower quartile, would count work that
     * was still being issued): otherwise the gap measures how late it was issued, not how
     * soon queued work follows. */
    uint64_t ready_lag[3] = {0, 0, 0};
    /* The second pass asks only the work the first found bound by its stream, an event or
     * its queue (and not after a host function nor staged), and the bound the first found:
     * its kind in op_fix, the bound in op_end (the passes' arrays, which nothing else uses
     * yet; sc_rp_lags zeroes op_fix after), instead of each op's bound made again (20M
     * instructions at 1M records). */
    uint64_t *bound = r->op_end;
    uint8_t *asked = r->op_fix;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        for (size_t i = 0; i < r->n_ops; i++) {
            const sc_rp_op *o = &r->ops[i];
            sc_rp_bind bind;
            uint64_t t;
            if (pass == 1) {
                if (!asked[i])
                    continue;
                bind = (sc_rp_bind)asked[i];
                t = bound[i];
                if (o->item != SC_RP_NONE &&
                    sc_rp_issue(r, (int32_t)i) + ready_lag[o->kind] >= t)
                    continue;   /* not ready before its predecessor ended */
                after[bind].v[after[bind].n++] = sc_rp_rec_start(r, (int32_t)i) - t;
                continue;
            }
            uint64_t start = sc_rp_rec_start(r, (int32_t)i);
            t = sc_rp_recorded_bound(r, (int32_t)i, &bind, NULL);
            bound[i] = t;       /* for the second pass and sc_rp_late_work */
            asked[i] = 0;
            if (start < t || (o->item == SC_RP_NONE && bind == SC_BIND_ISSUE) ||
                o->item_loads)
                continue;   /* before its bound (clock noise), anchored, after a module load */
            uint64_t lag = start - t;
            n_bound[bind]++;
            /* work a module load held says how long the load took, not the launch; a staged
             * peer copy, how long the driver staged */
            if (bind == SC_BIND_ISSUE && !o->peer_staged &&
                !sc_rp_load_between(load_ends, n_loads, sc_rp_issue(r, (int32_t)i), start))
                issue[o->kind].v[issue[o->kind].n++] = lag;
            /* the second pass's: a gap after a host function is the function's, after a
             * staged copy the staging's */
            if ((bind == SC_BIND_STREAM || bind == SC_BIND_CROSS || bind == SC_BIND_QUEUE) &&
                !o->after_host_func && !o->peer_staged) {
                asked[i] = (uint8_t)bind;
            }
        }
        if (pass == 0) {
            for (int k = 0; k < 3; k++) {
                r->lag_issue[k] = sc_rp_typical(&issue[k], SC_RP_DEFAULT_ISSUE_NS);
                ready_lag[k] = sc_rp_median(&issue[k], SC_RP_DEFAULT_ISSUE_NS);
            }
            after[SC_BIND_STREAM].v = buf;      /* the issue lags are read */
            after[SC_BIND_CROSS].v = buf + n_bound[SC_BIND_STREAM];
            after[SC_BIND_QUEUE].v = after[SC_BIND_CROSS].v + n_bound[SC_BIND_CROSS];
        }
    }
    if (rc == 0) {
        r->lag_stream = sc_rp_typical_after(&after[SC_BIND_STREAM], SC_RP_DEFAULT_STREAM_NS);
        r->lag_cross = sc_rp_typical_after(&after[SC_BIND_CROSS], SC_RP_DEFAULT_CROSS_NS);
        r->lag_queue = sc_rp_typical_after(&after[SC_BIND_QUEUE], SC_RP_DEFAULT_QUEUE_NS);
    }
    free(own_buf);
    free(load_ends);
    return rc;
}

/* The host side's constants: how soon a waiting call returns once its wait is over, and how
 * long an async copy call from pinned memory takes. */
static int sc_rp_measure_host(sc_replay *r)
{
    size_t n = r->n_items ? r->n_items : 1;
    sc_rp_samples wake = {malloc(n * sizeof(uint64_t)), 0};
    /* at most one an item: the passes' item_start holds them (sc_rp_measure_lags) */
    sc_rp_samples async = {r->item_start, 0};
    if (!wake.v)
        return -1;
    for (size_t i = 0; i < r->n_items; i++) {
        const sc_rp_item *it = &r->items[i];
        if (it->mark)
            continue;
        int64_t post = it->waited ? sc_rp_post(r, (int32_t)i) : 0;
        if (it->waited && post >= 0 && it->sync)
            wake.v[wake.n++] = (uint64_t)post;
        if (it->async_copy && sc_rp_pinned_copy(r, (int32_t)i) == SC_RP_NONE)
            async.v[async.n++] = sc_rp_item_end(r, (int32_t)i) - it->rec_start;
    }
    r->wake_ns = sc_rp_typical(&wake, SC_RP_DEFAULT_WAKE_NS);
    r->async_call_ns = sc_rp_median(&async, SC_RP_DEFAULT_ASYNC_CALL_NS);
    free(wake.v);
    return 0;
}

/* A full grid of another stream of o's device that was running when o became ready (at
 * `model`) and until o started, or not long before: o started in its last part, as its
 * blocks retired. The latest-starting one; SC_RP_NONE when none. */
static int32_t sc_rp_running_grid(const sc_replay *r, const int32_t *full, size_t n_full,
                                  int32_t i, uint64_t model)
{
    size_t lo = 0, hi = n_full;
    while (lo < hi) {   /* full grids that started before o was ready */
        size_t mid = lo + (hi - lo) / 2;
        if (sc_rp_rec_start(r, full[mid]) < model)
            lo = mid + 1;
        else
            hi = mid;
    }
    const sc_rp_op *o = &r->ops[i];
    for (size_t k = lo, looked = 0; k-- > 0 && looked < 8; looked++) {
        const sc_rp_op *a = &r->ops[full[k]];
        uint64_t a_end = sc_rp_rec_end(r, full[k]);
        if (a->dev == o->dev && r->full_slots[k] != r->op_slot[i] && a_end > model &&
            sc_rp_rec_start(r, i) <= a_end + SC_RP_HELD_WINDOW_NS)
            return full[k];
    }
    return SC_RP_NONE;
}

/* Work that started later than the model allows: after a host function on its stream (the
 * function held it: its delay kept as recorded, removed by SC_FIX_UNHOLD); held by a full
 * grid of another stream that ran when it was ready (no room), or by the work of another
 * stream that ended right before it (kept as an edge with its lag); or, with none of these,
 * late for a reason the trace does not show (its delay kept as recorded). */
/* Appends to r->lates (in op order: the list stays sorted), growing it by doubling. */
static int sc_rp_push_late(sc_replay *r, size_t *cap, sc_rp_sparse late)
{
    if (!SC_GROW(r->lates, *cap, r->n_lates + 1, 16))
        return -1;
    r->lates[r->n_lates++] = late;
    return 0;
}

/* sc_rp_held_by_work (replay_parts.h). Few pieces are late (300 of 384,500 at 1M records),
 * so the ops are not put in order of their ends for them (a sort of every op, 20M
 * instructions at 1M records): one walk over the ops asks, per op, whether its end lies in
 * some late piece's window, through a bitmap of the windows' 32 us buckets (a window is 30
 * us: two buckets at most), and only then looks for the pieces whose window it is, among
 * them sorted by start. A run longer than the bitmap's bits cover (SC_RP_HELD_BITS_MAX
 * buckets, 2 MB of bits: 9.2 minutes; a run that idles between steps) takes the buckets hashed
 * onto the bits: a bit then stands for several buckets, and an op whose end falls in a bucket
 * that only shares its bit is looked for and not found (a late piece marks two bits of 16M). */
#define SC_RP_HELD_BUCKET_BITS 15u      /* 32.8 us: no narrower than the window */
#define SC_RP_HELD_BITS_MAX ((uint64_t)1 << 24)

/* The bitmap's bit of bucket b: b itself, or hashed (mask: the bits less one, a power of two
 * less one) where the buckets outnumber the bits. */
static inline uint64_t sc_rp_held_bit(uint64_t b, uint64_t mask, bool hashed)
{
    return hashed ? (b * 0x9E3779B97F4A7C15ull) >> 32 & mask : b;
}

/* A block for the search's own few lists, never below the report's mapping threshold (128
 * KiB, src/report/main.c): mapped, it goes back whole when freed, where a smaller one freed
 * at the heap's top stayed resident through the passes (0.2 MB at the peak at 10M
 * records). Only its touched pages cost. */
#define SC_RP_MAPPED_MIN ((size_t)128 * 1024)

static void *sc_rp_mapped_calloc(size_t bytes)
{
    return calloc(bytes > SC_RP_MAPPED_MIN ? bytes : SC_RP_MAPPED_MIN, 1);
}

static bool sc_rp_pending_before(const sc_rp_pending *x, const sc_rp_pending *y)
{
    return x->start < y->start || (x->start == y->start && x->late < y->late);
}

/* p[0 .. n) by (start, late), through tmp (n entries): a merge sort (qsort's buffer would come
 * from the heap). */
static void sc_rp_pending_sort(sc_rp_pending *p, sc_rp_pending *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sc_rp_pending_sort(p, tmp, h);
    sc_rp_pending_sort(p + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = sc_rp_pending_before(&p[j], &p[i]) ? p[j++] : p[i++];
    while (i < h)
        tmp[k++] = p[i++];
    memcpy(p, tmp, k * sizeof *p);
}

int sc_rp_held_by_work(sc_replay *r, sc_rp_pending *p, size_t n)
{
    /* an op's end e can hold the pieces that start in [e, e + window] */
    uint64_t base = UINT64_MAX, top = 0;
    for (size_t k = 0; k < n; k++) {
        base = p[k].start < base ? p[k].start : base;
        top = p[k].start > top ? p[k].start : top;
    }
    base = base > SC_RP_HELD_WINDOW_NS ? base - SC_RP_HELD_WINDOW_NS : 0;
    uint64_t n_buckets = ((top - base) >> SC_RP_HELD_BUCKET_BITS) + 1;
    bool hashed = n_buckets > SC_RP_HELD_BITS_MAX;
    uint64_t mask = SC_RP_HELD_BITS_MAX - 1;
    size_t words = (size_t)((hashed ? SC_RP_HELD_BITS_MAX : n_buckets) + 63) / 64;
    sc_rp_pending *tmp = sc_rp_mapped_calloc(n * sizeof *tmp + words * sizeof(uint64_t));
    if (!tmp)
        return -1;
    uint64_t *bits = (uint64_t *)(tmp + n);
    sc_rp_pending_sort(p, tmp, n);
    for (size_t k = 0; k < n; k++) {
        uint64_t lo = p[k].start > SC_RP_HELD_WINDOW_NS ? p[k].start - SC_RP_HELD_WINDOW_NS : 0;
        for (uint64_t b = (lo - base) >> SC_RP_HELD_BUCKET_BITS;
             b <= (p[k].start - base) >> SC_RP_HELD_BUCKET_BITS; b++) {
            uint64_t bit = sc_rp_held_bit(b, mask, hashed);
            bits[bit / 64] |= (uint64_t)1 << (bit % 64);
        }
    }
    for (size_t i = 0; i < r->n_ops; i++) {
        const sc_rp_op *h = &r->ops[i];
        uint64_t e = sc_rp_rec_end(r, (int32_t)i);
        if (e < base || e > top)
            continue;
        uint64_t bit = sc_rp_held_bit((e - base) >> SC_RP_HELD_BUCKET_BITS, mask, hashed);
        if (!(bits[bit / 64] >> (bit % 64) & 1))
            continue;
        /* the first piece that starts at or after e */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (p[mid].start < e)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < n && p[k].start <= e + SC_RP_HELD_WINDOW_NS; k++) {
            sc_rp_sparse *late = &r->lates[p[k].late];
            const sc_rp_op *o = &r->ops[late->index];
            if (h->dev != o->dev || r->op_slot[i] == r->op_slot[late->index] ||
                sc_rp_rec_start(r, (int32_t)i) >= p[k].model)
                continue;
            if (late->other == SC_RP_NONE || e >= p[k].best_end) {   /* ops in index order */
                late->other = (int32_t)i;
                p[k].best_end = e;
            }
        }
    }
    free(tmp);
    return 0;
}

static int sc_rp_late_work(sc_replay *r)
{
    uint64_t lag[SC_BINDS] = {0, r->lag_stream, r->lag_cross, 0, r->lag_queue};
    size_t cap = 0, n_pending = 0;
    int rc = 0;
    /* Each op's bound without lags (t, in op_end: sc_rp_measure_lags) bounds its model from
     * below (a lag only ever adds): work that started within SC_RP_LATE_NS of t is then not
     * late whatever its model, and nearly all work is asked no more (the model made again
     * for every op, 20M instructions at 1M records). The skip is taken only where t plus the
     * largest lag and SC_RP_LATE_NS cannot wrap (`sure`), so that the model, which adds a
     * lag to t, is no less than t there. */
    const uint64_t *bound = r->op_end;
    uint64_t max_lag = r->lag_stream > r->lag_cross ? r->lag_stream : r->lag_cross;
    max_lag = r->lag_queue > max_lag ? r->lag_queue : max_lag;
    for (int k = 0; k < 3; k++)
        max_lag = r->lag_issue[k] > max_lag ? r->lag_issue[k] : max_lag;
    bool skip = max_lag <= UINT64_MAX - SC_RP_LATE_NS;
    uint64_t sure = skip ? UINT64_MAX - SC_RP_LATE_NS - max_lag : 0;    /* t at most this */
    for (size_t i = 0; i < r->n_ops; i++) {
        sc_rp_op *o = &r->ops[i];
        uint64_t start = sc_rp_rec_start(r, (int32_t)i);
        if (skip && bound[i] <= sure && start <= bound[i] + SC_RP_LATE_NS)
            continue;   /* within SC_RP_LATE_NS of a model no earlier than its bound */
        lag[SC_BIND_ISSUE] = r->lag_issue[o->kind <= SC_WORK_MEMSET ? o->kind : 0];
        sc_rp_bind bind;
        uint64_t model = sc_rp_recorded_bound(r, (int32_t)i, &bind, lag);
        if (o->item == SC_RP_NONE && bind == SC_BIND_ISSUE)
            continue;   /* anchored at its recorded start */
        if (start <= model + SC_RP_LATE_NS)
            continue;
        /* explained when its stream ran a host function; else held by a full grid of another
         * stream, or by other work (below), or unexplained: its delay as recorded until then
         * (which gives its model back to the search for other work) */
        sc_rp_sparse late = {.index = (int32_t)i, .other = SC_RP_NONE,
                             .value = start - model};
        if (!o->after_host_func) {
            late.other = sc_rp_running_grid(r, r->full, r->n_full, (int32_t)i, model);
            n_pending += late.other == SC_RP_NONE;
        }
        if (sc_rp_push_late(r, &cap, late) != 0) {
            rc = -1;
            break;
        }
        o->late = true;
    }
    /* the pieces no grid explains, laid out once the lates are (a list grown beside them
     * would stay in the heap) */
    sc_rp_pending *pending = rc == 0 && n_pending
                                 ? sc_rp_mapped_calloc(n_pending * sizeof *pending)
                                 : NULL;
    if (rc == 0 && n_pending && !pending)
        rc = -1;
    for (size_t k = 0, j = 0; pending && k < r->n_lates; k++) {
        const sc_rp_sparse *late = &r->lates[k];
        const sc_rp_op *o = &r->ops[late->index];
        if (!o->after_host_func && late->other == SC_RP_NONE) {
            uint64_t start = sc_rp_rec_start(r, late->index);
            pending[j++] = (sc_rp_pending){.start = start, .model = start - late->value,
                                           .late = k};
        }
    }
    if (pending)
        rc = sc_rp_held_by_work(r, pending, n_pending);
    free(pending);
    for (size_t k = 0; rc == 0 && k < r->n_lates; k++) {
        sc_rp_sparse *late = &r->lates[k];
        if (r->ops[late->index].after_host_func)
            continue;
        if (late->other != SC_RP_NONE) {
            late->held_lag = (int64_t)sc_rp_rec_start(r, late->index) -
                             (int64_t)sc_rp_rec_end(r, late->other);
            r->summary.held++;
        } else {
            r->summary.unexplained++;
            r->summary.unexplained_ns += late->value;
        }
    }
    return rc;
}

/* How long each copy would take from pinned memory, or as a direct peer copy (a staged
 * half), kept for the copies where that is not simply their recorded duration (the
 * pageable async ones and the staged halves, in copy order: the list is sorted by op). */
static int sc_rp_pinned(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    const sc_pinned_rate rate = r->ctx->pinned_rate;
    sc_peer_rate peer = {0};
    bool peer_measured = false;
    size_t cap = 0;
    for (size_t c = 0; c < t->n_copies; c++) {
        size_t i = t->n_kernels + c;
        const sc_copy_shape *s = sc_copy_shape_of(t, &t->copies[c]);
        bool staged = sc_copy_peer_staged(s);
        if (!staged && !sc_copy_pageable_async(s))
            continue;
        const sc_rec_memcpy m_rec = sc_copy_record(t, &t->copies[c]), *m = &m_rec;
        uint64_t ns = sc_rp_rec_dur(r, (int32_t)i);
        char basis[160];
        if (staged) {   /* with peer access: one direct copy */
            if (!peer_measured &&       /* the rate once, as the rule does */
                sc_peer_rate_measure(t, sc_ctx_device_info(r->ctx, m->device), &peer) != 0)
                return -1;
            peer_measured = true;
            ns = sc_peer_direct_ns(&peer, m);
        } else {
            sc_pinned_rate_for(&rate, sc_ctx_device_info(r->ctx, m->device), m, &ns, basis,
                               sizeof basis);
            if (ns > sc_rp_rec_dur(r, (int32_t)i))  /* never the slower path */
                ns = sc_rp_rec_dur(r, (int32_t)i);
        }
        if (!SC_GROW(r->pinned, cap, r->n_pinned + 1, 16))
            return -1;
        r->pinned[r->n_pinned++] = (sc_rp_sparse){.index = (int32_t)i, .other = SC_RP_NONE,
                                                  .value = ns};
    }
    return 0;
}

int sc_rp_lags(sc_replay *r)
{
    /* The passes' arrays are made here, and the lags take them as scratch first, the pages
     * the passes write anyway rather than buffers of their own: item_start holds the host's
     * and then the work's samples, op_end and op_fix the work's bounds
     * (sc_rp_measure_lags, which hands the flags back zeroed). */
    r->item_start = malloc((r->n_items ? r->n_items : 1) * sizeof *r->item_start);
    if (!r->item_start || sc_rp_measure_host(r) != 0)
        return -1;
    size_t no = r->n_ops ? r->n_ops : 1;
    r->op_end = malloc(no * sizeof *r->op_end);
    r->op_fix = malloc(no);
    if (!r->op_end || !r->op_fix || sc_rp_measure_lags(r) != 0)
        return -1;
    memset(r->op_fix, 0, no);
    if (sc_rp_late_work(r) != 0 || sc_rp_pinned(r) != 0)
        return -1;
    return 0;
}
