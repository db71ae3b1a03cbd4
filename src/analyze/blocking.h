/* What a host-blocking call cost the device: one measure shared by every rule that judges a
 * call which held the host (implicit-sync, host-sync, and any later rule).
 *
 * The cost model (DESIGN.md: "cost is what the device lost, observed, not assumed") made
 * precise. For a call that blocked the host over [S, E] (blocked = E - S), on the device of
 * its context D (all devices together when the trace ties the context to none):
 *
 *   wait point W  the start of the call's own device work (the copy of a synchronous
 *                 cudaMemcpy, the memset of a cudaMemset: same correlation id) when it has
 *                 any, else E. Whatever the call waited for, it waited before W.
 *   drained       D's work (kernels, copies, memsets, any stream of the process, the call's
 *                 own work excluded) that was in flight at S, i.e. issued before S (its
 *                 issuing call started before S, or it had started) and not ended, and that
 *                 ended inside the call, in (S, W]. Optionally work on the stream of the
 *                 call's own work is left out (a synchronous copy waits for its own stream by
 *                 design).
 *   explained     drained is not empty and W comes at most max(20 us, 5% of blocked) plus the
 *                 call's own time after the end of the drained work that ended last: the
 *                 call returned (or its own work started) because that work was done. Work
 *                 that merely happened to end during a long call does not explain it. The
 *                 call's own time is what calls of its class took with nothing in flight in
 *                 this trace (their lower quartile; 0 when none did): a cudaFree of 64 MiB
 *                 that waited for another thread's kernel still frees after it, 75 us on an
 *                 H200 (GPU-FACTS.md).
 *   idle          the part of [S, E] in which D ran none of the process's kernels, copies
 *                 or memsets (the union of all three, not kernels only).
 *   starve        after the call returns: when D is idle at E and its next work starts at
 *                 T > E, and none of the work starting at T had been issued before E (the
 *                 host could not have queued it earlier, it was held in the call), T - E.
 *                 0 when D was busy at E, when the next work had been queued before E, or
 *                 when no work followed.
 *   followed      some work of D ran at E or started after it.
 *   cost          when followed: min(idle + starve, blocked). Had the call not blocked, the
 *                 host would have reached its next launch at most `blocked` earlier, so the
 *                 device could have gained at most that: host time after the call (Python
 *                 overhead, data loading) is not charged to the call beyond it.
 *                 When nothing followed, the device had nothing left to run: only the idle
 *                 time inside the call before the last work that ended in it counts (often
 *                 0). A final synchronization before exit costs nothing.
 *
 * The cost is a lower bound of the harm: overlap that the blocked host could have created
 * (work for other streams it would have issued while the drained work ran) is not counted,
 * only time in which the device had nothing of the process's to run.
 */
#ifndef SC_ANALYZE_BLOCKING_H
#define SC_ANALYZE_BLOCKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"

#define SC_BLOCKING_TOL_NS 20000u       /* 20 us: driver wake-up after the work ended */
#define SC_BLOCKING_TOL_SHARE 0.05      /* or 5% of the blocked time, for long calls */
#define SC_BLOCKING_MAX_STREAMS 4       /* stream ids kept per measure; all are counted */

/* One piece of device work as the measure sees it: made from the trace where it is read. */
typedef struct sc_blocking_work {
    uint64_t issue_ns;          /* start of the issuing call, or start_ns when unknown */
    uint64_t start_ns, end_ns;
    uint32_t stream_id, correlation_id;
    uint32_t tid;               /* thread of the issuing call, 0 when unknown */
    uint32_t work;              /* its position (sc_work_at) */
} sc_blocking_work;

struct sc_work_order;
struct sc_work_view;

/* The work of one device, or of all devices together: a view of the analysis's shared order
 * (work_order.h), 32-bit positions read against the trace, no entry held per piece of work
 * (the index once held each as 40 bytes and two views and two 64-bit arrays beside). */
typedef struct sc_blocking_scope {
    const uint32_t *by_end;     /* by end, then start, then position */
    const uint32_t *by_start;   /* by start, then position */
    size_t n;
    uint32_t device;            /* the device's ordinal, unless all */
    bool all;                   /* every device's work */
    sc_busy_list busy;          /* kernels, copies and memsets, merged */
} sc_blocking_scope;

typedef struct sc_blocking_context {
    uint32_t context_id, device;
} sc_blocking_context;

/* Built once per rule run; read-only afterwards. */
typedef struct sc_blocking_index {
    const sc_ctx *ctx;
    const struct sc_work_order *order;  /* the shared order the scopes view, and each call's
                                           work (its own work) */
    sc_blocking_scope *devices; /* per ctx->analysis->devices entry, same order */
    sc_blocking_scope all;      /* every device's work together; empty with one device */
    sc_blocking_context *contexts;  /* context -> device, from the device work */
    size_t n_contexts, cap_contexts;
    bool failed;                /* out of memory while noting the contexts */
    /* The calls that may hold the host (sc_blocking_holding_class: the synchronizations, the
     * implicit ones, the queries), inner driver calls among them, as trace->calls positions in
     * call order: listed once by a look at every call's class, so that the own times, the
     * rules that judge a few classes of calls (host-sync, implicit-sync, pin-per-step, the
     * polling loops) and the replay's implicit waits walk these instead of every call. */
    uint32_t *holding;
    size_t n_holding, cap_holding;
    /* per sc_call_class of the calls that may hold the host (sc_blocking_holding_class: the
     * only calls measured): what a call of the class takes with nothing in flight (0: unknown,
     * and for every other class) */
    uint64_t own_ns[SC_CALL_CLASS_COUNT];
} sc_blocking_index;

