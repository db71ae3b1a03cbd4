/* The shared context of one analysis (internal.h): built once, before the rules run (run
 * span, correlation index, device overlap, solo durations, stream summaries, event edges,
 * managed memory per kernel), and the lookups the rules make in it. The rules and the
 * replay read it; none of them calls back into analyze.c, which only runs them. */
#include "analyze/internal.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/blocking.h"
#include "analyze/comm.h"
#include "analyze/copy_rates.h"
#include "analyze/fork_join.h"
#include "analyze/launches.h"
#include "analyze/occupancy.h"
#include "analyze/overlap.h"
#include "analyze/polls.h"
#include "analyze/solo.h"
#include "analyze/stage_clock.h"
#include "analyze/stream_kind.h"
#include "analyze/streams.h"
#include "analyze/unified.h"
#include "analyze/work.h"
#include "analyze/work_order.h"
#include "trace/sort.h"

/* ---- context lookups ---------------------------------------------------------------- */

const sc_api_call *sc_ctx_call_sorted(const sc_ctx *ctx, uint32_t correlation_id)
{
    size_t lo = 0, hi = ctx->n_corr;
    while (lo < hi) {   /* first entry with this id: the runtime call when there is one */
        size_t mid = lo + (hi - lo) / 2;
        if (ctx->corr[mid].correlation_id < correlation_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ctx->n_corr && ctx->corr[lo].correlation_id == correlation_id)
        return &ctx->trace->calls[ctx->corr[lo].call];
    return NULL;
}

const sc_api_call *sc_ctx_site(const sc_ctx *ctx, const sc_api_call *call)
{
    if (!call || sc_call_n_frames(ctx->trace, call))
        return call;
    uint32_t shared;
    uint8_t flags = sc_call_flags(ctx->trace, call);
    if (flags & SC_API_STACK_SHARED)
        shared = (uint32_t)sc_call_aux(ctx->trace, call);
    else if (flags & SC_API_STACK_SHARED_AUX2)
        shared = sc_call_aux2(ctx->trace, call);    /* aux holds the event or the graph
                                                       (format 1.1) */
    else
        return call;
    const sc_api_call *sampled = sc_ctx_call(ctx, shared);
    return sampled && sc_call_n_frames(ctx->trace, sampled) ? sampled : call;
}

const sc_stream_summary *sc_ctx_stream(const sc_ctx *ctx, uint32_t device, uint32_t context_id,
                                       uint32_t stream_id)
{
    return sc_streams_find(ctx->analysis->streams, ctx->analysis->n_streams, device, context_id,
                           stream_id);
}

const sc_stream_summary *sc_ctx_call_stream(const sc_ctx *ctx, const sc_api_call *call)
{
    const sc_analysis *a = ctx->analysis;
    uint64_t handle = sc_call_stream_handle(ctx->trace, call);
    if (handle == SC_STREAM_NONE)
        return NULL;
    uint32_t context_id = sc_call_context(ctx->trace, call);
    const sc_stream_summary *any = NULL;   /* a stream of the call's context: its device */
    for (size_t k = 0; k < a->n_streams && !any; k++)
        if (a->streams[k].context_id == context_id)
            any = &a->streams[k];
    if (!any)
        return NULL;
    uint32_t sid;
    if (sc_deps_stream_of(&ctx->deps, call, &sid))
        return sc_ctx_stream(ctx, any->device, context_id, sid);
    if (handle == 0 && !(sc_call_flags(ctx->trace, call) & SC_API_PER_THREAD))
        for (size_t k = 0; k < a->n_streams; k++)
            if (a->streams[k].device == any->device &&
                a->streams[k].context_id == context_id &&
                sc_stream_is_legacy(&a->streams[k]))
                return &a->streams[k];
    return NULL;
}

const sc_device *sc_ctx_device_info(const sc_ctx *ctx, uint32_t device)
{
    for (size_t i = 0; i < ctx->analysis->n_devices; i++)
        if (ctx->analysis->devices[i].device == device)
            return ctx->analysis->devices[i].info;
    return NULL;
}

/* Kernels of a shape fill their device or not alike: a shape holds the launch and the
 * device it ran on, all the occupancy arithmetic reads. */
static bool sc_shape_full_now(const sc_ctx *ctx, const sc_kernel_shape *shape, sc_occupancy *o)
{
    const sc_device *dev = sc_ctx_device_info(ctx, shape->device);
    return dev && sc_occupancy_compute(&dev->rec, shape, o) && sc_occupancy_full(o);
}

bool sc_ctx_kernel_full_occ(const sc_ctx *ctx, size_t kernel, sc_occupancy *occ)
{
    /* whether it is full was worked out once per shape (sc_ctx_build); the arithmetic again
     * only for a full kernel whose caller asks for it */
    uint32_t shape = ctx->trace->kernels[kernel].rec.shape;
    if (ctx->kernel_full && !ctx->kernel_full[shape])
        return false;
    if (ctx->kernel_full && !occ)
        return true;
    sc_occupancy local;
    return sc_shape_full_now(ctx, &ctx->trace->kernel_shapes[shape], occ ? occ : &local);
}

const sc_busy_list *sc_ctx_busy(const sc_ctx *ctx, uint32_t device)
{
    for (size_t i = 0; i < ctx->analysis->n_devices; i++)
        if (ctx->analysis->devices[i].device == device)
            return &ctx->busy[i];
    return NULL;
}

/* ---- building the context ----------------------------------------------------------- */

/* Widens [*lo, *hi] to a record's start and its end (clamped to the start): no "any record
 * yet" test per record, the bounds start empty and an empty run is 0, 0. */
static inline void sc_span_extend(uint64_t start, uint64_t end, uint64_t *lo, uint64_t *hi)
{
    end = end < start ? start : end;
    *lo = start < *lo ? start : *lo;
    *hi = end > *hi ? end : *hi;
}

/* First to last call, device work or NVTX range: what a finding's share is measured
 * against. */
static void sc_run_span(const sc_trace *t, sc_analysis *a)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < t->n_calls; i++)
        sc_span_extend(t->calls[i].rec.start_ns, sc_call_end(t, &t->calls[i]), &lo, &hi);
    for (size_t i = 0; i < t->n_kernels; i++)
        sc_span_extend(t->kernels[i].rec.start_ns, t->kernels[i].rec.end_ns, &lo, &hi);
    for (size_t i = 0; i < t->n_copies; i++)
        sc_span_extend(t->copies[i].start_ns, t->copies[i].end_ns, &lo, &hi);
    for (size_t i = 0; i < t->n_memsets; i++)
        sc_span_extend(t->memsets[i].start_ns, t->memsets[i].end_ns, &lo, &hi);
    /* SYNC records are left out: each lies inside the call that synchronized, and the one
     * without a call is streamcheck's own at exit, which is not the program's time. */
    for (size_t i = 0; i < t->n_ranges; i++)
        sc_span_extend(t->ranges[i].rec.start_ns, t->ranges[i].rec.end_ns, &lo, &hi);
    bool any = t->n_calls || t->n_kernels || t->n_copies || t->n_memsets || t->n_ranges;
    a->run_start_ns = any ? lo : 0;
    a->run_end_ns = any ? hi : 0;
}

