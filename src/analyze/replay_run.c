/* The replay's pass: every node once, in recorded time order, each taking the latest of its
 * constraints (replay.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay_parts.h"
#include "analyze/unified.h"
#include "analyze/work.h"
#include "trace/grow.h"
#include "trace/lower_bound.h"
#include "trace/sort.h"

/* Sets (on) or clears the bit `bit` of flags[i]. */
static void sc_rp_flag(uint8_t *flags, size_t i, uint8_t bit, bool on)
{
    flags[i] = on ? (uint8_t)(flags[i] | bit) : (uint8_t)(flags[i] & ~bit);
}

/* Clears the bit `bit` of flags[0 .. n - 1]. The array and its length are arguments, not read
 * through the replay: a byte's store may alias any field, which kept the compiler from
 * vectorizing the loop. */
static void sc_rp_clear_bit(uint8_t *flags, size_t n, uint8_t bit)
{
    for (size_t i = 0; i < n; i++)
        flags[i] &= (uint8_t)~bit;
}

/* Sets (on) or clears the bit `bit` of the fixes on the item of a call a fix names
 * (sc_replay.fix_items); nothing when the call has no item. */
static void sc_rp_flag_call(sc_replay *r, size_t call, uint8_t bit, bool on)
{
    const sc_rp_sparse *v = call <= INT32_MAX
                                ? sc_rp_value_of(r->fix_items, r->n_fix_items, (int32_t)call)
                                : NULL;
    if (v)
        sc_rp_flag(r->item_fix, (size_t)v->other, bit, on);
}

/* Sets (on) or clears the fixes' marks. The marks on items are not cleared here: each one
 * costs a search of the items fixes may name, where sc_replay_run clears every item's fix
 * bits at once after the pass (only its own fixes set any). */
static void sc_rp_apply(sc_replay *r, const sc_fix *fixes, size_t n, bool on)
{
    const sc_trace *t = r->ctx->trace;
    for (size_t k = 0; k < n; k++) {
        size_t i = fixes[k].index;
        if (!on && sc_fix_names_item(fixes[k].kind))
            continue;
        switch (fixes[k].kind) {
        case SC_FIX_BARRIER:
            if (i < r->n_slots) r->fix_barrier[i] = on;
            break;
        case SC_FIX_UNWAIT:
            sc_rp_flag_call(r, i, SC_RP_FIX_ITEM_UNWAIT, on);
            break;
        case SC_FIX_REMOVE:
            sc_rp_flag_call(r, i, SC_RP_FIX_ITEM_REMOVE, on);
            break;
        case SC_FIX_NO_LOAD:
            sc_rp_flag_call(r, i, SC_RP_FIX_ITEM_NO_LOAD, on);
            break;
        case SC_FIX_PINNED:
            if (i < t->n_copies) sc_rp_flag(r->op_fix, t->n_kernels + i, SC_RP_FIX_OP_PINNED, on);
            break;
        case SC_FIX_UNHOLD:
            if (i == SC_FIX_ALL) {
                for (size_t j = 0; j < r->n_ops; j++)
                    sc_rp_flag(r->op_fix, j, SC_RP_FIX_OP_UNHOLD, on);
                r->fix_all_queues = on;
            } else if (i < r->n_ops) {
                sc_rp_flag(r->op_fix, i, SC_RP_FIX_OP_UNHOLD, on);
            }
            break;
        case SC_FIX_ROOM:
            if (i < t->n_kernels) sc_rp_flag(r->op_fix, i, SC_RP_FIX_OP_ROOM, on);
            break;
        case SC_FIX_ARRIVAL:
            if (i < t->n_kernels) sc_rp_flag(r->op_fix, i, SC_RP_FIX_OP_ARRIVAL, on);
            break;
        case SC_FIX_QUEUES:
            r->fix_all_queues = on;
            break;
        case SC_FIX_PREFETCH:
            if (i < t->n_kernels) sc_rp_flag(r->op_fix, i, SC_RP_FIX_OP_PREFETCH, on);
            break;
        case SC_FIX_DURATION:
            if (i < t->n_kernels) sc_rp_flag(r->op_fix, i, SC_RP_FIX_OP_DURATION, on);
            break;
        case SC_FIX_UNEVENT:
            if (i < t->n_calls) r->fix_unevent[i] = on;
            break;
        default:
            break;
        }
    }
}

/* Item i's start is known (item_start): it was placed, or the item before it on its thread
 * was (which sets it), in this pass. */
static bool sc_rp_item_started(const sc_replay *r, int32_t i)
{
    return (r->item_fix[i] & SC_RP_ITEM_DONE) ||
           (!r->items[i].first && (r->item_fix[i - 1] & SC_RP_ITEM_DONE));
}

/* When the item that issued a piece of work started: known once the item before it on its
 * thread has ended; otherwise (a tie in recorded time) its recorded start moved as its thread
 * has moved so far. */
static uint64_t sc_rp_item_start(const sc_replay *r, int32_t i)
{
    const sc_rp_item *it = &r->items[i];
    if (sc_rp_item_started(r, i))
        return r->item_start[i];
    return it->rec_start + r->thread_shift[sc_rp_thread_of(r, i)];
}

/* When the call that issued work i started: its item's start, plus the recorded time from
 * there to the call, less, once the item's start is known in a plain pass, what tracing added
 * to the item's calls before it (sc_rp_in_run); before that, the call's recorded start moved
 * as its thread has, as sc_rp_item_start takes an item's. */
static uint64_t sc_rp_call_start(const sc_replay *r, int32_t i)
{
    const sc_rp_in_run *at = &r->in_run[i];
    int32_t item = r->ops[i].item;
    uint64_t start = sc_rp_item_start(r, item) + at->after;
    return r->plain && sc_rp_item_started(r, item) ? start - at->before : start;
}

/* The replayed end of an item other nodes read (sc_rp_item.end_read): its entry in
 * r->item_ends, whose value is set once the item is done in this pass. */
static sc_rp_sparse *sc_rp_kept_end(const sc_replay *r, int32_t i)
{
    return &r->item_ends[sc_rp_value_of(r->item_ends, r->n_item_ends, i) - r->item_ends];
}

/* The condition of waiting item i in this pass, at its step: the entry the pass reaches next
 * (sc_replay.kept_chained), or searched. Every waiting item's step takes it once. */
