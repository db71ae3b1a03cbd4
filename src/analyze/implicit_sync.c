/* Rule "implicit-sync": a call that is not a synchronization but waited for the device.
 *
 * cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost, cudaHostRegister/Unregister, a
 * synchronous cudaMemcpy/cudaMemset and cudaDeviceSetLimit may wait until the device's work
 * in flight is done. CUPTI writes no synchronization record for that, so it is observed
 * from the call's host interval and the device work around it (blocking.h): an instance is a
 * call that drained work of the process in flight when it began *and* whose return (or own
 * copy/memset) is explained by that work's end. "Observed, not assumed": a cudaMalloc that
 * waited for nothing is no error, however slow; a slow call with an idle device belongs to
 * no rule here. A synchronous copy or memset waits for its own stream by design, so only
 * other streams' work counts for them. Stream-ordered allocation (cudaMallocAsync,
 * cudaFreeAsync) never synchronizes and is not looked at.
 *
 * The fix the finding names changes a pattern, not one call: allocations moved out of the
 * loop, pinning and limits set once at start-up (what the loop acquired again after a
 * release, and set again, is gone, its own time with it: loop_calls.h; the first
 * acquisition and the last release stay, without their wait), copies and memsets made async
 * (the calls stay, without the wait). So it is priced
 * on every call of the instances' family (sc_loop_family) on their threads: a cudaFree
 * that stops waiting for another thread's queue would otherwise only hand the wait to the
 * next cudaFree, and a cudaDeviceSetLimit that resizes memory every step costs its own time
 * whether or not it waited.
 * A call no work followed (the copy of the results at the end, the frees at teardown) keeps
 * its wait, as host-sync's last synchronization: the program needs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blocking.h"
#include "analyze/findings.h"
#include "analyze/loop_calls.h"
#include "analyze/rules.h"
#include "streamcheck/units.h"


typedef struct sc_implicit_totals {
    uint64_t checked, count, blocked_ns, idle_ns, starve_ns, cost_ns;
} sc_implicit_totals;

/* The change that removes the wait, for the class of the worst instance. */
static const char *sc_implicit_fix(uint16_t call_class)
{
    switch (call_class) {
    case SC_CALL_MALLOC:
    case SC_CALL_FREE:
        return "allocate once before the loop and reuse the buffers, use stream-ordered "
               "cudaMallocAsync/cudaFreeAsync, or a caching allocator";
    case SC_CALL_HOST_ALLOC:
    case SC_CALL_HOST_FREE:
    case SC_CALL_HOST_REGISTER:
    case SC_CALL_HOST_UNREGISTER:
        return "allocate or register pinned host buffers once at start-up and reuse them; "
               "free them at the end";
    case SC_CALL_MEMCPY:
        return "use cudaMemcpyAsync on a stream (with pinned host memory) and synchronize "
               "only that stream, only when the data is needed";
    case SC_CALL_MEMSET:
        return "use cudaMemsetAsync on the stream that uses the memory";
    default:
        return "set limits and cache configuration once at start-up, before launching work";
    }
}

/* The next call of the same thread after `call` returned: what it could not issue while it
 * waited. NULL when the thread made no other call. */
static const sc_api_call *sc_implicit_next(const sc_ctx *ctx, const sc_api_call *call)
{
    const sc_trace *t = ctx->trace;
    for (size_t i = (size_t)(call - t->calls) + 1; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        if (sc_call_tid(t, c) == sc_call_tid(t, call) && c->rec.start_ns >= sc_call_end(t, call) &&
            !sc_blocking_is_inner(ctx, c))
            return c;
    }
    return NULL;
}

/* The instance of a call that waited; its text and evidence only when the finding keeps it
 * (sc_finding_would_keep: the others' are never read). */
