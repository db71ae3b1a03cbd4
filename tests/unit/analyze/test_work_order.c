/* The shared time order of the device work (work_order.h) and the three indexes that read it,
 * each against the way it was made before the order, on random built traces: the orders
 * against a comparator sort, the devices' sweep against the overlap engine on spans (the
 * sort of their points), each stream's metrics against the metrics-only sweep of its spans,
 * the launches against the walk of every piece of work sorted by
 * (device, issue, start, position), and the blocking measure against its definitions
 * (blocking.h) worked out piece by piece. Traces with several devices, collectives, work of
 * one call, work without a call, broken ends, ties of every time, and lists out of start
 * order (no loader sorted them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/blocking.h"
#include "analyze/internal.h"
#include "analyze/launches.h"
#include "analyze/overlap.h"
#include "analyze/work_order.h"
#include "synthetic.h"

/* ---- building a trace ----------------------------------------------------------------- */

static uint64_t rnd(uint64_t *st, uint64_t n)
{
    return syn_rand(st) % n;
}

/* A random trace: n pieces of work on n_dev devices (each its own context), times on a coarse
 * grid so that starts, ends and issues tie, some ends before their starts, some work sharing
 * a call or having none, driver calls inside runtime calls, and calls that block. */
/* serial: each stream's work one piece after another (as a device runs it), gaps on both
 * sides of 1 us and touching pieces, now and then a piece begun before the one before it on
 * its stream ended (a stream whose work overlaps). */
static void build_serial(syn *s, uint64_t seed, size_t n, uint32_t n_dev, bool serial)
{
    uint64_t st = seed;
    syn_init(s);
    for (uint32_t d = 0; d < n_dev; d++)
        syn_device(s, d, 132);
    uint32_t corr = 1;
    uint64_t stream_at[4][3] = {{0}};   /* per device and stream: where its next work goes */
    for (size_t i = 0; i < n; i++) {
        uint32_t dev = (uint32_t)rnd(&st, n_dev), stream = 7 + (uint32_t)rnd(&st, 3);
        uint64_t start = US(5 * rnd(&st, 200)), dur = US(5 * rnd(&st, 8));
        if (serial) {
            uint64_t *at = &stream_at[dev % 4][stream - 7];
            uint64_t r = rnd(&st, 40);
            start = r == 0 && *at > US(3) ? *at - US(3)             /* overlaps the one before */
                  : r < 10 ? *at : *at + (r < 25 ? rnd(&st, 1500) : US(rnd(&st, 20)));
            dur = rnd(&st, 3) ? US(1 + rnd(&st, 9)) : rnd(&st, 900);
            *at = start + dur > *at ? start + dur : *at;
        }
        uint64_t end = rnd(&st, 20) == 0 ? (start ? start - 1 : 0) : start + dur;
        uint64_t r = rnd(&st, 10);
        uint32_t id;
        if (r < 6 || corr == 1) {
            id = ++corr;   /* its own call, issued before it or (rarely) after its start */
            uint64_t issue = rnd(&st, 8) == 0 ? start + US(1) : start - (start ? US(5) * rnd(&st, start / US(5) + 1) : 0);
            sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, issue, issue + US(2), id, NULL, NULL, 0);
            syn_call_context(s, c, 10 + dev);
            syn_call_tid(s, c, 1 + (uint32_t)rnd(&st, 2));
            if (rnd(&st, 6) == 0) {   /* a driver call inside it, same id */
                sc_api_call *dc = syn_call(s, SC_CALL_LAUNCH, issue, issue + US(1), id,
                                           "cuLaunchKernel", NULL, 0);
                syn_call_add_flags(s, dc, SC_API_DRIVER);
                syn_call_context(s, dc, 10 + dev);
            }
        } else if (r < 8) {
            id = corr;     /* the call of the work before it (a graph's launch) */
        } else {
            id = rnd(&st, 2) ? 0 : 100000 + (uint32_t)i;   /* no call */
        }
        uint64_t k = rnd(&st, 10);
        if (k < 6) {
            sc_kernel *kr = syn_kernel(s, dev, stream, start, end, id);
            syn_shape(s, kr)->context_id = 10 + dev;
            if (rnd(&st, 8) == 0)
                syn_shape(s, kr)->name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
        } else if (k < 8) {
            sc_copy *c = syn_copy(s, dev, stream, start, end, 4096, id, SC_MEMCPY_ASYNC,
                                        SC_MEM_DEVICE, SC_MEM_PINNED);
            syn_copy_shape(s, c)->context_id = 10 + dev;
        } else {
            sc_memset *m = syn_memset(s, dev, stream, start, end, id);
            syn_memset_shape(s, m)->context_id = 10 + dev;
        }
    }
    /* calls that block: synchronizations, allocations, synchronous copies with work of their
     * own, on each device's context or on one no work names */
    static const uint16_t classes[] = {SC_CALL_STREAM_SYNC, SC_CALL_DEVICE_SYNC, SC_CALL_MALLOC,
                                       SC_CALL_FREE, SC_CALL_MEMCPY, SC_CALL_MEMSET};
    for (size_t i = 0; i < n / 4; i++) {
        uint16_t cls = classes[rnd(&st, sizeof classes / sizeof *classes)];
        uint64_t start = US(5 * rnd(&st, 220)), end = start + US(5 * rnd(&st, 12));
        uint32_t dev = (uint32_t)rnd(&st, n_dev);
        sc_api_call *c = syn_call(s, cls, start, end, ++corr, "cudaSomething", NULL, 0);
        syn_call_context(s, c, rnd(&st, 10) == 0 ? 99 : 10 + dev);
        syn_call_tid(s, c, 1 + (uint32_t)rnd(&st, 2));
        if ((cls == SC_CALL_MEMCPY || cls == SC_CALL_MEMSET) && rnd(&st, 3) != 0) {
            uint64_t ws = start + US(5 * rnd(&st, 3));
            sc_copy *cp = syn_copy(s, dev, 7 + (uint32_t)rnd(&st, 3), ws, ws + US(5), 4096,
                                   corr, 0, SC_MEM_DEVICE, SC_MEM_PAGEABLE);
            syn_copy_shape(s, cp)->context_id = 10 + dev;
            if (rnd(&st, 2) == 0) {   /* a second piece of the same start, shorter */
                cp = syn_copy(s, dev, 7 + (uint32_t)rnd(&st, 3), ws, ws + US(rnd(&st, 5)), 4096,
                              corr, 0, SC_MEM_DEVICE, SC_MEM_PAGEABLE);
                syn_copy_shape(s, cp)->context_id = 10 + dev;
            }
        }
    }
}