static inline uint32_t sc_rp_take_cond(sc_replay *r, int32_t i)
{
    const sc_rp_wait_ref *v = r->kept_chained ? &r->waits[r->wait_next] : sc_rp_wait_of(r, i);
    r->wait_next = v->next;
    return v->cond;
}

/* Item i, whose end is read after its step, ended at `end` in this pass: stored in the entry
 * the pass reaches next (sc_replay.kept_chained), or searched. */
static inline void sc_rp_keep_end(sc_replay *r, int32_t i, uint64_t end)
{
    sc_rp_sparse *e = r->kept_chained ? &r->item_ends[r->kept_next] : sc_rp_kept_end(r, i);
    e->value = end;
    r->kept_next = e->other;
}

static uint64_t sc_rp_max(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The duration the pass's SC_FIX_DURATION gives kernel i. */
static uint64_t sc_rp_fixed_dur(const sc_replay *r, int32_t i)
{
    size_t lo = SC_LOWER_BOUND(r->durations, r->n_durations, index, (size_t)i);
    return lo < r->n_durations && r->durations[lo].index == (size_t)i ? r->durations[lo].ns
                                                                      : sc_rp_rec_dur(r, i);
}

static int sc_rp_duration_cmp(const void *pa, const void *pb)
{
    const sc_fix *a = pa, *b = pb;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The pass's SC_FIX_DURATION fixes, by index. Returns 0, or -1 when out of memory (the
 * pass then runs them as recorded: their op_fix bit is not set). */
static int sc_rp_take_durations(sc_replay *r, const sc_fix_list *lists, size_t n_lists)
{
    r->n_durations = 0;
    for (size_t l = 0; l < n_lists; l++)
        for (size_t k = 0; k < lists[l].n; k++) {
            if (lists[l].items[k].kind != SC_FIX_DURATION)
                continue;
            if (!SC_GROW(r->durations, r->cap_durations, r->n_durations + 1, 16))
                return -1;
            r->durations[r->n_durations++] = lists[l].items[k];
        }
    sc_sort(r->durations, r->n_durations, sizeof *r->durations, sc_rp_duration_cmp);
    return 0;
}

/* How long a piece of work runs in this pass: as recorded, or as a fix makes it (only copies
 * are pinned, only kernels prefetched or given a duration: sc_rp_apply). A kernel's
 * prefetched duration is read where unified.h measured it, not copied. Inline: every op of
 * every pass asks it. */
static inline uint64_t sc_rp_dur(const sc_replay *r, int32_t i)
{
    uint8_t fix = r->op_fix[i];
    if (!(fix & (SC_RP_FIX_OP_PINNED | SC_RP_FIX_OP_PREFETCH | SC_RP_FIX_OP_DURATION)))
        return sc_rp_rec_dur(r, i);     /* most work, in most passes: no context read */
    if ((fix & SC_RP_FIX_OP_DURATION))
        return sc_rp_fixed_dur(r, i);
    if ((fix & SC_RP_FIX_OP_PINNED))
        return sc_rp_pinned_ns(r, i);
    const sc_unified *u = r->ctx->unified;
    if (u && u->kernels)
        return u->kernels[i].prefetched_ns;
    return sc_rp_rec_dur(r, i);
}

/* When work i starts in this pass: its recorded start until it is placed (a recorded tie), then
 * its end less its duration, which the pass's fixes fix for the whole pass. */
static uint64_t sc_rp_op_start(const sc_replay *r, int32_t i)
{
    return (r->op_fix[i] & SC_RP_OP_PLACED) ? r->op_end[i] - sc_rp_dur(r, i)
                                            : sc_rp_rec_start(r, i);
}

/* When work i ends in this pass: its recorded end until it is placed (a recorded tie), then
 * its replayed end. */
static uint64_t sc_rp_op_end(const sc_replay *r, int32_t i)
{
    return (r->op_fix[i] & SC_RP_OP_PLACED) ? r->op_end[i] : sc_rp_rec_end(r, i);
}

#define SC_RP_ARRIVAL_LOOKBACK 16  /* placed full grids of its device that ended before it */

/* SC_FIX_ARRIVAL: the block scheduler of streams of equal priority dispatches grids in the
 * order they became ready, each one once the blocks of those before it have all been handed
 * out: a kernel ready at `ready` starts once every full grid of its device that became ready
 * before it has begun its last wave (and at `ready` at the earliest). Only grids this pass
 * has placed count (the rest were recorded after the kernel started, and became ready after
 * it). */
static uint64_t sc_rp_arrival_start(const sc_replay *r, int32_t i, uint64_t ready)
{
    const sc_rp_op *o = &r->ops[i];
    uint64_t rec_start = sc_rp_rec_start(r, i);
    size_t lo = 0, hi = r->n_full;
    while (lo < hi) {   /* full grids recorded to start before it */
        size_t mid = lo + (hi - lo) / 2;
        if (sc_rp_rec_start(r, r->full[mid]) < rec_start)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t t = ready;
    uint32_t slot = sc_rp_op_slot(r, i);
    for (size_t k = lo, over = 0; k-- > 0 && over < SC_RP_ARRIVAL_LOOKBACK;) {
        int32_t g = r->full[k];
        const sc_rp_op *a = &r->ops[g];
        if (a->dev != o->dev || r->full_slots[k] == slot || r->full_ready[k] == UINT64_MAX)
            continue;
        if (sc_rp_op_end(r, g) <= ready) {
            over++;
            continue;
        }
        if (r->full_ready[k] >= ready)
            continue;   /* it became ready after this kernel: this one goes first */
        uint64_t start = sc_rp_op_start(r, g);
        uint64_t dur = sc_rp_op_end(r, g) - start, waves = r->full_waves[k];
        uint64_t last_wave = start + (waves > 1 ? dur / waves * (waves - 1) : 0);
        t = sc_rp_max(t, last_wave);
    }
    return t;
}

/* Work i became ready at t: kept when it is a full grid (r->full is ordered by recorded start,
 * then position). */
static void sc_rp_note_ready(sc_replay *r, int32_t i, uint64_t t)
{
    uint64_t start = sc_rp_rec_start(r, i);
    size_t lo = 0, hi = r->n_full;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t g = sc_rp_rec_start(r, r->full[mid]);
        if (g < start || (g == start && r->full[mid] < i))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->n_full && r->full[lo] == i)
        r->full_ready[lo] = t;
}


/* From the start of the call that issued work of this kind to the work's start: the typical
 * lag, less what tracing added to the call in a plain pass (the call submits as it returns). */
static uint64_t sc_rp_issue_lag(const sc_replay *r, int32_t op, uint8_t kind)
{
    uint64_t lag = r->lag_issue[kind], cut = r->plain ? sc_rp_op_tracer(r, op) : 0;
    return lag > cut ? lag - cut : 0;
}

/* Work o ended at `end`: its device's tree of ends, for the device waits, when any item has
 * one. */
static void sc_rp_raise_device(sc_replay *r, const sc_rp_op *o, uint64_t end)
{
    if (r->dev_tree)
        sc_rp_tree_raise(r->dev_tree + r->dev_first[o->dev], r->dev_count[o->dev],
                         r->dev_pos[o - r->ops], end);
}

/* Work or an item ended at `end` in this pass: every op and item is placed once a pass, so
 * the latest of these is the replayed run's end, without a walk over the ends after. */
static void sc_rp_note_end(sc_replay *r, uint64_t end)
{
    if (end > r->pass_end)
        r->pass_end = end;
}

/* When work that would start at t starts, given the full grids its room edges name (of its
 * n edges): a grid running at t leaves it no room, and it starts at the grid's end (twice:
 * moving past one grid may land inside the next). */
static uint64_t sc_rp_after_room(const sc_replay *r, const sc_rp_edge *edges, uint32_t n,
                                 uint64_t t)
{
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < n; k++) {
            const sc_rp_edge *e = &edges[k];
            if (e->kind == SC_RP_EDGE_ROOM && sc_rp_op_start(r, e->op) <= t &&
                t < sc_rp_op_end(r, e->op))
                t = sc_rp_op_end(r, e->op);
        }
    return t;
}

