/* Rule "pageable-async": an async copy to or from pageable host memory.
 *
 * The driver cannot DMA from pageable memory, so cudaMemcpyAsync stages the data through a
 * pinned buffer and the calling thread blocks until the staging is done: the "async" call is
 * synchronous for the host. What that costs the device is the part of the blocked interval in
 * which it had none of this process's kernels to run (the host could not issue any); a call
 * that blocked while the device was busy anyway cost nothing.
 *
 * Each instance also says how long the copy would take from pinned memory, with the estimate
 * the replay prices the fix with (pinned_rate.h: this trace's pinned rate for its direction,
 * else a default for the device's generation, and the text says which), and the host time a
 * pinned buffer would give back: max(0, host blocked - pinned estimate). What the fix saves
 * the run is the replay's (the finding's cost), not that host time: the program may wait for
 * the copy anyway.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/overlap.h"
#include "analyze/pinned_rate.h"
#include "analyze/rules.h"
#include "streamcheck/units.h"


static const char *const sc_pageable_fix =
    "pin the host buffer: allocate it with cudaMallocHost/cudaHostAlloc, register it with "
    "cudaHostRegister, or use tensor.pin_memory()";

typedef struct sc_pageable_totals {
    uint64_t count, bytes, duration_ns, blocked_ns, cost_ns;
    uint64_t measured;              /* instances whose pinned rate this trace measured */
    uint64_t host_back_ns;          /* host time pinned buffers would give back */
} sc_pageable_totals;

static const char *sc_pageable_direction(const sc_rec_memcpy *c)
{
    switch (c->copy_kind) {
    case 1: return "host-to-device";
    case 2: return "device-to-host";
    default: return c->src_kind == SC_MEM_PAGEABLE ? "from pageable" : "to pageable";
    }
}

/* Adds the pinned estimate (the replay's, with where its rate came from) and the host time
 * it gives back to inst, when `describe` (the finding keeps the instance); returns that host
 * time. */
static uint64_t sc_pageable_pinned(const sc_ctx *ctx, const sc_pinned_rate *rate,
                                   const sc_rec_memcpy *c, uint64_t blocked, bool *measured,
                                   bool describe, sc_instance *inst)
{
    uint64_t pinned_ns = 0;
    char basis[160];
    *measured = sc_pinned_rate_for(rate, sc_ctx_device_info(ctx, c->device), c, &pinned_ns,
                                   basis, sizeof basis);
    uint64_t copy_ns = sc_dur(c->start_ns, c->end_ns);
    if (pinned_ns > copy_ns)    /* pinned is never the slower path (the replay's rule too) */
        pinned_ns = copy_ns;
    uint64_t back = blocked > pinned_ns ? blocked - pinned_ns : 0;
    if (!describe)
        return back;
    char t1[SC_FMT_SIZE];
    sc_text_append(&inst->text, "; pinned: ~%s (%s)", sc_fmt_ns(pinned_ns, t1), basis);
    sc_instance_evidence(inst, "pinned_estimate_us", sc_ns_to_us(pinned_ns), "us");
    sc_instance_evidence(inst, "pinned_rate_measured", *measured ? 1.0 : 0.0, "");
    sc_instance_evidence(inst, "host_back_us", sc_ns_to_us(back), "us");
    return back;
}

/* The instance of copy c; its text and evidence only when the finding keeps it
 * (sc_finding_would_keep: the others' are never read). */
static void sc_pageable_instance(const sc_ctx *ctx, const sc_finding_builder *b,
                                 const sc_rec_memcpy *c, sc_instance *inst)
{
    const sc_api_call *call = sc_ctx_call(ctx, c->correlation_id);
    uint64_t end = call ? sc_call_end(ctx->trace, call) : 0;
    uint64_t blocked = call ? sc_dur(call->rec.start_ns, end) : 0;
    uint64_t cost = call ? sc_busy_uncovered(sc_ctx_busy(ctx, c->device), call->rec.start_ns, end)
                         : 0;
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = c->start_ns;
    inst->end_ns = c->end_ns > c->start_ns ? c->end_ns : c->start_ns;
    inst->cost_ns = cost;
    inst->call = call;
    if (!sc_finding_would_keep(b, inst))
        return;
    char b1[SC_FMT_SIZE], t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
    sc_text_append(&inst->text,
                   "async %s copy of %s with pageable host memory: host blocked %s, device "
                   "idle %s of it",
                   sc_pageable_direction(c), sc_fmt_bytes((double)c->bytes, b1),
                   sc_fmt_ns(blocked, t1), sc_fmt_ns(cost, t2));
    sc_instance_evidence(inst, "bytes", (double)c->bytes, "bytes");
    sc_instance_evidence(inst, "duration_us", sc_ns_to_us(inst->end_ns - inst->start_ns), "us");
    sc_instance_evidence(inst, "host_blocked_us", sc_ns_to_us(blocked), "us");
    sc_instance_evidence(inst, "cost_us", sc_ns_to_us(cost), "us");
}

static void sc_pageable_conclude(const sc_pageable_totals *tot,
                                 sc_finding_builder *b)
{
    sc_finding *f = &b->finding;
    char b1[SC_FMT_SIZE], t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
    sc_text_append(&f->title,
                   "%llu async copies with pageable host memory (%s): host blocked %s, device "
                   "idle %s of it",
                   (unsigned long long)tot->count, sc_fmt_bytes((double)tot->bytes, b1),
                   sc_fmt_ns(tot->blocked_ns, t1), sc_fmt_ns(tot->cost_ns, t2));
    sc_finding_total(b, "count", (double)tot->count, "count");
    sc_finding_total(b, "bytes", (double)tot->bytes, "bytes");
    sc_finding_total(b, "duration_us", sc_ns_to_us(tot->duration_ns), "us");
    sc_finding_total(b, "host_blocked_us", sc_ns_to_us(tot->blocked_ns), "us");
    sc_finding_total(b, "cost_us", sc_ns_to_us(tot->cost_ns), "us");
    sc_finding_total(b, "pinned_rate_measured", (double)tot->measured, "count");
    sc_finding_total(b, "host_back_us", sc_ns_to_us(tot->host_back_ns), "us");
}

int sc_rule_pageable_async(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    sc_finding_builder b;
    sc_pageable_totals tot = {0};
    const sc_pinned_rate rate = ctx->pinned_rate;
    sc_finding_begin(&b, "pageable-async", sc_pageable_fix);
    int rc = 0;
    for (size_t i = 0; i < t->n_copies && rc == 0; i++) {
        if (!sc_copy_pageable_async(sc_copy_shape_of(t, &t->copies[i])))
            continue;
        const sc_rec_memcpy c_rec = sc_copy_record(t, &t->copies[i]), *c = &c_rec;
        sc_instance inst;
        sc_pageable_instance(ctx, &b, c, &inst);
        uint64_t blocked =
            inst.call ? sc_dur(inst.call->rec.start_ns, sc_call_end(t, inst.call)) : 0;
        bool measured;
        tot.host_back_ns += sc_pageable_pinned(ctx, &rate, c, blocked, &measured,
                                               sc_finding_would_keep(&b, &inst), &inst);
        tot.measured += measured;
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
