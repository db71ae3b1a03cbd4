/* Rule "hardware-queue": kernels that waited, although nothing of their own held them, for
 * work of another stream that was issued before them to the same hardware queue.
 *
 * With more streams than hardware queues (hw_queues.h), streams share queues, and a queue
 * hands out its work in issue order: a kernel that must wait for its own stream (stream i's
 * second kernel, behind its first) holds up the work of stream i + N queued behind it,
 * although the two streams are independent. NVIDIA's simpleHyperQ shows it: 32 streams of
 * two 10 ms kernels each take 5 rounds on 8 queues where 2 would do.
 *
 * An instance is a kernel K, ready at R = max(its launch call's end, its stream's previous
 * work's end), whose queue predecessor P (the work issued to K's queue just before K, from
 * another stream) started more than 20 us after R, and K started no earlier than P and at
 * most 20 us after it: P's start released K. waited = K's start - R. The fix gives every
 * stream its own queue (CUDA_DEVICE_MAX_CONNECTIONS up to 32): in the replay no queue is
 * shared (SC_FIX_QUEUES).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/hw_queues.h"
#include "analyze/launches.h"
#include "analyze/rules.h"
#include "trace/order_by_time.h"
#include "analyze/kernel_names.h"
#include "streamcheck/units.h"

#define SC_HWQ_MIN_WAIT_NS 20000u
#define SC_HWQ_RELEASE_NS 20000u        /* K started at most this long after P started */

static const char *const sc_hwq_fix =
    "give each stream its own hardware queue: set CUDA_DEVICE_MAX_CONNECTIONS to the number of "
    "streams that run at once (at most 32) before CUDA starts, or issue work breadth-first "
    "(every stream's first kernel, then every stream's second)";

typedef struct sc_hwq_totals {
    uint64_t count, wait_ns;
    uint32_t streams, queues;
} sc_hwq_totals;

/* The kernels in issue order (at a tie, by position): a sort of their issue times, no
 * comparator (order_by_time.h, positions below 2^32); NULL without memory. */
static uint32_t *sc_hwq_issue_order(const sc_trace *t, const sc_launch *l, size_t n)
{
    uint64_t *at = n <= UINT32_MAX ? malloc((n ? n : 1) * sizeof *at) : NULL;
    if (!at)
        return NULL;
    for (size_t k = 0; k < n; k++)
        at[k] = sc_launch_issue(t, &l[k], k);
    return sc_order_by_time(at, n);     /* takes at */
}

static uint64_t sc_hwq_ready(const sc_trace *t, const sc_launch *l)
{
    const sc_api_call *call = sc_launch_call(t, l);
    uint64_t r = call ? sc_call_end(t, call) : 0;
    return l->own_prev_end_ns > r ? l->own_prev_end_ns : r;
}

static void sc_hwq_instance(const sc_ctx *ctx, const sc_launch *l, size_t k, size_t p,
                            uint64_t ready, sc_instance *inst)
{
    const sc_kernel *kk = &ctx->trace->kernels[k], *pk = &ctx->trace->kernels[p];
    const sc_stream_summary *st = ctx->analysis->streams;
    uint64_t wait = kk->rec.start_ns - ready;
    memset(inst, 0, sizeof *inst);
    inst->start_ns = ready;
    inst->end_ns = kk->rec.start_ns;
    inst->cost_ns = wait;
    inst->call = sc_launch_call(ctx->trace, &l[k]);
    char t1[SC_FMT_SIZE];
    sc_text_append(&inst->text,
                   "%s on stream %u waited %s for %s of stream %u, issued before it to the same "
                   "hardware queue, to start",
                   sc_ctx_kernel_name(ctx, kk), st[l[k].slot].stream_id, sc_fmt_ns(wait, t1),
                   sc_ctx_kernel_name(ctx, pk), st[l[p].slot].stream_id);
    sc_instance_evidence(inst, "wait_us", sc_ns_to_us(wait), "us");
    sc_instance_evidence(inst, "stream", st[l[k].slot].stream_id, "");
    sc_instance_evidence(inst, "queued_behind_stream", st[l[p].slot].stream_id, "");
}

static void sc_hwq_conclude(const sc_hwq_totals *tot, sc_finding_builder *b)
{
    char t1[SC_FMT_SIZE];
    sc_text_append(&b->finding.title,
                   "%llu kernel%s waited %s in all behind other streams' work in a shared "
                   "hardware queue: %u streams share %u queues (CUDA_DEVICE_MAX_CONNECTIONS)",
                   (unsigned long long)tot->count, tot->count == 1 ? "" : "s",
                   sc_fmt_ns(tot->wait_ns, t1), tot->streams, tot->queues);
    sc_finding_total(b, "kernels", (double)tot->count, "count");
    sc_finding_total(b, "wait_us", sc_ns_to_us(tot->wait_ns), "us");
    sc_finding_total(b, "streams", tot->streams, "count");
    sc_finding_total(b, "queues", tot->queues, "count");
}

int sc_rule_hardware_queue(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    uint32_t n_q = 0;
    uint32_t *slot_queue = sc_hw_slot_queues(ctx, &n_q);
    const sc_launch *l = ctx->launches;
    uint32_t *order = NULL;
    size_t *last = malloc((ctx->analysis->n_streams + 1) * sizeof *last);
    int rc = slot_queue && last ? 0 : -1;
    sc_hwq_totals tot = {.queues = n_q};
    for (size_t s = 0; rc == 0 && s < ctx->analysis->n_streams; s++) {
        last[s] = SIZE_MAX;
        tot.streams += slot_queue[s] != UINT32_MAX;
    }
    sc_finding_builder b;
    sc_finding_begin(&b, "hardware-queue", sc_hwq_fix);
    if (rc == 0 && tot.streams > n_q) {     /* otherwise no two streams share a queue */
        order = sc_hwq_issue_order(t, l, t->n_kernels);
        rc = order ? 0 : -1;
    }
    for (size_t i = 0; rc == 0 && tot.streams > n_q && i < t->n_kernels; i++) {
        size_t k = order[i];
        uint32_t q = l[k].slot < ctx->analysis->n_streams ? slot_queue[l[k].slot] : UINT32_MAX;
        if (q == UINT32_MAX || l[k].call == SC_LAUNCH_NO_CALL)
            continue;
        size_t p = last[q];
        last[q] = k;
        if (p == SIZE_MAX || l[p].slot == l[k].slot)
            continue;   /* first in its queue, or behind its own stream anyway */
        uint64_t ready = sc_hwq_ready(t, &l[k]);
        uint64_t p_start = t->kernels[p].rec.start_ns, k_start = t->kernels[k].rec.start_ns;
        if (p_start < ready + SC_HWQ_MIN_WAIT_NS || k_start < p_start ||
            k_start > p_start + SC_HWQ_RELEASE_NS)
            continue;
        sc_instance inst;
        sc_hwq_instance(ctx, l, k, p, ready, &inst);
        tot.count++;
        tot.wait_ns += inst.cost_ns;
        rc = sc_finding_add(&b, &inst);
    }
    if (rc == 0 && tot.count > 0)   /* the fix: every stream its own queue */
        rc = sc_finding_fix(&b, SC_FIX_QUEUES, 0);
    if (rc == 0 && tot.count > 0) {
        sc_hwq_conclude(&tot, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    free(slot_queue);
    free(order);
    free(last);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "hardware-queue: out of memory");
    return rc;
}
