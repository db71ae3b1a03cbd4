/* Rule "no-room": kernels on independent streams that were allowed to overlap but did not,
 * because a grid occupied the whole device.
 *
 * A stream only permits overlap; the device also needs room. A grid of at least one full
 * wave (occupancy.h: blocks >= SMs x resident blocks per SM) leaves no SM free until its
 * last wave is running, so a kernel B of another, independent stream (stream_kind.h; a
 * legacy/blocking pair is legacy-stream's) waits for that even though nothing orders it.
 *
 * waited for room (one finding): B, ready at R = max(its launch call's end, its own stream's
 * previous work end), not itself a full grid (two full grids share a device that either
 * fills: making room for B would gain nothing), and a full-grid kernel A of the same device
 * that started before B and still ran at R, with
 *   - B started at most 20 us after A ended (B's blocks may start inside A's last wave, as
 *     soon as A's blocks retire and leave room: on an H200 a small kernel behind a one-wave
 *     sweep started ~290 us before the sweep's end);
 *   - the program did not order B behind A itself (an event recorded on A's stream after A
 *     was issued and waited for on B's stream before B was issued: deps.h);
 *   - wait = B.start - max(R, A.start) of at least 20 us (less is launch latency);
 *   of several such A, the one that ended last.
 *   Severity: warning (the hardware really had no room: smaller grids, stream priorities or
 *   fewer waves are design choices), error when the waits reach 10% of the run.
 *
 * overlapped without gain (a second finding): two full grids on independent streams that
 * did overlap (B started before A's tail) but together took as long as one after the other:
 * (solo A + solo B) / (latest end - A.start) <= 1.05, with both solo durations known from
 * instances that ran alone (solo.h). Nothing was lost against running them in order, so its
 * cost is 0 and it is a note: the streams bought nothing there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/launches.h"
#include "analyze/no_room_crowd.h"
#include "analyze/occupancy.h"
#include "analyze/rules.h"
#include "analyze/stream_kind.h"
#include "analyze/kernel_names.h"
#include "streamcheck/units.h"

#define SC_NOROOM_TOL_NS 1000u          /* clock noise between "ended" and "started" */
#define SC_NOROOM_AFTER_NS 20000u       /* started at most this long after A ended */
#define SC_NOROOM_MIN_WAIT_NS 20000u    /* less is what any launch takes: not a wait for room */
#define SC_NOROOM_NO_GAIN 1.05          /* a pair speedup at most this saved nothing */

static const char *const sc_noroom_fix =
    "leave room for the other streams: fewer or smaller blocks per grid (a grid-stride loop "
    "over fewer waves), cudaStreamCreateWithPriority for the stream that must not wait, or "
    "split the long grid";
static const char *const sc_noroom_fix_no_gain =
    "nothing to fix for speed here: both grids fill the device, so running them in order is "
    "as fast; overlap needs kernels that leave SMs free";

typedef struct sc_noroom_run {
    const sc_ctx *ctx;
    const sc_launch *launches;
    size_t *active;             /* full grids that may still matter to a later kernel */
    size_t n_active;
    uint8_t *waited_kernel;     /* per kernel: it waited for room (no_room_crowd.h) */
    sc_finding_builder waited, no_gain;
} sc_noroom_run;

/* The occupancy of kernel k on its device, when the device record allows it and it fills
 * the device. */
static bool sc_noroom_occupancy(const sc_ctx *ctx, size_t k, sc_occupancy *o)
{
    return sc_ctx_kernel_full(ctx, k, o);
}

/* T - W/4 above: from then on another stream's block may find room beside A. */
static uint64_t sc_noroom_tail(const sc_kernel_rec *a, const sc_occupancy *o)
{
    uint64_t dur = sc_dur(a->start_ns, a->end_ns);
    uint64_t waves = (o->blocks + o->wave - 1) / o->wave;
    uint64_t wave_ns = dur / waves;
    uint64_t room = o->blocks % o->wave ? a->start_ns + (waves - 1) * wave_ns : a->end_ns;
    return room > a->start_ns + wave_ns / 4 ? room - wave_ns / 4 : a->start_ns;
}