static void build(syn *s, uint64_t seed, size_t n, uint32_t n_dev)
{
    build_serial(s, seed, n, n_dev, false);
}

/* Out of start order, as no loader leaves a trace: the calls reversed and every list's first
 * and last pieces swapped. */
static void unsort(syn *s)
{
    sc_trace *t = &s->t;
    for (size_t i = 0, j = t->n_calls; j-- > i + 1; i++) {
        sc_api_call tmp = t->calls[i];
        t->calls[i] = t->calls[j];
        t->calls[j] = tmp;
    }
    if (t->n_kernels > 1) {
        sc_kernel tmp = t->kernels[0];
        t->kernels[0] = t->kernels[t->n_kernels - 1];
        t->kernels[t->n_kernels - 1] = tmp;
    }
    if (t->n_copies > 1) {
        sc_copy tmp = t->copies[0];
        t->copies[0] = t->copies[t->n_copies - 1];
        t->copies[t->n_copies - 1] = tmp;
    }
}

/* Sorted as the loader leaves a trace but for the first two pieces of different starts of one
 * list (kernels, copies or memsets by `list`), swapped: a list found out of start order only
 * at the end of the merge, which reads the lists from their ends (the chains it linked by then
 * are made anew). */
static int late_list;

#define SWAP_FIRST(arr, n, start) do {                                                     \
        for (size_t i_ = 1; i_ < (n); i_++)                                                \
            if ((arr)[i_] start != (arr)[0] start) {                                       \
                __typeof__((arr)[0]) tmp_ = (arr)[0];                                      \
                (arr)[0] = (arr)[i_];                                                      \
                (arr)[i_] = tmp_;                                                          \
                return;                                                                    \
            }                                                                              \
    } while (0)

static void unsort_late(syn *s)
{
    syn_finish(s);
    sc_trace *t = &s->t;
    if (late_list == 0)
        SWAP_FIRST(t->kernels, t->n_kernels, .rec.start_ns);
    else if (late_list == 1)
        SWAP_FIRST(t->copies, t->n_copies, .start_ns);
    else
        SWAP_FIRST(t->memsets, t->n_memsets, .start_ns);
    fail();
}

/* ---- the orders against a comparator sort ------------------------------------------------ */

static _Thread_local const sc_trace *cmp_trace;

static int by_start_cmp(const void *pa, const void *pb)
{
    uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
    sc_work x = sc_work_at(cmp_trace, i), y = sc_work_at(cmp_trace, j);
    if (x.start_ns != y.start_ns)
        return x.start_ns < y.start_ns ? -1 : 1;
    return i < j ? -1 : i > j;
}

static int by_end_cmp(const void *pa, const void *pb)
{
    uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
    sc_work x = sc_work_at(cmp_trace, i), y = sc_work_at(cmp_trace, j);
    if (x.end_ns != y.end_ns)
        return x.end_ns < y.end_ns ? -1 : 1;
    return by_start_cmp(pa, pb);
}

