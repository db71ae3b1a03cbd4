/* Rule "host-sync": the host waited for the device on purpose.
 *
 * cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize (and their driver
 * twins), and polling loops of cudaStreamQuery/cudaEventQuery (polls.h), a loop blocked from
 * its first query's start to its last one's end. A lone query is a cheap check and not
 * counted.
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
#include "analyze/polls.h"
#include "analyze/rules.h"
#include "streamcheck/units.h"


static const char *const sc_hostsync_fix =
    "synchronize less: wait on an event for the one result you need, keep values on the "
    "device instead of reading them every step (.item(), printing, host-side checks), and "
    "queue the next step's work before waiting";

typedef struct sc_hostsync_totals {
    uint64_t count, episodes, blocked_ns, worst_blocked_ns, idle_ns, starve_ns, cost_ns;
} sc_hostsync_totals;

/* The instance's text and evidence: written only for an instance the finding keeps
 * (sc_finding_would_keep), as the others' are never read. */
static void sc_hostsync_describe(const char *name, uint64_t start, uint64_t queries,
                                 const sc_blocking *m, sc_instance *inst)
{
    char streams[128];  /* 4 ids of 10 digits and ", ... (N streams)": fits uncut */
    sc_blocking_streams_text(m, streams, sizeof(streams));
    if (queries)
        sc_text_append(&inst->text, "%s polled %llu times: ", name,
                       (unsigned long long)queries);
    else
        sc_text_append(&inst->text, "%s: ", name);
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE], t3[SC_FMT_SIZE];
    sc_text_append(&inst->text, "host blocked %s%s%s%s; device idle %s in it and %s after it",
                   sc_fmt_ns(m->blocked_ns, t1), m->n_drained ? " waiting for stream(s) " : "",
                   streams, m->n_drained ? "" : " (nothing in flight)", sc_fmt_ns(m->idle_ns, t2),
                   sc_fmt_ns(m->starve_ns, t3));
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
static int sc_hostsync_add(sc_blocking_walk *walk, const sc_api_call *call, uint64_t start,
                           uint64_t end, uint64_t queries, sc_finding_builder *b,
                           sc_hostsync_totals *tot)
{
    const sc_blocking_index *ix = walk->ix;
    const sc_trace *t = walk->ix->ctx->trace;
    sc_blocking_call q = {.start_ns = start, .end_ns = end, .tid = sc_call_tid(t, call),
                          .call_class = sc_call_class_id(t, call),
                          .context_id = sc_call_context(t, call),
                          .skip_threads = true};  /* its text names no thread */
    sc_blocking m;
    sc_blocking_measure_next(walk, &q, &m);
    /* The fix: the host does not wait here (the call, or the polling loop it starts). A wait
     * that no work followed (the last synchronization before the results are read) is one
     * the program keeps: its fix would only move the host's end ahead of the device's. */
    if (m.followed &&
        sc_finding_fix(b, SC_FIX_UNWAIT, (size_t)(call - ix->ctx->trace->calls)) != 0)
        return -1;
    sc_instance inst;
    memset(&inst, 0, sizeof(inst));
    inst.start_ns = start;
    inst.end_ns = start + m.blocked_ns;
    inst.cost_ns = m.cost_ns;
    inst.call = call;
    if (sc_finding_would_keep(b, &inst))
        sc_hostsync_describe(sc_call_name(ix->ctx->trace, call), start, queries, &m, &inst);
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

/* Every synchronization call (among the calls that may hold the host, blocking.h), then every
 * polling loop (polls.h): each run in start order, measured as one walk. */
static int sc_hostsync_scan(const sc_ctx *ctx, const sc_blocking_index *ix,
                            sc_finding_builder *b, sc_hostsync_totals *tot)
{
    const sc_trace *t = ctx->trace;
    sc_blocking_walk walk;
    int rc = sc_blocking_walk_begin(ix, &walk);
    for (size_t k = 0; k < ix->n_holding && rc == 0; k++) {
        const sc_api_call *call = &t->calls[ix->holding[k]];
        if (sc_blocking_sync_class(sc_call_class_id(t, call)) && !sc_blocking_is_inner(ctx, call))
            rc = sc_hostsync_add(&walk, call, call->rec.start_ns, sc_call_end(t, call), 0, b, tot);
    }
    const sc_poll_loop *loops = ctx->polls;
    size_t n = ctx->n_polls;
    for (size_t k = 0; k < n && rc == 0; k++) {
        const sc_api_call *first = &t->calls[loops[k].first];
        rc = sc_hostsync_add(&walk, first, first->rec.start_ns,
                             sc_call_end(t, &t->calls[loops[k].last]), loops[k].queries, b, tot);
    }
    sc_blocking_walk_end(&walk);
    return rc;
}

static void sc_hostsync_conclude(const sc_hostsync_totals *tot,
                                 sc_finding_builder *b)
{
    sc_finding *f = &b->finding;
    char polls[48] = "";
    if (tot->episodes > 0)
        snprintf(polls, sizeof(polls), " (%llu of them polling loops)",
                 (unsigned long long)tot->episodes);
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
    sc_text_append(&f->title,
                   "%llu host synchronizations%s blocked the host %s; the device starved %s",
                   (unsigned long long)tot->count, polls, sc_fmt_ns(tot->blocked_ns, t1),
                   sc_fmt_ns(tot->cost_ns, t2));
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
    sc_finding_builder b;
    sc_hostsync_totals tot = {0};
    sc_finding_begin(&b, "host-sync", sc_hostsync_fix);
    int rc = sc_hostsync_scan(ctx, ctx->blocking, &b, &tot);
    if (rc == 0 && tot.count > 0) {
        sc_hostsync_conclude(&tot, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "host-sync: out of memory");
    return rc;
}
