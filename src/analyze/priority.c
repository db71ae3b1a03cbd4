/* Rule "priority": kernels of a lower-priority stream that waited while kernels of
 * higher-priority streams, ready after them, ran first.
 *
 * The block scheduler hands out the pending blocks of higher-priority streams first
 * (cudaStreamCreateWithPriority): a lower-priority kernel gets a slot only when no
 * higher-priority block is waiting. Beside streams that keep the device full, it waits until
 * they run dry. Among streams of equal priority, grids are dispatched in the order they became
 * ready. Priorities are a design choice; they cost the run when the starved stream is the
 * one the run waits for, which the replay tells: the fix dispatches the starved kernels in
 * the order they became ready (SC_FIX_ARRIVAL, replay.h), and the saving is zero when the run
 * did not wait for them.
 *
 * An instance is a kernel L, ready at R = max(its launch call's end, the end of its stream's
 * previous work), that started at S >= R + 20 us, on a device where at least one kernel of a
 * stream of higher priority (a lower number) became ready after R (its own launch end and
 * stream predecessor, the same way) and started in [R, S): it overtook L. A kernel that the
 * program ordered L behind with an event does not count. wait = S - R.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/launches.h"
#include "analyze/rules.h"
#include "analyze/kernel_names.h"
#include "streamcheck/units.h"

#define SC_PRIORITY_MIN_WAIT_NS 20000u  /* less is what any launch takes */

static const char *const sc_priority_fix =
    "give the starved stream the same or a higher priority (cudaStreamCreateWithPriority) if "
    "the run waits for it, or make the high-priority grids smaller so that they leave room";

typedef struct sc_prio_totals {
    uint64_t count, wait_ns, overtakers;
} sc_prio_totals;

static uint64_t sc_prio_ready(const sc_trace *t, const sc_launch *l)
{
    const sc_api_call *call = sc_launch_call(t, l);
    uint64_t r = call ? sc_call_end(t, call) : 0;
    return l->own_prev_end_ns > r ? l->own_prev_end_ns : r;
}

/* Per stream slot: its device has a stream of higher priority (a lower number). */
static bool *sc_prio_outranked(const sc_analysis *a)
{
    bool *out = calloc(a->n_streams + 1, sizeof *out);
    for (size_t s = 0; out && s < a->n_streams; s++)
        for (size_t q = 0; q < a->n_streams && !out[s]; q++)
            out[s] = a->streams[q].device == a->streams[s].device &&
                     a->streams[q].priority < a->streams[s].priority;
    return out;
}

/* The kernels of higher-priority streams that overtook kernel k (ready at `ready`, started
 * at `start`), and the highest priority among them. */