static void check_orders(const sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    const sc_work_order *o = ctx->order;
    size_t n = sc_work_count(t);
    assert_int_equal(o->n, n);
    uint32_t *ref = malloc((n ? n : 1) * sizeof *ref);
    cmp_trace = t;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++)
            ref[i] = (uint32_t)i;
        qsort(ref, n, sizeof *ref, pass ? by_end_cmp : by_start_cmp);
        assert_memory_equal(pass ? o->by_end : o->by_start, ref, n * sizeof *ref);
        /* each device's view: the whole order filtered */
        for (size_t d = 0; d < ctx->analysis->n_devices; d++) {
            const sc_work_view *v = sc_work_order_device(o, d);
            const uint32_t *got = pass ? v->by_end : v->by_start;
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (sc_device_index(ctx->analysis, sc_work_at(t, ref[i]).device) == d) {
                    assert_true(k < v->n);
                    assert_int_equal(got[k++], ref[i]);
                }
            assert_int_equal(k, v->n);
        }
    }
    /* the chains: each call's work in start order, the work without a call marked */
    qsort(ref, n, sizeof *ref, by_start_cmp);
    for (size_t c = 0; c < t->n_calls; c++) {
        uint32_t p = o->call_first[c];
        for (size_t i = 0; i < n; i++) {
            const sc_api_call *call = sc_ctx_call(ctx, sc_work_at(t, ref[i]).correlation_id);
            if (call != &t->calls[c])
                continue;
            assert_int_equal(p, ref[i]);
            p = o->call_next[p];
        }
        assert_int_equal(p, SC_WORK_END);
    }
    for (size_t i = 0; i < n; i++)
        assert_int_equal(o->call_next[i] == SC_WORK_NO_CALL,
                         sc_ctx_call(ctx, sc_work_at(t, i).correlation_id) == NULL);
    free(ref);
}

/* ---- the devices' sweep against the engine on spans ------------------------------------- */

static bool is_comm(const sc_trace *t, size_t k)
{
    return strncmp(t->kernel_shapes[t->kernels[k].rec.shape].name, "nccl", 4) == 0;
}

static void check_device_sweep(const sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    size_t nk = t->n_kernels ? t->n_kernels : 1, nw = sc_work_count(t) ? sc_work_count(t) : 1;
    bool *shape_comm = calloc(t->n_kernel_shapes ? t->n_kernel_shapes : 1, sizeof *shape_comm);
    for (size_t k = 0; k < t->n_kernels; k++)
        shape_comm[t->kernels[k].rec.shape] = is_comm(t, k);
    for (size_t d = 0; d < ctx->analysis->n_devices; d++) {
        uint32_t dev = ctx->analysis->devices[d].device;
        /* the spans as the context made them before the order */
        sc_overlap_span *ks = malloc(nk * sizeof *ks), *cs = malloc(nw * sizeof *cs);
        size_t n_ks = 0, n_cs = 0;
        for (size_t i = 0; i < t->n_kernels; i++)
            if (sc_kernel_device(t, &t->kernels[i]) == dev && !shape_comm[t->kernels[i].rec.shape])
                ks[n_ks++] = (sc_overlap_span){t->kernels[i].rec.start_ns, t->kernels[i].rec.end_ns, i};
        for (size_t i = 0; i < t->n_copies; i++)
            if (sc_copy_device(t, &t->copies[i]) == dev)
                cs[n_cs++] = (sc_overlap_span){t->copies[i].start_ns, t->copies[i].end_ns, i};
        for (size_t i = 0; i < t->n_memsets; i++)
            if (sc_memset_device(t, &t->memsets[i]) == dev)
                cs[n_cs++] = (sc_overlap_span){t->memsets[i].start_ns, t->memsets[i].end_ns, i};
        sc_overlap_input in = {ks, n_ks, cs, n_cs, dev};
        sc_overlap m_ref, m_new;
        sc_busy_list b_ref = {0}, b_new = {0};
        bool *ov_ref = calloc(nk, sizeof(bool)), *ov_new = calloc(nk, sizeof(bool));
        uint32_t *pk_ref = calloc(nk, sizeof(uint32_t)), *pk_new = calloc(nk, sizeof(uint32_t));
        sc_overlap_output ref = {.metrics = &m_ref, .max_intervals = 64, .busy = &b_ref,
                                 .overlapped = ov_ref, .peak = pk_ref};
        assert_int_equal(sc_overlap_compute(&in, &ref), 0);
        const sc_work_view *v = sc_work_order_device(ctx->order, d);
        sc_overlap_work w = {t, v->by_start, v->by_end, v->n, shape_comm, dev, NULL};
        sc_overlap_output got = {.metrics = &m_new, .max_intervals = 64, .busy = &b_new,
                                 .overlapped = ov_new, .peak = pk_new};
        assert_int_equal(sc_overlap_compute_work(&w, &got), 0);
        assert_memory_equal(&m_ref, &m_new, sizeof m_ref);
        assert_int_equal(ref.n_intervals, got.n_intervals);
        assert_int_equal(ref.n_intervals_total, got.n_intervals_total);
        if (ref.n_intervals)
            assert_memory_equal(ref.intervals, got.intervals,
                                ref.n_intervals * sizeof *ref.intervals);
        assert_int_equal(b_ref.n, b_new.n);
        if (b_ref.n)
            assert_memory_equal(b_ref.ivals, b_new.ivals, b_ref.n * sizeof *b_ref.ivals);
        for (size_t k = 0; k < n_ks; k++) {
            assert_int_equal(ov_ref[k], ov_new[ks[k].index]);
            assert_int_equal(pk_ref[k], pk_new[ks[k].index]);
        }
        free(ref.intervals);
        free(got.intervals);
        sc_busy_free(&b_ref);
        sc_busy_free(&b_new);
        free(ov_ref);
        free(ov_new);
        free(pk_ref);
        free(pk_new);
        free(ks);
        free(cs);
    }
    free(shape_comm);
}

/* Each stream's metrics (taken in the devices' sweeps) against the metrics-only sweep of its
 * own spans, as the streams' build made them before the order, and its solo sums. */
