/* The replay's graph, shared by the file that builds it (replay_build.c) and the file that
 * runs it (replay_run.c). Nobody else looks inside: see replay.h for what it means. */
#ifndef SC_ANALYZE_REPLAY_GRAPH_H
#define SC_ANALYZE_REPLAY_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/replay.h"
#include "analyze/replay_wide.h"
#include "analyze/work.h"
#include "streamcheck/trace.h"
#include "trace/lower_bound.h"
#include "trace/packed_times.h"

#define SC_RP_NONE (-1)

/* An edge into a piece of work from earlier work. */
typedef enum sc_rp_edge_kind {
    SC_RP_EDGE_EVENT = 0,       /* cudaStreamWaitEvent (`slot`: the wait call, trace->calls):
                                   removed by SC_FIX_UNEVENT on that call */
    SC_RP_EDGE_BARRIER = 1,     /* legacy stream <-> a stream that syncs with it: removed by
                                   SC_FIX_BARRIER on `slot` */
    SC_RP_EDGE_ROOM = 2,        /* a full grid that ran before: removed by SC_FIX_ROOM on the
                                   work that waits */
} sc_rp_edge_kind;

/* A piece of work's edges are consecutive in sc_replay.edges, from its link's edge_first to
 * the one marked last (sc_rp_op_edges). */
typedef struct sc_rp_edge {
    int32_t op;                 /* the earlier work */
    uint8_t kind;               /* sc_rp_edge_kind */
    bool last;                  /* the last edge into its work */
    uint32_t slot;              /* SC_RP_EDGE_BARRIER: the syncing stream's slot;
                                   SC_RP_EDGE_EVENT: the wait call */
} sc_rp_edge;

#define SC_RP_NO_EDGES UINT32_MAX   /* sc_rp_link.edge_first of work without edges */
#define SC_RP_MAX_DEVS (1u << 24)   /* devices sc_rp_op.dev can name */

/* One piece of device work. Its index is its work position (sc_work_at). 16 bytes, one per
 * piece of device work: what the passes read of every piece is here, the rest beside it.
 * Its recorded start and end are its trace record's (sc_rp_rec_start, sc_rp_rec_end and
 * sc_rp_rec_dur read them there: 32 bytes a piece before the nineteenth round, which kept
 * its start and its duration here). When it was issued (the recorded start of the call that
 * issued it, or its own start), its stream and its place in its device's issue order are
 * kept in arrays of their own, the first two while the graph is built (sc_replay.op_issue,
 * .op_slot), the third only for the devices' trees of ends (sc_replay.dev_pos:
 * replay_run.c); its edges and its copy engine's and hardware queue's predecessors, which
 * few pieces have, in its sc_replay.links entry. */
typedef struct sc_rp_op {
    int32_t item;               /* the host item that issued it; SC_RP_NONE: anchored */
    int32_t stream_prev;        /* the work before it on its stream */
    uint32_t link;              /* into sc_replay.links, SC_RP_NO_LINK: no edge and neither
                                   predecessor */
    uint32_t dev : 24;          /* index into analysis->devices (below SC_RP_MAX_DEVS) */
    uint32_t kind : 4;          /* sc_work_kind */
    uint32_t peer_staged : 1;   /* half of a peer copy staged through host memory
                                   (peer_copy.h): SC_FIX_PINNED makes it direct */
    uint32_t after_host_func : 1;   /* the first work issued on its stream after a host
                                   function (cudaLaunchHostFunc): it waited for the function
                                   to run */
    uint32_t late : 1;          /* held behind other work, or late for a reason the trace
                                   does not show: its entry in sc_replay.lates */
    uint32_t item_loads : 1;    /* its item loaded a module (sc_rp_item.loads): the lags look
                                   at the item only then */
} sc_rp_op;
_Static_assert(sizeof(sc_rp_op) == 16, "sc_rp_op: one per piece of device work, no padding");

#define SC_RP_NO_LINK UINT32_MAX    /* sc_rp_op.link of work with no edge and neither
                                       predecessor */

/* What few pieces of work have (sc_rp_op.link): edges into it and the predecessors. */
typedef struct sc_rp_link {
    uint32_t edge_first;        /* into sc_replay.edges; SC_RP_NO_EDGES */
    int32_t engine_prev;        /* copies: the same-direction copy before it on its device */
    int32_t queue_prev;         /* the work issued before it to its hardware queue from
                                   another stream: it starts no earlier (replay.h, "queues") */
} sc_rp_link;