static uint64_t sc_prio_overtakers(const sc_ctx *ctx, const sc_launch *l, size_t k,
                                   uint64_t ready, uint64_t start, int32_t *highest)
{
    const sc_trace *t = ctx->trace;
    const sc_stream_summary *st = ctx->analysis->streams;
    const sc_stream_summary *mine = &st[l[k].slot];
    size_t lo = 0, hi = t->n_kernels;
    while (lo < hi) {   /* first kernel starting at or after `ready` */
        size_t mid = lo + (hi - lo) / 2;
        if (t->kernels[mid].rec.start_ns < ready)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t n = 0;
    for (size_t j = lo; j < t->n_kernels && t->kernels[j].rec.start_ns < start; j++) {
        const sc_stream_summary *other = &st[l[j].slot];
        if (other->device != mine->device || other->priority >= mine->priority ||
            l[j].call == SC_LAUNCH_NO_CALL || sc_prio_ready(t, &l[j]) <= ready)
            continue;
        if (sc_deps_ordered(&ctx->deps, mine->context_id, other->stream_id,
                            sc_launch_issue(t, &l[j], j), mine->stream_id,
                            sc_launch_issue(t, &l[k], k)))
            continue;   /* the program made k wait for this kernel's stream */
        if (n == 0 || other->priority < *highest)
            *highest = other->priority;
        n++;
    }
    return n;
}

static void sc_prio_instance(const sc_ctx *ctx, const sc_launch *l, size_t k, uint64_t ready,
                             uint64_t overtakers, int32_t highest, sc_instance *inst)
{
    const sc_kernel *kr = &ctx->trace->kernels[k];
    const sc_stream_summary *mine = &ctx->analysis->streams[l[k].slot];
    uint64_t wait = kr->rec.start_ns - ready;
    memset(inst, 0, sizeof *inst);
    inst->start_ns = ready;
    inst->end_ns = kr->rec.start_ns;
    inst->cost_ns = wait;
    inst->call = sc_launch_call(ctx->trace, &l[k]);
    char t1[SC_FMT_SIZE];
    sc_text_append(&inst->text,
                   "%s on stream %u (priority %d) waited %s while %llu kernels of "
                   "higher-priority streams (up to %d), ready after it, ran first",
                   sc_ctx_kernel_name(ctx, kr), mine->stream_id, mine->priority,
                   sc_fmt_ns(wait, t1), (unsigned long long)overtakers, highest);
    sc_instance_evidence(inst, "wait_us", sc_ns_to_us(wait), "us");
    sc_instance_evidence(inst, "overtaken_by", (double)overtakers, "count");
    sc_instance_evidence(inst, "stream", mine->stream_id, "");
    sc_instance_evidence(inst, "priority", mine->priority, "");
    sc_instance_evidence(inst, "highest_overtaking_priority", highest, "");
}

static void sc_prio_conclude(const sc_prio_totals *tot, sc_finding_builder *b)
{
    char t1[SC_FMT_SIZE];
    sc_text_append(&b->finding.title,
                   "%llu kernel%s of lower-priority streams waited %s in all while %llu "
                   "kernels of higher-priority streams, ready later, ran first",
                   (unsigned long long)tot->count, tot->count == 1 ? "" : "s",
                   sc_fmt_ns(tot->wait_ns, t1), (unsigned long long)tot->overtakers);
    sc_finding_total(b, "kernels", (double)tot->count, "count");
    sc_finding_total(b, "wait_us", sc_ns_to_us(tot->wait_ns), "us");
    sc_finding_total(b, "overtaken_by", (double)tot->overtakers, "count");
}

int sc_rule_priority(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    bool mixed = false;     /* two priorities on one device: otherwise nothing to find */
    for (size_t s = 1; s < ctx->analysis->n_streams && !mixed; s++)
        for (size_t q = 0; q < s && !mixed; q++)
            mixed = ctx->analysis->streams[s].device == ctx->analysis->streams[q].device &&
                    ctx->analysis->streams[s].priority != ctx->analysis->streams[q].priority;
    if (!mixed || t->n_kernels == 0)
        return 0;
    const sc_launch *l = ctx->launches;
    size_t *first = malloc((ctx->analysis->n_streams + 1) * sizeof *first);
    bool *outranked = sc_prio_outranked(ctx->analysis);
    int rc = first && outranked ? 0 : -1;
    for (size_t s = 0; rc == 0 && s <= ctx->analysis->n_streams; s++)
        first[s] = SIZE_MAX;    /* per stream: its first starved kernel */
    sc_finding_builder b;
    sc_prio_totals tot = {0};
    sc_finding_begin(&b, "priority", sc_priority_fix);
    for (size_t k = 0; rc == 0 && k < t->n_kernels; k++) {
        if (l[k].call == SC_LAUNCH_NO_CALL || l[k].slot >= ctx->analysis->n_streams ||
            !outranked[l[k].slot])
            continue;
        uint64_t ready = sc_prio_ready(t, &l[k]), start = t->kernels[k].rec.start_ns;
        if (start < ready + SC_PRIORITY_MIN_WAIT_NS)
            continue;
        int32_t highest = 0;
        uint64_t n = sc_prio_overtakers(ctx, l, k, ready, start, &highest);
        if (n == 0)
            continue;
        sc_instance inst;
        sc_prio_instance(ctx, l, k, ready, n, highest, &inst);
        tot.count++;
        tot.wait_ns += inst.cost_ns;
        tot.overtakers += n;
        rc = sc_finding_add(&b, &inst);
        if (first[l[k].slot] == SIZE_MAX)
            first[l[k].slot] = k;
    }
    /* the fix: from its first starved kernel on, every kernel of a starved stream is
     * dispatched in the order it became ready (with the priorities equal, its later kernels
     * would meet the same full grids) */
    for (size_t j = 0; rc == 0 && j < t->n_kernels; j++)
        if (l[j].slot < ctx->analysis->n_streams && first[l[j].slot] <= j)
            rc = sc_finding_fix(&b, SC_FIX_ARRIVAL, j);
    if (rc == 0 && tot.count > 0) {
        sc_prio_conclude(&tot, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    free(first);
    free(outranked);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "priority: out of memory");
    return rc;
}