static int sc_corr_cmp(const void *pa, const void *pb)
{
    const sc_corr_entry *x = pa, *y = pb;
    if (x->correlation_id != y->correlation_id)
        return x->correlation_id < y->correlation_id ? -1 : 1;
    if (x->driver != y->driver)
        return x->driver < y->driver ? -1 : 1;
    return x->call < y->call ? -1 : x->call > y->call;
}

/* The direct table behind sc_ctx_call, when the ids are dense enough that it takes at most
 * two slots per call (4 bytes each), filled in one pass over the calls: for each id the
 * entry the sorted list would put first (runtime before driver, then trace order), without
 * the list. Returns 1 when built, 0 when the ids are too sparse, -1 without memory. */
static int sc_corr_table(sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    size_t n = 0;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        uint32_t id = t->calls[i].rec.correlation_id;
        if (id == 0)
            continue;
        n++;
        lo = id < lo ? id : lo;
        hi = id > hi ? id : hi;
    }
    if (n == 0 || n >= UINT32_MAX)
        return 0;
    size_t span = (size_t)(hi - lo) + 1;
    if (span > 2 * n + 1024)
        return 0;
    uint32_t *first = malloc(span * sizeof *first);
    if (!first)
        return -1;
    memset(first, 0xff, span * sizeof *first);
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_call_rec *r = &t->calls[i].rec;
        if (r->correlation_id == 0)
            continue;
        uint32_t *slot = &first[r->correlation_id - lo];
        if (*slot == UINT32_MAX) {
            *slot = (uint32_t)i;
            continue;
        }
        bool replaces = (sc_call_flags(t, &t->calls[*slot]) & SC_API_DRIVER) &&
                        !(sc_call_flags(t, &t->calls[i]) & SC_API_DRIVER);
        if (!ctx->corr_loser && !(ctx->corr_loser = calloc(t->n_calls / 8 + 1, 1))) {
            free(first);
            return -1;
        }
        uint32_t loser = replaces ? *slot : (uint32_t)i;
        ctx->corr_loser[loser >> 3] |= (uint8_t)(1u << (loser & 7));
        if (replaces)
            *slot = (uint32_t)i;
    }
    ctx->corr_first = first;
    ctx->corr_min = lo;
    ctx->corr_span = span;
    return 1;
}