/* Where work o's edges begin in the replay's edges (links: its links), SC_RP_NO_EDGES. */
static inline uint32_t sc_rp_edge_first(const sc_rp_link *links, const sc_rp_op *o)
{
    return o->link != SC_RP_NO_LINK ? links[o->link].edge_first : SC_RP_NO_EDGES;
}

/* The edges from `first` (sc_rp_edge_first): *n of them, none when it is SC_RP_NO_EDGES. */
static inline const sc_rp_edge *sc_rp_edges_from(const sc_rp_edge *edges, uint32_t first,
                                                 uint32_t *n)
{
    *n = 0;
    if (first == SC_RP_NO_EDGES)
        return NULL;
    const sc_rp_edge *e = &edges[first];
    while (!e[(*n)++].last)
        ;
    return e;
}

/* The edges into work o: *n of them, none when o has no edge. */
static inline const sc_rp_edge *sc_rp_op_edges(const sc_rp_edge *edges, const sc_rp_link *links,
                                               const sc_rp_op *o, uint32_t *n)
{
    return sc_rp_edges_from(edges, sc_rp_edge_first(links, o), n);
}

/* Where the call that issued a piece of work lies in its host item (sc_replay.in_run), 8
 * bytes a piece. An item is a run of calls (replay_runs.c) whose steps the replay takes as
 * one: each call's start is the run's start plus the recorded time from the run's start to
 * it, less, in a plain pass, what tracing added to the run's calls before it. An item of one
 * call has 0 and 0. */
typedef struct sc_rp_in_run {
    uint32_t after;             /* from its item's recorded start to its call's */
    uint16_t before;            /* what tracing added to the item's calls before its call */
    uint16_t tracer;            /* what tracing added to its call (SC_RP_WIDE16: its item's,
                                   sc_rp_tracer, which then is an item of one call) */
} sc_rp_in_run;

typedef enum sc_rp_wait {
    SC_RP_WAIT_NONE = 0,
    SC_RP_WAIT_OPS = 1,         /* until the listed work ended (sc_rp_cond_list) */
    SC_RP_WAIT_DEVICE = 2,      /* until the work of a device issued before it ended */
} sc_rp_wait;

/* One host item: a call, a run of calls one after another that the replay moves together
 * (replay_runs.c), a polling loop taken as one wait, or an NVTX range mark (which range:
 * sc_replay.range_marks). Fields are grouped by size (8, 4, 2, then 1 byte), as in
 * sc_rp_op: 16 bytes. What only a few items have is kept beside them: a join, a module
 * load's end, the copy of a pageable call, what a waiting call waits for and its return after
 * the wait (sc_replay.joins, .load_ends, .pinned_copies, .waits), the time streamcheck's stack
 * took in the gap before it (sc_rp_tool); the host times that take microseconds in 32 or 16
 * bits, the rare larger ones beside them too (replay_wide.h: read through sc_rp_tracer and
 * sc_rp_post). Which call an item is, only the build reads (sc_replay.item_call). The items of
 * a thread are consecutive: the one before item i of its thread (unless i is `first`) is
 * i - 1, which gives its gap (sc_rp_gap) without keeping it, and the one after it (unless i
 * is `last`) is i + 1; its thread is the one whose first item is the last at or before it
 * (sc_replay.thread_first, sc_rp_thread_of). */