static void check_stream_metrics(const sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    const sc_analysis *a = ctx->analysis;
    size_t nk = t->n_kernels ? t->n_kernels : 1, nw = sc_work_count(t) ? sc_work_count(t) : 1;
    sc_overlap_span *ks = malloc(nk * sizeof *ks), *cs = malloc(nw * sizeof *cs);
    sc_overlap_scratch scratch = {0};
    for (size_t i = 0; i < a->n_streams; i++) {
        const sc_stream_summary *st = &a->streams[i];
        size_t n_ks = 0, n_cs = 0;
        uint64_t solo = 0, known = 0;
        for (size_t k = 0; k < t->n_kernels; k++) {
            const sc_kernel_rec *r = &t->kernels[k].rec;
            const sc_kernel_shape *rs = &t->kernel_shapes[r->shape];
            if (rs->device != st->device || rs->context_id != st->context_id ||
                rs->stream_id != st->stream_id)
                continue;
            ks[n_ks++] = (sc_overlap_span){r->start_ns, r->end_ns, k};
            solo += sc_ctx_kernel_solo_ns(ctx, k);
            known += sc_ctx_kernel_solo_known(ctx, k);
        }
        for (size_t k = 0; k < t->n_copies; k++) {
            const sc_rec_memcpy rec = sc_copy_record(t, &t->copies[k]), *r = &rec;
            if (r->device == st->device && r->context_id == st->context_id &&
                r->stream_id == st->stream_id)
                cs[n_cs++] = (sc_overlap_span){r->start_ns, r->end_ns, k};
        }
        for (size_t k = 0; k < t->n_memsets; k++) {
            const sc_rec_memset rec = sc_memset_record(t, &t->memsets[k]), *r = &rec;
            if (r->device == st->device && r->context_id == st->context_id &&
                r->stream_id == st->stream_id)
                cs[n_cs++] = (sc_overlap_span){r->start_ns, r->end_ns, k};
        }
        sc_overlap_input in = {ks, n_ks, cs, n_cs, st->device};
        sc_overlap m;
        assert_int_equal(sc_overlap_metrics(&in, &m, &scratch), 0);
        sc_overlap_set_solo(&m, solo, known);
        assert_memory_equal(&m, &st->overlap, sizeof m);
    }
    free(scratch.key);
    free(ks);
    free(cs);
}

/* ---- the launches against the walk of sorted work ---------------------------------------- */

typedef struct ref_item {
    size_t dev;
    uint64_t issue, start, end;
    uint32_t pos, slot, call;
} ref_item;

static int ref_item_cmp(const void *pa, const void *pb)
{
    const ref_item *x = pa, *y = pb;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->issue != y->issue)
        return x->issue < y->issue ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void check_launches(const sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t);
    ref_item *it = calloc(n ? n : 1, sizeof *it);
    for (size_t i = 0; i < n; i++) {
        sc_work w = sc_work_at(t, i);
        const sc_api_call *call = sc_ctx_call(ctx, w.correlation_id);
        const sc_stream_summary *s = sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id);
        it[i] = (ref_item){sc_device_index(ctx->analysis, w.device),
                           call ? call->rec.start_ns : w.start_ns, w.start_ns, w.end_ns,
                           (uint32_t)i, s ? (uint32_t)(s - ctx->analysis->streams) : UINT32_MAX,
                           call ? (uint32_t)(call - t->calls) : SC_LAUNCH_NO_CALL};
    }
    qsort(it, n, sizeof *it, ref_item_cmp);
    uint64_t *stream_end = calloc(ctx->analysis->n_streams + 1, sizeof *stream_end);
    sc_launch *ref = calloc(t->n_kernels ? t->n_kernels : 1, sizeof *ref);
    /* what the launches derive from the records: each kernel's issue, its front's end */
    uint64_t *ref_issue = calloc(t->n_kernels ? t->n_kernels : 1, sizeof *ref_issue);
    uint64_t *ref_front_end = calloc(t->n_kernels ? t->n_kernels : 1, sizeof *ref_front_end);
    /* the two streams whose issued work ends last: (end, slot, pos), slot UINT32_MAX empty */
    uint64_t f_end[2] = {0, 0};
    uint32_t f_slot[2] = {UINT32_MAX, UINT32_MAX}, f_pos[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const ref_item *x = &it[i];
        if (x->slot == UINT32_MAX) {
            if (x->pos < t->n_kernels) {   /* found with nothing: issued at its own start */
                ref[x->pos] = (sc_launch){.call = SC_LAUNCH_NO_CALL,
                                          .front_work = SC_LAUNCH_NO_FRONT};
                ref_issue[x->pos] = t->kernels[x->pos].rec.start_ns;
            }
            continue;
        }
        if (i == 0 || x->dev != it[i - 1].dev) {
            f_slot[0] = f_slot[1] = UINT32_MAX;
            f_end[0] = f_end[1] = 0;
            f_pos[0] = f_pos[1] = 0;
        }
        if (x->pos < t->n_kernels) {
            sc_launch l = {stream_end[x->slot], x->call, x->slot, 0, SC_LAUNCH_NO_FRONT};
            ref_issue[x->pos] = x->issue;
            int o = f_slot[0] != x->slot ? 0 : 1;
            if (f_slot[o] != UINT32_MAX && f_end[o] > x->issue) {
                ref_front_end[x->pos] = f_end[o];
                l.front_slot = f_slot[o];
                l.front_work = f_pos[o];
            }
            ref[x->pos] = l;
        }
        if (f_slot[0] == x->slot) {
            if (x->end > f_end[0])
                f_end[0] = x->end, f_pos[0] = x->pos;
        } else if (f_slot[0] == UINT32_MAX || x->end > f_end[0]) {
            f_end[1] = f_end[0], f_slot[1] = f_slot[0], f_pos[1] = f_pos[0];
            f_end[0] = x->end, f_slot[0] = x->slot, f_pos[0] = x->pos;
        } else if (f_slot[1] == UINT32_MAX || x->end > f_end[1]) {
            f_end[1] = x->end, f_slot[1] = x->slot, f_pos[1] = x->pos;
        }
        if (x->end > stream_end[x->slot])
            stream_end[x->slot] = x->end;
    }
    for (size_t k = 0; k < t->n_kernels; k++) {
        const sc_launch *l = &ctx->launches[k];
        assert_memory_equal(&ref[k], l, sizeof *ref);
        assert_int_equal(sc_launch_issue(t, l, k), ref_issue[k]);
        if (sc_launch_has_front(l))
            assert_int_equal(sc_launch_front_end(t, l), ref_front_end[k]);
    }
    free(ref_issue);
    free(ref_front_end);
    free(ref);
    free(stream_end);
    free(it);
}