/* Shared by every rule: a runtime call and the driver call inside it can carry the same
 * correlation id, and the runtime one is where the user's code called. A table by id when
 * the ids are dense (sc_corr_table); else the calls sorted by id once. */
static int sc_corr_build(sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    if (t->n_calls > UINT32_MAX)    /* sc_corr_entry.call and the table hold 32 bits */
        return -1;
    int table = sc_corr_table(ctx);
    if (table != 0)
        return table < 0 ? -1 : 0;
    ctx->corr = malloc((t->n_calls ? t->n_calls : 1) * sizeof(*ctx->corr));
    if (!ctx->corr)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_call_rec *r = &t->calls[i].rec;
        if (r->correlation_id != 0)
            ctx->corr[n++] = (sc_corr_entry){r->correlation_id,
                                             (sc_call_flags(t, &t->calls[i]) & SC_API_DRIVER)
                                                 ? 1u : 0u,
                                             (uint32_t)i};
    }
    sc_sort(ctx->corr, n, sizeof(*ctx->corr), sc_corr_cmp);
    ctx->n_corr = n;
    return 0;
}

static int sc_u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* Every device ordinal that has a device record or ran work, ascending. */
static int sc_devices_collect(const sc_trace *t, sc_analysis *a)
{
    size_t n = t->n_devices + t->n_kernels + t->n_copies + t->n_memsets, k = 0;
    uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));
    if (!ids)
        return -1;
    /* A repeat of the id just taken is left out: a million kernels on one device give one
     * entry to sort, not a million (the sort and the check below drop the other repeats). */
#define SC_TAKE_DEVICE(id) do { if (k == 0 || ids[k - 1] != (id)) ids[k++] = (id); } while (0)
    for (size_t i = 0; i < t->n_devices; i++)
        SC_TAKE_DEVICE(t->devices[i].rec.device);
    for (size_t i = 0; i < t->n_kernels; i++)
        SC_TAKE_DEVICE(sc_kernel_device(t, &t->kernels[i]));
    for (size_t i = 0; i < t->n_copies; i++)
        SC_TAKE_DEVICE(sc_copy_device(t, &t->copies[i]));
    for (size_t i = 0; i < t->n_memsets; i++)
        SC_TAKE_DEVICE(sc_memset_device(t, &t->memsets[i]));
