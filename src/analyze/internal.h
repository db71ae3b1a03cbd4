/* Shared state of one sc_analyze() run: what every rule may read.
 *
 * Built once by context.c before the rules run, read-only afterwards, so rules stay small
 * and never recompute an index of their own.
 */
#ifndef SC_ANALYZE_INTERNAL_H
#define SC_ANALYZE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/deps.h"
#include "analyze/pinned_rate.h"
#include "analyze/solo.h"
#include "streamcheck/analysis.h"

#define SC_NS_PER_US 1000.0

/* A closed-open time interval [start_ns, end_ns). */
typedef struct sc_ival {
    uint64_t start_ns, end_ns;
} sc_ival;

/* Merged, sorted, disjoint intervals: when a device ran at least one kernel. */
typedef struct sc_busy_list {
    sc_ival *ivals;
    size_t n, cap;
} sc_busy_list;

struct sc_unified;

/* Correlation id -> API call, sorted by (correlation id, driver-last, record order). */
typedef struct sc_corr_entry {
    uint32_t correlation_id;
    uint32_t driver;            /* 1 for driver-API calls: the runtime call names the site */
    uint32_t call;              /* index into trace->calls (sc_corr_build checks the count):
                                   12 bytes an entry, one entry per call */
} sc_corr_entry;

typedef struct sc_ctx {
    const sc_trace *trace;
    const sc_analysis *analysis;    /* devices and streams already filled */
    /* Each correlation id's call (the runtime call when there is one, else the driver call;
     * the first in trace order of those), by id - corr_min (UINT32_MAX: none). Writers
     * number calls 1, 2, 3, ...: a lookup per device record becomes one load. NULL when the
     * ids are too sparse for a table: then corr, sorted, and a binary search. */
    uint32_t *corr_first;
    sc_corr_entry *corr;
    size_t n_corr;
    uint32_t corr_min;              /* the least nonzero id (with the table): at least 1 */
    size_t corr_span;
    /* With the table: a bit per call, set for a call with an id that the table does not name
     * (a driver call under its runtime call, a later call of the same id), noted as the
     * table is filled. The table itself goes once the replay's host items have made the last
     * lookups by id (sc_ctx_work_calls_instead): the replay's work and the ranges then read
     * the call of each piece of work in work_call (kernels, then copies, then memsets:
     * UINT32_MAX for none), the ranges these bits too; sc_ctx_call answers nothing after
     * that. */
    uint8_t *corr_loser;
    uint32_t *work_call;
    sc_busy_list *busy;             /* per analysis->devices entry, same order */
    uint8_t *kernel_solo;           /* per trace->kernels entry: SC_SOLO_* bits (solo.h), read
                                       through sc_ctx_kernel_solo_ns / _known */
    uint64_t *shape_solo_median;    /* per trace->kernel_shapes entry: what a kernel of it
                                       that borrowed its solo duration took (solo.h) */
    uint64_t run_span_ns;
    sc_deps deps;                   /* event edges between streams (deps.h) */
    struct sc_unified *unified;     /* managed memory per kernel (unified.h) */
    uint8_t *kernel_full;           /* per trace->kernel_shapes entry: its kernels fill
                                       their device (sc_ctx_kernel_full), worked out once */
    struct sc_launch *launches;     /* per trace->kernels entry: what it found on its device
                                       when it was issued (launches.h) */
    uint8_t *work_slot;             /* per sc_work_at() position: its stream's index in
                                       analysis->streams (sc_streams_build), from the streams'
                                       build to the launches'; NULL: look it up */
    struct sc_work_order *order;    /* the device work in time order (work_order.h), read by
                                       the devices' overlap, the launches and the blocking
                                       index, and freed with the index */
    struct sc_blocking_index *blocking; /* what each call that blocked could have drained
                                       (blocking.h): host-sync, implicit-sync, the replay */
    struct sc_poll_loop *polls;     /* polling loops (polls.h): host-sync, the replay */
    size_t n_polls;
    sc_pinned_rate pinned_rate;     /* pinned copies' rate per direction (pinned_rate.h):
                                       pageable-async, managed memory, the replay */
    struct sc_kernel_names *kernel_names;   /* kernels as findings name them
                                               (kernel_names.h) */
    bool two_threads;               /* some parts built on a second thread (fork_join.h) */
    const struct sc_legacy_waits *legacy_waits; /* who waited for whom across the legacy
                                               stream (legacy_waits.h), measured once for
                                               the rules legacy-stream and blocking-stream */
} sc_ctx;

