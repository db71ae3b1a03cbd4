/* Rule "lazy-loading": a kernel's first launch under lazy module loading waited for the
 * work of other streams instead of running beside it.
 *
 * From direct evidence, where the trace has CUPTI's OVERHEAD records (format 1.1): a
 * LAZY_FUNCTION_LOADING (or module-loading) record inside a launch call says the kernel's
 * module was loaded there. The load waits for the device: the work in flight at the call
 * (the front: of any stream, the kernel's own included) runs to its end, and the kernel, and
 * any other work issued after the load, starts only then (measured on an H200: a kernel
 * launched once beside a 2.56 ms kernel of another stream started 3.6 us after that kernel
 * ended; under EAGER, during it). Sometimes the call itself waits for the front, holding the
 * host. An instance is such a load whose call waited for the front, or whose kernel, or work
 * issued after it, started within 20 us of the front's end though it was ready before (its
 * own stream idle, its call over), on streams independent of the front's and not ordered
 * behind it by an event; never behind a grid that filled the device (no-room's). Its fix:
 * the load done before (CUDA_MODULE_LOADING=EAGER or a warm-up): the call not waiting, that
 * work not held, the load's time off the launch call. A load that held nothing is not
 * reported. Without OVERHEAD records (older traces), the corroborated inference below:
 *
 * With CUDA_MODULE_LOADING=LAZY (the default since CUDA 12.2) a kernel's module is loaded at
 * its first launch, and the load waits for the device: measured on an H200 (GPU-FACTS.md),
 * the first sweep on stream B started 5 us after the spin on stream A ended; warm, or with
 * EAGER, it started 13 us after the spin began. Telling that from a kernel that merely had
 * no room (rule no-room) or waited for its own stream takes care, so a first launch K of a
 * kernel (same name, device and context) is reported only when all of these hold:
 *   (i)   it is the first launch of that kernel, and its launch call is in the trace;
 *   (ii)  other-stream work of the device was in flight at its issue (launches.h), K did
 *         not overlap it: K started at or after that work's end (1 us clock tolerance), and
 *         at most 20 us after it;
 *   (iii) the two streams are independent (stream_kind.h): a legacy/blocking pair
 *         serializes by design and is legacy-stream's;
 *   (iv)  CUDA_MODULE_LOADING is not EAGER in the recorded environment;
 *   (v)   K was ready before that work ended: its own stream had nothing left to run and its
 *         launch call was (or would have been, at its usual duration) over;
 *   (vi)  the run corroborates it: a later launch of the same kernel, issued while another
 *         independent stream's work was in flight, did overlap that work; or the first
 *         launch call was far longer than the kernel's usual launch call (at least 5 times
 *         the median of its later launch calls and at least 20 us more): the module load
 *         happened inside the call.
 * Delay (the cost) = K.start - max(ready, own stream's previous work end), where ready is
 * the launch call's end, or, when that call was itself stretched by the module load, the
 * call's start plus the kernel's usual launch-call duration (the median of its later
 * launches): time spent loading inside the call is time K could have been running.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/findings.h"
#include "analyze/kernel_groups.h"
#include "analyze/launches.h"
#include "analyze/rules.h"
#include "analyze/stream_kind.h"
#include "trace/sort_u64.h"
#include "analyze/kernel_names.h"
#include "streamcheck/units.h"

#define SC_LAZY_TOL_NS 1000u            /* clock noise between "ended" and "started" */
#define SC_LAZY_AFTER_NS 20000u         /* started at most this long after the work ended */
#define SC_LAZY_BURST_NS 5000u          /* ...or this long after the last work it released
                                           started: the device hands held work out one
                                           piece after another (2 us apart on an H200) */
#define SC_LAZY_LONG_FACTOR 5u          /* a first call this many times the usual one ... */
#define SC_LAZY_LONG_EXTRA_NS 20000u    /* ... and this much longer loaded a module */

static const char *const sc_lazy_fix =
    "launch each kernel once before the concurrent part (a warm-up), or run with "
    "CUDA_MODULE_LOADING=EAGER";

/* (iv): EAGER loads every module at context creation: no first-launch load to wait for. */
static bool sc_lazy_eager(const sc_trace *t)
{
    static const char var[] = "CUDA_MODULE_LOADING=";
    for (size_t i = 0; i < t->n_env; i++)
        if (t->env[i] && strncmp(t->env[i], var, sizeof(var) - 1) == 0 &&
            strcasecmp(t->env[i] + sizeof(var) - 1, "EAGER") == 0)
            return true;
    return false;
}