#undef SC_TAKE_DEVICE
    sc_sort(ids, k, sizeof(*ids), sc_u32_cmp);
    a->devices = calloc(k ? k : 1, sizeof(*a->devices));
    if (!a->devices) {
        free(ids);
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        if (i > 0 && ids[i] == ids[i - 1])
            continue;
        sc_device_summary *d = &a->devices[a->n_devices++];
        d->device = ids[i];
        for (size_t j = 0; j < t->n_devices && !d->info; j++)
            if (t->devices[j].rec.device == ids[i])
                d->info = &t->devices[j];   /* the first record of the ordinal */
    }
    free(ids);
    return 0;
}

/* Per kernel shape: its kernels are collectives (sc_kernel_is_comm), worked out once per
 * shape (a few hundred) instead of from the name per kernel, at each pass that asks. NULL
 * without memory. */
static bool *sc_shapes_comm(const sc_trace *t)
{
    bool *comm = malloc(t->n_kernel_shapes ? t->n_kernel_shapes : 1);
    for (size_t i = 0; comm && i < t->n_kernel_shapes; i++)
        comm[i] = sc_kernel_is_comm(t->kernel_shapes[i].name);
    return comm;
}

/* Device overlap metrics, intervals and busy lists; marks which kernels overlapped another
 * and the most kernels that ran beside each, straight into the per-kernel arrays (zeroed);
 * each stream's metrics into st. Each device's work is swept in the shared order
 * (work_order.h), its streams' with it: no spans copied out of the trace, no points sorted
 * per device or per stream. */
static int sc_devices_overlap(sc_ctx *ctx, sc_analysis *a, const bool *shape_comm,
                              bool *overlapped, uint32_t *peak, sc_overlap_streams *st)
{
    ctx->busy = calloc(a->n_devices ? a->n_devices : 1, sizeof(*ctx->busy));
    int rc = ctx->busy ? 0 : -1;
    for (size_t d = 0; rc == 0 && d < a->n_devices; d++) {
        sc_device_summary *dev = &a->devices[d];
        const sc_work_view *v = sc_work_order_device(ctx->order, d);
        sc_overlap_work in = {ctx->trace, v->by_start, v->by_end, v->n, shape_comm,
                              dev->device, st};
        sc_overlap_output out = {.metrics = &dev->overlap, .max_intervals = SC_MAX_INTERVALS,
                                 .busy = &ctx->busy[d], .overlapped = overlapped,
                                 .peak = peak};
        rc = sc_overlap_compute_work(&in, &out);
        dev->intervals = out.intervals;
        dev->n_intervals = out.n_intervals;
        dev->n_intervals_total = out.n_intervals_total;
    }
    sc_overlap_streams_end(st);
    return rc;
}

/* The kernels' solo durations, and their sums per device (the collectives left out) and per
 * stream (every kernel), gathered in one pass: a kernel's device entry (or "collective, left
 * out": SIZE_MAX) is looked up once per shape, its stream is its slot. The streams' sums go
 * to sc_streams_set_overlap with their metrics. */
