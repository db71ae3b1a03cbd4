/* Rule "host-func": a host function queued on a stream (cudaLaunchHostFunc,
 * cudaStreamAddCallback) that held the stream's later work back.
 *
 * CUDA runs a queued host function on its own callback thread once the work before it on the
 * stream has ended, and the stream runs nothing until the function returns: the work issued
 * after it waits for the callback thread to wake, for the function, and for the stream to
 * start again. The program rarely needs that: the host work can run on a host thread that
 * waits for an event, while the stream goes on.
 *
 * An instance is the first work issued on the stream after a host function, when it started
 * later than both the end of the work before the function (or the function's call, when the
 * stream was idle) and its own issue: the difference is how long the function held the
 * stream. Work issued only after that time was not held (the host was later anyway), and
 * neither was a function with nothing after it. Two functions in a row hold the same next
 * work once: the later one is named. The fix prices the stream going on without the hold
 * (SC_FIX_UNHOLD on that work; the replay keeps the hold as recorded otherwise).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/rules.h"
#include "analyze/work.h"
#include "trace/sort.h"
#include "streamcheck/units.h"

#define SC_HOST_FUNC_MIN_NS 20000u  /* shorter: the stream's or the launch's own lag */

static const char *const sc_host_func_fix =
    "do the host work on a host thread instead: record an event after the work it needs and "
    "have the thread wait for it (cudaEventSynchronize) before running it; the stream goes on";

/* One piece of device work in its stream's issue order. */
typedef struct sc_hf_work {
    size_t slot;                /* index into analysis->streams */
    uint64_t issue_ns;          /* its call's start, or its own start without a call */
    size_t pos;                 /* its sc_work_at() position */
} sc_hf_work;

static int sc_hf_cmp(const void *pa, const void *pb)
{
    const sc_hf_work *a = pa, *b = pb;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    if (a->issue_ns != b->issue_ns)
        return a->issue_ns < b->issue_ns ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Every piece of work with a known stream, by (stream, issue). */
static sc_hf_work *sc_hf_index(const sc_ctx *ctx, size_t *n_out)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t), k = 0;
    sc_hf_work *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        sc_work w = sc_work_at(t, i);
        const sc_stream_summary *s = sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id);
        if (!s)
            continue;
        const sc_api_call *call = sc_ctx_call(ctx, w.correlation_id);
        uint64_t issue = call && call->rec.start_ns <= w.start_ns ? call->rec.start_ns
                                                                   : w.start_ns;
        v[k++] = (sc_hf_work){(size_t)(s - ctx->analysis->streams), issue, i};
    }
    sc_sort(v, k, sizeof *v, sc_hf_cmp);
    *n_out = k;
    return v;
}