/* Builds the context of an analysis (filling a's run span, devices and streams); returns 0,
 * or -1 when out of memory. sc_ctx_free frees what it built, also after a failure. */
int sc_ctx_build(sc_ctx *ctx, sc_analysis *a);
void sc_ctx_free(sc_ctx *ctx);
/* Frees what only the rules read (launches, the devices' busy lists), once the last rule has
 * run and before the replay that prices the findings builds its graph: the peak is the
 * replay's. */
void sc_ctx_free_rule_indexes(sc_ctx *ctx);
/* Frees what the replay's graph is built from and nothing after reads: the event edges, the
 * polling loops and which kernels fill their device once its edges are (the host items and
 * the full grids were built before), ahead of the host waits, whose index was the build's
 * peak; the stream handles the waits and the lags read (sc_ctx_free_graph_inputs) once the
 * graph is built, before its passes touch their per-node times. (The event records go
 * sooner, as the replay's host items are made: sc_rp_event_records.) */
void sc_ctx_free_edge_inputs(sc_ctx *ctx);
void sc_ctx_free_graph_inputs(sc_ctx *ctx);
/* Once the replay's host items are made, the last lookups by correlation id: each piece of
 * work's call (work_call, kernels, then copies, then memsets; UINT32_MAX for none) instead of
 * the correlation table, which goes (unless the pieces outnumber its ids, or there is no
 * room): after it sc_ctx_call and sc_ctx_call_at answer nothing, and the replay's work and the
 * ranges read work_call. sc_ctx_free_work_calls_unread frees it (or the table) once the
 * replay's work has read it, where no ranges will. */
void sc_ctx_work_calls_instead(sc_ctx *ctx);
void sc_ctx_free_work_calls_unread(sc_ctx *ctx);
/* Frees the blocking index (blocking.h) and the shared order of the work it views
 * (work_order.h) once its last reader, the replay's host waits, has read it: the replay's
 * graph grows on after that. */
void sc_ctx_free_blocking_index(sc_ctx *ctx);

/* sc_ctx_call through the sorted list, for ids too sparse for the table (context.c). */
const sc_api_call *sc_ctx_call_sorted(const sc_ctx *ctx, uint32_t correlation_id);

/* The API call that issued the activity with this correlation id, or NULL. Inline: the
 * context's build and the rules ask it once or more per device record, and with the table
 * (the usual trace) it is a load or two. Not to be asked after sc_ctx_work_calls_instead:
 * the table may be gone then, and then it answers NULL (the replay's work and the ranges
 * read work_call instead). */
static inline const sc_api_call *sc_ctx_call(const sc_ctx *ctx, uint32_t correlation_id)
{
    if (ctx->corr_first) {
        /* one test for the table's bounds: an id below corr_min (0, "no call" in every
         * record, among them: corr_min is the least nonzero id) wraps far past corr_span */
        size_t at = (size_t)correlation_id - ctx->corr_min;
        if (at >= ctx->corr_span || ctx->corr_first[at] == UINT32_MAX)
            return NULL;
        return &ctx->trace->calls[ctx->corr_first[at]];
    }
    if (correlation_id == 0)
        return NULL;    /* 0 means "no call" in every record */
    return sc_ctx_call_sorted(ctx, correlation_id);
}
/* sc_ctx_call's answer as its index in trace->calls, UINT32_MAX for none: for the walks that
 * index per-call arrays with it, without a pointer's gap divided by the call's size. */
