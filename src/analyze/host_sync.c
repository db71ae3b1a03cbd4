/* Rule "host-sync": the host waited for the device on purpose.
 *
 * cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize (and their driver
 * twins), and polling loops of cudaStreamQuery/cudaEventQuery: a run of at least
 * SC_POLL_MIN_QUERIES queries from one thread on one stream or event, each starting less
 * than SC_POLL_GAP_NS after the previous one returned, is one episode, blocked from the
 * first query's start to the last one's end. A lone query is a cheap check and not counted.
 *
 * Every synchronization is an instance; its cost is blocking.h's: the time the device had
 * nothing of the process's to run while the host waited and, right after, until the host
 * could queue new work, at most the blocked time. A `.item()` every step shows as a cost per
 * step; a final synchronization before exit costs almost nothing (nothing followed it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blocking.h"
#include "analyze/findings.h"
#include "analyze/rules.h"

#define SC_POLL_MIN_QUERIES 3
#define SC_POLL_GAP_NS 50000u           /* 50 us between queries: still the same loop */
#define SC_HOSTSYNC_ERROR_SHARE 0.10    /* a tenth of the run starved by syncs */
#define SC_HOSTSYNC_WARN_SHARE 0.01
#define SC_HOSTSYNC_WARN_NS 1000000u    /* 1 ms */

static const char *const sc_hostsync_fix =
    "synchronize less: wait on an event for the one result you need, keep values on the "
    "device instead of reading them every step (.item(), printing, host-side checks), and "
    "queue the next step's work before waiting";

typedef struct sc_hostsync_totals {
    uint64_t count, episodes, blocked_ns, worst_blocked_ns, idle_ns, starve_ns, cost_ns;
} sc_hostsync_totals;

/* A query call, keyed for grouping into polling episodes. */
typedef struct sc_query {
    uint32_t tid;
    uint16_t call_class;
    uint64_t handle;            /* stream or event */
    uint64_t start_ns, end_ns;
    const sc_api_call *call;
} sc_query;

static int sc_query_cmp(const void *pa, const void *pb)
{
    const sc_query *x = pa, *y = pb;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->call_class != y->call_class)
        return x->call_class < y->call_class ? -1 : 1;
    if (x->handle != y->handle)
        return x->handle < y->handle ? -1 : 1;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static bool sc_is_sync(uint16_t c)
{
    return c == SC_CALL_DEVICE_SYNC || c == SC_CALL_STREAM_SYNC || c == SC_CALL_EVENT_SYNC;
}

static bool sc_is_query(uint16_t c)
{
    return c == SC_CALL_STREAM_QUERY || c == SC_CALL_EVENT_QUERY;
}

static void sc_hostsync_instance(const sc_api_call *call, uint64_t start, uint64_t queries,
                                 const sc_blocking *m, sc_instance *inst)
{
    char streams[64];
    sc_blocking_streams_text(m, streams, sizeof(streams));
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = start;
    inst->end_ns = start + m->blocked_ns;
    inst->cost_ns = m->cost_ns;
    inst->call = call;
    int w = queries ? snprintf(inst->text, sizeof(inst->text), "%s polled %llu times: ",
                               call->name, (unsigned long long)queries)
                    : snprintf(inst->text, sizeof(inst->text), "%s: ", call->name);
    size_t used = w > 0 && (size_t)w < sizeof(inst->text) ? (size_t)w : 0;
    snprintf(inst->text + used, sizeof(inst->text) - used,
             "host blocked %.1f us%s%s%s; device idle %.1f us in it and %.1f us after it",
             sc_ns_to_us(m->blocked_ns), m->n_drained ? " waiting for stream(s) " : "",
             streams, m->n_drained ? "" : " (nothing in flight)", sc_ns_to_us(m->idle_ns),
             sc_ns_to_us(m->starve_ns));
    sc_instance_evidence(inst, "host_blocked_us", sc_ns_to_us(m->blocked_ns), "us");
    sc_instance_evidence(inst, "wait_us",
                         m->n_drained ? sc_ns_to_us(m->drained_end_ns - start) : 0.0, "us");
    sc_instance_evidence(inst, "idle_us", sc_ns_to_us(m->idle_ns), "us");
    sc_instance_evidence(inst, "starve_us", sc_ns_to_us(m->starve_ns), "us");
    sc_instance_evidence(inst, "cost_us", sc_ns_to_us(m->cost_ns), "us");
    sc_instance_evidence(inst, "drained_streams", (double)m->n_streams, "count");
    if (queries)
        sc_instance_evidence(inst, "queries", (double)queries, "count");
}