typedef struct sc_rp_item {
    uint64_t rec_start;
    uint32_t dur;               /* its recorded end less its start: sc_rp_item_end */
    uint16_t tracer;            /* what tracing added to its calls (tracer_cost.h: 2 us a
                                   launch), at most its own time: left out when the replay
                                   runs plain */
    /* two bytes of flags */
    uint8_t first : 1;          /* the first item of its thread: anchored at rec_start */
    uint8_t last : 1;           /* the last item of its thread (else the next is i + 1) */
    uint8_t wait : 2;           /* sc_rp_wait: what it waits for in sc_replay.waits */
    uint8_t waited : 1;         /* the recorded call returned because its wait ended */
    uint8_t loads : 1;          /* a launch that loaded its module: it waited for the device,
                                   and its kernel starts after the load (sc_rp_load_end) */
    uint8_t joins : 1;          /* it waited for another thread's end (sc_rp_join_of) */
    uint8_t pinned : 1;         /* a pageable async copy call: its copy's op in
                                   sc_replay.pinned_copies (sc_rp_pinned_copy) */
    uint8_t mark : 1;           /* a range mark, no call: it takes no time */
    uint8_t sync : 1;           /* a device, stream or event synchronization: its return
                                   after its wait measures the wake-up (replay_lags.c) */
    uint8_t async_copy : 1;     /* a cudaMemcpyAsync call */
    uint8_t end_read : 1;       /* its replayed end is read after its step (a join waits for
                                   it, its module load holds its kernel, it ends an NVTX
                                   range): sc_replay.item_ends */
    uint8_t tool : 1;           /* part of its gap was streamcheck's own, taking the previous
                                   call's stack: in sc_replay.wide_tools (sc_rp_tool; the
                                   sampled calls are a few of every kind, then one in 256) */
    uint8_t quiet : 1;          /* its call's class waits for nothing and reads no work of
                                   its own (sc_rp_quiet_classes): set as the item is made,
                                   where its call was just read, for the runs, which would
                                   read the calls thread after thread, out of their order */
} sc_rp_item;
_Static_assert(sizeof(sc_rp_item) == 16, "sc_rp_item: one per host call, no padding");

/* What a waiting item (sc_rp_item.wait) waits for: sc_replay.waits, one entry per waiting
 * item, by item. */
typedef struct sc_rp_wait_ref {
    int32_t item;
    uint32_t cond;              /* SC_RP_WAIT_OPS: into sc_replay.cond_ops, at the count of
                                   the work (sc_rp_cond_list), which is listed right before
                                   it, its return after the wait right after (sc_rp_post);
                                   SC_RP_WAIT_DEVICE: into sc_replay.dev_waits */
    int32_t next;               /* the entry a pass reaches next (sc_replay.kept_chained) */
} sc_rp_wait_ref;

/* The device an SC_RP_WAIT_DEVICE item waits for. */
typedef struct sc_rp_dev_wait {
    uint32_t dev;               /* device index, UINT32_MAX for all of them */
    uint32_t limit;             /* for one device: how many of its pieces (by issue) precede
                                   the call; at most the work count, which int32_t indices
                                   bound. For all of them: into sc_replay.dev_limits, where
                                   each device's count follows */
    int32_t post;               /* its return after the wait (sc_rp_post) */
} sc_rp_dev_wait;

/* A value of one host item or piece of work, kept beside the items or ops because few have
 * it; lists of them are sorted by index. */
typedef struct sc_rp_sparse {
    int32_t index;              /* the item's or op's */
    int32_t other;              /* joins: the last item of another thread this one waited for
                                   (a join: pthread_join and the like leave no record);
                                   lates: the work it was held behind (replay.h, "held"), or
                                   SC_RP_NONE when its delay is unexplained */
    union {
        uint64_t value;         /* joins: from that item's end to this one's start;
                                   load_ends: the recorded end of the item's last module load
                                   (the kernel may start a little before the call returns);
                                   lates without `other`: the delay, kept as recorded, or
                                   (after_host_func) the time the host function held its
                                   stream */
        int64_t held_lag;       /* lates with `other`: from its end to this one's recorded
                                   start: negative when it started in the last part of a
                                   full grid */
    };
} sc_rp_sparse;

struct sc_replay {
    const sc_ctx *ctx;
    uint64_t run_start_ns;

