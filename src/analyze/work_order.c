/* The shared time order of the device work: see work_order.h. */
#include "analyze/work_order.h"

#include <stdlib.h>
#include <string.h>

#include "trace/order_by_time.h"

/* A call's chain with the work at position p put in front (the work is placed from the last
 * in start order to the first, so each chain ends up in start order); *one_stream cleared when
 * it lies on another stream than the work after it in its chain. */
static inline void sc_chain_link(const sc_ctx *ctx, sc_work_order *o, uint32_t p,
                                 uint32_t correlation_id, bool *one_stream)
{
    const sc_trace *t = ctx->trace;
    uint32_t c = sc_ctx_call_at(ctx, correlation_id);
    if (c == UINT32_MAX) {
        o->call_next[p] = SC_WORK_NO_CALL;
        return;
    }
    uint32_t next = o->call_first[c];
    /* the streams read only for a call with more than one piece (few), and only until one
     * call's pieces lie on two streams: not per piece */
    if (next != SC_WORK_END && *one_stream &&
        sc_work_stream_at(t, next) != sc_work_stream_at(t, p))
        *one_stream = false;
    o->call_next[p] = next;
    o->call_first[c] = p;
}

/* by_start as the merge of the three lists, which the loader leaves each in start order, taken
 * from their ends: at one start the higher position (memsets, then copies, then kernels, each
 * the later in its list) is placed first, which read forward is (start, position). Each piece
 * is read once, while it is placed: its end (clamped) into at[] at its rank, for by_end, and
 * its call's chain. False when a list turns out not to be in start order: then nothing of it
 * holds (the general way takes over). */
static bool sc_merge_fill(const sc_ctx *ctx, sc_work_order *o, uint64_t *at, bool *one_stream)
{
    const sc_trace *t = ctx->trace;
    size_t nk = t->n_kernels, nc = t->n_copies, k = nk, c = nc, m = t->n_memsets;
    size_t r = o->n;
    /* each list's start placed before (placed later in start order): none above it may follow */
    uint64_t lk = UINT64_MAX, lc = UINT64_MAX, lm = UINT64_MAX;
    while (r > 0) {
        uint64_t tk = k ? t->kernels[k - 1].rec.start_ns : 0;
        uint64_t tc = c ? t->copies[c - 1].start_ns : 0;
        uint64_t tm = m ? t->memsets[m - 1].start_ns : 0;
        uint64_t s, e;
        uint32_t p, corr;
        if (m && (!c || tm >= tc) && (!k || tm >= tk)) {
            const sc_memset *x = &t->memsets[--m];
            if (tm > lm)
                return false;
            lm = s = tm, e = x->end_ns, corr = x->correlation_id;
            p = (uint32_t)(nk + nc + m);
        } else if (c && (!k || tc >= tk)) {
            const sc_copy *x = &t->copies[--c];
            if (tc > lc)
                return false;
            lc = s = tc, e = x->end_ns, corr = x->correlation_id;
            p = (uint32_t)(nk + c);
        } else {
            const sc_kernel_rec *x = &t->kernels[--k].rec;
            if (tk > lk)
                return false;
            lk = s = tk, e = x->end_ns, corr = x->correlation_id;
            p = (uint32_t)k;
        }
        o->by_start[--r] = p;
        at[r] = e < s ? s : e;
        sc_chain_link(ctx, o, p, corr, one_stream);
    }
    return true;
}

/* by_start, the ends in its order (at[]) and the chains, for lists not in start order: the
 * starts sorted as keys. */
static int sc_sorted_fill(const sc_ctx *ctx, sc_work_order *o, uint64_t *at, bool *one_stream)
{
    const sc_trace *t = ctx->trace;
    size_t n = o->n;
    for (size_t i = 0; i < n; i++)
        at[i] = sc_work_start_at(t, i);
    if (sc_order_by_time_in(at, n, o->by_start) != 0)
        return -1;
    for (size_t k = n; k-- > 0;) {
        uint32_t p = o->by_start[k];
        sc_work w = sc_work_at(t, p);
        at[k] = w.end_ns;   /* clamped */
        sc_chain_link(ctx, o, p, w.correlation_id, one_stream);
    }
    return 0;
}

