/* Rule "pageable-async": an async copy to or from pageable host memory.
 *
 * The driver cannot DMA from pageable memory, so cudaMemcpyAsync stages the data through a
 * pinned buffer and the calling thread blocks until the staging is done: the "async" call is
 * synchronous for the host. What that costs the device is the part of the blocked interval in
 * which it had none of this process's kernels to run (the host could not issue any); a call
 * that blocked while the device was busy anyway cost nothing.
 *
 * What pinned memory would have saved, where the trace can tell (pinned_rate.h): with a
 * pinned buffer the call returns at once and the copy runs at the pinned rate measured in
 * this trace for its direction, so the host gets its blocked time back less the pinned copy
 * time (charged in case the program then waits for the copy):
 *     saved = max(0, host blocked - bytes / pinned rate)
 * Without pinned copies of that direction in the trace there is no estimate (the evidence is
 * absent), never a guessed bandwidth.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/overlap.h"
#include "analyze/pinned_rate.h"
#include "analyze/rules.h"


static const char *const sc_pageable_fix =
    "pin the host buffer: allocate it with cudaMallocHost/cudaHostAlloc, register it with "
    "cudaHostRegister, or use tensor.pin_memory()";

typedef struct sc_pageable_totals {
    uint64_t count, bytes, duration_ns, blocked_ns, cost_ns;
    uint64_t estimated, saved_ns;   /* instances with a pinned estimate, and their savings */
} sc_pageable_totals;

static bool sc_pageable_applies(const sc_rec_memcpy *c)
{
    return (c->flags & SC_MEMCPY_ASYNC) &&
           (c->src_kind == SC_MEM_PAGEABLE || c->dst_kind == SC_MEM_PAGEABLE);
}

static const char *sc_pageable_direction(const sc_rec_memcpy *c)
{
    switch (c->copy_kind) {
    case 1: return "host-to-device";
    case 2: return "device-to-host";
    default: return c->src_kind == SC_MEM_PAGEABLE ? "from pageable" : "to pageable";
    }
}

/* Adds the pinned estimate and the saving to inst when the trace measured a pinned rate for
 * the copy's direction; returns the saving (0 without an estimate). */
static uint64_t sc_pageable_savings(const sc_pinned_rate *rate, const sc_rec_memcpy *c,
                                    uint64_t blocked, bool *estimated, sc_instance *inst)
{
    uint64_t pinned_ns;
    *estimated = sc_pinned_rate_estimate(rate, c, &pinned_ns);
    if (!*estimated)
        return 0;
    uint64_t saved = blocked > pinned_ns ? blocked - pinned_ns : 0;
    sc_instance_evidence(inst, "pinned_estimate_us", sc_ns_to_us(pinned_ns), "us");
    sc_instance_evidence(inst, "saved_us", sc_ns_to_us(saved), "us");
    return saved;
}

static void sc_pageable_instance(const sc_ctx *ctx, const sc_rec_memcpy *c, sc_instance *inst)
{
    const sc_api_call *call = sc_ctx_call(ctx, c->correlation_id);
    uint64_t blocked = call ? sc_dur(call->rec.start_ns, call->rec.end_ns) : 0;
    uint64_t cost = call ? sc_busy_uncovered(sc_ctx_busy(ctx, c->device), call->rec.start_ns,
                                             call->rec.end_ns)
                         : 0;
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = c->start_ns;
    inst->end_ns = c->end_ns > c->start_ns ? c->end_ns : c->start_ns;
    inst->cost_ns = cost;
    inst->call = call;
    snprintf(inst->text, sizeof(inst->text),
             "async %s copy of %llu bytes with pageable host memory: host blocked %.1f us, "
             "device idle %.1f us of it",
             sc_pageable_direction(c), (unsigned long long)c->bytes, sc_ns_to_us(blocked),
             sc_ns_to_us(cost));
    sc_instance_evidence(inst, "bytes", (double)c->bytes, "bytes");
    sc_instance_evidence(inst, "duration_us", sc_ns_to_us(inst->end_ns - inst->start_ns), "us");
    sc_instance_evidence(inst, "host_blocked_us", sc_ns_to_us(blocked), "us");
    sc_instance_evidence(inst, "cost_us", sc_ns_to_us(cost), "us");
}

static void sc_pageable_conclude(const sc_pageable_totals *tot,
                                 sc_finding_builder *b)
{
    sc_finding *f = &b->finding;
    snprintf(f->title, sizeof(f->title),
             "%llu async copies with pageable host memory (%llu bytes): host blocked %.3f ms, "
             "device idle %.3f ms of it",
             (unsigned long long)tot->count, (unsigned long long)tot->bytes,
             tot->blocked_ns / 1e6, tot->cost_ns / 1e6);
    sc_finding_total(b, "count", (double)tot->count, "count");
    sc_finding_total(b, "bytes", (double)tot->bytes, "bytes");
    sc_finding_total(b, "duration_us", sc_ns_to_us(tot->duration_ns), "us");
    sc_finding_total(b, "host_blocked_us", sc_ns_to_us(tot->blocked_ns), "us");
    sc_finding_total(b, "cost_us", sc_ns_to_us(tot->cost_ns), "us");
    if (tot->estimated > 0) {
        size_t used = strlen(f->title);
        snprintf(f->title + used, sizeof(f->title) - used, "; pinned memory would save %.3f ms",
                 tot->saved_ns / 1e6);
        sc_finding_total(b, "estimated", (double)tot->estimated, "count");
        sc_finding_total(b, "saved_us", sc_ns_to_us(tot->saved_ns), "us");
    }
}

int sc_rule_pageable_async(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    sc_finding_builder b;
    sc_pageable_totals tot = {0};
    sc_pinned_rate rate;
    sc_finding_begin(&b, "pageable-async", sc_pageable_fix);
    int rc = sc_pinned_rate_measure(t, &rate);
    for (size_t i = 0; i < t->n_copies && rc == 0; i++) {
        const sc_rec_memcpy *c = &t->copies[i];
        if (!sc_pageable_applies(c))
            continue;
        sc_instance inst;
        sc_pageable_instance(ctx, c, &inst);
        uint64_t blocked = inst.call ? sc_dur(inst.call->rec.start_ns, inst.call->rec.end_ns) : 0;
        bool estimated;
        tot.saved_ns += sc_pageable_savings(&rate, c, blocked, &estimated, &inst);
        tot.estimated += estimated;
        tot.count++;
        tot.bytes += c->bytes;
        tot.duration_ns += inst.end_ns - inst.start_ns;
        tot.blocked_ns += blocked;
        tot.cost_ns += inst.cost_ns;
        rc = sc_finding_add(&b, &inst);
        if (rc == 0)    /* the fix: the host buffer pinned */
            rc = sc_finding_fix(&b, SC_FIX_PINNED, i);
    }
    if (rc == 0 && tot.count > 0) {
        sc_pageable_conclude(&tot, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "pageable-async: out of memory");
    return rc;
}
