/* Cross-stream ordering the program asked for: an event recorded on one stream and waited
 * for on another (cudaEventRecord + cudaStreamWaitEvent). Work held back by such an edge
 * waited because the program said so, not for room or for a module to load; the rules that
 * explain waits (no-room, lazy-loading) ask here first.
 *
 * Calls name streams by handle, device work by CUPTI stream id: the handle of a stream is
 * learned from the calls that issued work on it (their activity records carry the id) and
 * from the call that created it. An edge whose streams cannot be named is left out, so a
 * rule may then explain a wait it should not; it never hides one it should report. */
#ifndef SC_ANALYZE_DEPS_H
#define SC_ANALYZE_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

typedef struct sc_dep_edge {
    uint32_t context_id;                /* the waiting stream's */
    uint32_t from_context;              /* the recorded stream's: another device's context
                                           when the wait crosses devices (an event of one
                                           device may be waited for on another's stream) */
    uint32_t from_stream, to_stream;    /* CUPTI stream ids */
    uint64_t record_ns;                 /* the record call's start */
    uint64_t wait_ns;                   /* the wait call's start */
    uint32_t wait_call;                 /* the cudaStreamWaitEvent: index into trace->calls */
    uint32_t reserved;
} sc_dep_edge;

struct sc_handle_entry;
struct sc_record_ref;

typedef struct sc_deps {
    const sc_trace *trace;              /* whose calls the handles and records are */
    sc_dep_edge *edges;                 /* by (context, to_stream, wait_ns) */
    size_t n_edges;
    struct sc_handle_entry *handles;    /* stream handle -> stream id, learned from the calls */
    size_t n_handles;
    bool handles_scan;                  /* few handles, a key each: looked up by a scan */
    struct sc_record_ref *records;      /* cudaEventRecord calls by (event, start) */
    size_t n_records;
} sc_deps;

/* Returns 0, or -1 when out of memory. */
int sc_deps_build(const sc_trace *trace, sc_deps *out);

/* The same deps, a call's stream read from the first work of its call in the shared order
 * (work_order.h: ctx's correlation index made its chains) instead of an index of every piece
 * of work's correlation id that the build makes and then searches once per call with a
 * stream. When some call's work lies on several streams (order->calls_one_stream false),
 * which of them the index answers depends on the whole index: sc_deps_build then. */
struct sc_ctx;
struct sc_work_order;
int sc_deps_build_ordered(const struct sc_ctx *ctx, const struct sc_work_order *order,
                          sc_deps *out);
void sc_deps_free(sc_deps *deps);
/* Frees the edges alone (n_edges 0): the stream handles and the event records stay. */
void sc_deps_free_edges(sc_deps *deps);
/* Frees the event records alone (n_records 0, sc_deps_last_record answers NULL): the edges
 * and the stream handles stay. */
void sc_deps_free_records(sc_deps *deps);

/* True when an event recorded on `from` (a stream of the same context) after `after_ns` was waited for by `to` before
 * `before_ns`: work issued on `to` after that wait is ordered behind work issued on `from`
 * before the record. */
bool sc_deps_ordered(const sc_deps *deps, uint32_t context_id, uint32_t from, uint64_t after_ns,
                     uint32_t to, uint64_t before_ns);

/* Where the edges into stream `to` of a context that were waited for at or after `from_ns`
 * begin in deps->edges (they follow in wait order while context and stream match; n_edges
 * when none): a binary search, so a question about one launch never walks every edge. */
size_t sc_deps_first_edge(const sc_deps *deps, uint32_t context_id, uint32_t to,
                          uint64_t from_ns);

/* The CUPTI stream id of the stream a call names (its handle argument), when the trace
 * tells it: false for calls without a stream argument and handles never seen with work. */
bool sc_deps_stream_of(const sc_deps *deps, const sc_api_call *call, uint32_t *stream_id);

/* The last cudaEventRecord of `event` that started before `before_ns`, or NULL. */
const sc_api_call *sc_deps_last_record(const sc_deps *deps, uint64_t event, uint64_t before_ns);

#endif