static int sc_solo_fill(sc_ctx *ctx, sc_analysis *a, const bool *shape_comm,
                        const bool *overlapped, const uint32_t *peak,
                        const sc_stream_slots *slots, uint64_t *stream_sum)
{
    const sc_trace *t = ctx->trace;
    size_t n = t->n_kernels ? t->n_kernels : 1;
    ctx->kernel_solo = calloc(n, 1);
    ctx->shape_solo_median = calloc(t->n_kernel_shapes ? t->n_kernel_shapes : 1,
                                    sizeof *ctx->shape_solo_median);
    /* the durations themselves only for the sums below: 8 bytes a kernel, not kept (the
     * context's byte and its shape's median tell them again) */
    uint64_t *solo_ns = calloc(n, sizeof *solo_ns);
    if (!ctx->kernel_solo || !ctx->shape_solo_median || !solo_ns ||
        sc_solo_compute(t, overlapped, peak, ctx->kernel_solo, solo_ns,
                        ctx->shape_solo_median) != 0) {
        free(solo_ns);
        return -1;
    }
    size_t *dev = malloc((t->n_kernel_shapes ? t->n_kernel_shapes : 1) * sizeof *dev);
    uint64_t *sum = calloc(2 * (a->n_devices ? a->n_devices : 1), sizeof *sum);
    if (!dev || !sum) {
        free(solo_ns);
        free(dev);
        free(sum);
        return -1;
    }
    uint64_t *known = sum + a->n_devices, *stream_known = stream_sum + a->n_streams;
    for (size_t i = 0; i < t->n_kernel_shapes; i++)
        dev[i] = shape_comm[i] ? SIZE_MAX : sc_device_index(a, t->kernel_shapes[i].device);
    for (size_t k = 0; k < t->n_kernels; k++) {
        uint64_t ns = solo_ns[k], kn = ctx->kernel_solo[k] & SC_SOLO_KNOWN;
        size_t slot = slots->slot8 ? slots->slot8[k] : slots->slot32[k];
        stream_sum[slot] += ns;
        stream_known[slot] += kn;
        size_t d = dev[t->kernels[k].rec.shape];
        if (d == SIZE_MAX)
            continue;
        sum[d] += ns;
        known[d] += kn;
    }
    for (size_t d = 0; d < a->n_devices; d++)
        sc_overlap_set_solo(&a->devices[d].overlap, sum[d], known[d]);
    free(solo_ns);
    free(dev);
    free(sum);
    return 0;
}

/* The streams, the devices' and the streams' overlap (one sweep per device), the kernels'
 * solo durations and the devices' and streams' solo sums; the work's stream slots kept for
 * the launches (ctx->work_slot) when they are a byte each. */
static int sc_ctx_overlaps(sc_ctx *ctx, sc_analysis *a, const bool *shape_comm,
                           bool *overlapped, uint32_t *peak)
{
    sc_stream_slots slots;
    if (sc_streams_build(ctx, &a->streams, &a->n_streams, &slots) != 0)
        return -1;
    sc_overlap_streams st;
    /* per stream its kernels' solo sum, then their known count */
    uint64_t *stream_sum = calloc(2 * (a->n_streams ? a->n_streams : 1), sizeof *stream_sum);
    int rc = stream_sum ? sc_overlap_streams_begin(&st, slots.slot8, slots.slot32, a->n_streams)
                        : -1;
    if (rc == 0 && sc_devices_overlap(ctx, a, shape_comm, overlapped, peak, &st) == 0 &&
        sc_solo_fill(ctx, a, shape_comm, overlapped, peak, &slots, stream_sum) == 0)
        sc_streams_set_overlap(a->streams, a->n_streams, st.metrics, stream_sum,
                               stream_sum + a->n_streams);
    else
        rc = -1;
    if (stream_sum)
        sc_overlap_streams_free(&st);
    free(stream_sum);
    free(slots.slot32);
    ctx->work_slot = slots.slot8;
    return rc;
}

/* Per kernel shape, whether its kernels fill their device (sc_shape_full_now), worked out
 * once per shape: millions of kernels share a few hundred shapes, and a byte per shape is
 * kept where one per kernel was. NULL without memory. */
static uint8_t *sc_kernels_full(const sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    uint8_t *full = malloc(t->n_kernel_shapes ? t->n_kernel_shapes : 1);
    for (size_t i = 0; full && i < t->n_kernel_shapes; i++) {
        sc_occupancy o;
        full[i] = sc_shape_full_now(ctx, &t->kernel_shapes[i], &o);
    }
    return full;
}

/* What the parts of the context's indexes read and fill (sc_ctx_build_indexes). */
typedef struct sc_index_parts {
    sc_ctx *ctx;
    sc_analysis *a;
    const bool *shape_comm;
    bool *overlapped;
    uint32_t *peak;
} sc_index_parts;