/* ---- the blocking measure against its definitions ---------------------------------------- */

static uint64_t issue_of(const sc_ctx *ctx, const sc_work *w, uint32_t *tid)
{
    const sc_api_call *call = sc_ctx_call(ctx, w->correlation_id);
    *tid = call ? sc_call_tid(ctx->trace, call) : 0;
    return call && call->rec.start_ns < w->start_ns ? call->rec.start_ns : w->start_ns;
}

/* The device a context's work ran on (the first piece of it in record order): the scope of
 * a call; n_devices when the context ran none, which is every device's scope (or the one
 * device's). */
static size_t scope_of(const sc_ctx *ctx, uint32_t context_id)
{
    const sc_trace *t = ctx->trace;
    for (size_t i = 0; i < sc_work_count(t); i++) {
        sc_work w = sc_work_at(t, i);
        if (w.context_id == context_id)
            return sc_device_index(ctx->analysis, w.device);
    }
    return ctx->analysis->n_devices == 1 ? 0 : ctx->analysis->n_devices;
}

static bool in_scope(const sc_ctx *ctx, size_t scope, const sc_work *w)
{
    return scope == ctx->analysis->n_devices || sc_device_index(ctx->analysis, w->device) == scope;
}

/* (end, start, position) of a against b */
static bool later(const sc_work *a, size_t pa, const sc_work *b, size_t pb)
{
    if (a->end_ns != b->end_ns)
        return a->end_ns > b->end_ns;
    if (a->start_ns != b->start_ns)
        return a->start_ns > b->start_ns;
    return pa > pb;
}

/* The whole microseconds a scope's work covers (every time of these traces lies on that
 * grid): cover[x] for [x us, x + 1 us). */
enum { CELLS = 4096 };

static uint8_t *cover_of(const sc_ctx *ctx, size_t scope)
{
    uint8_t *cover = calloc(CELLS, 1);
    for (size_t i = 0; i < sc_work_count(ctx->trace); i++) {
        sc_work w = sc_work_at(ctx->trace, i);
        if (!in_scope(ctx, scope, &w))
            continue;
        assert_true(w.end_ns <= US(CELLS));
        for (uint64_t x = w.start_ns / US(1); x < w.end_ns / US(1); x++)
            cover[x] = 1;
    }
    return cover;
}

/* How much of [s, e) no work of the scope covers. */
static uint64_t uncovered(const uint8_t *cover, uint64_t s, uint64_t e)
{
    uint64_t free_ns = 0;
    for (uint64_t x = s / US(1); x < e / US(1); x++)
        free_ns += cover[x] ? 0 : US(1);
    return free_ns;
}

static void ref_own_ns(const sc_ctx *ctx, uint64_t *own_ns)
{
    const sc_trace *t = ctx->trace;
    for (size_t cls = 0; cls < SC_CALL_CLASS_COUNT; cls++) {
        if (!sc_blocking_holding_class((uint16_t)cls)) {
            own_ns[cls] = 0;    /* never measured: not worked out */
            continue;
        }
        uint64_t *d = malloc((t->n_calls + 1) * sizeof *d);
        size_t k = 0;
        for (size_t i = 0; i < t->n_calls; i++) {
            const sc_api_call *c = &t->calls[i];
            if (sc_call_class_id(t, c) != cls || sc_blocking_is_inner(ctx, c))
                continue;
            size_t scope = scope_of(ctx, sc_call_context(t, c));
            bool busy = false;
            for (size_t j = 0; j < sc_work_count(t) && !busy; j++) {
                sc_work w = sc_work_at(t, j);
                uint32_t tid;
                busy = in_scope(ctx, scope, &w) && w.end_ns > c->rec.start_ns &&
                       issue_of(ctx, &w, &tid) < c->rec.start_ns;
            }
            uint64_t end = sc_call_end(t, c);
            if (!busy)
                d[k++] = end > c->rec.start_ns ? end - c->rec.start_ns : 0;
        }
        for (size_t a = 1; a < k; a++)   /* insertion sort: tests are small */
            for (size_t b = a; b > 0 && d[b - 1] > d[b]; b--) {
                uint64_t x = d[b];
                d[b] = d[b - 1];
                d[b - 1] = x;
            }
        own_ns[cls] = k ? d[(k - 1) / 4] : 0;
        free(d);
    }
}

