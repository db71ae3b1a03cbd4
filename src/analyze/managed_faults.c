/* Rule "managed-faults": kernels that waited for managed memory to migrate to their device
 * on demand, page by page, as they touched it.
 *
 * A kernel that touches managed memory resident on the host faults; the driver services the
 * faults of every faulting kernel in batches, moving a few pages at a time: the kernels crawl
 * at a fraction of the link's rate, and kernels of other streams that fault wait for the same
 * service. A prefetch (cudaMemPrefetchAsync to the device, on the kernel's stream, before it)
 * moves the same bytes at the link's rate and the kernel finds them there.
 *
 * It needs CUPTI's unified-memory counters, which streamcheck enables only when asked
 * (STREAMCHECK_UNIFIED_MEMORY=1, streamcheck --unified-memory): the driver's own tracing
 * slows a program that faults (tests/samples/MEASURED.md), so a trace taken with it shows
 * the faulting kernels longer than they are without, and the saving is priced on that run.
 *
 * An instance is a kernel during which demand migrations to its device ran for at least
 * 10 us (unified.h: what counts, how bytes and fault groups are shared among concurrent
 * kernels). waited = its migrating time. The fix prefetches its pages: in the replay it takes
 * its duration without the migrating time, plus its bytes at the prefetch rate.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/rules.h"
#include "analyze/unified.h"
#include "analyze/kernel_names.h"
#include "streamcheck/units.h"

#define SC_MANAGED_MIN_NS 10000u

static const char *const sc_managed_fix =
    "prefetch the managed memory to the device before the kernels that use it "
    "(cudaMemPrefetchAsync on the kernel's stream), or keep that data in device memory";

typedef struct sc_managed_totals {
    uint64_t kernels, bytes, fault_groups, migrating_ns;
} sc_managed_totals;

static void sc_managed_instance(const sc_ctx *ctx, const sc_unified *u, size_t k,
                                sc_instance *inst)
{
    const sc_kernel *kr = &ctx->trace->kernels[k];
    const sc_unified_kernel *uk = &u->kernels[k];
    uint64_t dur = sc_dur(kr->rec.start_ns, kr->rec.end_ns);
    memset(inst, 0, sizeof *inst);
    inst->start_ns = kr->rec.start_ns;
    inst->end_ns = kr->rec.start_ns + dur;
    inst->cost_ns = uk->migrating_ns;
    inst->call = sc_ctx_call(ctx, kr->rec.correlation_id);
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE], t3[SC_FMT_SIZE], b1[SC_FMT_SIZE];
    sc_text_append(&inst->text,
                   "%s on stream %u ran %s, %s of it with %s migrating on demand (%llu fault "
                   "groups); prefetched ~%s",
                   sc_ctx_kernel_name(ctx, kr), sc_kernel_stream(ctx->trace, kr),
                   sc_fmt_ns(dur, t1), sc_fmt_ns(uk->migrating_ns, t2),
                   sc_fmt_bytes((double)uk->bytes, b1),
                   (unsigned long long)uk->fault_groups, sc_fmt_ns(uk->prefetched_ns, t3));
    sc_instance_evidence(inst, "migrating_us", sc_ns_to_us(uk->migrating_ns), "us");
    sc_instance_evidence(inst, "bytes", (double)uk->bytes, "bytes");
    sc_instance_evidence(inst, "fault_groups", (double)uk->fault_groups, "count");
    sc_instance_evidence(inst, "duration_us", sc_ns_to_us(dur), "us");
    sc_instance_evidence(inst, "prefetched_us", sc_ns_to_us(uk->prefetched_ns), "us");
    sc_instance_evidence(inst, "prefetch_rate_measured", u->rate_measured ? 1.0 : 0.0, "");
    sc_instance_evidence(inst, "stream", sc_kernel_stream(ctx->trace, kr), "");
}

static void sc_managed_conclude(const sc_managed_totals *tot, const sc_unified *u,
                                sc_finding_builder *b)
{
    char t1[SC_FMT_SIZE], b1[SC_FMT_SIZE];
    sc_text_append(&b->finding.title,
                   "%llu kernel%s waited for managed memory migrating on demand: %s, %llu "
                   "fault groups, %s of their run",
                   (unsigned long long)tot->kernels, tot->kernels == 1 ? "" : "s",
                   sc_fmt_bytes((double)tot->bytes, b1), (unsigned long long)tot->fault_groups,
                   sc_fmt_ns(tot->migrating_ns, t1));
    sc_finding_total(b, "kernels", (double)tot->kernels, "count");
    sc_finding_total(b, "bytes", (double)tot->bytes, "bytes");
    sc_finding_total(b, "fault_groups", (double)tot->fault_groups, "count");
    sc_finding_total(b, "migrating_us", sc_ns_to_us(tot->migrating_ns), "us");
    sc_finding_total(b, "prefetch_gb_per_s", (double)(int64_t)(u->bytes_per_ns * 100.0 + 0.5) / 100.0,
                     "GB/s");
    sc_finding_total(b, "prefetch_rate_measured", u->rate_measured ? 1.0 : 0.0, "");
}

int sc_rule_managed_faults(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    const sc_unified *u = ctx->unified;
    if (!u || !u->kernels)
        return 0;   /* no unified-memory record: nothing traced */
    int rc = 0;
    sc_finding_builder b;
    sc_managed_totals tot = {0};
    sc_finding_begin(&b, "managed-faults", sc_managed_fix);
    for (size_t k = 0; rc == 0 && k < t->n_kernels; k++) {
        const sc_unified_kernel *uk = &u->kernels[k];
        if (uk->migrating_ns < SC_MANAGED_MIN_NS)
            continue;
        sc_instance inst;
        sc_managed_instance(ctx, u, k, &inst);
        tot.kernels++;
        tot.bytes += uk->bytes;
        tot.fault_groups += uk->fault_groups;
        tot.migrating_ns += uk->migrating_ns;
        rc = sc_finding_add(&b, &inst);
        if (rc == 0)    /* the fix: its pages prefetched */
            rc = sc_finding_fix(&b, SC_FIX_PREFETCH, k);
    }
    if (rc == 0 && tot.kernels > 0) {
        sc_managed_conclude(&tot, u, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "managed-faults: out of memory");
    return rc;
}
