/* Rule "cross-device-wait": a cudaStreamWaitEvent on one device's stream for an event recorded
 * on another device's stream that held the waiting device's work until the other device's
 * work had ended (deps.h keeps the edge; the replay orders across devices by it).
 *
 * Two devices exist to run at once; a wait across them makes the second start where the first
 * ended. When the waiting work reads what the other device wrote (a peer copy's result, a
 * shared buffer), that is a join the program needs; the trace cannot tell which, so the cost
 * is what removing the wait would save (SC_FIX_UNEVENT on the wait), and a wait whose removal
 * saves little against what it waited for is a join, as every rule's (costs.c).
 *
 * An instance is a wait that held something: the first work issued to the waiting stream
 * after the wait started no earlier than the waited-for work ended. waited = that end minus
 * the later of the work's issue and the end of the work before it on its stream (what would
 * have held it anyway).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/rules.h"
#include "analyze/work.h"
#include "streamcheck/units.h"
#include "trace/sort.h"

static const char *const sc_xdev_fix =
    "if the waiting work does not read the other device's result, drop the "
    "cudaStreamWaitEvent (or record the event right after the work it needs, not after the "
    "device's whole queue), so both devices run at once; if it does, the wait is a join the "
    "program needs";

/* A piece of work of a stream that ends a cross-device edge, keyed for a binary search. */
typedef struct sc_xdev_work {
    uint32_t context_id, stream_id;
    uint64_t issue_ns, start_ns, end_ns;
} sc_xdev_work;