/* A and B may overlap as far as CUDA is concerned: same device, independent streams. */
static bool sc_noroom_pair(const sc_noroom_run *r, size_t a, size_t b)
{
    const sc_stream_summary *s = r->ctx->analysis->streams;
    const sc_trace *t = r->ctx->trace;
    return sc_kernel_device(t, &t->kernels[a]) == sc_kernel_device(t, &t->kernels[b]) &&
           sc_streams_independent(&s[r->launches[a].slot], &s[r->launches[b].slot]);
}

static const char *sc_noroom_name(const sc_ctx *ctx, size_t k)
{
    return sc_ctx_kernel_name(ctx, &ctx->trace->kernels[k]);
}

static uint64_t sc_noroom_ready(const sc_trace *t, const sc_launch *l)
{
    uint64_t r = sc_call_end(t, sc_launch_call(t, l));
    return l->own_prev_end_ns > r ? l->own_prev_end_ns : r;
}

/* ---- waited for room ---------------------------------------------------------------- */

/* The wait of B behind A, 0 when A is not what B waited for: B was ready (its call had
 * returned and its own stream had nothing left to run) while A, a full grid on an
 * independent stream, was running; B started only later, before A had long ended; and the
 * program did not order B behind A with an event. A block of B can start as soon as one of
 * A's blocks retires and leaves room, so B may begin inside A's last wave: the wait is all
 * of it from ready to start, once it exceeds what a launch takes anyway. */
static uint64_t sc_noroom_wait(const sc_noroom_run *r, size_t a, size_t b,
                               const sc_occupancy *oa)
{
    (void)oa;
    const sc_kernel_rec *ka = &r->ctx->trace->kernels[a].rec;
    const sc_kernel_rec *kb = &r->ctx->trace->kernels[b].rec;
    const sc_launch *la = &r->launches[a], *lb = &r->launches[b];
    const sc_stream_summary *s = r->ctx->analysis->streams;
    uint64_t ready = sc_noroom_ready(r->ctx->trace, lb);
    if (ka->end_ns <= ready || kb->start_ns <= ka->start_ns)
        return 0;   /* A was over when B was ready, or B was first on the device */
    if (kb->start_ns > ka->end_ns + SC_NOROOM_AFTER_NS)
        return 0;   /* B started long after A: something else held it */
    uint32_t context_id = r->ctx->trace->kernel_shapes[kb->shape].context_id;
    const sc_trace *t = r->ctx->trace;
    if (sc_deps_ordered(&r->ctx->deps, context_id, s[la->slot].stream_id,
                        sc_launch_issue(t, la, a), s[lb->slot].stream_id,
                        sc_launch_issue(t, lb, b)))
        return 0;   /* the program made B wait for A */
    uint64_t wait = sc_dur(ready > ka->start_ns ? ready : ka->start_ns, kb->start_ns);
    return wait >= SC_NOROOM_MIN_WAIT_NS ? wait : 0;
}