/* What the later launches of a kernel say. */
typedef struct sc_lazy_later {
    size_t count;
    bool has_usual;
    uint64_t usual_call_ns;     /* median launch-call duration of the later launches */
    bool overlapped;            /* (vi): one of them ran beside independent work */
} sc_lazy_later;

/* The in-flight work at a launch's issue was from an independent stream. */
static bool sc_lazy_front_independent(const sc_ctx *ctx, const sc_launch *l)
{
    const sc_stream_summary *s = ctx->analysis->streams;
    return sc_launch_has_front(l) && sc_streams_independent(&s[l->slot], &s[l->front_slot]);
}

/* The group's launches but its first; scratch holds the group's count of durations. */
static void sc_lazy_later_scan(const sc_ctx *ctx, const sc_kernel_groups *groups,
                               const sc_kernel_group *g, uint64_t *scratch, sc_lazy_later *out)
{
    size_t n_calls = 0;
    *out = (sc_lazy_later){.count = g->count - 1};
    for (size_t i = 0; i < g->count; i++) {
        size_t kernel = groups->members[g->members_at + i];
        if (kernel == g->first)
            continue;
        const sc_launch *l = &ctx->launches[kernel];
        const sc_kernel_rec *k = &ctx->trace->kernels[kernel].rec;
        const sc_api_call *call = sc_launch_call(ctx->trace, l);
        if (call)
            scratch[n_calls++] = sc_dur(call->rec.start_ns, sc_call_end(ctx->trace, call));
        /* once one did, the others' fronts are not read (their ends lie in the work's
         * records, one load away each) */
        if (!out->overlapped && sc_lazy_front_independent(ctx, l) &&
            k->start_ns + SC_LAZY_TOL_NS < sc_launch_front_end(ctx->trace, l))
            out->overlapped = true;
    }
    if (n_calls == 0)
        return;
    sc_sort_u64(scratch, n_calls);
    out->has_usual = true;
    out->usual_call_ns = n_calls % 2 ? scratch[n_calls / 2]
                                     : (scratch[n_calls / 2 - 1] + scratch[n_calls / 2]) / 2;
}

/* The first launch checked against (i)-(vi); the delay when it qualifies, else 0. */
typedef struct sc_lazy_verdict {
    uint64_t delay_ns;
    uint64_t call_ns;           /* the first launch call's duration */
    bool long_call;
} sc_lazy_verdict;

/* (vii) The program ordered K behind that work itself: an event recorded on the work's stream
 * after the work was issued, waited for on K's stream before K was launched. */
/* When work was issued: its call's start, or its own start when the trace lacks the call
 * (launches.h's definition). */
static uint64_t sc_lazy_issue_of(const sc_ctx *ctx, size_t pos)
{
    sc_work w = sc_work_at(ctx->trace, pos);
    const sc_api_call *c = sc_ctx_call(ctx, w.correlation_id);
    return c ? c->rec.start_ns : w.start_ns;
}

static bool sc_lazy_front_ordered(const sc_ctx *ctx, size_t kernel)
{
    const sc_stream_summary *s = ctx->analysis->streams;
    const sc_launch *l = &ctx->launches[kernel];
    const sc_kernel_rec *k = &ctx->trace->kernels[kernel].rec;
    return sc_deps_ordered(&ctx->deps, ctx->trace->kernel_shapes[k->shape].context_id,
                           s[l->front_slot].stream_id, sc_lazy_issue_of(ctx, l->front_work),
                           s[l->slot].stream_id, sc_launch_issue(ctx->trace, l, kernel));
}

/* What the first launch, of kernel `kernel`, must be whatever its later launches say: (i),
 * (ii), (iii), (vii). */
static bool sc_lazy_candidate(const sc_ctx *ctx, size_t kernel)
{
    const sc_launch *l = &ctx->launches[kernel];
    const sc_kernel_rec *k = &ctx->trace->kernels[kernel].rec;
    if (!sc_launch_call(ctx->trace, l) || !sc_lazy_front_independent(ctx, l))
        return false;                                           /* (i), (ii), (iii) */
    if (sc_lazy_front_ordered(ctx, kernel))
        return false;                                           /* (vii) */
    uint64_t front_end = sc_launch_front_end(ctx->trace, l);
    return k->start_ns + SC_LAZY_TOL_NS >= front_end &&
           k->start_ns <= front_end + SC_LAZY_AFTER_NS;         /* (ii) */
}

