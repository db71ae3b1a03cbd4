/* The shared time order of the device work: see work_order.h. */
#include "analyze/work_order.h"

#include <stdlib.h>
#include <string.h>

#include "trace/order_by_time.h"

/* Whether each of the trace's three lists of work is in start order, as the loader leaves
 * them (a trace made some other way may not be). */
static bool sc_lists_in_start_order(const sc_trace *t)
{
    for (size_t i = 1; i < t->n_kernels; i++)
        if (t->kernels[i - 1].rec.start_ns > t->kernels[i].rec.start_ns)
            return false;
    for (size_t i = 1; i < t->n_copies; i++)
        if (t->copies[i - 1].start_ns > t->copies[i].start_ns)
            return false;
    for (size_t i = 1; i < t->n_memsets; i++)
        if (t->memsets[i - 1].start_ns > t->memsets[i].start_ns)
            return false;
    return true;
}

/* by_start as the merge of the three lists: at one start the lower position (kernels, then
 * copies, then memsets, each in its list's order) comes first, which is (start, position). */
static void sc_merge_by_start(const sc_trace *t, uint32_t *out)
{
    size_t nk = t->n_kernels, nc = t->n_copies, nm = t->n_memsets;
    size_t k = 0, c = 0, m = 0, o = 0;
    while (k < nk || c < nc || m < nm) {
        uint64_t tk = k < nk ? t->kernels[k].rec.start_ns : UINT64_MAX;
        uint64_t tc = c < nc ? t->copies[c].start_ns : UINT64_MAX;
        uint64_t tm = m < nm ? t->memsets[m].start_ns : UINT64_MAX;
        /* a list that is done reads UINT64_MAX, which a start of UINT64_MAX in another list
         * would tie: the tests of what is left keep the order right */
        if (k < nk && (tk <= tc || c >= nc) && (tk <= tm || m >= nm))
            out[o++] = (uint32_t)k++;
        else if (c < nc && (tc <= tm || m >= nm))
            out[o++] = (uint32_t)(nk + c++);
        else
            out[o++] = (uint32_t)(nk + nc + m++);
    }
}

/* by_start, by_end and the call chains. at: scratch of n values. */
static int sc_orders_fill(const sc_ctx *ctx, sc_work_order *o, uint64_t *at)
{
    const sc_trace *t = ctx->trace;
    size_t n = o->n;
    if (sc_lists_in_start_order(t)) {
        sc_merge_by_start(t, o->by_start);
    } else {
        for (size_t i = 0; i < n; i++)
            at[i] = sc_work_start_at(t, i);
        if (sc_order_by_time_in(at, n, o->by_start) != 0)
            return -1;
    }
    /* by_end: the ends in by_start order as keys, ordered by (end, rank in by_start), which
     * is (end, start, position); then each rank made its position */
    for (size_t k = 0; k < n; k++)
        at[k] = sc_work_end_at(t, o->by_start[k]);
    if (sc_order_by_time_in(at, n, o->by_end) != 0)
        return -1;
    for (size_t k = 0; k < n; k++)
        o->by_end[k] = o->by_start[o->by_end[k]];
    /* the chains, from the last work in start order to the first: each piece goes in front of
     * its call's chain, which is then in start order */
    memset(o->call_first, 0xff, (t->n_calls ? t->n_calls : 1) * sizeof *o->call_first);
    bool one_stream = true;
    for (size_t k = n; k-- > 0;) {
        uint32_t p = o->by_start[k];
        sc_work w = sc_work_at(t, p);
        const sc_api_call *call = sc_ctx_call(ctx, w.correlation_id);
        if (!call) {
            o->call_next[p] = SC_WORK_NO_CALL;
            continue;
        }
        size_t c = (size_t)(call - t->calls);
        uint32_t next = o->call_first[c];
        if (next != SC_WORK_END && sc_work_stream_at(t, next) != w.stream_id)
            one_stream = false;     /* the chain's streams, each against the one after it */
        o->call_next[p] = next;
        o->call_first[c] = p;
    }
    o->calls_one_stream = one_stream;
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