static void sc_noroom_waited_instance(const sc_noroom_run *r, size_t a, size_t b,
                                      const sc_occupancy *oa, uint64_t wait, sc_instance *inst)
{
    const sc_ctx *ctx = r->ctx;
    const sc_kernel_rec *kb = &ctx->trace->kernels[b].rec;
    const sc_stream_summary *s = ctx->analysis->streams;
    char why[SC_OCCUPANCY_TEXT_SIZE];
    sc_occupancy_text(oa, why, sizeof(why));
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = kb->start_ns;
    inst->end_ns = kb->end_ns > kb->start_ns ? kb->end_ns : kb->start_ns;
    inst->cost_ns = wait;
    inst->call = sc_launch_call(r->ctx->trace, &r->launches[b]);
    char t1[SC_FMT_SIZE];
    sc_text_append(&inst->text, "%s (%llu blocks of %u threads) fills all %u SMs (%s)",
                   sc_noroom_name(ctx, a), (unsigned long long)oa->blocks,
                   oa->threads_per_block, oa->sm_count, why);
    sc_text_append(&inst->text, " — %s on stream %u waited %s for room", sc_noroom_name(ctx, b),
                   s[r->launches[b].slot].stream_id, sc_fmt_ns(wait, t1));
    sc_instance_evidence(inst, "wait_us", sc_ns_to_us(wait), "us");
    sc_instance_evidence(inst, "blocks", (double)oa->blocks, "count");
    sc_instance_evidence(inst, "threads_per_block", oa->threads_per_block, "count");
    sc_instance_evidence(inst, "sm_count", oa->sm_count, "count");
    sc_instance_evidence(inst, "blocks_per_sm", oa->blocks_per_sm, "count");
    sc_instance_evidence(inst, "wave_blocks", (double)oa->wave, "count");
    sc_instance_evidence(inst, "stream", s[r->launches[b].slot].stream_id, "");
    sc_instance_evidence(inst, "blocking_grid_stream", s[r->launches[a].slot].stream_id, "");
}

/* ---- overlapped without gain ---------------------------------------------------------- */

/* The pair's speedup against running in order, or 0 when it cannot be told or does not
 * apply (B started in A's tail: that is the waited case). */
static double sc_noroom_pair_speedup(const sc_noroom_run *r, size_t a, size_t b,
                                     const sc_occupancy *oa)
{
    const sc_ctx *ctx = r->ctx;
    const sc_kernel_rec *ka = &ctx->trace->kernels[a].rec;
    const sc_kernel_rec *kb = &ctx->trace->kernels[b].rec;
    sc_occupancy ob;
    if (kb->start_ns + SC_NOROOM_TOL_NS >= sc_noroom_tail(ka, oa) ||
        kb->start_ns + SC_NOROOM_TOL_NS >= ka->end_ns || !sc_noroom_occupancy(ctx, b, &ob) ||
        !sc_ctx_kernel_solo_known(ctx, a) || !sc_ctx_kernel_solo_known(ctx, b))
        return 0;
    uint64_t together = sc_dur(ka->start_ns, ka->end_ns > kb->end_ns ? ka->end_ns : kb->end_ns);
    uint64_t solo = sc_ctx_kernel_solo_ns(ctx, a) + sc_ctx_kernel_solo_ns(ctx, b);
    return together ? (double)solo / (double)together : 0;
}

static void sc_noroom_no_gain_instance(const sc_noroom_run *r, size_t a, size_t b,
                                       double speedup, sc_instance *inst)
{
    const sc_ctx *ctx = r->ctx;
    const sc_kernel_rec *ka = &ctx->trace->kernels[a].rec;
    const sc_kernel_rec *kb = &ctx->trace->kernels[b].rec;
    const sc_stream_summary *s = ctx->analysis->streams;
    uint64_t end = ka->end_ns > kb->end_ns ? ka->end_ns : kb->end_ns;
    uint64_t overlap = sc_dur(kb->start_ns, ka->end_ns < kb->end_ns ? ka->end_ns : kb->end_ns);
    uint64_t solo = sc_ctx_kernel_solo_ns(ctx, a) + sc_ctx_kernel_solo_ns(ctx, b);
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = ka->start_ns;
    inst->end_ns = end;
    inst->call = sc_launch_call(r->ctx->trace, &r->launches[b]);
    char t1[SC_FMT_SIZE], t2[SC_FMT_SIZE], t3[SC_FMT_SIZE];
    sc_text_append(&inst->text,
                   "%s (stream %u) and %s (stream %u) overlapped %s but took %s together "
                   "against %s one after the other (speedup %.2f)",
                   sc_noroom_name(ctx, a), s[r->launches[a].slot].stream_id,
                   sc_noroom_name(ctx, b), s[r->launches[b].slot].stream_id,
                   sc_fmt_ns(overlap, t1), sc_fmt_ns(end - ka->start_ns, t2),
                   sc_fmt_ns(solo, t3), speedup);
    sc_instance_evidence(inst, "overlap_us", sc_ns_to_us(overlap), "us");
    sc_instance_evidence(inst, "together_us", sc_ns_to_us(end - ka->start_ns), "us");
    sc_instance_evidence(inst, "solo_sum_us", sc_ns_to_us(solo), "us");
    sc_instance_evidence(inst, "speedup", speedup, "ratio");
}

