/* The what-if replay: a dependency graph of the recorded run that re-times it, so that a
 * finding's cost is what its fix would save, not how long something waited.
 *
 * The graph (replay_build.c) holds every host call and every piece of device work with its
 * measured duration, and the orderings that made the run what it was:
 *   host      each thread issues its calls in order, with the host time between them kept;
 *             a call that waited for the device (a synchronization, an implicit sync, a
 *             pageable copy, a launch under CUDA_LAUNCH_BLOCKING) returns once what it
 *             waited for has ended, plus its own time after the wait
 *   stream    work on one stream runs in issue order
 *   events    cudaEventRecord + cudaStreamWaitEvent: work issued after the wait runs after
 *             the recorded stream's work issued before the record, on the same device or
 *             another (an event recorded on device 0's stream waited for on device 1's)
 *   legacy    the legacy NULL stream and the streams that synchronize with it (blocking and
 *             per-thread default streams) wait for each other's earlier work
 *   engines   copies of one direction on one device that did not overlap keep their order
 *             (directions: to the device, from it, and peer copies, which the device that
 *             issued them runs: peer_copy.h)
 *   queues    streams share the device's hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS,
 *             default 8; the program's streams take them in turn, in creation order), and
 *             a queue hands out its work in issue order: work starts no earlier than the
 *             work issued before it to its queue from another stream (kept only where the
 *             recording agrees)
 *   room      a kernel does not start while a grid that fills the device runs, unless the
 *             recording shows it did
 *   held      work that started later than all of the above allow, right after some other
 *             work of the device ended, waited for that work (room, a module load): the
 *             edge is kept, with the recorded lag
 * Each edge carries the typical lag of its kind, measured in the trace (the lower quartile of
 * launch latencies, back-to-back gaps, ...: a delay only ever adds to the typical lag), not
 * the recorded lag of each instance, so replaying the run unchanged
 * tests the model: the difference from the recorded span is the model's error. Work that
 * started later than the model explains with no candidate cause keeps its recorded delay
 * and is counted.
 *
 * A pass (replay_run.c) walks the nodes once in recorded time order (every edge points to
 * something that happened earlier in the recording) and takes for each the latest of its
 * constraints: linear in the trace, one pass per what-if. A what-if is a list of fixes. The
 * calls of a thread that only ever move together (no wait, no fix, nothing reading one
 * call's start or end apart) are one node, a run (replay_runs.c): the same times, in two
 * fifths of the host nodes of a training-like trace.
 */
#ifndef SC_ANALYZE_REPLAY_H
#define SC_ANALYZE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"

/* What a fix removes from the replay. */
typedef enum sc_fix_kind {
    SC_FIX_BARRIER = 1,     /* index: a stream slot (analysis->streams): the legacy-stream
                               barrier edges between it and the legacy stream are gone */
    SC_FIX_UNWAIT = 2,      /* index: trace->calls: the call (or the polling loop it starts)
                               no longer waits; its thread issues on */
    SC_FIX_PINNED = 3,      /* index: trace->copies: the host memory is pinned: the call
                               returns at once and the copy runs at the pinned rate; for a
                               half of a staged peer copy (peer_copy.h), peer access is on:
                               the call returns at once, the copy runs direct, unstaged */
    SC_FIX_UNHOLD = 4,      /* index: a work position (sc_work_at), or SC_FIX_ALL: the work
                               is not held by the work that ended right before it started,
                               nor late by its unexplained delay (SC_FIX_ALL: and no stream
                               shares a hardware queue) */
    SC_FIX_ROOM = 5,        /* index: trace->kernels: the kernel finds room beside the full
                               grids it waited for (they leave room for it; other work still
                               waits for them) */
    SC_FIX_NO_LOAD = 6,     /* index: trace->calls: a launch without the module load inside
                               its call (the load's time comes off the call, and is paid at
                               the start of its thread instead: a module loaded eagerly or by
                               a warm-up still takes its time) */
    SC_FIX_REMOVE = 7,      /* index: trace->calls: the call is not made there at all (moved
                               out of the loop): no wait, no time of its own */
    SC_FIX_ARRIVAL = 8,     /* index: trace->kernels: the kernel is dispatched in the order
                               work became ready, as streams of equal priority are: not held,
                               not late, no room edge; it starts once every full grid of its
                               device that became ready before it has begun its last wave */
    SC_FIX_QUEUES = 10,     /* index ignored: every stream has a hardware queue of its own
                               (no queue edge) */
    SC_FIX_UNEVENT = 11,    /* index: trace->calls: the cudaStreamWaitEvent is not made: the
                               work after it on its stream no longer waits for the recorded
                               stream's work (on its device or another's) */
    SC_FIX_PREFETCH = 9,    /* index: trace->kernels: its managed pages were prefetched: it
                               runs for its prefetched duration (unified.h) */
    SC_FIX_DURATION = 12,   /* index: trace->kernels: it runs for `ns` (no-room: a kernel that
                               found no room and ran crowded, or a grid slowed beside it, runs
                               as long as its uncrowded instances) */
} sc_fix_kind;

#define SC_FIX_ALL SIZE_MAX

typedef struct sc_fix {
    uint32_t kind;          /* sc_fix_kind */
    size_t index;
    uint64_t ns;            /* SC_FIX_DURATION's duration; 0 for the other kinds */
} sc_fix;

/* What removing a finding's killer changes in the replay. */
typedef struct sc_fix_list {
    sc_fix *items;
    size_t n, cap;
} sc_fix_list;

/* Whether a fix of this kind changes the item of the call it names (the replay's host step);
 * SC_FIX_UNEVENT names a call too, but removes the edges of its wait. */
static inline bool sc_fix_names_item(uint32_t kind)
{
    return kind == SC_FIX_UNWAIT || kind == SC_FIX_REMOVE || kind == SC_FIX_NO_LOAD;
}

typedef struct sc_replay sc_replay;

/* Builds the graph and replays the run unchanged once (the model's fidelity). Returns 0,
 * or -1 when out of memory. Frees ctx's blocking index once the graph has read it (the rules
 * have run by then; nothing after the replay reads it). fix_calls (sorted here): the calls
 * the passes' fixes may name (SC_FIX_UNWAIT, SC_FIX_REMOVE, SC_FIX_NO_LOAD), whose items
 * alone the graph keeps once it is built; a fix that names another call is ignored. */
int sc_replay_build(sc_ctx *ctx, uint64_t *fix_calls, size_t n_fix_calls, sc_replay **out);
void sc_replay_free(sc_replay *r);

/* Re-times the run with the fixes of n_lists lists applied (all findings' at once without a
 * copy of them in one list); returns the replayed span (the first recorded event to the last
 * replayed end). Fixes that name nothing in the graph are ignored. A pass without fixes right
 * after the same pass is not run again. */
uint64_t sc_replay_run(sc_replay *r, const sc_fix_list *lists, size_t n_lists);

/* After a run: the replayed wall time of NVTX range i (trace->ranges order). */
uint64_t sc_replay_range_wall(const sc_replay *r, size_t range);

/* What the graph and the unchanged replay say about the model. */
void sc_replay_describe(const sc_replay *r, sc_replay_summary *out);

#endif