/* A candidate first launch checked against (v) and (vi). */
static sc_lazy_verdict sc_lazy_judge(const sc_ctx *ctx, const sc_launch *l,
                                     const sc_kernel_rec *k, const sc_lazy_later *later)
{
    sc_lazy_verdict v = {0};
    const sc_api_call *call = sc_launch_call(ctx->trace, l);
    v.call_ns = sc_dur(call->rec.start_ns, sc_call_end(ctx->trace, call));
    v.long_call = later->has_usual &&
                  v.call_ns >= SC_LAZY_LONG_FACTOR * later->usual_call_ns &&
                  v.call_ns >= later->usual_call_ns + SC_LAZY_LONG_EXTRA_NS;
    if (!v.long_call && !later->overlapped)
        return (sc_lazy_verdict){0};                            /* (vi) */
    uint64_t ready = sc_call_end(ctx->trace, call);
    if (later->has_usual && call->rec.start_ns + later->usual_call_ns < ready)
        ready = call->rec.start_ns + later->usual_call_ns;
    if (l->own_prev_end_ns > ready)
        ready = l->own_prev_end_ns;
    if (ready + SC_LAZY_TOL_NS >= sc_launch_front_end(ctx->trace, l))
        return (sc_lazy_verdict){0};                            /* (v) */
    v.delay_ns = sc_dur(ready, k->start_ns);
    return v;
}

/* "sweep_kernel" or "a memcpy": the work a first launch waited behind. */
static const char *sc_lazy_work_name(const sc_ctx *ctx, size_t pos)
{
    sc_work w = sc_work_at(ctx->trace, pos);
    if (w.kind == SC_WORK_KERNEL)
        return sc_ctx_kernel_name(ctx, &ctx->trace->kernels[w.index]);
    return w.kind == SC_WORK_MEMCPY ? "a memcpy" : "a memset";
}

static void sc_lazy_instance(const sc_ctx *ctx, size_t kernel, const sc_launch *l,
                             const sc_lazy_later *later, const sc_lazy_verdict *v,
                             sc_instance *inst)
{
    const sc_kernel *k = &ctx->trace->kernels[kernel];
    const sc_stream_summary *s = ctx->analysis->streams;
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = k->rec.start_ns;
    inst->end_ns = k->rec.end_ns > k->rec.start_ns ? k->rec.end_ns : k->rec.start_ns;
    inst->cost_ns = v->delay_ns;
    inst->call = sc_launch_call(ctx->trace, l);
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
    sc_text_append(&inst->text,
                   "first launch of %s on stream %u waited %s behind %s on stream %u (launch "
                   "call %s", sc_ctx_kernel_name(ctx, k), s[l->slot].stream_id,
                   sc_fmt_ns(v->delay_ns, t1), sc_lazy_work_name(ctx, l->front_work),
                   s[l->front_slot].stream_id, sc_fmt_ns(v->call_ns, t2));
    if (later->has_usual)   /* no later launch: no usual time to compare with */
        sc_text_append(&inst->text, ", usually %s", sc_fmt_ns(later->usual_call_ns, t1));
    sc_text_append(&inst->text, ")");
    sc_instance_evidence(inst, "delay_us", sc_ns_to_us(v->delay_ns), "us");
    sc_instance_evidence(inst, "first_call_us", sc_ns_to_us(v->call_ns), "us");
    if (later->has_usual)
        sc_instance_evidence(inst, "usual_call_us", sc_ns_to_us(later->usual_call_ns), "us");
    sc_instance_evidence(inst, "stream", s[l->slot].stream_id, "");
    sc_instance_evidence(inst, "waited_behind_stream", s[l->front_slot].stream_id, "");
    sc_instance_evidence(inst, "later_launches", (double)later->count, "count");
    sc_instance_evidence(inst, "later_overlapped", later->overlapped ? 1.0 : 0.0, "");
    sc_instance_evidence(inst, "long_first_call", v->long_call ? 1.0 : 0.0, "");
}