/* ---- the pass ------------------------------------------------------------------------- */

/* Kernel b against the kernels before it that may still matter; *b_full says whether b
 * fills its device. */
static int sc_noroom_visit(sc_noroom_run *r, size_t b, bool *b_full_out)
{
    sc_occupancy ob;
    bool b_full = sc_noroom_occupancy(r->ctx, b, &ob);
    *b_full_out = b_full;
    size_t best = SIZE_MAX;
    uint64_t best_wait = 0;
    sc_occupancy best_occ = {0};
    for (size_t i = 0; i < r->n_active; i++) {
        size_t a = r->active[i];
        sc_occupancy oa;
        if (!sc_noroom_pair(r, a, b) || !sc_noroom_occupancy(r->ctx, a, &oa))
            continue;
        const sc_kernel_rec *ka = &r->ctx->trace->kernels[a].rec;
        double speedup = sc_noroom_pair_speedup(r, a, b, &oa);
        if (speedup > 0 && speedup <= SC_NOROOM_NO_GAIN) {
            sc_instance inst;
            sc_noroom_no_gain_instance(r, a, b, speedup, &inst);
            if (sc_finding_add(&r->no_gain, &inst) != 0)
                return -1;
        }
        /* a full grid that waited for another full grid lost nothing: with room made for
         * it, the two would share a device that either fills (their overlap gains
         * nothing, the second finding's case) */
        bool b_called = r->launches[b].call != SC_LAUNCH_NO_CALL;
        uint64_t wait = b_called && !b_full ? sc_noroom_wait(r, a, b, &oa) : 0;
        if (wait > 0 && (best == SIZE_MAX ||
                         ka->end_ns > r->ctx->trace->kernels[best].rec.end_ns)) {
            best = a;
            best_wait = wait;
            best_occ = oa;
        }
    }
    if (best == SIZE_MAX)
        return 0;
    sc_instance inst;
    sc_noroom_waited_instance(r, best, b, &best_occ, best_wait, &inst);
    /* the fix: the grid leaves room for b, so b is not held behind it (the grid itself, and
     * other full grids, still take the device as they did; b and the grids beside it run as
     * long as they do uncrowded: sc_noroom_crowd_fixes) */
    r->waited_kernel[b] = 1;
    if (sc_finding_fix(&r->waited, SC_FIX_ROOM, b) != 0 ||
        sc_finding_fix(&r->waited, SC_FIX_UNHOLD, b) != 0) {
        free(inst.text);
        return -1;
    }
    return sc_finding_add(&r->waited, &inst);
}

/* Keeps the kernels that can still be an A: full grids that ended at most 20 us before
 * `now`. */
static void sc_noroom_prune(sc_noroom_run *r, uint64_t now)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n_active; i++)
        if (r->ctx->trace->kernels[r->active[i]].rec.end_ns + SC_NOROOM_AFTER_NS >= now)
            r->active[k++] = r->active[i];
    r->n_active = k;
}

/* Whether kernel k fills its device, without its occupancy: the byte the context worked out
 * for its shape (sc_ctx_kernel_full, inline), read here for every kernel. */
static bool sc_noroom_is_full(const sc_ctx *ctx, size_t k)
{
    return sc_ctx_kernel_full(ctx, k, NULL);
}