static void sc_implicit_instance(const sc_ctx *ctx, const sc_finding_builder *b,
                                 const sc_api_call *call, const sc_blocking *m,
                                 sc_instance *inst)
{
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = call->rec.start_ns;
    inst->end_ns = call->rec.start_ns + m->blocked_ns;
    inst->cost_ns = m->cost_ns;
    inst->call = call;
    if (!sc_finding_would_keep(b, inst))
        return;
    char streams[128];  /* 4 ids of 10 digits and ", ... (N streams)": fits uncut */
    sc_blocking_streams_text(m, streams, sizeof(streams));
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
    sc_text_append(&inst->text, "%s blocked the host %s waiting for stream(s) %s",
                   sc_call_name(ctx->trace, call), sc_fmt_ns(m->blocked_ns, t1), streams);
    if (m->other_thread)    /* a thread held up by another thread's work */
        sc_text_append(&inst->text, " of thread %u", (unsigned)m->last_tid);
    const sc_api_call *next = sc_implicit_next(ctx, call);
    if (next)
        sc_text_append(&inst->text, "; its thread's next call, %s, waited with it",
                       sc_call_name(ctx->trace, next));
    sc_text_append(&inst->text, "; device idle %s in it and %s after it",
                   sc_fmt_ns(m->idle_ns, t1), sc_fmt_ns(m->starve_ns, t2));
    sc_instance_evidence(inst, "host_blocked_us", sc_ns_to_us(m->blocked_ns), "us");
    /* how far into the call the drained work ended: the wait itself */
    sc_instance_evidence(inst, "wait_us", sc_ns_to_us(m->drained_end_ns - call->rec.start_ns),
                         "us");
    sc_instance_evidence(inst, "idle_us", sc_ns_to_us(m->idle_ns), "us");
    sc_instance_evidence(inst, "starve_us", sc_ns_to_us(m->starve_ns), "us");
    sc_instance_evidence(inst, "cost_us", sc_ns_to_us(m->cost_ns), "us");
    sc_instance_evidence(inst, "drained_streams", (double)m->n_streams, "count");
    sc_instance_evidence(inst, "drained_stream", (double)m->last_stream, "");
    sc_instance_evidence(inst, "other_thread", m->other_thread ? 1.0 : 0.0, "");
    if (m->last_tid)
        sc_instance_evidence(inst, "waited_for_thread", (double)m->last_tid, "");
}

static void sc_implicit_conclude(const sc_trace *t, const sc_implicit_totals *tot,
                                 sc_finding_builder *b)
{
    sc_finding *f = &b->finding;
    f->fix = sc_implicit_fix(f->worst.call ? sc_call_class_id(t, f->worst.call) : SC_CALL_OTHER);
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
    sc_text_append(&f->title,
                   "%llu calls waited for other streams' work (worst: %s): host blocked %s, "
                   "device lost %s",
                   (unsigned long long)tot->count, f->worst.call ? sc_call_name(t, f->worst.call) : "?",
                   sc_fmt_ns(tot->blocked_ns, t1), sc_fmt_ns(tot->cost_ns, t2));
    sc_finding_total(b, "count", (double)tot->count, "count");
    sc_finding_total(b, "checked_calls", (double)tot->checked, "count");
    sc_finding_total(b, "host_blocked_us", sc_ns_to_us(tot->blocked_ns), "us");
    sc_finding_total(b, "idle_us", sc_ns_to_us(tot->idle_ns), "us");
    sc_finding_total(b, "starve_us", sc_ns_to_us(tot->starve_ns), "us");
    sc_finding_total(b, "cost_us", sc_ns_to_us(tot->cost_ns), "us");
}

/* The fix: every call of the instances' families on their threads, except those no work
 * followed: moved out of the loop (sc_implicit_moved: no wait, no time of its own), or
 * where it stays (a call the program needs once; copies and memsets, made async) without
 * its wait. The calls of the families are among those that may hold the host (blocking.h):
 * followed[k] is ix->holding[k]'s. */