static void sc_lazy_conclude(sc_finding_builder *b)
{
    sc_finding *f = &b->finding;
    if (f->count == 1) {
        sc_text_append(&f->title, "%s (lazy module loading)", f->worst.text);
    } else {
        char t1[SC_FMT_SIZE];
        sc_text_append(&f->title,
                       "%llu kernels waited for other streams' work on their first launch "
                       "(lazy module loading): %s", (unsigned long long)f->count,
                       sc_fmt_ns(f->waited_ns, t1));
    }
    sc_finding_total(b, "kernels", (double)f->count, "count");
    sc_finding_total(b, "delay_us", sc_ns_to_us(f->waited_ns), "us");
    sc_finding_total(b, "worst_delay_us", sc_ns_to_us(f->worst.cost_ns), "us");
}

/* Adds an instance per qualifying first launch, the kernels in (device, context, name)
 * order. Only a first launch that is a candidate needs its later launches: only those
 * groups are gathered. */
static int sc_lazy_scan(const sc_ctx *ctx, sc_finding_builder *b)
{
    const sc_trace *t = ctx->trace;
    sc_kernel_groups groups;
    if (sc_kernel_groups_build(t, ctx->launches, &groups) != 0)
        return -1;
    size_t most = 0;
    for (size_t k = 0; k < groups.n; k++) {
        sc_kernel_group *g = &groups.groups[k];
        /* no name: "first launch" cannot be told */
        g->gather = g->name_id != 0 &&
                    sc_lazy_candidate(ctx, g->first);
        if (g->gather && g->count > most)
            most = g->count;
    }
    uint64_t *scratch = malloc((most ? most : 1) * sizeof(*scratch));
    int rc = scratch ? sc_kernel_groups_gather(t, &groups) : -1;
    for (size_t k = 0; rc == 0 && k < groups.n; k++) {
        const sc_kernel_group *g = &groups.groups[k];
        if (!g->gather)
            continue;
        sc_lazy_later later;
        sc_lazy_later_scan(ctx, &groups, g, scratch, &later);
        const sc_launch *l = &ctx->launches[g->first];
        sc_lazy_verdict v = sc_lazy_judge(ctx, l, &t->kernels[g->first].rec, &later);
        if (v.delay_ns == 0)
            continue;
        sc_instance inst;
        sc_lazy_instance(ctx, g->first, l, &later, &v, &inst);
        /* the fix: the kernel loaded before, not held, its call without the load */
        if (sc_finding_add(b, &inst) != 0 ||
            sc_finding_fix(b, SC_FIX_UNHOLD, g->first) != 0 ||
            sc_finding_fix(b, SC_FIX_NO_LOAD, l->call) != 0)
            rc = -1;
    }
    free(scratch);
    sc_kernel_groups_free(&groups);
    return rc;
}

/* ---- from direct evidence (OVERHEAD records) ----------------------------------------- */

/* The kernel issued by a call (the same correlation id), or SIZE_MAX. */
static size_t sc_lazy_kernel_of(const sc_trace *t, const sc_api_call *call)
{
    for (size_t k = 0; k < t->n_kernels; k++)
        if (t->kernels[k].rec.correlation_id == call->rec.correlation_id)
            return k;
    return SIZE_MAX;
}

/* What a load waits for: the work of its device in flight when the launch was issued that
 * ends last, on any stream, the launched kernel's own included (the load holds the whole
 * device: on NVIDIA's simpleHyperQ, recorded on the H200, kernel_B's load behind stream 13's
 * 10 ms kernel_A kept every other stream's kernel_A waiting until it ended). */
typedef struct sc_lazy_front {
    bool any;
    uint64_t end_ns;
    size_t slot, work;          /* its stream, and a sc_work_at() position */
} sc_lazy_front;

static sc_lazy_front sc_lazy_load_front(const sc_ctx *ctx, size_t kernel)
{
    const sc_launch *l = &ctx->launches[kernel];
    sc_lazy_front f = {0};
    if (sc_launch_has_front(l))
        f = (sc_lazy_front){true, sc_launch_front_end(ctx->trace, l), l->front_slot,
                            l->front_work};
    const sc_trace *t = ctx->trace;
    if (l->own_prev_end_ns <= sc_launch_issue(t, l, kernel) ||
        (f.any && l->own_prev_end_ns <= f.end_ns))
        return f;
    const sc_stream_summary *own = &ctx->analysis->streams[l->slot];
    for (size_t i = 0, n = sc_work_count(t); i < n; i++) {
        sc_work w = sc_work_at(t, i);
        if (w.end_ns == l->own_prev_end_ns &&
            sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id) == own)
            return (sc_lazy_front){true, w.end_ns, l->slot, i};
    }
    return f;
}