/* A call to measure. */
typedef struct sc_blocking_call {
    uint64_t start_ns, end_ns;
    uint32_t tid;               /* the calling thread */
    uint16_t call_class;        /* its own time (own_ns) comes from its class */
    uint32_t context_id;        /* picks the device; unknown context: all devices */
    uint32_t correlation_id;    /* work with this id is the call's own (0: none); the id of
                                   a call of the trace (its work is that call's) */
    bool skip_own_stream;       /* drained work on the own work's stream does not count */
    bool skip_threads;          /* other_thread is not worked out (left false): it takes a
                                   look-up of every drained piece's call, and a caller that
                                   names no thread (host-sync, every synchronization of a
                                   run) reads none */
} sc_blocking_call;

typedef struct sc_blocking {
    uint64_t blocked_ns;        /* E - S */
    uint64_t wait_point_ns;     /* W */
    bool has_own;               /* the call had device work of its own */
    uint32_t own_stream;        /* its stream, when has_own */
    size_t n_drained;           /* pieces of drained work */
    size_t n_streams;           /* distinct streams among them */
    uint32_t streams[SC_BLOCKING_MAX_STREAMS];  /* the first n_streams of them, ascending */
    uint32_t last_stream;       /* stream of the drained work that ended last */
    uint64_t drained_end_ns;    /* when that work ended; 0 when nothing drained */
    size_t last_work;           /* its position (sc_work_at) */
    uint32_t last_tid;          /* the thread that issued it (0: unknown) */
    bool other_thread;          /* some drained work was issued by another thread */
    bool explained;
    bool followed;
    uint64_t idle_ns, starve_ns, cost_ns;
} sc_blocking;

/* Over the shared order of the work (work_order.h), which must outlive the index. Returns 0,
 * or -1 when out of memory (the index is then empty but safe to free). */
int sc_blocking_index_build(const sc_ctx *ctx, const struct sc_work_order *order,
                            sc_blocking_index *ix);
void sc_blocking_index_free(sc_blocking_index *ix);

void sc_blocking_measure(const sc_blocking_index *ix, const sc_blocking_call *call,
                         sc_blocking *out);

/* A walk of calls in start order, each measured as sc_blocking_measure would (the same
 * sc_blocking, field for field): per scope it keeps where the last call's start lies in the
 * index's orders, and the next call's measure searches forward from there instead of through
 * the whole order (a call that starts before the one before it searches back). Rules that
 * measure many calls (every synchronization of a run) take them this way. */
typedef struct sc_blocking_place sc_blocking_place;
typedef struct sc_blocking_walk {
    const sc_blocking_index *ix;
    sc_blocking_place *places;  /* per device scope, then the all-devices scope */
    const sc_blocking_scope *scope;     /* that of the last call's context */
    uint32_t context_id;
    bool has_scope;
} sc_blocking_walk;

/* Returns 0, or -1 when out of memory (*w is then safe to end). */
int sc_blocking_walk_begin(const sc_blocking_index *ix, sc_blocking_walk *w);
void sc_blocking_walk_end(sc_blocking_walk *w);
void sc_blocking_measure_next(sc_blocking_walk *w, const sc_blocking_call *call,
                              sc_blocking *out);

/* The classes of sc_blocking_index.holding: sc_blocking_sync_class,
 * sc_blocking_implicit_class and the queries (cudaStreamQuery, cudaEventQuery: polling loops,
 * polls.h). */
bool sc_blocking_holding_class(uint16_t call_class);

/* The explicit synchronizations (device, stream, event): the host-sync rule judges them,
 * and the replay measures the wake-up after their waits. */
bool sc_blocking_sync_class(uint16_t call_class);

/* The call classes that synchronize implicitly (allocation, freeing, pinning, a synchronous
 * copy or memset, a new limit): the implicit-sync rule judges them, and the replay makes
 * each wait for the work it drained. */
bool sc_blocking_implicit_class(uint16_t call_class);

/* A driver call made inside a runtime call (same correlation id): the runtime call is the
 * one to judge, so rules skip this one. Inline: the passes over every call ask it of each,
 * and most are not driver calls. */
static inline bool sc_blocking_is_inner(const sc_ctx *ctx, const sc_api_call *call)
{
    if (!(sc_call_flags(ctx->trace, call) & SC_API_DRIVER))
        return false;
    const sc_api_call *outer = sc_ctx_call(ctx, call->rec.correlation_id);
    return outer && outer != call && !(sc_call_flags(ctx->trace, outer) & SC_API_DRIVER);
}

/* "20, 21, ..." : the drained streams for a text line (empty when none). */
void sc_blocking_streams_text(const sc_blocking *m, char *buf, size_t size);

#endif
