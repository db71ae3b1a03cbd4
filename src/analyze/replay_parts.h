/* The steps of building the replay (replay_build.c assembles them), one file each. */
#ifndef SC_ANALYZE_REPLAY_PARTS_H
#define SC_ANALYZE_REPLAY_PARTS_H

#include "analyze/replay_graph.h"

/* replay_host.c: for each implicit synchronization the trace explains (blocking.h), the work
 * it waited for (r->drained), read from the context's blocking index before anything else
 * is built, so that the index can go first. */
int sc_rp_drained_work(sc_replay *r);
/* replay_host.c: the host items of every thread (calls, polling loops, range marks) and the
 * module loads inside their calls, before the work exists: the work looks up its issuing
 * item in r->call_item. */
int sc_rp_host_items(sc_replay *r);
/* replay_host.c: after the items, the record each item's event synchronization, read or
 * query waits for (sc_replay.event_records), so that the context's event records (24 bytes
 * each of them, sc_deps) can go before the work is laid out; the host waits read them here. */
int sc_rp_event_records(sc_replay *r);
/* replay_host.c: its first step, the items alone (r->items, item_call, thread_first,
 * range_marks, the calls' items in call_item, which holds their kinds before), from the
 * calls' kinds in r->call_item: in time order (by_time: sc_rp_time_walk, for calls of
 * several threads) or thread after thread in the entries' order (sc_rp_entry_order), the
 * same items either way (the unit test's comparison). 0, or -1 without memory. */
int sc_rp_items_make(sc_replay *r, bool by_time);
/* replay_host.c: the call classes the host waits leave alone (below SC_RP_CLASSES; the rest
 * are asked each call): no call of one waits for anything the replay keeps, nor reads work
 * of its own, a launch's unless it loaded a module. */
#define SC_RP_CLASSES 64u
void sc_rp_quiet_classes(const sc_replay *r, bool quiet[SC_RP_CLASSES]);
/* replay_runs.c: each thread's items that are only calls one after another (quiet, no fix
 * names them, nothing reads their start or end apart) taken as one item, a run, and where
 * each op's call lies in its item (r->in_run); after the work has read its items, before
 * anything else keeps an item's index. With r->whole_items, each item stays one. */
int sc_rp_fold_runs(sc_replay *r);
/* replay_host.c: what each waiting item waits for (a launch that loads a module included:
 * r->waits); needs the work and its orders, and is the last reader of the items' calls and
 * the devices' issue orders (r->item_call, r->dev_order), which it frees. */
int sc_rp_host_waits(sc_replay *r);
/* replay_lags.c: the first work after each host function (sc_rp_op.after_host_func): the
 * last reader of the per-slot issue orders, which are freed before the nodes are ordered. */
void sc_rp_mark_host_funcs(sc_replay *r);
/* replay_lags.c: typical lags, held and unexplained work, pinned durations. */
int sc_rp_lags(sc_replay *r);
/* replay_lags.c: a late piece of work (r->lates[late], whose `other` is SC_RP_NONE) that no
 * running grid explains, and when the model let it start. */
typedef struct sc_rp_pending {
    uint64_t start;             /* its recorded start */
    uint64_t model;
    size_t late;                /* its entry in r->lates */
    uint64_t best_end;          /* in the search: the end of the `other` found so far */
} sc_rp_pending;
#define SC_RP_HELD_WINDOW_NS 30000u /* late work that started this soon after other work
                                       ended may have been held by it */
/* For each of p[0 .. n) (n > 0; reordered): of the work of its device and another stream that
 * started before its model and ended in the SC_RP_HELD_WINDOW_NS before it started (its end
 * at most that start), the one that ended last, at a tie the later position, into its lates
 * entry's `other` (left SC_RP_NONE when none did). Returns 0, or -1 without memory. */
int sc_rp_held_by_work(sc_replay *r, sc_rp_pending *p, size_t n);
/* replay_nodes.c: the pass's node order (sc_replay.nodes), once the items know their loads;
 * sc_rp_nodes_sorted is the same order through a sort of every node's time, which
 * sc_rp_nodes falls back to when the nodes make too many ascending runs to merge. */
int sc_rp_nodes(sc_replay *r);
int sc_rp_nodes_sorted(sc_replay *r);
/* replay_run.c: replays the run unchanged and fills r->summary (after sc_rp_pass_shapes). */
void sc_rp_describe_fidelity(sc_replay *r);
/* replay_run.c: marks the nodes whose steps need none of the graph's rare features (the
 * passes' fast steps); sc_rp_pass_shapes_drop unmarks them all, so that every node takes
 * the general step (the unit test's reference). */
void sc_rp_pass_shapes(sc_replay *r);
void sc_rp_pass_shapes_drop(sc_replay *r);

/* replay_build.c: sc_replay_build, with runs of calls taken as one item (`runs`) or every
 * call its own (the unit test's reference). */
int sc_replay_build_as(sc_ctx *ctx, uint64_t *fix_calls, size_t n_fix_calls, bool runs,
                       sc_replay **out);
/* replay_build.c */
int sc_rp_push_edge(sc_replay *r, size_t *cap, sc_rp_edge e);
/* Work i's stream slot: r->op_slot's while the graph is built, then looked up in the trace
 * (the passes ask it only of work with SC_FIX_ARRIVAL). */
uint32_t sc_rp_op_slot(const sc_replay *r, int32_t i);
/* The last work of a stream slot issued before `before_ns` (SC_RP_NONE if none); *pos_out
 * (optional) receives how many of the slot's pieces were issued before it. */
int32_t sc_rp_last_issued_before(const sc_replay *r, uint32_t slot, uint64_t before_ns,
                                 size_t *pos_out);
/* The same, from where the slot's last lookup ended: *near (at most the slot's count; 0 at
 * first) on entry, how many were issued before `before_ns` on return. Lookups whose times
 * mostly ascend take a few steps each instead of a search of the slot. */
int32_t sc_rp_last_issued_near(const sc_replay *r, uint32_t slot, uint64_t before_ns,
                               size_t *near);
/* replay_issue.c: each device's work (r->dev_first, dev_count, dev_order) and each stream
 * slot's (r->slot_first, slot_count, slot_ops) in issue order (sc_rp_issue_sort's), merged
 * from the slots' ascending runs (the issue times: r->op_issue). Returns 0; 1, with none of
 * those arrays, when the work is not for a merge (work of no known stream on several
 * devices): sort it; -1 without memory. */
int sc_rp_issue_orders(sc_replay *r);
/* ops[0 .. n - 1], in ascending position, put in issue order: issue time (sc_rp_issue),
 * recorded start, position. Returns 0, or -1 without memory (ops unchanged). */
int sc_rp_issue_sort(const sc_replay *r, int32_t *ops, size_t n);

#endif