/* Work i ends at `end` in this pass: placed. The end is passed, not read back: after the
 * flag byte's store the compiler must reload what any byte may alias. */
static inline void sc_rp_place_op(sc_replay *r, int32_t i, uint64_t end)
{
    r->op_end[i] = end;
    sc_rp_note_end(r, end);
    sc_rp_raise_device(r, &r->ops[i], end);
    r->op_fix[i] |= SC_RP_OP_PLACED;
}

#define SC_RP_AFTER_LOAD_NS 30000u  /* a kernel this soon after its load was held by it */

/* The two steps of a pass (sc_rp_run_op, sc_rp_run_item) are inlined into its loop: each
 * runs once per node per pass, and as calls (registers saved and restored each time) they
 * cost the six passes at 100k records 78.4M instructions against 68.3M. */
#define SC_RP_PASS_STEP static inline __attribute__((always_inline))

SC_RP_PASS_STEP void sc_rp_run_op(sc_replay *r, int32_t i)
{
    const sc_rp_op *o = &r->ops[i];
    const sc_rp_item *it = o->item != SC_RP_NONE ? &r->items[o->item] : NULL;
    uint64_t rec_start = sc_rp_rec_start(r, i);
    uint64_t t = it ? sc_rp_call_start(r, i) + sc_rp_issue_lag(r, i, o->kind) : rec_start;
    uint64_t rec_load_end = it && it->loads ? sc_rp_load_end(r, o->item) : 0;
    if (it && it->loads && !(r->item_fix[o->item] & SC_RP_FIX_ITEM_NO_LOAD) &&
        (r->item_fix[o->item] & SC_RP_ITEM_DONE) && rec_start >= rec_load_end) {
        /* the kernel of a loading launch: after the load (the call's end less what it did
         * after the load), as recorded after it; a kernel that started long after its load
         * was held by something else (its stream, a barrier: the edges below), and follows
         * the load by the typical issue lag only */
        uint64_t tail = sc_rp_item_end(r, o->item) - rec_load_end;
        uint64_t end = sc_rp_kept_end(r, o->item)->value;
        uint64_t load_end = end - r->item_start[o->item] > tail ? end - tail
                                                                : r->item_start[o->item];
        uint64_t after = rec_start - rec_load_end;
        t = sc_rp_max(t, load_end + (after <= SC_RP_AFTER_LOAD_NS ? after
                                                                   : r->lag_issue[o->kind]));
    }
    if (o->stream_prev != SC_RP_NONE)
        t = sc_rp_max(t, sc_rp_op_end(r, o->stream_prev) + r->lag_stream);
    int32_t engine_prev = sc_rp_engine_prev(r, o), queue_prev = sc_rp_queue_prev(r, o);
    if (engine_prev != SC_RP_NONE)
        t = sc_rp_max(t, sc_rp_op_end(r, engine_prev) + r->lag_stream);
    if (queue_prev != SC_RP_NONE && !r->fix_all_queues)
        t = sc_rp_max(t, sc_rp_op_start(r, queue_prev) + r->lag_queue);
    uint32_t n_edges;
    const sc_rp_edge *edges = sc_rp_op_edges(r->edges, r->links, o, &n_edges);
    for (uint32_t k = 0; k < n_edges; k++) {
        const sc_rp_edge *e = &edges[k];
        if ((e->kind == SC_RP_EDGE_EVENT && !r->fix_unevent[e->slot]) ||
            (e->kind == SC_RP_EDGE_BARRIER && !r->fix_barrier[e->slot]))
            t = sc_rp_max(t, sc_rp_op_end(r, e->op) + r->lag_cross);
    }
    if (r->pass_arrival && o->kind == SC_WORK_KERNEL)
        sc_rp_note_ready(r, i, t);
    if ((r->op_fix[i] & SC_RP_FIX_OP_ARRIVAL)) {
        sc_rp_place_op(r, i, sc_rp_arrival_start(r, i, t) + sc_rp_dur(r, i));
        return;
    }
    /* a staged peer copy made direct no longer waits for the driver's staging */
    bool unheld = (r->op_fix[i] & SC_RP_FIX_OP_UNHOLD) ||
                  (o->peer_staged && (r->op_fix[i] & SC_RP_FIX_OP_PINNED));
    const sc_rp_sparse *late = o->late ? sc_rp_value_of(r->lates, r->n_lates, i) : NULL;
    if (late && late->other != SC_RP_NONE && !unheld) {
        int64_t h = (int64_t)sc_rp_op_end(r, late->other) + late->held_lag;
        t = sc_rp_max(t, h > 0 ? (uint64_t)h : 0);
    }
    if (late && late->other == SC_RP_NONE && !unheld)
        t += late->value;   /* late for a reason the trace does not name: the fix's to remove */
    if (n_edges > 0 && !(r->op_fix[i] & SC_RP_FIX_OP_ROOM))
        t = sc_rp_after_room(r, edges, n_edges, t);
    sc_rp_place_op(r, i, t + sc_rp_dur(r, i));
}

