/* Rule "pin-per-step": pinned host memory acquired and released again and again, in a loop
 * (cudaHostRegister/cudaHostUnregister, cudaMallocHost/cudaHostAlloc/cudaFreeHost).
 *
 * Pinning host memory is slow: the driver locks every page and maps it for the device
 * (hundreds of microseconds per few MiB), and unpinning undoes it. A loop that pins a buffer
 * for each step's copy and unpins it afterwards pays that every step on its thread, whether
 * or not the calls also waited for the device (implicit-sync reports the ones that did). The
 * fix pins once at start-up and reuses the buffers.
 *
 * An instance is a call of the pinned-memory family that a move out of the loop takes away
 * (loop_calls.h: an acquisition after a release on the same thread, a release followed by an
 * acquisition), on a thread that pinned again at least twice (once is set-up code: a buffer
 * freed and another allocated, not a loop); waited = its own duration. The fix removes those
 * calls in the replay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blocking.h"
#include "analyze/findings.h"
#include "analyze/loop_calls.h"
#include "analyze/rules.h"
#include "streamcheck/units.h"

#define SC_PIN_LOOP_MIN 2           /* acquisitions after a release: a loop from here */

static const char *const sc_pin_fix =
    "pin host buffers once at start-up and reuse them (cudaHostRegister or cudaMallocHost "
    "before the loop); unpin or free them at the end";

typedef struct sc_pin_totals {
    uint64_t count, host_ns, bytes;
} sc_pin_totals;

static void sc_pin_instance(const sc_trace *t, const sc_api_call *call, sc_instance *inst)
{
    uint64_t own = sc_dur(call->rec.start_ns, sc_call_end(t, call));
    memset(inst, 0, sizeof *inst);
    inst->start_ns = call->rec.start_ns;
    inst->end_ns = call->rec.start_ns + own;
    inst->cost_ns = own;
    inst->call = call;
    char t1[SC_FMT_SIZE], b1[SC_FMT_SIZE];
    sc_text_append(&inst->text,
                   sc_loop_releases(sc_call_class_id(t, call))
                       ? "%s took %s on thread %u, which pins memory again later"
                       : "%s took %s on thread %u, pinning again what it released",
                   sc_call_name(t, call), sc_fmt_ns(own, t1), (unsigned)sc_call_tid(t, call));
    if (sc_call_bytes(t, call))
        sc_text_append(&inst->text, " (%s)", sc_fmt_bytes((double)sc_call_bytes(t, call), b1));
    sc_instance_evidence(inst, "host_us", sc_ns_to_us(own), "us");
    sc_instance_evidence(inst, "bytes", (double)sc_call_bytes(t, call), "bytes");
}

static void sc_pin_conclude(const sc_pin_totals *tot, sc_finding_builder *b)
{
    char t1[SC_FMT_SIZE];
    sc_text_append(&b->finding.title,
                   "%llu pinned-memory calls redone in a loop (pin, unpin, pin again): host "
                   "time %s", (unsigned long long)tot->count, sc_fmt_ns(tot->host_ns, t1));
    sc_finding_total(b, "count", (double)tot->count, "count");
    sc_finding_total(b, "host_us", sc_ns_to_us(tot->host_ns), "us");
    sc_finding_total(b, "bytes_pinned_again", (double)tot->bytes, "bytes");
}

int sc_rule_pin_per_step(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    /* the pinned-memory calls synchronize implicitly: they are among the calls that may hold
     * the host (blocking.h), and moved[k] is holding[k]'s */
    const uint32_t *holding = ctx->blocking->holding;
    size_t n_holding = ctx->blocking->n_holding;
    sc_loop_scope *scopes = malloc((n_holding + 1) * sizeof *scopes);
    bool *moved = calloc(n_holding + 1, sizeof *moved);
    size_t n_scopes = 0;
    int rc = scopes && moved ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < n_holding; k++) {   /* threads that pin */
        const sc_api_call *c = &t->calls[holding[k]];
        if (sc_loop_family(sc_call_class_id(t, c)) == SC_LOOP_PINNED &&
            !sc_loop_in_scope(t, scopes, n_scopes, c))
            scopes[n_scopes++] = (sc_loop_scope){sc_call_tid(t, c), SC_LOOP_PINNED};
    }
    if (rc == 0 && n_scopes > 0)
        rc = sc_loop_moved(t, holding, n_holding, scopes, n_scopes, moved);
    size_t *again = rc == 0 ? calloc(n_scopes + 1, sizeof *again) : NULL;
    if (rc == 0 && !again)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < n_holding; k++) {   /* per thread: pinned again */
        const sc_api_call *c = &t->calls[holding[k]];
        if (moved[k] && !sc_loop_releases(sc_call_class_id(t, c)) && !sc_blocking_is_inner(ctx, c))
            again[sc_loop_in_scope(t, scopes, n_scopes, c) - scopes]++;
    }
    sc_finding_builder b;
    sc_pin_totals tot = {0};
    sc_finding_begin(&b, "pin-per-step", sc_pin_fix);
    for (size_t k = 0; rc == 0 && n_scopes > 0 && k < n_holding; k++) {
        const sc_api_call *c = &t->calls[holding[k]];
        if (!moved[k] || sc_blocking_is_inner(ctx, c) ||
            again[sc_loop_in_scope(t, scopes, n_scopes, c) - scopes] < SC_PIN_LOOP_MIN)
            continue;
        sc_instance inst;
        sc_pin_instance(t, c, &inst);
        tot.count++;
        tot.host_ns += inst.cost_ns;
        if (!sc_loop_releases(sc_call_class_id(t, c)))
            tot.bytes += sc_call_bytes(t, c);
        rc = sc_finding_add(&b, &inst);
        if (rc == 0)    /* the fix: pinned once, outside the loop */
            rc = sc_finding_fix(&b, SC_FIX_REMOVE, holding[k]);
    }
    if (rc == 0 && tot.count > 0) {
        sc_pin_conclude(&tot, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    free(scopes);
    free(moved);
    free(again);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "pin-per-step: out of memory");
    return rc;
}