    sc_rp_op *ops;              size_t n_ops;
    sc_work_records records;    /* the ops' recorded times (sc_rp_rec_start, sc_rp_rec_end):
                                   an op is the work at its position (work.h) */
    uint32_t *thread_first;     /* per thread, its first item (ascending: threads' items are
                                   consecutive) */
    int32_t *item_call;         /* per item, its trace->calls index (first query of a loop),
                                   SC_RP_NONE; until the host waits are built */
    sc_rp_wait_ref *waits;      size_t n_waits, cap_waits;    /* the waiting items' */
    sc_rp_link *links;          size_t n_links, cap_links;  /* sc_rp_op.link */
    uint32_t *op_slot;          /* per op, its stream: index into analysis->streams; while
                                   the graph is built (sc_rp_op_slot after) */
    uint32_t *full_slots;       /* per full grid (r->full), its stream */
    sc_rp_item *items;          size_t n_items;
    size_t n_call_items;        /* the items as made, one a call, loop or mark: before the
                                   calls were taken as runs (replay_runs.c) */
    bool whole_items;           /* the build keeps every call its own item (the unit test's
                                   reference: sc_replay_build_as) */
    sc_rp_in_run *in_run;       /* per op: where its call lies in its item */
    sc_rp_edge *edges;          size_t n_edges;
    int32_t *cond_ops;          size_t n_cond_ops;
    sc_rp_dev_wait *dev_waits;  size_t n_dev_waits, cap_dev_waits;
    /* the nodes of the pass in its order (order_by_time.h): a position below n_ops is that
     * op, at its recorded start; n_ops + i is item i, at its recorded end */
    uint32_t *nodes;            size_t n_nodes;
    size_t n_threads;
    int32_t *call_item;         /* per trace->calls: its item, SC_RP_NONE; until the work
                                   has read it (sc_replay_build) */
    sc_rp_sparse *fix_items;    size_t n_fix_items;   /* then the item (`other`) of each
                                   call (`index`) a fix may name (sc_replay_build), by call */
    int32_t *range_marks;       /* per trace->ranges: start item, end item */
    sc_rp_sparse *joins;    size_t n_joins;       /* items with .joins */
    sc_rp_sparse *load_ends; size_t n_load_ends;  /* items with a module load's end */
    sc_rp_sparse *load_times; size_t n_load_times; /* the same items: their loads' time */
    sc_rp_sparse *lates;        size_t n_lates;       /* ops with .late */
    sc_rp_sparse *pinned_copies; size_t n_pinned_copies, cap_pinned_copies;
                                /* items with .pinned: the op in `other` */
    sc_rp_wides wide_durs, wide_tools, wide_tracers, wide_posts;  /* replay_wide.h */
    sc_rp_sparse *drained;      size_t n_drained;     /* per trace->calls index: an implicit
                                   synchronization's last drained work position (`other`) */
    sc_rp_sparse *event_records; size_t n_event_records; /* per trace->calls index of an
                                   item's event synchronization, read or query: the
                                   cudaEventRecord it waits for (`other`, a trace->calls index,
                                   SC_RP_NONE), as of its item's start (sc_rp_event_records) */

    /* per stream slot: its work in issue order (slot_ops[slot_first[s] ...]); while the graph
     * is built (sc_rp_last_issued_before) */
    size_t *slot_first, *slot_count;
    int32_t *slot_ops;

    /* per device, for SC_RP_WAIT_DEVICE: the issue times of its work in issue order and a
     * prefix-maximum tree over the replayed ends in that order */
    size_t n_devs;
    size_t *dev_first, *dev_count;
    int32_t *dev_order;         /* the ops in that order, until the host waits are built */
    uint32_t *dev_pos;          /* per op, its place in that order: with dev_tree alone */
    uint32_t *dev_limits;       size_t n_dev_limits, cap_dev_limits;  /* per device wait of
                                   every device (sc_rp_dev_wait.limit names its first), how
                                   many of each device's pieces preceded it */
    uint64_t *dev_tree;         /* Fenwick tree of maxima, same layout; NULL when no item
                                   waits for a device (sc_rp_host_waits): nothing reads it,
                                   nor dev_pos, which is not made then */
    sc_packed_times op_issue;   /* per op, when it was issued (sc_rp_issue: each kind's work
                                   lies in start order, so neighbours' issue times lie close,
                                   and take 4 bytes a piece); while the graph is built */

    /* typical lags, measured in the trace */
    uint64_t lag_issue[3];      /* call start to start, per sc_work_kind */
    uint64_t lag_stream;        /* end of the previous work on the stream to start */
    uint64_t lag_cross;         /* end of the work an event or barrier waited for to start */
    uint64_t lag_queue;         /* start of the work before it in its hardware queue to start */
    uint64_t wake_ns;           /* end of what a waiting call waited for to its return */
    uint64_t async_call_ns;     /* an async copy call from pinned memory */
    uint64_t async_call_tracer; /* what tracing added to it (tracer_cost.h): plain passes
                                   leave it out */
    sc_rp_sparse *pinned;       size_t n_pinned;  /* copies (ops) whose duration from
                                   pinned memory, or as a direct peer copy (a staged half),
                                   is not their recorded one (`value`; sc_rp_pinned_ns) */