/* When what a waiting item waits for (its wait's cond) has ended, in the replay. */
static uint64_t sc_rp_cond_end(const sc_replay *r, int32_t i, uint32_t cond)
{
    const sc_rp_item *it = &r->items[i];
    uint64_t end = 0;
    if (it->wait == SC_RP_WAIT_OPS) {
        uint32_t n;
        const int32_t *ops = sc_rp_cond_list(r, cond, &n);
        for (uint32_t k = 0; k < n; k++)
            end = sc_rp_max(end, sc_rp_op_end(r, ops[k]));
        return end;
    }
    const sc_rp_dev_wait *v = &r->dev_waits[cond];
    for (size_t d = 0; d < r->n_devs; d++) {
        if (v->dev != UINT32_MAX && v->dev != d)
            continue;
        size_t limit = v->limit;
        if (v->dev == UINT32_MAX)       /* all devices: how many of this one's preceded */
            limit = r->dev_limits[v->limit + d];
        end = sc_rp_max(end, sc_rp_tree_max(r->dev_tree + r->dev_first[d], limit));
    }
    return end;
}

SC_RP_PASS_STEP void sc_rp_run_item(sc_replay *r, int32_t i)
{
    const sc_rp_item *it = &r->items[i];
    uint32_t thread = sc_rp_thread_of(r, i);
    /* a thread's first item: where the loads a fix took out of its launches are paid (a
     * module loaded eagerly, or by a warm-up, still takes its time, before the work) */
    uint64_t start = it->first ? it->rec_start + r->moved_load[thread]
                               : sc_rp_item_start(r, i);
    const sc_rp_sparse *join = it->joins ? sc_rp_value_of(r->joins, r->n_joins, i) : NULL;
    if (join && (r->item_fix[join->other] & SC_RP_ITEM_DONE)) {
        /* a join: the gap was the wait for the other thread's end, not host work */
        uint64_t prev_end = start - (sc_rp_gap(r, i) - (r->plain ? sc_rp_tool(r, i) : 0));
        start = sc_rp_max(prev_end, sc_rp_kept_end(r, join->other)->value + join->value);
    }
    uint64_t rec_end = sc_rp_item_end(r, i);
    uint64_t own = rec_end - it->rec_start - (r->plain ? sc_rp_tracer(r, i) : 0), end;
    int32_t pinned_copy = it->pinned ? sc_rp_pinned_copy(r, i) : SC_RP_NONE;
    uint32_t cond = it->wait != SC_RP_WAIT_NONE ? sc_rp_take_cond(r, i) : 0;
    int64_t post = it->waited ? sc_rp_post_at(r, i, cond) : 0;
    if (it->mark || (r->item_fix[i] & SC_RP_FIX_ITEM_REMOVE)) {
        end = start;    /* a range mark, or a call the fix takes out of the run */
    } else if (pinned_copy != SC_RP_NONE && (r->op_fix[pinned_copy] & SC_RP_FIX_OP_PINNED)) {
        /* from pinned memory the call returns at once; what it did after its copy ended (a
         * stall of its own) it would still do */
        uint64_t call = r->async_call_ns, cut = r->plain ? r->async_call_tracer : 0;
        end = start + (call > cut ? call - cut : 0) +
              (uint64_t)(it->waited && post > 0 ? post : 0);
    } else if (it->wait == SC_RP_WAIT_NONE || (r->item_fix[i] & SC_RP_FIX_ITEM_UNWAIT) ||
               (it->loads && (r->item_fix[i] & SC_RP_FIX_ITEM_NO_LOAD))) {
        /* what the call does beside waiting: all of it, or its part after the wait */
        end = start + (it->waited ? (uint64_t)(post > 0 ? post : 0) : own);
    } else {
        uint64_t cond_end = sc_rp_cond_end(r, i, cond);
        if (it->waited) {
            int64_t e = (int64_t)sc_rp_max(start, cond_end) + post;
            end = e > (int64_t)start ? (uint64_t)e : start;
        } else {
            end = sc_rp_max(start + own, cond_end + r->wake_ns);
        }
    }
    if ((r->item_fix[i] & SC_RP_FIX_ITEM_NO_LOAD)) {
        uint64_t load_ns = sc_rp_load_ns(r, i);
        uint64_t load = load_ns < end - start ? load_ns : end - start;
        end -= load;
    }
    r->item_start[i] = start;
    if (it->end_read)
        sc_rp_keep_end(r, i, end);
    sc_rp_note_end(r, end);
    r->thread_shift[thread] = end - rec_end;
    if (!it->last) {    /* the next item of its thread is i + 1: its gap follows rec_end */
        r->item_start[i + 1] = end + sc_rp_gap_after(&r->items[i + 1], rec_end) -
                               (r->plain ? sc_rp_tool(r, i + 1) : 0);
    }
    r->item_fix[i] |= SC_RP_ITEM_DONE;  /* last: a byte's store makes the fields be read again */
}

/* The general steps as calls: the walk below inlines only the fast steps, whose values then
 * stay in registers across the nodes (a call saves what it uses, on the rare nodes only). */
static __attribute__((noinline)) void sc_rp_run_op_call(sc_replay *r, int32_t i)
{
    sc_rp_run_op(r, i);
}

static __attribute__((noinline)) void sc_rp_run_item_call(sc_replay *r, int32_t i)
{
    sc_rp_run_item(r, i);
}

#define SC_RP_WALK_STEP static inline __attribute__((always_inline))