static void ref_measure(const sc_ctx *ctx, const sc_blocking_call *c, uint8_t *const *cover,
                        sc_blocking *m)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t), scope = scope_of(ctx, c->context_id);
    memset(m, 0, sizeof *m);
    uint64_t end = c->end_ns > c->start_ns ? c->end_ns : c->start_ns;
    m->blocked_ns = end - c->start_ns;
    m->wait_point_ns = end;
    /* own work: the first by (start, end, position) */
    size_t own = SIZE_MAX;
    for (size_t i = 0; c->correlation_id && i < n; i++) {
        sc_work w = sc_work_at(t, i);
        if (!in_scope(ctx, scope, &w) || w.correlation_id != c->correlation_id)
            continue;
        if (own == SIZE_MAX) {
            own = i;
            continue;
        }
        sc_work o = sc_work_at(t, own);
        if (w.start_ns < o.start_ns || (w.start_ns == o.start_ns && w.end_ns < o.end_ns))
            own = i;
    }
    if (own != SIZE_MAX) {
        sc_work o = sc_work_at(t, own);
        m->has_own = true;
        m->own_stream = o.stream_id;
        if (o.start_ns >= c->start_ns && o.start_ns < end)
            m->wait_point_ns = o.start_ns;
    }
    /* drained: the last of them by (end, start, position) */
    size_t last = SIZE_MAX;
    uint32_t streams[64];
    size_t n_streams = 0;
    for (size_t i = 0; i < n; i++) {
        sc_work w = sc_work_at(t, i);
        uint32_t tid;
        if (!in_scope(ctx, scope, &w) || w.end_ns <= c->start_ns || w.end_ns > m->wait_point_ns ||
            issue_of(ctx, &w, &tid) >= c->start_ns ||
            (c->correlation_id && w.correlation_id == c->correlation_id) ||
            (c->skip_own_stream && m->has_own && w.stream_id == m->own_stream))
            continue;
        m->n_drained++;
        if (tid && c->tid && tid != c->tid)
            m->other_thread = true;
        size_t k = 0;
        while (k < n_streams && streams[k] != w.stream_id)
            k++;
        if (k == n_streams)
            streams[n_streams++] = w.stream_id;
        sc_work l = last == SIZE_MAX ? w : sc_work_at(t, last);
        if (last == SIZE_MAX || later(&w, i, &l, last))
            last = i;
    }
    for (size_t a = 1; a < n_streams; a++)
        for (size_t b = a; b > 0 && streams[b - 1] > streams[b]; b--) {
            uint32_t x = streams[b];
            streams[b] = streams[b - 1];
            streams[b - 1] = x;
        }
    m->n_streams = n_streams;
    for (size_t k = 0; k < n_streams && k < SC_BLOCKING_MAX_STREAMS; k++)
        m->streams[k] = streams[k];
    if (last != SIZE_MAX) {
        sc_work l = sc_work_at(t, last);
        m->drained_end_ns = l.end_ns;
        m->last_stream = l.stream_id;
        m->last_work = last;
        issue_of(ctx, &l, &m->last_tid);
    }
    uint64_t tol = (uint64_t)(SC_BLOCKING_TOL_SHARE * (double)m->blocked_ns);
    if (tol < SC_BLOCKING_TOL_NS)
        tol = SC_BLOCKING_TOL_NS;
    if (c->call_class < SC_CALL_CLASS_COUNT && !m->has_own)
        tol += ctx->blocking->own_ns[c->call_class];
    m->explained = m->n_drained > 0 && m->wait_point_ns - m->drained_end_ns <= tol;
    m->idle_ns = uncovered(cover[scope], c->start_ns, end);
    /* the next busy time at or after the return, and the scope's last end */
    uint64_t next = UINT64_MAX, last_end = 0;
    bool busy_at_end = false;
    for (size_t i = 0; i < n; i++) {
        sc_work w = sc_work_at(t, i);
        if (!in_scope(ctx, scope, &w) || w.end_ns <= w.start_ns)
            continue;
        last_end = w.end_ns > last_end ? w.end_ns : last_end;
        if (w.end_ns > end) {
            busy_at_end |= w.start_ns <= end;
            next = w.start_ns < next ? w.start_ns : next;
        }
    }
    m->followed = next != UINT64_MAX;
    uint64_t lost;
    if (m->followed) {
        if (!busy_at_end) {
            m->starve_ns = next - end;
            for (size_t i = 0; i < n; i++) {
                sc_work w = sc_work_at(t, i);
                uint32_t tid;
                if (in_scope(ctx, scope, &w) && w.start_ns == next &&
                    issue_of(ctx, &w, &tid) < end)
                    m->starve_ns = 0;
            }
        }
        lost = m->idle_ns + m->starve_ns;
    } else {
        lost = last_end > c->start_ns ? uncovered(cover[scope], c->start_ns, last_end) : 0;
    }
    m->cost_ns = lost < m->blocked_ns ? lost : m->blocked_ns;
}