/* Work held by the load: issued at or after the load's call began, on a stream independent
 * of the front's and not ordered behind it by an event, started within SC_LAZY_AFTER_NS of
 * the front's end (or within SC_LAZY_BURST_NS of the start of the last piece so released)
 * and not before it, ready before it (its call over and its own stream idle by then). Adds
 * a fix per piece and returns how many, with their summed delay in *delay. */
static int sc_lazy_victims(const sc_ctx *ctx, const sc_lazy_front *front,
                           const sc_api_call *call, uint32_t device, uint64_t load,
                           sc_finding_builder *b, uint64_t *delay, size_t *count)
{
    const sc_trace *t = ctx->trace;
    const sc_stream_summary *streams = ctx->analysis->streams;
    uint64_t front_end = front->end_ns, front_issue = sc_lazy_issue_of(ctx, front->work);
    *delay = 0;
    *count = 0;
    uint64_t *last_end = calloc(ctx->analysis->n_streams + 1, sizeof(uint64_t));
    if (!last_end)
        return -1;
    size_t n = sc_work_count(t);
    for (size_t i = 0; i < n; i++) {    /* each stream's latest end before the front's end */
        sc_work w = sc_work_at(t, i);
        const sc_stream_summary *s = sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id);
        if (s && w.end_ns <= front_end && w.end_ns > last_end[s - streams])
            last_end[s - streams] = w.end_ns;
    }
    int rc = 0;
    uint64_t released_until = front_end + SC_LAZY_AFTER_NS;
    uint8_t kind = SC_WORK_KERNEL;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sc_work w = sc_work_at(t, i);
        if (w.kind != kind)     /* each kind is sorted by start */
            released_until = front_end + SC_LAZY_AFTER_NS;
        kind = w.kind;
        const sc_stream_summary *s = sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id);
        const sc_api_call *c = sc_ctx_call(ctx, w.correlation_id);
        if (!s || !c || c->rec.start_ns < call->rec.start_ns || w.device != device ||
            !sc_streams_independent(s, &streams[front->slot]) ||
            w.start_ns + SC_LAZY_TOL_NS < front_end || w.start_ns > released_until ||
            sc_deps_ordered(&ctx->deps, w.context_id, streams[front->slot].stream_id,
                            front_issue, s->stream_id, c->rec.start_ns))
            continue;
        /* the loading call itself would have returned sooner by the load */
        uint64_t end = sc_call_end(t, c), own = sc_dur(c->rec.start_ns, end);
        uint64_t call_end = c == call ? end - (load < own ? load : own) : end;
        uint64_t ready = call_end > last_end[s - streams] ? call_end : last_end[s - streams];
        if (ready + SC_LAZY_TOL_NS >= front_end)
            continue;   /* it could not have started earlier anyway */
        *delay += w.start_ns - ready;
        (*count)++;
        if (w.start_ns + SC_LAZY_BURST_NS > released_until)
            released_until = w.start_ns + SC_LAZY_BURST_NS;
        rc = sc_finding_fix(b, SC_FIX_UNHOLD, i);
    }
    free(last_end);
    return rc;
}

/* One load: an instance when it held the host (the call waited for the front) or work of
 * the device (sc_lazy_victims); not when the front was a grid that filled the device (the
 * work behind it waited for room: no-room's). */