/* Item it (not its thread's last) ended at `end`: the next item's start (sc_rp_walk), whose
 * gap holds none of streamcheck's own time (sc_rp_pass_shapes). */
SC_RP_WALK_STEP void sc_rp_item_next(const sc_rp_item *it, uint64_t *next_start, uint64_t end)
{
    uint64_t rec_end = it->rec_start + it->dur;
    *next_start = end + sc_rp_gap_after(&it[1], rec_end);
}

/* The fast step of item i (sc_rp_walk): returns its end; its flags are the walk's. */
SC_RP_WALK_STEP uint64_t sc_rp_item_fast(const sc_rp_item *items, uint64_t *item_start,
                                         int32_t i, uint32_t plain)
{
    const sc_rp_item *it = &items[i];
    uint64_t end = item_start[i] + ((uint64_t)it->dur - (it->tracer & plain));
    sc_rp_item_next(it, &item_start[i + 1], end);
    return end;
}

/* The end of item i of the fast shape that waits for listed work (SC_RP_ITEM_WAIT_FAST), all
 * of it placed before the item's step, its return after the wait in its field (its wait's
 * entry in cond_ops). */
SC_RP_WALK_STEP uint64_t sc_rp_item_wait_fast(sc_replay *r, const uint64_t *op_end,
                                              const sc_rp_item *it, int32_t i, uint64_t start,
                                              uint32_t plain)
{
    uint32_t n, cond = sc_rp_take_cond(r, i);
    const int32_t *ops = sc_rp_cond_list(r, cond, &n);
    uint64_t c = 0;
    for (uint32_t k = 0; k < n; k++)
        c = sc_rp_max(c, op_end[ops[k]]);
    if (it->waited) {
        int64_t e = (int64_t)sc_rp_max(start, c) + r->cond_ops[cond + 1];
        return e > (int64_t)start ? (uint64_t)e : start;
    }
    return sc_rp_max(start + ((uint64_t)it->dur - (it->tracer & plain)), c + r->wake_ns);
}

/* The edges of work o of the fast shape: events and barriers (no room edge) from work placed
 * before its step; those a fix removes are left out, as sc_rp_run_op leaves them. */
SC_RP_WALK_STEP uint64_t sc_rp_edges_fast(const sc_replay *r, const uint64_t *op_end,
                                          uint32_t first, uint64_t t)
{
    const sc_rp_edge *e = &r->edges[first];
    for (;; e++) {
        const uint8_t *fixed = e->kind == SC_RP_EDGE_EVENT ? r->fix_unevent : r->fix_barrier;
        if (!fixed[e->slot])
            t = sc_rp_max(t, op_end[e->op] + r->lag_cross);
        if (e->last)
            return t;
    }
}

/* A pass's walk of the nodes. A node of the common shape (sc_rp_pass_shapes) takes its fast
 * step here, the rest their general step:
 *   work (SC_RP_OP_FAST, and no SC_FIX_ARRIVAL on it in this pass): issued by an item whose
 *   start is known and whose tracing cost is at most the issue lag, after work on its
 *   stream, engine and queue that is placed, its edges (if any) events and barriers from
 *   placed work, no lateness, no module load and no full grid to note: what sc_rp_run_op
 *   would test and look up for it is known absent, so it takes the same latest of the same
 *   constraints without asking;
 *   an item (SC_RP_ITEM_FAST, and no fix on it in this pass): neither its thread's first nor
 *   its last, no join, no module load, no pageable copy, no time if it is a mark (its end is
 *   then its start, as the general step makes it), its times in their fields, none of
 *   streamcheck's own time in the next item's gap (the few sampled calls' next items take
 *   the general step). Its start is item_start[i], which the item before it stored
 *   (unless SC_RP_ITEM_SHIFT_FAST: then the step tests it, as sc_rp_item_start does, and
 *   stores the thread's shift for a later step that reads it; the other fast items store
 *   none). SC_RP_ITEM_WAIT_FAST: it waits for listed work, all placed, its return after the
 *   wait in its field (its wait the entry the pass reaches next, as every waiting item's
 *   step takes it: sc_rp_take_cond). SC_RP_ITEM_KEPT_FAST: its end is read after its step, and stored in
 *   the entry the pass reaches next (kept_chained).
 * What the loop reads of r is in locals: the steps' byte stores may alias any field of r,
 * which the loop would otherwise read again each node. The latest end is kept here for the
 * fast steps, in r->pass_end for the general ones, and merged after. tree and plain_pass
 * are constants in each of sc_rp_walk's copies. */