    /* what a pass uses */
    uint64_t *op_end;           /* per op, in a pass: its replayed end once it is placed
                                   (SC_RP_OP_PLACED; sc_rp_op_end: its recorded end before,
                                   in a recorded tie) */
    uint64_t *item_start;       /* per item, in a pass: its start once it or the item before
                                   it on its thread is done (sc_rp_item_started,
                                   replay_run.c) */
    sc_rp_sparse *item_ends;    size_t n_item_ends;   /* items with .end_read: in a pass,
                                   their replayed end (`value`) once done. The rest's ends
                                   nothing reads after their own step, so they are not kept:
                                   a value per item less */
    bool kept_chained;          /* each item_ends entry's `other` (unused by the entries)
                                   names the entry a pass reaches next (sc_rp_pass_shapes):
                                   a step stores its end there without a search; so does
                                   each waits entry's `next`, and a step reads its wait
                                   there */
    int32_t kept_first;         /* then the entry a pass reaches first, */
    int32_t kept_next;          /* and in a pass the entry it reaches next */
    int32_t waits_first, wait_next;     /* the same for the waits */
    uint64_t *thread_shift;     /* replayed minus recorded end of the thread's last item */
    uint64_t *moved_load;       /* per thread, in a pass: the module loads SC_FIX_NO_LOAD took
                                   out of its launches, paid at its start instead */
    uint8_t *fix_barrier;       /* per stream slot */
    uint8_t *item_fix;          /* per item: the fixes on it, SC_RP_FIX_ITEM_* bits, and
                                   SC_RP_ITEM_DONE */
    uint8_t *op_fix;            /* per op: the fixes on it, SC_RP_FIX_OP_* bits, and
                                   SC_RP_OP_PLACED */
    bool fix_all_queues;        /* SC_FIX_UNHOLD of everything: no queue shared either */
    uint8_t *fix_unevent;       /* per trace->calls: a cudaStreamWaitEvent whose edges are
                                   gone */
    /* full grids (sc_ctx_kernel_full) by recorded start (then position), and their waves
     * (SC_FIX_ARRIVAL) */
    int32_t *full;
    uint32_t *full_waves;
    uint64_t *full_ready;       /* per full grid, in a pass with SC_FIX_ARRIVAL (the only
                                   reader): when its issue, stream and events let it start
                                   (UINT64_MAX until it is placed) */
    size_t n_full;
    bool pass_arrival;          /* this pass has SC_FIX_ARRIVAL fixes: full_ready is kept */
    sc_fix *durations;          /* in a pass: its SC_FIX_DURATION fixes by index (few: only
                                   no-room gives them, to kernels that ran crowded) */
    size_t n_durations, cap_durations;
    uint64_t pass_end;          /* in a pass: the latest replayed end so far */
    size_t n_slots;

    bool plain;                 /* passes leave streamcheck's own host time out (set once
                                   the recording has been reproduced with it) */
    /* the last pass ran without fixes, as plain or not: a pass asked for again returns its
     * span, the pass arrays already hold its times (a pass is the same function of the
     * graph, the fixes and `plain`) */
    bool unfixed_done, unfixed_plain;
    uint64_t unfixed_span;
    sc_replay_summary summary;
};

/* The fixes a pass applies to one item or op, a bit each (sc_replay.item_fix, .op_fix), and
 * in the same bytes where the pass has got to: a byte an item and an op less than flags of
 * their own. */