static int sc_xdev_cmp(const void *pa, const void *pb)
{
    const sc_xdev_work *a = pa, *b = pb;
    if (a->context_id != b->context_id) return a->context_id < b->context_id ? -1 : 1;
    if (a->stream_id != b->stream_id) return a->stream_id < b->stream_id ? -1 : 1;
    if (a->issue_ns != b->issue_ns) return a->issue_ns < b->issue_ns ? -1 : 1;
    return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* Position of the first work of (context, stream) issued at or after `at`. */
static size_t sc_xdev_find(const sc_xdev_work *w, size_t n, uint32_t context, uint32_t stream,
                           uint64_t at)
{
    sc_xdev_work key = {context, stream, at, 0, 0};
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_xdev_cmp(&w[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool sc_xdev_same(const sc_xdev_work *w, uint32_t context, uint32_t stream)
{
    return w->context_id == context && w->stream_id == stream;
}

/* The device a stream of a context is on (streams are few), or UINT32_MAX. */
static uint32_t sc_xdev_device(const sc_ctx *ctx, uint32_t context, uint32_t stream)
{
    const sc_analysis *a = ctx->analysis;
    for (size_t k = 0; k < a->n_streams; k++)
        if (a->streams[k].context_id == context && a->streams[k].stream_id == stream)
            return a->streams[k].device;
    return UINT32_MAX;
}

/* All work with its issue time (its call's start), sorted by (context, stream, issue). */
static sc_xdev_work *sc_xdev_works(const sc_ctx *ctx, size_t *n_out)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t);
    sc_xdev_work *w = malloc((n ? n : 1) * sizeof *w);
    if (!w)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        sc_work x = sc_work_at(t, i);
        const sc_api_call *c = sc_ctx_call(ctx, x.correlation_id);
        uint64_t issue = c && c->rec.start_ns <= x.start_ns ? c->rec.start_ns : x.start_ns;
        w[i] = (sc_xdev_work){x.context_id, x.stream_id, issue, x.start_ns, x.end_ns};
    }
    sc_sort(w, n, sizeof *w, sc_xdev_cmp);
    *n_out = n;
    return w;
}

/* One cross-device edge: an instance when it held the waiting stream's next work. */
static int sc_xdev_edge(const sc_ctx *ctx, sc_finding_builder *b, const sc_dep_edge *e,
                        const sc_xdev_work *w, size_t n, uint64_t *waited_total)
{
    uint32_t from_dev = sc_xdev_device(ctx, e->from_context, e->from_stream);
    uint32_t to_dev = sc_xdev_device(ctx, e->context_id, e->to_stream);
    if (from_dev == UINT32_MAX || to_dev == UINT32_MAX || from_dev == to_dev)
        return 0;
    size_t f = sc_xdev_find(w, n, e->from_context, e->from_stream, e->record_ns);
    if (f == 0 || !sc_xdev_same(&w[f - 1], e->from_context, e->from_stream))
        return 0;   /* nothing recorded before the event: nothing to wait for */
    const sc_xdev_work *waited_for = &w[f - 1];
    size_t k = sc_xdev_find(w, n, e->context_id, e->to_stream, e->wait_ns);
    if (k == n || !sc_xdev_same(&w[k], e->context_id, e->to_stream))
        return 0;   /* nothing issued after the wait */
    const sc_xdev_work *next = &w[k];
    uint64_t free_at = next->issue_ns;  /* when it could have started but for the wait */
    if (k > 0 && sc_xdev_same(&w[k - 1], e->context_id, e->to_stream) &&
        w[k - 1].end_ns > free_at)
        free_at = w[k - 1].end_ns;
    if (next->start_ns < waited_for->end_ns || waited_for->end_ns <= free_at)
        return 0;   /* it did not wait, or the wait held nothing */
    sc_instance inst;
    memset(&inst, 0, sizeof inst);
    inst.start_ns = free_at;
    inst.end_ns = waited_for->end_ns;
    inst.cost_ns = inst.end_ns - inst.start_ns;
    inst.call = &ctx->trace->calls[e->wait_call];
    char t1[SC_FMT_SIZE];
    sc_text_append(&inst.text,
                   "device %u's stream %u waited %s for an event of device %u's stream %u: "
                   "its work started when the other device's ended",
                   to_dev, e->to_stream, sc_fmt_ns(inst.cost_ns, t1), from_dev, e->from_stream);
    sc_instance_evidence(&inst, "waited_us", sc_ns_to_us(inst.cost_ns), "us");
    sc_instance_evidence(&inst, "waiting_device", to_dev, "");
    sc_instance_evidence(&inst, "recorded_device", from_dev, "");
    *waited_total += inst.cost_ns;
    int rc = sc_finding_add(b, &inst);
    return rc == 0 ? sc_finding_fix(b, SC_FIX_UNEVENT, e->wait_call) : rc;
}

int sc_rule_cross_device(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_deps *d = &ctx->deps;
    size_t n_cross = 0;
    for (size_t i = 0; i < d->n_edges; i++)
        n_cross += d->edges[i].from_context != d->edges[i].context_id;
    if (n_cross == 0 || ctx->analysis->n_devices < 2)
        return 0;
    size_t n = 0;
    sc_xdev_work *w = sc_xdev_works(ctx, &n);
    sc_finding_builder b;
    sc_finding_begin(&b, "cross-device-wait", sc_xdev_fix);
    uint64_t waited = 0, count = 0;
    int rc = w ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < d->n_edges; i++) {
        uint64_t before = waited;
        if (d->edges[i].from_context != d->edges[i].context_id)
            rc = sc_xdev_edge(ctx, &b, &d->edges[i], w, n, &waited);
        count += waited != before;
    }
    if (rc == 0 && count > 0) {
        char t1[SC_FMT_SIZE];
        sc_text_append(&b.finding.title,
                       "%llu cross-device wait%s held one device's work until another's had "
                       "ended: %s waited",
                       (unsigned long long)count, count == 1 ? "" : "s", sc_fmt_ns(waited, t1));
        sc_finding_total(&b, "count", (double)count, "count");
        sc_finding_total(&b, "waited_us", sc_ns_to_us(waited), "us");
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    free(w);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "cross-device-wait: out of memory");
    return rc;
}