static int sc_implicit_fixes(const sc_ctx *ctx, const sc_blocking_index *ix,
                             const bool *followed, const sc_loop_scope *scopes, size_t n_scopes,
                             sc_finding_builder *b)
{
    const sc_trace *t = ctx->trace;
    bool *moved = calloc(ix->n_holding + 1, sizeof *moved);
    int rc = moved ? sc_loop_moved(t, ix->holding, ix->n_holding, scopes, n_scopes, moved) : -1;
    for (size_t k = 0; k < ix->n_holding && rc == 0; k++) {
        if (!followed[k])
            continue;
        const sc_loop_scope *scope =
            sc_loop_in_scope(t, scopes, n_scopes, &t->calls[ix->holding[k]]);
        if (!scope)
            continue;
        bool stays = scope->family == SC_LOOP_MEMCPY ||
                     scope->family == SC_LOOP_MEMSET;   /* made async */
        rc = sc_finding_fix(b, moved[k] && !stays ? SC_FIX_REMOVE : SC_FIX_UNWAIT,
                            ix->holding[k]);
    }
    free(moved);
    return rc;
}

/* Every call of the classes that synchronize implicitly, among those that may hold the host
 * (blocking.h), measured as one walk in start order. */
static int sc_implicit_scan(const sc_ctx *ctx, const sc_blocking_index *ix,
                            sc_finding_builder *b, sc_implicit_totals *tot)
{
    const sc_trace *t = ctx->trace;
    bool *followed = calloc(ix->n_holding + 1, sizeof *followed);
    sc_loop_scope *scopes = malloc((ix->n_holding + 1) * sizeof *scopes);
    size_t n_scopes = 0;
    sc_blocking_walk walk = {0};
    int rc = followed && scopes ? sc_blocking_walk_begin(ix, &walk) : -1;
    for (size_t k = 0; rc == 0 && k < ix->n_holding; k++) {
        const sc_api_call *call = &t->calls[ix->holding[k]];
        if (!sc_blocking_implicit_class(sc_call_class_id(t, call)) ||
            sc_blocking_is_inner(ctx, call))
            continue;
        tot->checked++;
        uint8_t cls = sc_call_class_id(t, call);
        bool copy_or_set = cls == SC_CALL_MEMCPY || cls == SC_CALL_MEMSET;
        sc_blocking_call q = {.start_ns = call->rec.start_ns, .end_ns = sc_call_end(t, call),
                              .tid = sc_call_tid(t, call), .call_class = cls,
                              .context_id = sc_call_context(t, call),
                              .correlation_id = call->rec.correlation_id,
                              .skip_own_stream = copy_or_set};
        sc_blocking m;
        sc_blocking_measure_next(&walk, &q, &m);
        followed[k] = m.followed;
        if (!m.explained)
            continue;   /* it waited for nothing, or not for what happened to end inside it */
        sc_instance inst;
        sc_implicit_instance(ctx, b, call, &m, &inst);
        tot->count++;
        tot->blocked_ns += m.blocked_ns;
        tot->idle_ns += m.idle_ns;
        tot->starve_ns += m.starve_ns;
        tot->cost_ns += m.cost_ns;
        rc = sc_finding_add(b, &inst);
        if (m.followed && !sc_loop_in_scope(t, scopes, n_scopes, call))
            scopes[n_scopes++] = (sc_loop_scope){sc_call_tid(t, call),
                                                 sc_loop_family(sc_call_class_id(t, call))};
    }
    sc_blocking_walk_end(&walk);
    if (rc == 0)
        rc = sc_implicit_fixes(ctx, ix, followed, scopes, n_scopes, b);
    free(followed);
    free(scopes);
    return rc;
}

int sc_rule_implicit_sync(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    sc_finding_builder b;
    sc_implicit_totals tot = {0};
    sc_finding_begin(&b, "implicit-sync", NULL);
    int rc = sc_implicit_scan(ctx, ctx->blocking, &b, &tot);
    if (rc == 0 && tot.count > 0) {
        sc_implicit_conclude(ctx->trace, &tot, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "implicit-sync: out of memory");
    return rc;
}