enum {
    SC_RP_FIX_ITEM_UNWAIT = 1,      /* SC_FIX_UNWAIT */
    SC_RP_FIX_ITEM_REMOVE = 2,      /* SC_FIX_REMOVE */
    SC_RP_FIX_ITEM_NO_LOAD = 4,     /* SC_FIX_NO_LOAD */
    SC_RP_ITEM_SHIFT_FAST = 8,      /* with SC_RP_ITEM_FAST: its step may read its thread's
                                       shift, or a later step reads the one it leaves */
    SC_RP_ITEM_WAIT_FAST = 16,      /* with SC_RP_ITEM_FAST: it waits for listed work */
    SC_RP_ITEM_KEPT_FAST = 32,      /* with SC_RP_ITEM_FAST: its end is kept (end_read) */
    SC_RP_ITEM_FAST = 64,           /* set once, before the first pass (sc_rp_pass_shapes):
                                       its step needs none of the rare features */
    SC_RP_ITEM_DONE = 128,          /* in a pass: its end is known */
};
enum {
    SC_RP_FIX_OP_PINNED = 1,        /* SC_FIX_PINNED */
    SC_RP_FIX_OP_UNHOLD = 2,        /* SC_FIX_UNHOLD */
    SC_RP_FIX_OP_ROOM = 4,          /* SC_FIX_ROOM */
    SC_RP_FIX_OP_ARRIVAL = 8,       /* SC_FIX_ARRIVAL */
    SC_RP_FIX_OP_PREFETCH = 16,     /* SC_FIX_PREFETCH */
    SC_RP_FIX_OP_DURATION = 32,     /* SC_FIX_DURATION */
    SC_RP_OP_FAST = 64,             /* set once, before the first pass (sc_rp_pass_shapes):
                                       its step needs none of the rare features */
    SC_RP_OP_PLACED = 128,          /* in a pass: placed; its start is then its end less its
                                       duration in the pass (sc_rp_op_start), not kept */
};

/* The entry of `index` in a list sorted by index, or NULL when it has none. */
static inline const sc_rp_sparse *sc_rp_value_of(const sc_rp_sparse *v, size_t n,
                                                 int32_t index)
{
    size_t lo = SC_LOWER_BOUND(v, n, index, index);
    return lo < n && v[lo].index == index ? &v[lo] : NULL;
}

/* The wait entry of waiting item i, searched. */
static inline const sc_rp_wait_ref *sc_rp_wait_of(const sc_replay *r, int32_t i)
{
    return &r->waits[SC_LOWER_BOUND(r->waits, r->n_waits, item, i)];
}

/* The work an SC_RP_WAIT_OPS item waits for (its wait's cond): *n pieces. */
static inline const int32_t *sc_rp_cond_list(const sc_replay *r, uint32_t cond, uint32_t *n)
{
    const int32_t *count = r->cond_ops + cond;
    *n = (uint32_t)*count;
    return count - *n;
}

/* The recorded end of an item's last module load, 0 when none. */
static inline uint64_t sc_rp_load_end(const sc_replay *r, int32_t item)
{
    const sc_rp_sparse *v = sc_rp_value_of(r->load_ends, r->n_load_ends, item);
    return v ? v->value : 0;
}

/* When work i was issued: the recorded start of its call, or its own start without one
 * (while the graph is built). */
static inline uint64_t sc_rp_issue(const sc_replay *r, int32_t i)
{
    return sc_packed_time(&r->op_issue, (size_t)i);
}

/* When work i started, as recorded: its trace record's start. The start alone, not through
 * sc_work_records_times: the lags and the node order ask it of every op, and reading the end
 * beside it cost them 10M instructions at 1M records. */
static inline uint64_t sc_rp_rec_start(const sc_replay *r, int32_t i)
{
    return sc_work_records_start(&r->records, (size_t)i);
}

/* How long work i ran, as recorded (the fixes' durations: replay_run.c), and when it ended. */
static inline uint64_t sc_rp_rec_dur(const sc_replay *r, int32_t i)
{
    uint64_t start, end;
    sc_work_records_times(&r->records, (size_t)i, &start, &end);
    return end - start;
}

static inline uint64_t sc_rp_rec_end(const sc_replay *r, int32_t i)
{
    uint64_t start, end;
    sc_work_records_times(&r->records, (size_t)i, &start, &end);
    return end;
}

/* Work i's copy engine and hardware queue predecessors (sc_rp_link), SC_RP_NONE. */
static inline int32_t sc_rp_engine_prev(const sc_replay *r, const sc_rp_op *o)
{
    return o->link != SC_RP_NO_LINK ? r->links[o->link].engine_prev : SC_RP_NONE;
}

static inline int32_t sc_rp_queue_prev(const sc_replay *r, const sc_rp_op *o)
{
    return o->link != SC_RP_NO_LINK ? r->links[o->link].queue_prev : SC_RP_NONE;
}

/* The time of the module loads inside item i's calls, 0 when none. */
static inline uint64_t sc_rp_load_ns(const sc_replay *r, int32_t item)
{
    const sc_rp_sparse *v = sc_rp_value_of(r->load_times, r->n_load_times, item);
    return v ? v->value : 0;
}

/* The recorded end of item i. */
static inline uint64_t sc_rp_item_end(const sc_replay *r, int32_t i)
{
    return r->items[i].rec_start + sc_rp_wide_of(&r->wide_durs, i, r->items[i].dur);
}