static void check_blocking(const sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    uint64_t own_ns[SC_CALL_CLASS_COUNT];
    ref_own_ns(ctx, own_ns);
    assert_memory_equal(own_ns, ctx->blocking->own_ns, sizeof own_ns);
    uint8_t *cover[8];
    for (size_t d = 0; d <= ctx->analysis->n_devices; d++)
        cover[d] = cover_of(ctx, d);
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *call = &t->calls[i];
        for (int skip = 0; skip < 2; skip++) {
            sc_blocking_call q = {.start_ns = call->rec.start_ns, .end_ns = sc_call_end(t, call),
                                  .tid = sc_call_tid(t, call),
                                  .call_class = sc_call_class_id(t, call),
                                  .context_id = sc_call_context(t, call),
                                  .correlation_id = call->rec.correlation_id,
                                  .skip_own_stream = skip};
            sc_blocking got, ref;
            sc_blocking_measure(ctx->blocking, &q, &got);
            ref_measure(ctx, &q, cover, &ref);
            assert_int_equal(got.has_own, ref.has_own);
            assert_int_equal(got.own_stream, ref.own_stream);
            assert_int_equal(got.wait_point_ns, ref.wait_point_ns);
            assert_int_equal(got.n_drained, ref.n_drained);
            assert_int_equal(got.n_streams, ref.n_streams);
            assert_memory_equal(got.streams, ref.streams, sizeof got.streams);
            assert_int_equal(got.drained_end_ns, ref.drained_end_ns);
            if (got.n_drained) {
                assert_int_equal(got.last_stream, ref.last_stream);
                assert_int_equal(got.last_work, ref.last_work);
                assert_int_equal(got.last_tid, ref.last_tid);
            }
            assert_int_equal(got.other_thread, ref.other_thread);
            assert_int_equal(got.explained, ref.explained);
            assert_int_equal(got.followed, ref.followed);
            assert_int_equal(got.idle_ns, ref.idle_ns);
            assert_int_equal(got.starve_ns, ref.starve_ns);
            assert_int_equal(got.cost_ns, ref.cost_ns);
        }
    }
    for (size_t d = 0; d <= ctx->analysis->n_devices; d++)
        free(cover[d]);
}

/* ---- the cases ------------------------------------------------------------------------- */

/* blocking: the blocking measure too, whose reference counts whole microseconds (the serial
 * builds' times are not). */
enum { SORTED, UNSORTED, UNSORTED_LATE };

static void check_indexes(syn *s, int order, bool blocking)
{
    if (order == SORTED)
        syn_finish(s);
    else if (order == UNSORTED)
        unsort(s);
    else
        unsort_late(s);
    sc_analysis a = {0};
    a.trace = &s->t;
    sc_ctx ctx = {.trace = &s->t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    check_orders(&ctx);
    check_device_sweep(&ctx);
    check_stream_metrics(&ctx);
    check_launches(&ctx);
    if (blocking)
        check_blocking(&ctx);
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
}

static void check_all(syn *s, bool sorted)
{
    check_indexes(s, sorted ? SORTED : UNSORTED, true);
}

static void test_one_device(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        syn s;
        build(&s, seed, 40 + 20 * seed, 1);
        check_all(&s, true);
        syn_free(&s);
    }
}

static void test_devices(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 110; seed++) {
        syn s;
        build(&s, seed, 200, 2 + (uint32_t)(seed % 2));
        check_all(&s, true);
        syn_free(&s);
    }
}

/* Streams whose work runs one piece after another, as a device runs it (their metrics taken
 * at each start), and now and then one whose work overlaps (taken by a count sweep). */
static void test_serial_streams(void **state)
{
    (void)state;
    for (uint64_t seed = 300; seed < 316; seed++) {
        syn s;
        build_serial(&s, seed, 60 + 15 * (seed % 8), 1 + (uint32_t)(seed % 3), true);
        check_indexes(&s, SORTED, false);
        syn_free(&s);
    }
}

static void test_out_of_order(void **state)
{
    (void)state;
    for (uint64_t seed = 200; seed < 206; seed++) {
        syn s;
        build(&s, seed, 150, 1 + (uint32_t)(seed % 2));
        check_all(&s, false);
        syn_free(&s);
    }
}

static void test_out_of_order_late(void **state)
{
    (void)state;
    for (uint64_t seed = 210; seed < 216; seed++) {
        syn s;
        build(&s, seed, 150, 1 + (uint32_t)(seed % 2));
        late_list = (int)(seed % 3);
        check_indexes(&s, UNSORTED_LATE, true);
        syn_free(&s);
    }
}

static void test_empty(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_DEVICE_SYNC, US(1), US(2), 1, "cudaDeviceSynchronize", NULL, 0);
    check_all(&s, true);
    syn_free(&s);
}