/* by_start, by_end and the call chains. at: scratch of n values. */
static int sc_orders_fill(const sc_ctx *ctx, sc_work_order *o, uint64_t *at)
{
    const sc_trace *t = ctx->trace;
    size_t n = o->n, n_calls = t->n_calls ? t->n_calls : 1;
    bool one_stream = true;
    memset(o->call_first, 0xff, n_calls * sizeof *o->call_first);
    if (!sc_merge_fill(ctx, o, at, &one_stream)) {
        memset(o->call_first, 0xff, n_calls * sizeof *o->call_first);
        one_stream = true;
        if (sc_sorted_fill(ctx, o, at, &one_stream) != 0)
            return -1;
    }
    o->calls_one_stream = one_stream;
    /* by_end: the ends in by_start order as keys, ordered by (end, rank in by_start), which
     * is (end, start, position); then each rank made its position */
    if (sc_order_by_time_in(at, n, o->by_end) != 0)
        return -1;
    for (size_t k = 0; k < n; k++)
        o->by_end[k] = o->by_start[o->by_end[k]];
    return 0;
}

/* With more than one device: each device's work in both orders, grouped by device. */
static int sc_device_views(const sc_ctx *ctx, sc_work_order *o)
{
    const sc_analysis *a = ctx->analysis;
    const sc_trace *t = ctx->trace;
    size_t nd = o->n_devices, n = o->n;
    if (nd <= 1) {
        for (size_t d = 0; d < nd; d++)
            o->devices[d] = o->all;
        return 0;
    }
    size_t *next = calloc(nd + 1, sizeof *next);
    uint8_t *dev_of = n ? malloc(n) : NULL;   /* a byte a piece: few devices */
    bool small = nd <= 256;
    o->dev_start = malloc((n ? n : 1) * sizeof *o->dev_start);
    o->dev_end = malloc((n ? n : 1) * sizeof *o->dev_end);
    if (!next || (n && small && !dev_of) || !o->dev_start || !o->dev_end) {
        free(next);
        free(dev_of);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t d = sc_device_index(a, sc_work_at(t, i).device);
        if (small)
            dev_of[i] = (uint8_t)d;
        next[d + 1]++;
    }
    for (size_t d = 0; d < nd; d++)
        next[d + 1] += next[d];
    for (size_t d = 0; d < nd; d++)
        o->devices[d] = (sc_work_view){o->dev_start + next[d], o->dev_end + next[d],
                                       next[d + 1] - next[d]};
    size_t *fill = malloc(nd * sizeof *fill);
    if (!fill) {
        free(next);
        free(dev_of);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++) {
        const uint32_t *from = pass ? o->by_end : o->by_start;
        uint32_t *to = pass ? o->dev_end : o->dev_start;
        memcpy(fill, next, nd * sizeof *fill);
        for (size_t k = 0; k < n; k++) {
            uint32_t p = from[k];
            size_t d = small ? dev_of[p] : sc_device_index(a, sc_work_at(t, p).device);
            to[fill[d]++] = p;
        }
    }
    free(fill);
    free(next);
    free(dev_of);
    return 0;
}

int sc_work_order_build(const sc_ctx *ctx, sc_work_order *o)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t);
    memset(o, 0, sizeof *o);
    if (n >= SC_WORK_NO_CALL || t->n_calls >= SC_WORK_NO_CALL)
        return -1;  /* positions, and the marks above them, in 32 bits */
    size_t m = n ? n : 1;
    o->n = n;
    o->n_devices = ctx->analysis->n_devices;
    o->by_start = malloc(m * sizeof *o->by_start);
    o->by_end = malloc(m * sizeof *o->by_end);
    o->call_first = malloc((t->n_calls ? t->n_calls : 1) * sizeof *o->call_first);
    o->call_next = malloc(m * sizeof *o->call_next);
    o->devices = calloc(o->n_devices ? o->n_devices : 1, sizeof *o->devices);
    uint64_t *at = malloc(m * sizeof *at);
    int rc = o->by_start && o->by_end && o->call_first && o->call_next && o->devices && at
                 ? sc_orders_fill(ctx, o, at) : -1;
    free(at);
    o->all = (sc_work_view){o->by_start, o->by_end, n};
    if (rc == 0)
        rc = sc_device_views(ctx, o);
    return rc;
}

void sc_work_order_free(sc_work_order *o)
{
    free(o->by_start);
    free(o->by_end);
    free(o->call_first);
    free(o->call_next);
    free(o->devices);
    free(o->dev_start);
    free(o->dev_end);
    memset(o, 0, sizeof *o);
}