/* Host time from prev_end, the recorded end of the item before it on its thread, to item it's
 * start. */
static inline uint64_t sc_rp_gap_after(const sc_rp_item *it, uint64_t prev_end)
{
    return it->rec_start > prev_end ? it->rec_start - prev_end : 0;
}

/* Host time since the previous item of its thread ended (0 for the first). */
static inline uint64_t sc_rp_gap(const sc_replay *r, int32_t i)
{
    const sc_rp_item *it = &r->items[i];
    if (it->first)
        return 0;
    return sc_rp_gap_after(it, sc_rp_item_end(r, i - 1));
}

static inline uint64_t sc_rp_tool(const sc_replay *r, int32_t i)
{
    return r->items[i].tool ? sc_rp_wide_lookup(&r->wide_tools, i) : 0;
}

static inline uint64_t sc_rp_tracer(const sc_replay *r, int32_t i)
{
    return sc_rp_wide16_of(&r->wide_tracers, i, r->items[i].tracer);
}

/* What tracing added to the call that issued work i (an item's call). */
static inline uint64_t sc_rp_op_tracer(const sc_replay *r, int32_t i)
{
    uint16_t v = r->in_run[i].tracer;
    return v != SC_RP_WIDE16 ? v : sc_rp_tracer(r, r->ops[i].item);
}

/* The field of a waiting item's return after what it waited for (its wait's kind and cond):
 * when it waited (`waited`), its return minus the end of what it waited for (negative: it
 * returned a little before); else 0. */
static inline const int32_t *sc_rp_post_field(const sc_replay *r, uint8_t wait, uint32_t cond)
{
    return wait == SC_RP_WAIT_OPS ? &r->cond_ops[cond + 1] : &r->dev_waits[cond].post;
}

/* The return after its wait of item i, which waited (sc_rp_item.waited), its wait's cond
 * known, or searched. */
static inline int64_t sc_rp_post_at(const sc_replay *r, int32_t i, uint32_t cond)
{
    return sc_rp_wide_signed_of(&r->wide_posts, i,
                                *sc_rp_post_field(r, r->items[i].wait, cond));
}

static inline int64_t sc_rp_post(const sc_replay *r, int32_t i)
{
    return sc_rp_post_at(r, i, sc_rp_wait_of(r, i)->cond);
}

/* The thread of item i, of n threads whose first items are first[0 .. n) (ascending). */
static inline uint32_t sc_rp_thread_in(const uint32_t *first, size_t n, int32_t i)
{
    size_t lo = 0, hi = n;      /* first[lo] <= i < first[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (first[mid] <= (uint32_t)i)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

static inline uint32_t sc_rp_thread_of(const sc_replay *r, int32_t i)
{
    return sc_rp_thread_in(r->thread_first, r->n_threads, i);
}

/* How long copy op i runs from pinned memory (SC_FIX_PINNED), or as a direct peer copy. */
static inline uint64_t sc_rp_pinned_ns(const sc_replay *r, int32_t i)
{
    const sc_rp_sparse *v = sc_rp_value_of(r->pinned, r->n_pinned, i);
    return v ? v->value : sc_rp_rec_dur(r, i);
}

/* The op of a pageable async copy call's copy, SC_RP_NONE when the item has none. */
static inline int32_t sc_rp_pinned_copy(const sc_replay *r, int32_t i)
{
    const sc_rp_sparse *v = r->items[i].pinned
                                ? sc_rp_value_of(r->pinned_copies, r->n_pinned_copies, i)
                                : NULL;
    return v ? v->other : SC_RP_NONE;
}

/* Fenwick tree of maxima over [0, n): set position i (0-based) to at least v; query the
 * maximum over [0, k). */
static inline void sc_rp_tree_raise(uint64_t *tree, size_t n, size_t i, uint64_t v)
{
    for (size_t j = i + 1; j <= n; j += j & (~j + 1))
        if (tree[j - 1] < v)
            tree[j - 1] = v;
}

static inline uint64_t sc_rp_tree_max(const uint64_t *tree, size_t k)
{
    uint64_t m = 0;
    for (size_t j = k; j > 0; j -= j & (~j + 1))
        if (tree[j - 1] > m)
            m = tree[j - 1];
    return m;
}

#endif