/* Measures one synchronization or episode over [start, end] and adds it. */
static int sc_hostsync_add(const sc_blocking_index *ix, const sc_api_call *call, uint64_t start,
                           uint64_t end, uint64_t queries, sc_finding_builder *b,
                           sc_hostsync_totals *tot)
{
    sc_blocking_call q = {start, end, call->rec.context_id, 0, false};
    sc_blocking m;
    sc_blocking_measure(ix, &q, &m);
    sc_instance inst;
    sc_hostsync_instance(call, start, queries, &m, &inst);
    tot->count++;
    tot->episodes += queries > 0;
    tot->blocked_ns += m.blocked_ns;
    if (m.blocked_ns > tot->worst_blocked_ns)
        tot->worst_blocked_ns = m.blocked_ns;
    tot->idle_ns += m.idle_ns;
    tot->starve_ns += m.starve_ns;
    tot->cost_ns += m.cost_ns;
    return sc_finding_add(b, &inst);
}

/* Groups the queries by thread and handle, and adds each run long and dense enough. */
static int sc_hostsync_polls(const sc_blocking_index *ix, sc_query *qs, size_t n,
                             sc_finding_builder *b, sc_hostsync_totals *tot)
{
    qsort(qs, n, sizeof(*qs), sc_query_cmp);
    size_t first = 0;
    for (size_t i = 1; i <= n; i++) {
        bool same = i < n && qs[i].tid == qs[first].tid &&
                    qs[i].call_class == qs[first].call_class &&
                    qs[i].handle == qs[first].handle &&
                    qs[i].start_ns < qs[i - 1].end_ns + SC_POLL_GAP_NS;
        if (same)
            continue;
        size_t len = i - first;
        if (len >= SC_POLL_MIN_QUERIES &&
            sc_hostsync_add(ix, qs[first].call, qs[first].start_ns, qs[i - 1].end_ns, len, b,
                            tot) != 0)
            return -1;
        first = i;
    }
    return 0;
}

static int sc_hostsync_scan(const sc_ctx *ctx, const sc_blocking_index *ix,
                            sc_finding_builder *b, sc_hostsync_totals *tot)
{
    const sc_trace *t = ctx->trace;
    sc_query *qs = malloc((t->n_calls ? t->n_calls : 1) * sizeof(*qs));
    if (!qs)
        return -1;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < t->n_calls && rc == 0; i++) {
        const sc_api_call *call = &t->calls[i];
        uint16_t c = call->rec.call_class;
        if (sc_blocking_is_inner(ctx, call))
            continue;
        if (sc_is_sync(c))
            rc = sc_hostsync_add(ix, call, call->rec.start_ns, call->rec.end_ns, 0, b, tot);
        else if (sc_is_query(c))
            qs[n++] = (sc_query){call->rec.tid, c,
                                 c == SC_CALL_STREAM_QUERY ? call->rec.stream : call->rec.aux,
                                 call->rec.start_ns, call->rec.end_ns, call};
    }
    if (rc == 0)
        rc = sc_hostsync_polls(ix, qs, n, b, tot);
    free(qs);
    return rc;
}

static void sc_hostsync_conclude(const sc_ctx *ctx, const sc_hostsync_totals *tot,
                                 sc_finding_builder *b)
{
    sc_finding *f = &b->finding;
    double run = (double)ctx->run_span_ns, cost = (double)tot->cost_ns;
    if (cost > 0 && cost >= SC_HOSTSYNC_ERROR_SHARE * run)
        f->severity = SC_SEV_ERROR;
    else if (cost > 0 && (cost >= SC_HOSTSYNC_WARN_SHARE * run ||
                          tot->cost_ns >= SC_HOSTSYNC_WARN_NS))
        f->severity = SC_SEV_WARNING;
    else
        f->severity = SC_SEV_NOTE;
    char polls[48] = "";
    if (tot->episodes > 0)
        snprintf(polls, sizeof(polls), " (%llu of them polling loops)",
                 (unsigned long long)tot->episodes);
    snprintf(f->title, sizeof(f->title),
             "%llu host synchronizations%s blocked the host %.3f ms; the device starved "
             "%.3f ms", (unsigned long long)tot->count, polls, tot->blocked_ns / 1e6,
             tot->cost_ns / 1e6);
    sc_finding_total(b, "count", (double)tot->count, "count");
    sc_finding_total(b, "polling_episodes", (double)tot->episodes, "count");
    sc_finding_total(b, "host_blocked_us", sc_ns_to_us(tot->blocked_ns), "us");
    sc_finding_total(b, "worst_blocked_us", sc_ns_to_us(tot->worst_blocked_ns), "us");
    sc_finding_total(b, "idle_us", sc_ns_to_us(tot->idle_ns), "us");
    sc_finding_total(b, "starve_us", sc_ns_to_us(tot->starve_ns), "us");
    sc_finding_total(b, "cost_us", sc_ns_to_us(tot->cost_ns), "us");
}

int sc_rule_host_sync(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    sc_blocking_index ix;
    sc_finding_builder b;
    sc_hostsync_totals tot = {0};
    sc_finding_begin(&b, "host-sync", sc_hostsync_fix);
    int rc = sc_blocking_index_build(ctx, &ix);
    if (rc == 0)
        rc = sc_hostsync_scan(ctx, &ix, &b, &tot);
    if (rc == 0 && tot.count > 0) {
        sc_hostsync_conclude(ctx, &tot, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    sc_blocking_index_free(&ix);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "host-sync: out of memory");
    return rc;
}