static inline __attribute__((always_inline)) void sc_rp_walk_nodes(sc_replay *r, bool tree,
                                                                  bool plain_pass)
{
    const uint32_t *nodes = r->nodes;
    size_t n_nodes = r->n_nodes, n_ops = r->n_ops;
    const sc_rp_op *ops = r->ops;
    const sc_work_records records = r->records;
    const sc_rp_link *links = r->links;
    const sc_rp_item *items = r->items;
    const sc_rp_in_run *in_run = r->in_run;
    uint64_t *op_end = r->op_end, *item_start = r->item_start, *thread_shift = r->thread_shift;
    uint8_t *op_fix = r->op_fix, *item_fix = r->item_fix;
    uint64_t *dev_tree = r->dev_tree;
    const uint64_t lag_issue[3] = {r->lag_issue[0], r->lag_issue[1], r->lag_issue[2]};
    uint64_t lag_stream = r->lag_stream;
    uint64_t lag_queue = r->lag_queue;
    bool queues = !r->fix_all_queues;
    /* plain passes leave out tracing's and streamcheck's own time: a mask, known in each of
     * the walk's copies */
    uint32_t plain = plain_pass ? UINT32_MAX : 0;
    uint64_t last = r->pass_end;
    for (size_t k = 0; k < n_nodes; k++) {
        size_t node = nodes[k];
        if (node >= n_ops) {
            int32_t i = (int32_t)(node - n_ops);
            uint8_t fix = item_fix[i];
            if (fix == SC_RP_ITEM_FAST) {
                last = sc_rp_max(last, sc_rp_item_fast(items, item_start, i, plain));
            } else if ((fix & ~(SC_RP_ITEM_KEPT_FAST | SC_RP_ITEM_WAIT_FAST |
                                SC_RP_ITEM_SHIFT_FAST)) == SC_RP_ITEM_FAST) {
                const sc_rp_item *it = &items[i];
                uint64_t start;
                uint32_t thread = 0;
                if ((fix & SC_RP_ITEM_SHIFT_FAST)) {
                    thread = sc_rp_thread_of(r, i);     /* rare: r is read again */
                    /* sc_rp_item_start's: item_start[i] is not read before it is written (a
                     * page's read before its first write costs it a second fault) */
                    start = (item_fix[i - 1] & SC_RP_ITEM_DONE)
                                ? item_start[i]
                                : it->rec_start + thread_shift[thread];
                    item_start[i] = start;
                } else {
                    start = item_start[i];
                }
                uint64_t end = (fix & SC_RP_ITEM_WAIT_FAST)
                                   ? sc_rp_item_wait_fast(r, op_end, it, i, start, plain)
                                   : start + ((uint64_t)it->dur - (it->tracer & plain));
                sc_rp_item_next(it, &item_start[i + 1], end);
                if ((fix & SC_RP_ITEM_SHIFT_FAST))
                    thread_shift[thread] = end - (it->rec_start + it->dur);
                last = sc_rp_max(last, end);
                if ((fix & SC_RP_ITEM_KEPT_FAST)) {
                    sc_rp_sparse *e = &r->item_ends[r->kept_next];
                    e->value = end;
                    r->kept_next = e->other;
                }
            } else {    /* a rare shape, or a fix on it */
                sc_rp_run_item_call(r, i);
                continue;
            }
            item_fix[i] = (uint8_t)(fix | SC_RP_ITEM_DONE);
            continue;
        }
        uint8_t fix = op_fix[node];
        if ((fix & (SC_RP_OP_FAST | SC_RP_FIX_OP_ARRIVAL)) != SC_RP_OP_FAST) {
            sc_rp_run_op_call(r, (int32_t)node);
            continue;
        }
        const sc_rp_op *o = &ops[node];
        /* its call's start in its item (sc_rp_call_start); what tracing added to its call
         * is at most its issue lag: no clamp */
        const sc_rp_in_run *at = &in_run[node];
        uint64_t t = item_start[o->item] + at->after - (uint64_t)(at->before & plain) +
                     lag_issue[o->kind] - (uint64_t)(at->tracer & plain);
        if (o->stream_prev != SC_RP_NONE)
            t = sc_rp_max(t, op_end[o->stream_prev] + lag_stream);
        if (o->link != SC_RP_NO_LINK) {    /* edges, or either predecessor */
            const sc_rp_link *l = &links[o->link];
            if (l->edge_first != SC_RP_NO_EDGES)
                t = sc_rp_edges_fast(r, op_end, l->edge_first, t);
            if (l->engine_prev != SC_RP_NONE)
                t = sc_rp_max(t, op_end[l->engine_prev] + lag_stream);
            if (l->queue_prev != SC_RP_NONE && queues)
                t = sc_rp_max(t, op_end[l->queue_prev] - sc_rp_dur(r, l->queue_prev) +
                                     lag_queue);
        }
        /* a fast op's duration is its record's, unless a fix gives it another */
        uint64_t rec_start, rec_end;
        sc_work_records_times(&records, node, &rec_start, &rec_end);
        uint64_t end = t + ((fix & (SC_RP_FIX_OP_PINNED | SC_RP_FIX_OP_PREFETCH |
                                    SC_RP_FIX_OP_DURATION))
                                ? sc_rp_dur(r, (int32_t)node)
                                : rec_end - rec_start);
        op_end[node] = end;
        last = sc_rp_max(last, end);
        if (tree)
            sc_rp_tree_raise(dev_tree + r->dev_first[o->dev], r->dev_count[o->dev],
                             r->dev_pos[node], end);
        op_fix[node] = (uint8_t)(fix | SC_RP_OP_PLACED);
    }
    sc_rp_note_end(r, last);
}

/* The walk for passes with and without the devices' trees of ends (an item that waits for a
 * device), plain or as recorded: each test is made once a pass, not once a node. */
static void sc_rp_walk(sc_replay *r)
{
    if (r->dev_tree)
        r->plain ? sc_rp_walk_nodes(r, true, true) : sc_rp_walk_nodes(r, true, false);
    else
        r->plain ? sc_rp_walk_nodes(r, false, true) : sc_rp_walk_nodes(r, false, false);
}

/* Whether all the work an SC_RP_WAIT_OPS item waits for is placed (sc_rp_pass_shapes; the
 * flags are arguments, as in the walk below, not read through r after each byte store). */
static bool sc_rp_cond_placed(const sc_replay *r, const uint8_t *op_fix, uint32_t cond)
{
    uint32_t n;
    const int32_t *ops = sc_rp_cond_list(r, cond, &n);
    for (uint32_t k = 0; k < n; k++)
        if (!(op_fix[ops[k]] & SC_RP_OP_PLACED))
            return false;
    return true;
}

/* Whether the edges from `first` are all events and barriers from placed work
 * (sc_rp_pass_shapes). */
static bool sc_rp_edges_placed(const sc_rp_edge *edges, const uint8_t *op_fix, uint32_t first)
{
    uint32_t n;
    const sc_rp_edge *e = sc_rp_edges_from(edges, first, &n);
    for (uint32_t k = 0; k < n; k++)
        if (e[k].kind == SC_RP_EDGE_ROOM || !(op_fix[e[k].op] & SC_RP_OP_PLACED))
            return false;
    return true;
}

/* Whether work i (SC_RP_NONE: none) is placed, in sc_rp_pass_shapes's walk. */
static inline bool sc_rp_none_or_placed(const uint8_t *op_fix, int32_t i)
{
    return i == SC_RP_NONE || (op_fix[i] & SC_RP_OP_PLACED);
}

/* A later step reads the shift item d (SC_RP_NONE: none) leaves its thread: when d is fast,
 * its step stores it (sc_rp_pass_shapes). */
static void sc_rp_shift_read(uint8_t *item_fix, int32_t d)
{
    if (d != SC_RP_NONE && (item_fix[d] & SC_RP_ITEM_FAST))
        item_fix[d] |= SC_RP_ITEM_SHIFT_FAST;
}