static int sc_noroom_scan(sc_noroom_run *r)
{
    const sc_trace *t = r->ctx->trace;
    for (size_t b = 0; b < t->n_kernels; b++) {     /* kernels are sorted by start */
        if (r->n_active)
            sc_noroom_prune(r, t->kernels[b].rec.start_ns);
        if (r->n_active == 0) {
            /* no full grid that could have held b back (most kernels of most traces): b
             * matters only as a later kernel's A */
            if (sc_noroom_is_full(r->ctx, b))
                r->active[r->n_active++] = b;
            continue;
        }
        bool b_full;
        if (sc_noroom_visit(r, b, &b_full) != 0)
            return -1;
        if (b_full)     /* only a grid that fills its device is ever an A */
            r->active[r->n_active++] = b;
    }
    return 0;
}

static int sc_noroom_finish_waited(sc_noroom_run *r, sc_finding_list *out)
{
    sc_finding_builder *b = &r->waited;
    sc_finding *f = &b->finding;
    if (!b->has_instance) {
        sc_finding_discard(b);
        return 0;
    }
    size_t n_crowded;
    uint64_t extra_ns;
    if (sc_noroom_crowd_fixes(r->ctx, r->waited_kernel, b, &n_crowded, &extra_ns) != 0) {
        sc_finding_discard(b);
        return -1;
    }
    char t1[SC_FMT_SIZE];
    if (f->count == 1)
        sc_text_append(&f->title, "%s", f->worst.text);
    else
        sc_text_append(&f->title, "%s; %llu kernels waited %s in all", f->worst.text,
                       (unsigned long long)f->count, sc_fmt_ns(f->waited_ns, t1));
    if (n_crowded > 0)
        sc_text_append(&f->title, "; then %zu kernel(s) ran crowded, %s longer than with room",
                       n_crowded, sc_fmt_ns(extra_ns, t1));
    sc_finding_total(b, "kernels", (double)f->count, "count");
    sc_finding_total(b, "wait_us", sc_ns_to_us(f->waited_ns), "us");
    sc_finding_total(b, "worst_wait_us", sc_ns_to_us(f->worst.cost_ns), "us");
    if (n_crowded > 0) {
        sc_finding_total(b, "crowded_kernels", (double)n_crowded, "count");
        sc_finding_total(b, "crowded_extra_us", sc_ns_to_us(extra_ns), "us");
    }
    return sc_finding_finish(b, r->ctx, out);
}

static int sc_noroom_finish_no_gain(sc_noroom_run *r, sc_finding_list *out)
{
    sc_finding_builder *b = &r->no_gain;
    sc_finding *f = &b->finding;
    if (!b->has_instance) {
        sc_finding_discard(b);
        return 0;
    }
    sc_text_append(&f->title,
                   "overlapped without gain: %llu pair(s) of full grids ran side by side no "
                   "faster than one after the other", (unsigned long long)f->count);
    sc_finding_total(b, "pairs", (double)f->count, "count");
    return sc_finding_finish(b, r->ctx, out);
}

int sc_rule_no_room(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    if (t->n_kernels < 2 || t->n_devices == 0)
        return 0;   /* nothing to overlap, or no device limits to reason with */
    sc_noroom_run r = {.ctx = ctx};
    r.active = malloc(t->n_kernels * sizeof(*r.active));
    r.waited_kernel = calloc(t->n_kernels, 1);
    sc_finding_begin(&r.waited, "no-room", sc_noroom_fix);
    sc_finding_begin(&r.no_gain, "no-room", sc_noroom_fix_no_gain);
    int rc = -1;
    if (r.active && r.waited_kernel) {
        r.launches = ctx->launches;
        rc = sc_noroom_scan(&r);
    }
    if (rc == 0)
        rc = sc_noroom_finish_waited(&r, out);
    else
        sc_finding_discard(&r.waited);
    if (rc == 0)
        rc = sc_noroom_finish_no_gain(&r, out);
    else
        sc_finding_discard(&r.no_gain);
    free(r.active);
    free(r.waited_kernel);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "no-room: out of memory");
    return rc;
}
