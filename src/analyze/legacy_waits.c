/* The serialization measure across the legacy stream: see legacy_waits.h. */
#include "analyze/legacy_waits.h"

#include <stdlib.h>

#include "analyze/stream_kind.h"
#include "analyze/work.h"
#include "trace/sort.h"

static int sc_legacy_op_cmp(const void *pa, const void *pb)
{
    const sc_legacy_op *x = pa, *y = pb;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->issue_ns != y->issue_ns)
        return x->issue_ns < y->issue_ns ? -1 : 1;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Adds one piece of device work when its stream is legacy or syncs with it. */
static void sc_legacy_consider(const sc_ctx *ctx, sc_legacy_waits *w, const sc_work *x,
                               size_t order)
{
    const sc_stream_summary *s = sc_ctx_stream(ctx, x->device, x->context_id, x->stream_id);
    if (!s || (!sc_stream_is_legacy(s) && !sc_stream_syncs_with_legacy(s)))
        return;
    const sc_api_call *call = sc_ctx_call(ctx, x->correlation_id);
    w->ops[w->n++] = (sc_legacy_op){
        .issue_ns = call ? call->rec.start_ns : x->start_ns, .start_ns = x->start_ns,
        .end_ns = x->end_ns, .call = call,
        .slot = (size_t)(s - ctx->analysis->streams), .device = x->device,
        .legacy = sc_stream_is_legacy(s), .work = x->kind, .order = order,
        .waited_on = SC_LEGACY_NONE};
}

/* Whether any stream is the legacy stream or syncs with it: without one no work is
 * considered, and the walk over every piece of work is left out. */
static bool sc_legacy_any_stream(const sc_ctx *ctx)
{
    for (size_t k = 0; k < ctx->analysis->n_streams; k++)
        if (sc_stream_is_legacy(&ctx->analysis->streams[k]) ||
            sc_stream_syncs_with_legacy(&ctx->analysis->streams[k]))
            return true;
    return false;
}

static int sc_legacy_collect(const sc_ctx *ctx, sc_legacy_waits *w)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_legacy_any_stream(ctx) ? sc_work_count(t) : 0;
    w->ops = malloc((n ? n : 1) * sizeof(*w->ops));
    w->n = 0;
    if (!w->ops)
        return -1;
    for (size_t i = 0; i < n; i++) {
        sc_work x = sc_work_at(t, i);
        sc_legacy_consider(ctx, w, &x, i);
    }
    sc_sort(w->ops, w->n, sizeof(*w->ops), sc_legacy_op_cmp);
    return 0;
}

/* Per device and side: the latest end among the work issued so far, and whose it is. */
typedef struct sc_legacy_front {
    uint64_t end_ns;
    size_t pos;                 /* SC_LEGACY_NONE before any work */
} sc_legacy_front;

/* How long op x waited for work of the other side in flight when it was issued. */
static void sc_legacy_measure(sc_legacy_op *x, const sc_legacy_front *other,
                              uint64_t own_stream_end)
{
    if (other->pos == SC_LEGACY_NONE || other->end_ns <= x->issue_ns)
        return;     /* nothing of the other side in flight */
    if (x->start_ns + SC_LEGACY_TOLERANCE_NS < other->end_ns)
        return;     /* it started before that work ended: it did not wait for it */
    uint64_t from = x->issue_ns > own_stream_end ? x->issue_ns : own_stream_end;
    uint64_t to = x->start_ns < other->end_ns ? x->start_ns : other->end_ns;
    if (to > from) {
        x->wait_ns = to - from;
        x->waited_on = other->pos;
    }
}

/* The pass: ops are sorted by device, then issue time. */
static int sc_legacy_sweep(const sc_ctx *ctx, sc_legacy_waits *w)
{
    uint64_t *stream_end = calloc(ctx->analysis->n_streams + 1, sizeof(uint64_t));
    if (!stream_end)
        return -1;
    sc_legacy_front front[2];   /* [0] syncing streams, [1] legacy */
    for (size_t i = 0; i < w->n; i++) {
        sc_legacy_op *x = &w->ops[i];
        if (i == 0 || x->device != w->ops[i - 1].device)
            front[0] = front[1] = (sc_legacy_front){0, SC_LEGACY_NONE};
        sc_legacy_measure(x, &front[!x->legacy], stream_end[x->slot]);
        if (x->wait_ns > 0 && !x->legacy)
            w->ops[x->waited_on].caused_ns += x->wait_ns;
        sc_legacy_front *own = &front[x->legacy];
        if (own->pos == SC_LEGACY_NONE || x->end_ns > own->end_ns)
            *own = (sc_legacy_front){x->end_ns, i};
        if (x->end_ns > stream_end[x->slot])
            stream_end[x->slot] = x->end_ns;
    }
    free(stream_end);
    return 0;
}

int sc_legacy_waits_compute(const sc_ctx *ctx, sc_legacy_waits *w)
{
    int rc = sc_legacy_collect(ctx, w);
    if (rc == 0)
        rc = sc_legacy_sweep(ctx, w);
    if (rc != 0)
        sc_legacy_waits_free(w);
    return rc;
}

void sc_legacy_waits_free(sc_legacy_waits *w)
{
    free(w->ops);
    w->ops = NULL;
    w->n = 0;
}

size_t sc_legacy_waits_blocking_slot(const sc_legacy_waits *w, const sc_legacy_op *op)
{
    return op->legacy ? w->ops[op->waited_on].slot : op->slot;
}
