/* Managed memory per kernel: see unified.h. */
#include "analyze/unified.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/pinned_rate.h"

#define SC_UNIFIED_RATE_MIN_BYTES (1u << 20)

static bool sc_unified_demand(const sc_rec_unified *u)
{
    return u->kind == SC_UNIFIED_HTOD && u->flags != SC_UNIFIED_CAUSE_USER;
}

/* The prefetch rate: this trace's USER migrations, else the pinned host-to-device rate. */
static int sc_unified_rate(const sc_ctx *ctx, sc_unified *out)
{
    const sc_trace *t = ctx->trace;
    uint64_t bytes = 0, ns = 0;
    for (size_t i = 0; i < t->n_unified; i++) {
        const sc_rec_unified *u = &t->unified[i];
        if (u->kind == SC_UNIFIED_HTOD && u->flags == SC_UNIFIED_CAUSE_USER) {
            bytes += u->value;
            ns += sc_dur(u->start_ns, u->end_ns);
        }
    }
    if (bytes >= SC_UNIFIED_RATE_MIN_BYTES && ns > 0) {
        out->rate_measured = true;
        out->bytes_per_ns = (double)bytes / (double)ns;
        snprintf(out->basis, sizeof out->basis, "%.1f GB/s, this run's prefetches",
                 out->bytes_per_ns);
        return 0;
    }
    const sc_pinned_rate rate = ctx->pinned_rate;
    /* 1 GiB host to device on the first device: the rate without the per-copy latency */
    sc_rec_memcpy probe = {.bytes = 1ull << 30, .copy_kind = 1,
                           .device = t->n_kernels ? sc_kernel_device(t, &t->kernels[0]) : 0};
    uint64_t probe_ns = 0;
    char basis[80];
    sc_pinned_rate_for(&rate, sc_ctx_device_info(ctx, probe.device), &probe, &probe_ns, basis,
                       sizeof basis);
    out->bytes_per_ns = probe_ns > SC_PINNED_COPY_LATENCY_NS
                            ? (double)probe.bytes / (double)(probe_ns - SC_PINNED_COPY_LATENCY_NS)
                            : 0.0;
    snprintf(out->basis, sizeof out->basis, "pinned rate: %s", basis);
    return 0;
}

/* The kernels of `device` running at t: those that started at or before t and end after it
 * (kernels are sorted by start; `lookback` bounds how far back a long kernel may lie). */
static size_t sc_unified_running(const sc_trace *t, uint32_t device, uint64_t t0, size_t *out,
                                 size_t max)
{
    size_t lo = 0, hi = t->n_kernels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->kernels[mid].rec.start_ns <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    for (size_t k = lo; k-- > 0 && n < max && lo - k <= 4096;) {
        const sc_kernel_rec *r = &t->kernels[k].rec;
        if (t->kernel_shapes[r->shape].device == device && r->end_ns > t0)
            out[n++] = k;
    }
    return n;
}

int sc_unified_measure(const sc_ctx *ctx, sc_unified *out)
{
    const sc_trace *t = ctx->trace;
    memset(out, 0, sizeof *out);
    if (t->n_unified == 0 || t->n_kernels == 0)
        return 0;
    out->kernels = calloc(t->n_kernels, sizeof *out->kernels);
    uint64_t *covered = calloc(t->n_kernels, sizeof *covered);   /* union so far: its end */
    if (!out->kernels || !covered || sc_unified_rate(ctx, out) != 0) {
        free(covered);
        sc_unified_free(out);
        return -1;
    }
    enum { MAX_RUNNING = 64 };
    size_t running[MAX_RUNNING];
    for (size_t i = 0; i < t->n_unified; i++) {     /* by start: unions grow forwards */
        const sc_rec_unified *u = &t->unified[i];
        bool demand = sc_unified_demand(u), fault = u->kind == SC_UNIFIED_GPU_FAULT;
        if (!demand && !fault)
            continue;
        uint32_t device = demand ? u->dst_id : u->src_id;
        size_t n = sc_unified_running(t, device, u->start_ns, running, MAX_RUNNING);
        for (size_t j = 0; j < n; j++) {
            size_t k = running[j];
            sc_unified_kernel *uk = &out->kernels[k];
            const sc_kernel_rec *r = &t->kernels[k].rec;
            if (fault) {
                uk->fault_groups += (u->value ? u->value : 1);
                continue;
            }
            uk->bytes += u->value / n;
            uint64_t from = u->start_ns > covered[k] ? u->start_ns : covered[k];
            uint64_t to = u->end_ns < r->end_ns ? u->end_ns : r->end_ns;
            if (to > from) {
                uk->migrating_ns += to - from;
                covered[k] = to;
            }
        }
    }
    for (size_t k = 0; k < t->n_kernels; k++) {
        sc_unified_kernel *uk = &out->kernels[k];
        uint64_t dur = sc_dur(t->kernels[k].rec.start_ns, t->kernels[k].rec.end_ns);
        uint64_t move = out->bytes_per_ns > 0 ? (uint64_t)((double)uk->bytes / out->bytes_per_ns)
                                              : 0;
        uint64_t left = dur > uk->migrating_ns ? dur - uk->migrating_ns : 0;
        uk->prefetched_ns = left + move < dur ? left + move : dur;
    }
    free(covered);
    return 0;
}

void sc_unified_free(sc_unified *u)
{
    free(u->kernels);
    u->kernels = NULL;
}