static inline uint32_t sc_ctx_call_at(const sc_ctx *ctx, uint32_t correlation_id)
{
    if (ctx->corr_first) {
        size_t at = (size_t)correlation_id - ctx->corr_min;    /* below corr_min wraps */
        return at < ctx->corr_span ? ctx->corr_first[at] : UINT32_MAX;
    }
    const sc_api_call *call = correlation_id ? sc_ctx_call_sorted(ctx, correlation_id) : NULL;
    return call ? (uint32_t)(call - ctx->trace->calls) : UINT32_MAX;
}
/* The call whose stack names the site of `call`: itself, or for a launch whose stack was
 * not sampled (SC_API_STACK_SHARED), the sampled launch of the same kernel it points at. */
const sc_api_call *sc_ctx_site(const sc_ctx *ctx, const sc_api_call *call);
/* The summary of a stream, or NULL when the trace never mentioned it. */
const sc_stream_summary *sc_ctx_stream(const sc_ctx *ctx, uint32_t device, uint32_t context_id,
                                       uint32_t stream_id);
/* The stream a call names by its handle argument (a launch, a synchronization, a host
 * function), on the device of the call's context: NULL when the call takes no stream or the
 * trace cannot tell which (a handle never seen with work, a context that ran none). Handle 0
 * of a call that is not a per-thread variant is the legacy stream. */
const sc_stream_summary *sc_ctx_call_stream(const sc_ctx *ctx, const sc_api_call *call);
/* The device record of a device ordinal, or NULL when the trace has none. */
const sc_device *sc_ctx_device_info(const sc_ctx *ctx, uint32_t device);
/* Kernel k fills its device (occupancy.h), with the arithmetic in *occ (optional). False
 * when it does not, or when the device record cannot tell. */
struct sc_occupancy;
bool sc_ctx_kernel_full_occ(const sc_ctx *ctx, size_t kernel, struct sc_occupancy *occ);
/* Inline: the rules and the replay ask it per kernel, and without occ (the usual question) it
 * is the byte worked out for the kernel's shape. */
static inline bool sc_ctx_kernel_full(const sc_ctx *ctx, size_t kernel,
                                      struct sc_occupancy *occ)
{
    if (ctx->kernel_full && !occ)
        return ctx->kernel_full[ctx->trace->kernels[kernel].rec.shape] != 0;
    return sc_ctx_kernel_full_occ(ctx, kernel, occ);
}
/* The busy list of a device ordinal, or NULL when it ran no kernel. */
const sc_busy_list *sc_ctx_busy(const sc_ctx *ctx, uint32_t device);

/* The analysis->devices entry of a device ordinal. Every device with work has one, so work
 * always finds its own; an ordinal none has gets the last entry. */
static inline size_t sc_device_index(const sc_analysis *a, uint32_t device)
{
    size_t d = 0;
    while (d + 1 < a->n_devices && a->devices[d].device != device)
        d++;
    return d;
}

/* Interval helpers */
static inline uint64_t sc_dur(uint64_t start_ns, uint64_t end_ns)
{
    return end_ns > start_ns ? end_ns - start_ns : 0;
}

static inline double sc_ns_to_us(uint64_t ns)
{
    return (double)ns / SC_NS_PER_US;
}

/* Kernel k's solo duration (solo.h): its shape's median when it borrowed one, else its own
 * duration; and whether that is known (it ran alone or borrowed). */
static inline uint64_t sc_ctx_kernel_solo_ns(const sc_ctx *ctx, size_t kernel)
{
    const sc_kernel_rec *k = &ctx->trace->kernels[kernel].rec;
    return (ctx->kernel_solo[kernel] & SC_SOLO_BORROWED) ? ctx->shape_solo_median[k->shape]
                                                         : sc_dur(k->start_ns, k->end_ns);
}
static inline bool sc_ctx_kernel_solo_known(const sc_ctx *ctx, size_t kernel)
{
    return (ctx->kernel_solo[kernel] & SC_SOLO_KNOWN) != 0;
}

#endif