/* Which nodes take the fast steps (SC_RP_OP_FAST, SC_RP_ITEM_FAST; sc_rp_walk): what their
 * general steps would find is fixed by the graph and the node order, not by a pass's fixes
 * or `plain`, except for the fix bits the walk tests. Whether what a node follows is placed
 * (done) when its step runs is the same in every pass, as every pass walks the same order:
 * one walk here setting the pass's own flags tells it, with no array of node positions.
 * The walk also finds where a thread's shift is read (an item or a piece of work whose
 * item's start is not known yet reads the shift the last item its thread has done left):
 * the fast items on either side of it read and store it (SC_RP_ITEM_SHIFT_FAST); the rest
 * leave it alone. Once, before the first pass; the pass flags are left cleared. Without
 * memory for its per-thread scratch no node is fast. */
void sc_rp_pass_shapes(sc_replay *r)
{
    const sc_rp_op *ops = r->ops;
    const sc_rp_item *items = r->items;
    const sc_rp_edge *edges = r->edges;
    const uint32_t *nodes = r->nodes;
    uint8_t *op_fix = r->op_fix, *item_fix = r->item_fix;
    size_t n_ops = r->n_ops, n_nodes = r->n_nodes;
    const uint32_t *thread_first = r->thread_first;
    size_t n_threads = r->n_threads;
    const int32_t *cond_ops = r->cond_ops;
    const uint64_t lag_issue[3] = {r->lag_issue[0], r->lag_issue[1], r->lag_issue[2]};
    sc_rp_pass_shapes_drop(r);
    int32_t *last_done = malloc((r->n_threads + 1) * sizeof *last_done);
    if (!last_done)
        return;
    int32_t *kept_link = &r->kept_first;    /* where the next kept end's entry is named */
    sc_rp_sparse *kept_prev = NULL;
    sc_rp_sparse *kept_end = r->item_ends ? r->item_ends + r->n_item_ends : NULL; /* none kept */
    int32_t *wait_link = &r->waits_first;   /* the same for the waits */
    sc_rp_wait_ref *wait_prev = NULL;
    sc_rp_wait_ref *wait_end = r->waits ? r->waits + r->n_waits : NULL;
    for (size_t t = 0; t <= r->n_threads; t++)
        last_done[t] = SC_RP_NONE;
    for (size_t i = 0; i < n_ops; i++)     /* candidates: all but the full grids */
        op_fix[i] = (uint8_t)((op_fix[i] & ~SC_RP_OP_PLACED) | SC_RP_OP_FAST);
    for (size_t k = 0; k < r->n_full; k++)
        op_fix[r->full[k]] &= (uint8_t)~SC_RP_OP_FAST;  /* sc_rp_note_ready's */
    sc_rp_clear_bit(item_fix, r->n_items, SC_RP_ITEM_DONE);
    for (size_t k = 0; k < n_nodes; k++) {
        size_t node = nodes[k];
        if (node >= n_ops) {
            int32_t i = (int32_t)(node - n_ops);
            const sc_rp_item *it = &items[i];
            /* it reads the thread's shift (sc_rp_item_start) */
            bool shift = !it->first && !(item_fix[i - 1] & SC_RP_ITEM_DONE);
            uint32_t cond = 0;
            if (it->wait != SC_RP_WAIT_NONE) {  /* mostly the entry after the one before */
                sc_rp_wait_ref *e = wait_prev ? wait_prev + 1 : r->waits;
                if (e == wait_end || e->item != i)
                    e = &r->waits[sc_rp_wait_of(r, i) - r->waits];
                *wait_link = (int32_t)(e - r->waits);
                wait_link = &e->next;
                wait_prev = e;
                cond = e->cond;
            }
            bool wait = it->wait == SC_RP_WAIT_OPS && sc_rp_cond_placed(r, op_fix, cond) &&
                        (!it->waited || cond_ops[cond + 1] != SC_RP_WIDE_SIGNED);
            /* a mark's end is its start: the fast step's too when it has no time */
            bool fast = !it->first && !it->last && !it->loads && !it->joins && !it->pinned &&
                        (wait || (it->wait == SC_RP_WAIT_NONE && !it->waited)) &&
                        (!it->mark || (it->dur == 0 && it->tracer == 0)) &&
                        it->dur != SC_RP_WIDE && it->tracer != SC_RP_WIDE16 && !it[1].tool;
            item_fix[i] |= (uint8_t)(SC_RP_ITEM_DONE |
                                     (fast ? SC_RP_ITEM_FAST |
                                                 (it->end_read ? SC_RP_ITEM_KEPT_FAST : 0) |
                                                 (wait ? SC_RP_ITEM_WAIT_FAST : 0) |
                                                 (shift ? SC_RP_ITEM_SHIFT_FAST : 0)
                                           : 0));
            if (it->end_read) {   /* mostly the entry after the one before */
                sc_rp_sparse *e = kept_prev ? kept_prev + 1 : r->item_ends;
                if (e == kept_end || e->index != i)
                    e = sc_rp_kept_end(r, i);
                *kept_link = (int32_t)(e - r->item_ends);
                kept_link = &e->other;
                kept_prev = e;
            }
            uint32_t thread = sc_rp_thread_in(thread_first, n_threads, i);
            if (shift)
                sc_rp_shift_read(item_fix, last_done[thread]);
            last_done[thread] = i;
            continue;
        }
        const sc_rp_op *o = &ops[node];
        uint8_t fix = op_fix[node];
        if (o->item == SC_RP_NONE) {
            op_fix[node] = (uint8_t)((fix & ~SC_RP_OP_FAST) | SC_RP_OP_PLACED);
            continue;
        }
        const sc_rp_item *it = &items[o->item];
        bool started = (item_fix[o->item] & SC_RP_ITEM_DONE) ||
                       (!it->first && (item_fix[o->item - 1] & SC_RP_ITEM_DONE));
        bool fast = (fix & SC_RP_OP_FAST) && started && !o->late && !it->loads &&
                    r->in_run[node].tracer != SC_RP_WIDE16 &&
                    r->in_run[node].tracer <= lag_issue[o->kind] &&
                    sc_rp_none_or_placed(op_fix, o->stream_prev) &&
                    sc_rp_none_or_placed(op_fix, sc_rp_engine_prev(r, o)) &&
                    sc_rp_none_or_placed(op_fix, sc_rp_queue_prev(r, o)) &&
                    sc_rp_edges_placed(edges, op_fix, sc_rp_edge_first(r->links, o));
        op_fix[node] = (uint8_t)((fix & ~SC_RP_OP_FAST) | SC_RP_OP_PLACED |
                                 (fast ? SC_RP_OP_FAST : 0));
        if (!started)
            sc_rp_shift_read(item_fix, last_done[sc_rp_thread_in(thread_first, n_threads,
                                                                 o->item)]);
    }
    *kept_link = SC_RP_NONE;
    *wait_link = SC_RP_NONE;
    r->kept_chained = true;
    free(last_done);
    sc_rp_clear_bit(op_fix, n_ops, SC_RP_OP_PLACED);
    sc_rp_clear_bit(item_fix, r->n_items, SC_RP_ITEM_DONE);
}