/* A call is in flight when any work of its device issued before it ends after it, not only the
 * piece that ends first after it: here that piece was issued after the call, while a long
 * kernel issued before it runs on. */
static void test_own_time_in_flight(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(1), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 7, US(2), US(1000), 1);
    syn_call(&s, SC_CALL_MALLOC, US(505), US(506), 2, "cudaMalloc", NULL, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(506), US(507), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, 8, US(507), US(515), 3);
    for (uint32_t i = 0; i < 3; i++)    /* after the kernels: nothing in flight */
        syn_call(&s, SC_CALL_MALLOC, US(2000 + 100 * i), US(2010 + 100 * i), 4 + i,
                 "cudaMalloc", NULL, 0);
    syn_finish(&s);
    sc_analysis a = {0};
    a.trace = &s.t;
    sc_ctx ctx = {.trace = &s.t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    assert_int_equal(ctx.blocking->own_ns[SC_CALL_MALLOC], US(10));
    check_blocking(&ctx);
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* work.h's accessors, each against the positions' definition written out here: kernels
 * first, then copies, then memsets, each in trace order, an end before its start read as the
 * start. Random traces of all three kinds (and of one kind only, where a bound is 0), broken
 * ends among them. */
static void check_positions(const sc_trace *t)
{
    const sc_work_records v = sc_work_records_of(t);
    size_t n = sc_work_count(t);
    assert_int_equal(n, t->n_kernels + t->n_copies + t->n_memsets);
    for (size_t i = 0; i < n; i++) {
        uint8_t kind;
        size_t index;
        uint64_t start, end;
        uint32_t stream, corr;
        if (i < t->n_kernels) {
            kind = SC_WORK_KERNEL, index = i;
            start = t->kernels[i].rec.start_ns, end = t->kernels[i].rec.end_ns;
            stream = t->kernel_shapes[t->kernels[i].rec.shape].stream_id;
            corr = t->kernels[i].rec.correlation_id;
        } else if (i < t->n_kernels + t->n_copies) {
            kind = SC_WORK_MEMCPY, index = i - t->n_kernels;
            start = t->copies[index].start_ns, end = t->copies[index].end_ns;
            stream = sc_copy_stream(t, &t->copies[index]);
            corr = t->copies[index].correlation_id;
        } else {
            kind = SC_WORK_MEMSET, index = i - t->n_kernels - t->n_copies;
            start = t->memsets[index].start_ns, end = t->memsets[index].end_ns;
            stream = sc_memset_stream(t, &t->memsets[index]);
            corr = t->memsets[index].correlation_id;
        }
        if (end < start)
            end = start;
        sc_work_ref ref = sc_work_ref_in(&v, i), at_ref = sc_work_ref_at(t, i);
        assert_int_equal(ref.kind, kind);
        assert_int_equal(ref.index, index);
        assert_int_equal(at_ref.kind, kind);
        assert_int_equal(at_ref.index, index);
        sc_work w = sc_work_at(t, i);
        assert_int_equal(w.kind, kind);
        assert_int_equal(w.index, index);
        assert_int_equal(w.start_ns, start);
        assert_int_equal(w.end_ns, end);
        assert_int_equal(w.stream_id, stream);
        assert_int_equal(w.correlation_id, corr);
        uint64_t s, e;
        sc_work_records_times(&v, i, &s, &e);
        assert_int_equal(s, start);
        assert_int_equal(e, end);
        assert_int_equal(sc_work_records_start(&v, i), start);
        assert_int_equal(sc_work_start_at(t, i), start);
        assert_int_equal(sc_work_end_at(t, i), end);
        sc_work_span_at(t, i, &s, &e);
        assert_int_equal(s, start);
        assert_int_equal(e, end);
        assert_int_equal(sc_work_stream_at(t, i), stream);
    }
}

static void test_positions(void **state)
{
    (void)state;
    size_t broken = 0;
    for (uint64_t seed = 400; seed < 410; seed++) {
        syn s;
        build(&s, seed, 80 + 10 * seed % 7, 1 + (uint32_t)(seed % 2));
        syn_finish(&s);
        assert_true(s.t.n_kernels > 0 && s.t.n_copies > 0 && s.t.n_memsets > 0);
        for (size_t i = 0; i < s.t.n_kernels; i++)
            broken += s.t.kernels[i].rec.end_ns < s.t.kernels[i].rec.start_ns;
        for (size_t i = 0; i < s.t.n_copies; i++)
            broken += s.t.copies[i].end_ns < s.t.copies[i].start_ns;
        for (size_t i = 0; i < s.t.n_memsets; i++)
            broken += s.t.memsets[i].end_ns < s.t.memsets[i].start_ns;
        check_positions(&s.t);
        size_t n_copies = s.t.n_copies, n_memsets = s.t.n_memsets;
        s.t.n_copies = 0;               /* kernels, then memsets */
        check_positions(&s.t);
        s.t.n_copies = n_copies;
        s.t.n_memsets = 0;              /* kernels and copies only */
        check_positions(&s.t);
        s.t.n_memsets = n_memsets;
        syn_free(&s);
    }
    assert_true(broken > 0);        /* the clamp was tried */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_device),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_serial_streams),
        cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_out_of_order_late),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_own_time_in_flight),
        cmocka_unit_test(test_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