static int sc_lazy_direct_one(const sc_ctx *ctx, const sc_rec_overhead *o, sc_finding_builder *b)
{
    const sc_trace *t = ctx->trace;
    const sc_api_call *call = sc_ctx_call(ctx, o->correlation_id);
    size_t k = call && sc_call_class_id(t, call) == SC_CALL_LAUNCH ? sc_lazy_kernel_of(t, call)
                                                               : SIZE_MAX;
    if (k == SIZE_MAX)
        return 0;
    const sc_launch *l = &ctx->launches[k];
    const sc_kernel_rec *kr = &t->kernels[k].rec;
    sc_lazy_front front = sc_lazy_load_front(ctx, k);
    if (!front.any || front.end_ns <= call->rec.start_ns)
        return 0;   /* nothing in flight on the device when the launch was issued */
    sc_work fw = sc_work_at(t, front.work);
    if (fw.kind == SC_WORK_KERNEL && sc_ctx_kernel_full(ctx, fw.index, NULL))
        return 0;   /* no room beside that grid anyway */
    uint64_t delay = 0, load = sc_dur(o->start_ns, o->end_ns);
    size_t held = 0;
    /* The load waits for the front inside the call, holding the host: measured on the H200
     * (killers lazy-cold), a first launch issued during a 3 ms kernel of another stream began
     * to load its module 13 us after that kernel ended, and the load took 108 us. */
    bool call_waited = front.end_ns > call->rec.start_ns && front.end_ns <= sc_call_end(t, call);
    uint32_t device = t->kernel_shapes[kr->shape].device;
    if (sc_lazy_victims(ctx, &front, call, device, load, b, &delay, &held) != 0)
        return -1;
    uint64_t host_wait = call_waited ? front.end_ns - call->rec.start_ns : 0;
    if (!call_waited && held == 0)
        return 0;
    const sc_stream_summary *s = ctx->analysis->streams;
    sc_instance inst;
    memset(&inst, 0, sizeof(inst));
    inst.start_ns = kr->start_ns;
    inst.end_ns = kr->end_ns > kr->start_ns ? kr->end_ns : kr->start_ns;
    inst.cost_ns = host_wait + delay;
    inst.call = call;
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
    sc_text_append(&inst.text, "first launch of %s on stream %u loaded its module (%s): ",
                   sc_ctx_kernel_name(ctx, &t->kernels[k]), s[l->slot].stream_id,
                   sc_fmt_ns(load, t1));
    if (call_waited)
        sc_text_append(&inst.text, "the call waited %s", sc_fmt_ns(host_wait, t1));
    if (held)
        sc_text_append(&inst.text, "%s%zu operation%s waited %s", call_waited ? ", " : "", held,
                       held == 1 ? "" : "s", sc_fmt_ns(delay, t2));
    sc_text_append(&inst.text, " for %s on stream %u to end", sc_lazy_work_name(ctx, front.work),
                   s[front.slot].stream_id);
    sc_instance_evidence(&inst, "load_us", sc_ns_to_us(load), "us");
    sc_instance_evidence(&inst, "delay_us", sc_ns_to_us(host_wait + delay), "us");
    sc_instance_evidence(&inst, "held_operations", (double)held, "count");
    sc_instance_evidence(&inst, "call_waited", call_waited ? 1.0 : 0.0, "");
    sc_instance_evidence(&inst, "stream", s[l->slot].stream_id, "");
    sc_instance_evidence(&inst, "waited_behind_stream", s[front.slot].stream_id, "");
    if (sc_finding_fix(b, SC_FIX_NO_LOAD, (size_t)(call - t->calls)) != 0) {
        free(inst.text);
        return -1;
    }
    return sc_finding_add(b, &inst);
}

static int sc_lazy_direct(const sc_ctx *ctx, sc_finding_builder *b)
{
    const sc_trace *t = ctx->trace;
    for (size_t i = 0; i < t->n_overheads; i++) {
        const sc_rec_overhead *o = &t->overheads[i];
        if ((o->kind == SC_OVERHEAD_LAZY_FUNCTION_LOADING ||
             o->kind == SC_OVERHEAD_MODULE_LOADING) &&
            sc_lazy_direct_one(ctx, o, b) != 0)
            return -1;
    }
    return 0;
}

int sc_rule_lazy_loading(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    if (t->n_kernels == 0)
        return 0;
    /* CUPTI said what was loaded where: only that evidence counts (and EAGER loads nothing
     * lazily, so it says nothing then) */
    if (t->n_overheads > 0) {
        sc_finding_builder b;
        sc_finding_begin(&b, "lazy-loading", sc_lazy_fix);
        int rc = sc_lazy_direct(ctx, &b);
        if (rc == 0 && b.has_instance) {
            sc_lazy_conclude(&b);
            rc = sc_finding_finish(&b, ctx, out);
        } else {
            sc_finding_discard(&b);
        }
        if (rc != 0 && err && err_size)
            snprintf(err, err_size, "lazy-loading: out of memory");
        return rc;
    }
    if (sc_lazy_eager(t))
        return 0;
    sc_finding_builder b;
    sc_finding_begin(&b, "lazy-loading", sc_lazy_fix);
    int rc = sc_lazy_scan(ctx, &b);
    if (rc == 0 && b.has_instance) {
        sc_lazy_conclude(&b);
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "lazy-loading: out of memory");
    return rc;
}