void sc_rp_pass_shapes_drop(sc_replay *r)
{
    sc_rp_clear_bit(r->op_fix, r->n_ops, SC_RP_OP_FAST);
    sc_rp_clear_bit(r->item_fix, r->n_items,
                    SC_RP_ITEM_FAST | SC_RP_ITEM_KEPT_FAST | SC_RP_ITEM_WAIT_FAST |
                        SC_RP_ITEM_SHIFT_FAST);
    r->kept_chained = false;
}

uint64_t sc_replay_run(sc_replay *r, const sc_fix_list *lists, size_t n_lists)
{
    size_t n_fixes = 0;
    for (size_t l = 0; l < n_lists; l++)
        n_fixes += lists[l].n;
    if (n_fixes == 0 && r->unfixed_done && r->unfixed_plain == r->plain)
        return r->unfixed_span;     /* the pass before was this one */
    bool durations = sc_rp_take_durations(r, lists, n_lists) == 0;
    for (size_t l = 0; l < n_lists; l++)
        sc_rp_apply(r, lists[l].items, lists[l].n, true);
    r->pass_arrival = false;
    bool no_load = false;       /* some item's module loads move to its thread's start */
    for (size_t l = 0; l < n_lists; l++)
        for (size_t k = 0; k < lists[l].n; k++) {
            const sc_fix *f = &lists[l].items[k];
            if (!durations && f->kind == SC_FIX_DURATION && f->index < r->n_ops)
                r->op_fix[f->index] &= (uint8_t)~SC_RP_FIX_OP_DURATION;  /* run as recorded */
            r->pass_arrival |= f->kind == SC_FIX_ARRIVAL;
            no_load |= f->kind == SC_FIX_NO_LOAD;
        }
    sc_rp_clear_bit(r->op_fix, r->n_ops, SC_RP_OP_PLACED);
    for (size_t k = 0; r->pass_arrival && k < r->n_full; k++)
        r->full_ready[k] = UINT64_MAX;
    sc_rp_clear_bit(r->item_fix, r->n_items, SC_RP_ITEM_DONE);
    r->kept_next = r->kept_first;
    r->wait_next = r->waits_first;
    memset(r->thread_shift, 0, (r->n_threads + 1) * sizeof *r->thread_shift);
    memset(r->moved_load, 0, (r->n_threads + 1) * sizeof *r->moved_load);
    for (size_t i = 0; no_load && i < r->n_items; i++)
        if ((r->item_fix[i] & SC_RP_FIX_ITEM_NO_LOAD)) {
            const sc_rp_item *it = &r->items[i];
            uint64_t own = sc_rp_item_end(r, (int32_t)i) - it->rec_start;
            uint64_t load_ns = sc_rp_load_ns(r, (int32_t)i);
            r->moved_load[sc_rp_thread_of(r, (int32_t)i)] += load_ns < own ? load_ns : own;
        }
    if (r->dev_tree)
        memset(r->dev_tree, 0, (r->n_ops ? r->n_ops : 1) * sizeof *r->dev_tree);
    r->pass_end = r->run_start_ns;
    sc_rp_walk(r);
    for (size_t l = 0; l < n_lists; l++)
        sc_rp_apply(r, lists[l].items, lists[l].n, false);
    if (n_fixes > 0)
        sc_rp_clear_bit(r->item_fix, r->n_items,
                        SC_RP_FIX_ITEM_UNWAIT | SC_RP_FIX_ITEM_REMOVE | SC_RP_FIX_ITEM_NO_LOAD);
    r->n_durations = 0;
    uint64_t last = r->pass_end;
    r->unfixed_done = n_fixes == 0;
    r->unfixed_plain = r->plain;
    r->unfixed_span = last - r->run_start_ns;
    return last - r->run_start_ns;
}

uint64_t sc_replay_range_wall(const sc_replay *r, size_t range)
{
    if (range >= r->ctx->trace->n_ranges)
        return 0;
    int32_t a = r->range_marks[2 * range], b = r->range_marks[2 * range + 1];
    if (a == SC_RP_NONE || b == SC_RP_NONE)
        return 0;
    uint64_t end = sc_rp_kept_end(r, b)->value;
    return end < r->item_start[a] ? 0 : end - r->item_start[a];
}

void sc_rp_describe_fidelity(sc_replay *r)
{
    sc_replay_summary *s = &r->summary;
    sc_rp_pass_shapes(r);
    s->done = r->n_ops + r->n_items > 0;
    /* first to last event, as the replay runs it (run_span_ns is a capture scope's time) */
    s->recorded_span_ns = r->ctx->analysis->run_end_ns - r->ctx->analysis->run_start_ns;
    s->replay_span_ns = sc_replay_run(r, NULL, 0);
    s->error = s->recorded_span_ns
                   ? ((double)s->replay_span_ns - (double)s->recorded_span_ns) /
                         (double)s->recorded_span_ns
                   : 0.0;
    s->trusted = fabs(s->error) <= SC_REPLAY_TRUST;
    /* From here on every pass is the program without streamcheck's stacks and without what
     * tracing adds to each call: the base of the costs (the fidelity above is against the
     * recording, which has both). */
    r->plain = true;
    s->plain_span_ns = s->tool_ns || s->tracer_ns ? sc_replay_run(r, NULL, 0)
                                                  : s->replay_span_ns;
    s->ops = r->n_ops;
    s->calls = r->n_call_items;
}