static int sc_part_overlaps(void *arg)
{
    sc_index_parts *p = arg;
    if (sc_ctx_overlaps(p->ctx, p->a, p->shape_comm, p->overlapped, p->peak) != 0)
        return -1;
    sc_stage_mark("context: overlaps");
    return 0;
}

static int sc_part_deps(void *arg)
{
    sc_ctx *ctx = ((sc_index_parts *)arg)->ctx;
    if (sc_deps_build_ordered(ctx, ctx->order, &ctx->deps) != 0)
        return -1;
    sc_stage_mark("context: dependencies");
    return 0;
}

static int sc_part_launches(void *arg)
{
    sc_ctx *ctx = ((sc_index_parts *)arg)->ctx;
    if ((ctx->unified = malloc(sizeof *ctx->unified)) == NULL ||
        sc_unified_measure(ctx, ctx->unified) != 0 ||
        sc_launches_build(ctx, &ctx->launches) != 0)
        return -1;
    sc_stage_mark("context: launches");
    return 0;
}

static int sc_part_blocking(void *arg)
{
    sc_ctx *ctx = ((sc_index_parts *)arg)->ctx;
    if ((ctx->blocking = calloc(1, sizeof *ctx->blocking)) == NULL ||
        sc_blocking_index_build(ctx, ctx->order, ctx->blocking) != 0)
        return -1;
    sc_stage_mark("context: blocking index");
    if (sc_polls_find(ctx, &ctx->polls, &ctx->n_polls) != 0)
        return -1;
    sc_stage_mark("context: polls");
    return 0;
}

/* The indexes the rules share, each after the ones it reads (a stage each: stage_clock.h),
 * two at a time where neither reads what the other writes (fork_join.h): the event edges
 * read the work order and the calls alone, beside the overlaps, which make the streams and
 * the work's stream slots; then the launches (which read the slots, given back after them:
 * nothing else does) beside the blocking index and the polling loops, which read it. */
static int sc_ctx_build_indexes(sc_ctx *ctx, sc_analysis *a, const bool *shape_comm,
                                bool *overlapped, uint32_t *peak)
{
    if (!overlapped || !peak || (ctx->order = calloc(1, sizeof *ctx->order)) == NULL ||
        sc_work_order_build(ctx, ctx->order) != 0)
        return -1;
    sc_stage_mark("context: work order");
    sc_index_parts p = {ctx, a, shape_comm, overlapped, peak};
    bool two = ctx->two_threads;
    if (sc_fork_join(two, (sc_part){sc_part_overlaps, &p}, (sc_part){sc_part_deps, &p}) != 0)
        return -1;
    int rc = sc_fork_join(two, (sc_part){sc_part_launches, &p}, (sc_part){sc_part_blocking, &p});
    free(ctx->work_slot);
    ctx->work_slot = NULL;
    return rc;
}

int sc_ctx_build(sc_ctx *ctx, sc_analysis *a)
{
    const sc_trace *t = ctx->trace;
    sc_run_span(t, a);
    ctx->run_span_ns = a->run_end_ns - a->run_start_ns;
    /* Recorded inside a capture scope: findings' shares are of the time it was open (the
     * windows, not the gaps between them), never of more than first to last event. */
    uint64_t scope_ns = t->has_scope ? sc_trace_scope_ns(t) : 0;
    if (scope_ns && scope_ns < ctx->run_span_ns)
        ctx->run_span_ns = scope_ns;
    bool *shape_comm = sc_shapes_comm(t);
    if (!shape_comm || sc_corr_build(ctx) != 0 || sc_devices_collect(t, a) != 0 ||
        sc_comm_measure(t, shape_comm, a) != 0 || sc_copy_rates_measure(t, a) != 0 ||
        sc_pinned_rate_measure(t, &ctx->pinned_rate) != 0 ||
        (ctx->kernel_full = sc_kernels_full(ctx)) == NULL) {
        free(shape_comm);
        return -1;
    }
    sc_stage_mark("context: ids, devices");
    bool *overlapped = calloc(t->n_kernels ? t->n_kernels : 1, sizeof(bool));
    uint32_t *peak = calloc(t->n_kernels ? t->n_kernels : 1, sizeof(uint32_t));
    int rc = sc_ctx_build_indexes(ctx, a, shape_comm, overlapped, peak);
    free(shape_comm);
    free(overlapped);
    free(peak);
    return rc;
}