/* The first entry of `slot` issued at or after t (n when none). */
static size_t sc_hf_first_at(const sc_hf_work *v, size_t n, size_t slot, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].slot < slot || (v[mid].slot == slot && v[mid].issue_ns < t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct sc_hf_totals {
    uint64_t count, held_ns, longest_ns, functions;
} sc_hf_totals;

/* The entry of the first work issued on `slot` at or after host function `call`, or n. */
static size_t sc_hf_next(const sc_hf_work *v, size_t n, size_t slot, const sc_api_call *call)
{
    size_t next = sc_hf_first_at(v, n, slot, call->rec.start_ns);
    return next < n && v[next].slot == slot ? next : n;
}

/* The instance of host function `call` whose stream's next work is entry `next`, when the
 * function held that work. */
static bool sc_hf_instance(const sc_ctx *ctx, const sc_hf_work *v, size_t next,
                           const sc_api_call *call, sc_instance *inst)
{
    const sc_trace *t = ctx->trace;
    size_t slot = v[next].slot;
    uint64_t ready = call->rec.start_ns;    /* the function could run: queued, stream done */
    if (next > 0 && v[next - 1].slot == slot) {
        sc_work prev = sc_work_at(t, v[next - 1].pos);
        if (prev.end_ns > ready)
            ready = prev.end_ns;
    }
    sc_work w = sc_work_at(t, v[next].pos);
    uint64_t allowed = v[next].issue_ns > ready ? v[next].issue_ns : ready;
    if (w.start_ns < allowed + SC_HOST_FUNC_MIN_NS)
        return false;
    uint64_t held = w.start_ns - allowed;
    const sc_stream_summary *s = &ctx->analysis->streams[slot];
    memset(inst, 0, sizeof *inst);
    inst->start_ns = allowed;
    inst->end_ns = w.start_ns;
    inst->cost_ns = held;
    inst->call = call;
    char t1[SC_FMT_SIZE];
    sc_text_append(&inst->text,
                   "%s on stream %u: the stream's next %s started %s after it could have (the "
                   "work before the function ended, and the next work was issued)",
                   sc_call_name(t, call) ? sc_call_name(t, call) : "host function", s->stream_id,
                   sc_work_kind_name(w.kind), sc_fmt_ns(held, t1));
    sc_instance_evidence(inst, "held_us", sc_ns_to_us(held), "us");
    sc_instance_evidence(inst, "stream", (double)s->stream_id, "");
    return true;
}

static void sc_hf_conclude(const sc_hf_totals *tot, sc_finding_builder *b)
{
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
    sc_text_append(&b->finding.title,
                   "%llu host functions queued on streams held the streams' next work back: "
                   "%s in all, longest %s",
                   (unsigned long long)tot->count, sc_fmt_ns(tot->held_ns, t1),
                   sc_fmt_ns(tot->longest_ns, t2));
    sc_finding_total(b, "count", (double)tot->count, "count");
    sc_finding_total(b, "held_us", sc_ns_to_us(tot->held_ns), "us");
    sc_finding_total(b, "longest_held_us", sc_ns_to_us(tot->longest_ns), "us");
    sc_finding_total(b, "host_functions", (double)tot->functions, "count");
}

int sc_rule_host_func(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    if (!sc_trace_may_have_class(t, SC_CALL_HOST_FUNC))
        return 0;   /* no call of the class: a scan of the few extras, not of every call */
    size_t n_funcs = 0;
    for (size_t i = 0; i < t->n_calls; i++)
        n_funcs += sc_call_class_id(t, &t->calls[i]) == SC_CALL_HOST_FUNC;
    if (n_funcs == 0)
        return 0;
    size_t n = 0;
    sc_hf_work *v = sc_hf_index(ctx, &n);
    /* per index entry: the host function right before it on its stream (calls are in start
     * order: of a run of functions before one piece of work, the last one is kept) */
    size_t *named = v ? malloc((n ? n : 1) * sizeof *named) : NULL;
    int rc = named ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        named[i] = SIZE_MAX;
    sc_finding_builder b;
    sc_hf_totals tot = {.functions = n_funcs};
    sc_finding_begin(&b, "host-func", sc_host_func_fix);
    for (size_t i = 0; rc == 0 && i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        const sc_stream_summary *s =
            sc_call_class_id(t, c) == SC_CALL_HOST_FUNC ? sc_ctx_call_stream(ctx, c) : NULL;
        size_t next = s ? sc_hf_next(v, n, (size_t)(s - ctx->analysis->streams), c) : n;
        if (next < n)
            named[next] = i;
    }
    for (size_t e = 0; rc == 0 && e < n; e++) {
        sc_instance inst;
        if (named[e] == SIZE_MAX || !sc_hf_instance(ctx, v, e, &t->calls[named[e]], &inst))
            continue;
        tot.count++;
        tot.held_ns += inst.cost_ns;
        if (inst.cost_ns > tot.longest_ns)
            tot.longest_ns = inst.cost_ns;
        rc = sc_finding_add(&b, &inst);
        if (rc == 0)    /* the fix: the stream is not held by the function */
            rc = sc_finding_fix(&b, SC_FIX_UNHOLD, v[e].pos);
    }
    if (rc == 0 && tot.count > 0) {
        sc_hf_conclude(&tot, &b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    free(v);
    free(named);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "host-func: out of memory");
    return rc;
}