static void sc_ctx_free_busy(sc_ctx *ctx)
{
    if (ctx->busy)
        for (size_t d = 0; d < ctx->analysis->n_devices; d++)
            sc_busy_free(&ctx->busy[d]);
    free(ctx->busy);
    ctx->busy = NULL;
}

void sc_ctx_free_rule_indexes(sc_ctx *ctx)
{
    free(ctx->launches);
    ctx->launches = NULL;
    sc_ctx_free_busy(ctx);
}

void sc_ctx_free_edge_inputs(sc_ctx *ctx)
{
    sc_deps_free_edges(&ctx->deps);
    free(ctx->polls);
    ctx->polls = NULL;
    ctx->n_polls = 0;
    free(ctx->kernel_full);
    ctx->kernel_full = NULL;
}

void sc_ctx_work_calls_instead(sc_ctx *ctx)
{
    /* The replay's host items made the last lookup of a call by id; its work, then the
     * ranges, built after the replay's passes, read each piece of work's call in its place.
     * work_call (4 bytes a piece) and the calls the table does not name (corr_loser) tell
     * them all they asked the table (4 bytes an id): kept instead of it from the replay's
     * work on, the run's peak, unless the pieces outnumber the table's ids (a graph launch's
     * one id can stand for many pieces of work). Without room for them the table stays. */
    const sc_trace *t = ctx->trace;
    if (!ctx->corr_first || ctx->work_call)
        return;
    size_t n_work = sc_work_count(t);
    if (n_work > ctx->corr_span)
        return;
    uint32_t *wc = malloc((n_work + 1) * sizeof *wc);
    if (!wc)
        return;
    size_t j = 0;
    for (size_t i = 0; i < t->n_kernels; i++)
        wc[j++] = sc_ctx_call_at(ctx, t->kernels[i].rec.correlation_id);
    for (size_t i = 0; i < t->n_copies; i++)
        wc[j++] = sc_ctx_call_at(ctx, t->copies[i].correlation_id);
    for (size_t i = 0; i < t->n_memsets; i++)
        wc[j++] = sc_ctx_call_at(ctx, t->memsets[i].correlation_id);
    ctx->work_call = wc;
    free(ctx->corr_first);
    ctx->corr_first = NULL;
}

void sc_ctx_free_work_calls_unread(sc_ctx *ctx)
{
    if (ctx->trace->n_ranges)
        return;     /* the ranges read them */
    free(ctx->work_call);
    ctx->work_call = NULL;
    free(ctx->corr_first);
    ctx->corr_first = NULL;
}

void sc_ctx_free_graph_inputs(sc_ctx *ctx)
{
    sc_deps_free(&ctx->deps);
}

void sc_ctx_free_blocking_index(sc_ctx *ctx)
{
    if (ctx->blocking)
        sc_blocking_index_free(ctx->blocking);
    free(ctx->blocking);
    ctx->blocking = NULL;
    if (ctx->order)
        sc_work_order_free(ctx->order);
    free(ctx->order);
    ctx->order = NULL;
}

void sc_ctx_free(sc_ctx *ctx)
{
    sc_ctx_free_busy(ctx);
    free(ctx->corr);
    free(ctx->corr_first);
    free(ctx->corr_loser);
    free(ctx->work_call);
    free(ctx->kernel_solo);
    free(ctx->shape_solo_median);
    sc_deps_free(&ctx->deps);
    if (ctx->unified)
        sc_unified_free(ctx->unified);
    free(ctx->unified);
    free(ctx->launches);
    free(ctx->work_slot);
    free(ctx->kernel_full);
    sc_ctx_free_blocking_index(ctx);
    free(ctx->polls);
}

