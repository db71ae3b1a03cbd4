/* The replay's host side: each thread's items in order (calls, polling loops, NVTX range
 * marks) and what a waiting call waits for (replay.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/blocking.h"
#include "analyze/peer_copy.h"
#include "analyze/pinned_rate.h"
#include "analyze/polls.h"
#include "analyze/replay_entries.h"
#include "analyze/replay_parts.h"
#include "analyze/stream_kind.h"
#include "analyze/tracer_cost.h"
#include "analyze/work.h"
#include "trace/grow.h"
#include "trace/order_by_time.h"
#include "trace/sort.h"
#include "trace/sort_u64.h"


/* ---- what a call's class is ----------------------------------------------------------- */

/* What the host steps ask of a call's class (blocking.h, tracer_cost.h), looked up in a table
 * for the classes the format names, where each of a million calls at 1M records called each
 * function (about 10 instructions a call and question). Classes past the table ask the
 * functions. */
typedef struct sc_rp_classes {
    bool sync[SC_RP_CLASSES], implicit[SC_RP_CLASSES];
    uint64_t tracer_ns[SC_RP_CLASSES];
} sc_rp_classes;

static void sc_rp_classes_make(sc_rp_classes *k)
{
    for (uint16_t c = 0; c < SC_RP_CLASSES; c++) {
        k->sync[c] = sc_blocking_sync_class(c);
        k->implicit[c] = sc_blocking_implicit_class(c);
        k->tracer_ns[c] = sc_tracer_cost_ns(c);
    }
}

static inline bool sc_rp_sync_class(const sc_rp_classes *k, uint16_t c)
{
    return c < SC_RP_CLASSES ? k->sync[c] : sc_blocking_sync_class(c);
}

static inline bool sc_rp_implicit_class(const sc_rp_classes *k, uint16_t c)
{
    return c < SC_RP_CLASSES ? k->implicit[c] : sc_blocking_implicit_class(c);
}

static inline uint64_t sc_rp_tracer_class_ns(const sc_rp_classes *k, uint16_t c)
{
    return c < SC_RP_CLASSES ? k->tracer_ns[c] : sc_tracer_cost_ns(c);
}

/* ---- what implicit synchronizations waited for -------------------------------------- */

/* Appends to a list of item values, growing it by doubling. */
static int sc_rp_push_value(sc_rp_sparse **v, size_t *n, size_t *cap, sc_rp_sparse x)
{
    if (!SC_GROW(*v, *cap, *n + 1, 16))
        return -1;
    (*v)[(*n)++] = x;
    return 0;
}


int sc_rp_drained_work(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    const sc_blocking_index *ix = r->ctx->blocking;
    size_t cap = 0;
    sc_rp_classes cls;
    sc_rp_classes_make(&cls);
    /* the calls that synchronize implicitly are among those that may hold the host,
     * blocking.h; as the rule implicit-sync, measured as one walk in start order */
    sc_blocking_walk walk;
    if (sc_blocking_walk_begin(ix, &walk) != 0)
        return -1;
    for (size_t k = 0; k < ix->n_holding; k++) {
        size_t i = ix->holding[k];
        const sc_api_call *c = &t->calls[i];
        /* an inner call is no item's call (replay_entries.h), and is never asked about */
        uint8_t call_class = sc_call_class_id(t, c);
        if (!sc_rp_implicit_class(&cls, call_class) || sc_blocking_is_inner(r->ctx, c))
            continue;
        bool copy_or_set = call_class == SC_CALL_MEMCPY || call_class == SC_CALL_MEMSET;
        sc_blocking_call q = {.start_ns = c->rec.start_ns, .end_ns = sc_call_end(t, c),
                              .tid = sc_call_tid(t, c), .call_class = call_class,
                              .context_id = sc_call_context(t, c),
                              .correlation_id = c->rec.correlation_id,
                              .skip_own_stream = copy_or_set};
        sc_blocking m;
        sc_blocking_measure_next(&walk, &q, &m);
        if (m.explained &&
            sc_rp_push_value(&r->drained, &r->n_drained, &cap,
                             (sc_rp_sparse){.index = (int32_t)i,
                                            .other = (int32_t)m.last_work}) != 0) {
            sc_blocking_walk_end(&walk);
            return -1;
        }
    }
    sc_blocking_walk_end(&walk);
    return 0;
}

/* ---- the records event waits wait for ----------------------------------------------- */

/* The classes whose wait is for an event's last record (a query only in a polling loop:
 * sc_rp_item_wait), whose records sc_rp_event_records finds. */
static bool sc_rp_event_class(uint16_t cls)
{
    return cls == SC_CALL_EVENT_SYNC || cls == SC_CALL_EVENT_READ || cls == SC_CALL_EVENT_QUERY;
}

/* The calls in their own order, read only when some call site is of these classes (the
 * extras, a few a trace, say): the items, a thread's after another's, would read the calls
 * out of order on a trace of many threads. A call is looked at when it is its item's call
 * (a loop's first query, no nested call). An item of these classes keeps its start through
 * the runs (none of them is quiet: sc_rp_may_run), so the record found here at it is the
 * one the host waits would find. */
int sc_rp_event_records(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    bool any = false;
    for (size_t x = 0; x < t->n_call_extras && !any; x++)
        any = sc_rp_event_class(t->call_extras[x].call_class);
    size_t cap = 0;
    for (size_t c = 0; any && c < t->n_calls; c++) {
        const sc_api_call *call = &t->calls[c];
        if (!sc_rp_event_class(sc_call_class_id(t, call)))
            continue;
        int32_t i = r->call_item[c];
        if (i < 0 || r->item_call[i] != (int32_t)c || r->items[i].mark)
            continue;
        const sc_api_call *rec = sc_deps_last_record(&r->ctx->deps, sc_call_aux(t, call),
                                                     r->items[i].rec_start);
        sc_rp_sparse v = {.index = (int32_t)c,
                          .other = rec ? (int32_t)(rec - t->calls) : SC_RP_NONE};
        if (sc_rp_push_value(&r->event_records, &r->n_event_records, &cap, v) != 0)
            return -1;
    }
    return 0;   /* in call order: sorted by index */
}

/* ---- items ---------------------------------------------------------------------------- */

static bool sc_rp_is_query(uint16_t c)
{
    return c == SC_CALL_STREAM_QUERY || c == SC_CALL_EVENT_QUERY;
}

/* What each call is while the items are made (replay_entries.h), in r->call_item: an inner
 * driver call is no entry, a polling loop's queries (polls.h) are the loop's; the rest
 * SC_RP_NONE. A loop whose first query were an inner call would be no entry, and its
 * queries no item's, as that call: its queries are marked inner. */
static void sc_rp_call_kinds(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    const sc_poll_loop *loops = r->ctx->polls;
    for (size_t i = 0; i < t->n_calls; i++)
        r->call_item[i] = sc_blocking_is_inner(r->ctx, &t->calls[i]) ? SC_RP_CALL_INNER
                                                                     : SC_RP_NONE;
    for (size_t k = 0; k < r->ctx->n_polls; k++) {
        uint32_t tid = sc_call_tid(t, &t->calls[loops[k].first]);
        int32_t v = r->call_item[loops[k].first] == SC_RP_CALL_INNER ? SC_RP_CALL_INNER
                                                                      : SC_RP_CALL_LOOP(k);
        for (size_t c = loops[k].first; c <= loops[k].last; c++)
            if (sc_call_tid(t, &t->calls[c]) == tid &&
                sc_rp_is_query(sc_call_class_id(t, &t->calls[c])))
                r->call_item[c] = v;
    }
}

/* The calls that are no entry: a loop's other queries belong to the loop's item (made
 * before them: a loop's first query comes first), an inner call to none. */
static void sc_rp_calls_not_entries(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    const sc_poll_loop *loops = r->ctx->polls;
    for (size_t c = 0; c < t->n_calls; c++) {
        int32_t v = r->call_item[c];
        if (v == SC_RP_CALL_INNER)
            r->call_item[c] = SC_RP_NONE;
        else if (v < SC_RP_NONE)
            r->call_item[c] = loops[SC_RP_CALL_LOOP_OF(v)].first == c
                                  ? SC_RP_NONE
                                  : r->call_item[loops[SC_RP_CALL_LOOP_OF(v)].first];
    }
}

/* Item values (or op values) by their index. */
static int sc_rp_value_item_cmp(const void *pa, const void *pb)
{
    const sc_rp_sparse *x = pa, *y = pb;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* A list of wide values put out of item order, sorted by item as its readers search it. */
static void sc_rp_sort_wides(sc_rp_wides *w)
{
    if (w->n > 1)
        qsort(w->v, w->n, sizeof *w->v, sc_rp_value_item_cmp);
}

/* Whether an entry's call is of a quiet class (sc_rp_item.quiet); a mark is not. */
static inline bool sc_rp_entry_quiet(const sc_trace *t, const bool *quiet, const sc_rp_entry *e)
{
    if (e->call == SC_RP_NONE)
        return false;
    uint8_t cls = sc_call_class_id(t, &t->calls[e->call]);
    return cls < SC_RP_CLASSES && quiet[cls];
}

/* Lays the entries out as items, thread after thread, in their order (positions: order[0 ..
 * n)). A call inside the previous call of its thread (a callback's calls, a nested call
 * CUPTI numbered apart) belongs to that item. */
static int sc_rp_items_from(sc_replay *r, const sc_rp_entry_src *src, const uint32_t *order,
                            size_t n)
{
    const sc_trace *t = r->ctx->trace;
    bool quiet[SC_RP_CLASSES];
    sc_rp_quiet_classes(r, quiet);
    r->items = calloc(n ? n : 1, sizeof *r->items);
    r->item_call = malloc((n ? n : 1) * sizeof *r->item_call);
    r->range_marks = malloc((2 * t->n_ranges + 1) * sizeof *r->range_marks);
    if (!r->items || !r->item_call || !r->range_marks)
        return -1;
    for (size_t j = 0; j < 2 * t->n_ranges; j++)
        r->range_marks[j] = SC_RP_NONE;
    int32_t prev = SC_RP_NONE;
    uint32_t prev_tid = 0;
    size_t cap_threads = 0;
    for (size_t k = 0; k < n; k++) {
        sc_rp_entry e = sc_rp_entry_at(src, order[k]);
        bool new_thread = k == 0 || e.tid != prev_tid;
        prev_tid = e.tid;
        if (new_thread)
            prev = SC_RP_NONE;
        if (!new_thread && prev != SC_RP_NONE && e.call != SC_RP_NONE &&
            !r->items[prev].mark && e.end <= sc_rp_item_end(r, prev)) {
            r->call_item[e.call] = prev;     /* nested in the previous call */
            continue;
        }
        int32_t i = (int32_t)r->n_items++;
        sc_rp_item *it = &r->items[i];
        *it = (sc_rp_item){.rec_start = e.start, .last = true, .mark = e.call == SC_RP_NONE,
                           .quiet = sc_rp_entry_quiet(t, quiet, &e)};
        r->item_call[i] = e.call;
        if (sc_rp_wide_put(&r->wide_durs, i, e.end - e.start, &it->dur) != 0)
            return -1;
        if (prev == SC_RP_NONE) {
            it->first = true;
            if (!SC_GROW(r->thread_first, cap_threads, r->n_threads + 1, 16))
                return -1;
            r->thread_first[r->n_threads++] = (uint32_t)i;
        } else {
            r->items[prev].last = false;    /* i - 1: a thread's items are consecutive */
        }
        if (e.call != SC_RP_NONE)
            r->call_item[e.call] = i;
        else   /* a range's start mark sorts before its end mark */
            r->range_marks[2 * e.range + (r->range_marks[2 * e.range] != SC_RP_NONE)] = i;
        prev = i;
    }
    sc_rp_calls_not_entries(r);
    return 0;
}

/* The items in time order (sc_rp_time_walk), where sc_rp_items_from takes the entries
 * thread after thread: a first walk counts each thread's items (a call nested in its
 * thread's previous call makes none), a second lays each out in its thread's part, the
 * threads in rank order. The same items, the calls read in their own order. 1 when the
 * walk cannot be made (sc_rp_items_from then), -1 without memory. */
static int sc_rp_items_by_time(sc_replay *r, const sc_rp_entry_src *src)
{
    const sc_trace *t = r->ctx->trace;
    bool quiet[SC_RP_CLASSES];
    sc_rp_quiet_classes(r, quiet);
    sc_rp_time_walk w;
    int rc = sc_rp_time_walk_begin(src, &w);
    if (rc != 0)
        return rc;
    /* per thread, by rank: its items so far (the first walk), then where its next goes; the
     * end and kind of its last item, to tell a nested call */
    typedef struct sc_rp_thread_fill {
        size_t count, next;
        uint64_t end;
        int32_t prev;
        bool mark;
    } sc_rp_thread_fill;
    sc_rp_thread_fill *fill = calloc(w.n_threads + 1, sizeof *fill);
    if (!fill) {
        sc_rp_time_walk_end(&w);
        return -1;
    }
    size_t pos;
    uint32_t rank;
    while (sc_rp_time_walk_next(&w, &pos, &rank)) {
        sc_rp_entry e = sc_rp_entry_at(src, pos);
        sc_rp_thread_fill *f = &fill[rank];
        if (f->count && e.call != SC_RP_NONE && !f->mark && e.end <= f->end)
            continue;   /* nested in the previous call */
        f->count++;
        f->end = e.end;
        f->mark = e.call == SC_RP_NONE;
    }
    size_t n_items = 0;
    for (size_t k = 0; k < w.n_threads; k++) {
        fill[k].next = n_items;
        fill[k].prev = SC_RP_NONE;
        n_items += fill[k].count;
    }
    r->items = calloc(n_items ? n_items : 1, sizeof *r->items);
    r->item_call = malloc((n_items ? n_items : 1) * sizeof *r->item_call);
    r->range_marks = malloc((2 * t->n_ranges + 1) * sizeof *r->range_marks);
    r->thread_first = malloc((w.n_threads ? w.n_threads : 1) * sizeof *r->thread_first);
    rc = r->items && r->item_call && r->range_marks && r->thread_first ? 0 : -1;
    for (size_t j = 0; rc == 0 && j < 2 * t->n_ranges; j++)
        r->range_marks[j] = SC_RP_NONE;
    sc_rp_time_walk_rewind(&w);
    while (rc == 0 && sc_rp_time_walk_next(&w, &pos, &rank)) {
        sc_rp_entry e = sc_rp_entry_at(src, pos);
        sc_rp_thread_fill *f = &fill[rank];
        if (f->prev != SC_RP_NONE && e.call != SC_RP_NONE && !f->mark && e.end <= f->end) {
            r->call_item[e.call] = f->prev;     /* nested in the previous call */
            continue;
        }
        int32_t i = (int32_t)f->next++;
        sc_rp_item *it = &r->items[i];
        /* `last` is set once every item is made: each thread's last */
        *it = (sc_rp_item){.rec_start = e.start, .first = f->prev == SC_RP_NONE,
                           .mark = e.call == SC_RP_NONE,
                           .quiet = sc_rp_entry_quiet(t, quiet, &e)};
        r->item_call[i] = e.call;
        /* the list of wide durations is sorted by item once every item is made */
        rc = sc_rp_wide_put(&r->wide_durs, i, e.end - e.start, &it->dur);
        if (e.call != SC_RP_NONE)
            r->call_item[e.call] = i;
        else   /* a range's start mark comes before its end mark */
            r->range_marks[2 * e.range + (r->range_marks[2 * e.range] != SC_RP_NONE)] = i;
        f->prev = i;
        f->end = e.end;
        f->mark = e.call == SC_RP_NONE;
    }
    sc_rp_time_walk_end(&w);
    if (rc == 0) {
        for (size_t k = 0; k < w.n_threads; k++) {
            size_t first = fill[k].next - fill[k].count;
            r->thread_first[k] = (uint32_t)first;
            r->items[fill[k].next - 1].last = true;
        }
        r->n_threads = w.n_threads;
        r->n_items = n_items;
        sc_rp_sort_wides(&r->wide_durs);
        sc_rp_calls_not_entries(r);
    }
    free(fill);
    return rc;
}

/* A thread that waited for another (pthread_join, a condition variable, a queue: nothing
 * CUDA records) shows a long gap that ends just after an item of the other thread ended:
 * the thread's end, or a hand-off, as PyTorch's main thread wakes its autograd thread for
 * backward() and waits for it to finish. That item becomes what the gap waits for, so that a
 * fix which gets the other thread there sooner lets this one go on sooner: without it the
 * gap's recorded length would hold the thread (and the run's end) where it was. (Measured on
 * the H200: pinning torch_train.py's batches saved 0.9 ms a step, and the replay, which kept
 * the autograd thread's gaps, priced it at 1 ms for the 20 steps.) */
#define SC_RP_JOIN_GAP_NS 200000u   /* a gap longer than this, */
#define SC_RP_JOIN_LAG_NS 1000000u  /* that ends at most this long after the other's end
                                       (thread exit and pthread_join's wake-up took 202 us
                                       in one H200 run), */
#define SC_RP_JOIN_SHARE 8u         /* and within an eighth of the gap: the gap was mostly
                                       the wait, not host work that happened to end there */

/* Of the items of other threads than item i's that ended within its gap, the one that
 * ended last, if the gap ended soon enough after it (the three bounds above). by_end: every
 * item, by recorded end; ends: those ends in that order. */
static sc_rp_sparse sc_rp_join_of(const sc_replay *r, int32_t i, const uint32_t *by_end,
                                  const uint64_t *ends, size_t n)
{
    const sc_rp_item *it = &r->items[i];
    uint64_t gap = sc_rp_gap(r, i), gap_start = it->rec_start - gap;
    uint32_t thread = sc_rp_thread_of(r, i);
    sc_rp_sparse join = {.index = i, .other = SC_RP_NONE};
    /* back from the first item that ended after i started */
    for (size_t k = sc_u64_upper_bound(ends, n, it->rec_start); k-- > 0;) {
        uint64_t x_end = ends[k], lag = it->rec_start - x_end;
        if (x_end <= gap_start || lag > SC_RP_JOIN_LAG_NS || lag * SC_RP_JOIN_SHARE > gap)
            break;      /* every earlier end lags more */
        if (sc_rp_thread_of(r, (int32_t)by_end[k]) == thread)
            continue;
        join.other = (int32_t)by_end[k];
        join.value = lag;
        break;
    }
    return join;
}

/* Whether item i may be a join: a gap longer than SC_RP_JOIN_GAP_NS after an item of its
 * thread. */
static bool sc_rp_may_join(const sc_replay *r, size_t i)
{
    return !r->items[i].first && sc_rp_gap(r, (int32_t)i) > SC_RP_JOIN_GAP_NS;
}

static void sc_rp_joins(sc_replay *r)
{
    if (r->n_threads < 2)
        return;     /* one thread waits for no other */
    size_t from = 0;    /* the first item that may be a join */
    while (from < r->n_items && !sc_rp_may_join(r, from))
        from++;
    if (from == r->n_items)
        return;     /* no gap is long enough (threads kept busy): no order by end is made */
    uint64_t *at = malloc((r->n_items ? r->n_items : 1) * sizeof *at);
    if (!at)
        return;     /* no joins: the gaps stay as recorded */
    for (size_t i = 0; i < r->n_items; i++)
        at[i] = sc_rp_item_end(r, (int32_t)i);
    uint32_t *by_end = sc_order_by_time(at, r->n_items);   /* takes at */
    uint64_t *ends = by_end ? malloc((r->n_items ? r->n_items : 1) * sizeof *ends) : NULL;
    for (size_t k = 0; ends && k < r->n_items; k++)
        ends[k] = sc_rp_item_end(r, (int32_t)by_end[k]);
    size_t cap = 0;
    for (size_t i = from; ends && i < r->n_items; i++) {
        sc_rp_item *it = &r->items[i];
        if (!sc_rp_may_join(r, i))
            continue;
        sc_rp_sparse join = sc_rp_join_of(r, (int32_t)i, by_end, ends, r->n_items);
        /* the list stays sorted: items in index order; without memory, no more joins */
        if (join.other != SC_RP_NONE &&
            sc_rp_push_value(&r->joins, &r->n_joins, &cap, join) == 0)
            it->joins = true;
    }
    free(ends);
    free(by_end);
}

/* streamcheck's own time after a call (the stack it took, an OVERHEAD record of its own
 * kind) is part of the gap before the thread's next item: kept per item (the tool flag and
 * r->wide_tools), so that a plain pass can leave it out. Only the few sampled calls have
 * any, so the records are taken as (item << 32 | record) keys and summed item by item, in
 * record order within an item (each is cut to what its gap has left), rather than in an
 * array of a sum per item. */
static int sc_rp_tool_times(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    size_t n = 0;
    uint64_t *keys = NULL;
    for (size_t k = 0; k < t->n_overheads; k++) {
        const sc_rec_overhead *o = &t->overheads[k];
        if (o->kind != SC_OVERHEAD_STREAMCHECK_STACK || o->end_ns <= o->start_ns)
            continue;
        const sc_api_call *c = sc_ctx_call(r->ctx, o->correlation_id);
        int32_t i = c ? r->call_item[c - t->calls] : SC_RP_NONE;
        if (i == SC_RP_NONE || r->items[i].last)
            continue;
        if (!keys && !(keys = malloc(t->n_overheads * sizeof *keys)))
            return -1;
        keys[n++] = (uint64_t)(uint32_t)(i + 1) << 32 | (uint32_t)k;
    }
    if (n)
        sc_sort_u64(keys, n);
    int rc = 0;
    for (size_t j = 0; rc == 0 && j < n;) {
        int32_t next = (int32_t)(keys[j] >> 32);
        uint64_t sum = 0, gap = sc_rp_gap(r, next);
        for (; j < n && (int32_t)(keys[j] >> 32) == next; j++) {
            const sc_rec_overhead *o = &t->overheads[(uint32_t)keys[j]];
            uint64_t ns = o->end_ns - o->start_ns, room = gap - sum;
            sum += ns < room ? ns : room;
            r->summary.tool_ns += ns < room ? ns : room;
            r->summary.tool_calls++;
        }
        if (sum) {
            r->items[next].tool = 1;
            rc = sc_rp_wide_keep(&r->wide_tools, next, sum);
        }
    }
    free(keys);
    return rc;
}

/* An entry of an item whose tracer time reached the 16-bit field's mark (replay_wide.h) while
 * the calls were summed: its first entry holds the sum when it did, each later one the time
 * of a later call of the item. */
typedef struct sc_rp_tracer_far {
    uint64_t key;               /* item << 32 | order among the far entries */
    uint64_t ns;
} sc_rp_tracer_far;

static int sc_rp_tracer_far_cmp(const void *pa, const void *pb)
{
    const sc_rp_tracer_far *a = pa, *b = pb;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* What CUPTI's and streamcheck's callbacks added to each item's calls (tracer_cost.h): a
 * plain pass leaves it out of the item's own time, and out of its work's issue lag (a launch
 * submits its work as it returns: the kernel starts after the callbacks' time, not during).
 * Only a run streamcheck recorded (its PROCESS record) paid it. Each call adds its class's
 * time to its item's, cut to the item's own time: summed in the items' 16-bit fields, which
 * hold nearly every item's whole sum (no array of a 64-bit sum per item, which every page of
 * was written twice). An item whose sum reaches the field's mark goes to a list with its sum,
 * the later calls' times of it after, in call order; the list, sorted by item, finishes
 * those sums in the same order and keeps them in r->wide_tracers. */
static int sc_rp_tracer_times(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    if (!t->has_process)
        return 0;
    r->async_call_tracer = sc_tracer_cost_ns(SC_CALL_MEMCPY_ASYNC);
    sc_rp_classes k;
    sc_rp_classes_make(&k);
    sc_rp_tracer_far *far = NULL;
    size_t n_far = 0, cap_far = 0;
    for (size_t c = 0; c < t->n_calls; c++) {
        int32_t i = r->call_item[c];
        if (i == SC_RP_NONE)
            continue;
        sc_rp_item *it = &r->items[i];
        uint64_t add = sc_rp_tracer_class_ns(&k, sc_call_class_id(t, &t->calls[c]));
        if (it->tracer != SC_RP_WIDE16) {
            uint64_t own = sc_rp_item_end(r, i) - it->rec_start, before = it->tracer;
            uint64_t sum = before + add > own ? own : before + add;
            r->summary.tracer_ns += sum - before;
            r->summary.tracer_calls += sum > before;
            if (sum < SC_RP_WIDE16) {
                it->tracer = (uint16_t)sum;
                continue;
            }
            it->tracer = SC_RP_WIDE16;
            add = sum;      /* the list's first entry of the item: its sum */
        } else if (add == 0) {
            continue;       /* adds nothing, counts as no call */
        }
        if (!SC_GROW(far, cap_far, n_far + 1, 16)) {
            free(far);
            return -1;
        }
        far[n_far] = (sc_rp_tracer_far){.key = (uint64_t)(uint32_t)i << 32 | n_far,
                                        .ns = add};
        n_far++;
    }
    if (n_far)
        sc_sort(far, n_far, sizeof *far, sc_rp_tracer_far_cmp);
    int rc = 0;
    for (size_t j = 0; rc == 0 && j < n_far;) {
        int32_t i = (int32_t)(far[j].key >> 32);
        uint64_t own = sc_rp_item_end(r, i) - r->items[i].rec_start, sum = far[j++].ns;
        for (; j < n_far && (int32_t)(far[j].key >> 32) == i; j++) {
            uint64_t before = sum;
            sum = sum + far[j].ns > own ? own : sum + far[j].ns;
            r->summary.tracer_ns += sum - before;
            r->summary.tracer_calls += sum > before;
        }
        rc = sc_rp_wide_keep(&r->wide_tracers, i, sum);
    }
    free(far);
    return rc;
}

/* The tool and tracer times, each summed in 64 bits from its records in their own order,
 * then kept in the items' fields (replay_wide.h). */
static int sc_rp_host_times(sc_replay *r)
{
    return sc_rp_tool_times(r) == 0 && sc_rp_tracer_times(r) == 0 ? 0 : -1;
}

static int sc_rp_loads(sc_replay *r);

int sc_rp_items_make(sc_replay *r, bool by_time)
{
    sc_rp_entry_src src = {r->ctx->trace, r->call_item, r->ctx->polls};
    int rc = by_time ? sc_rp_items_by_time(r, &src) : 1;
    if (rc > 0) {   /* calls out of start order, or too many threads: by the entries' order */
        size_t n = 0;
        uint32_t *order = sc_rp_entry_order(&src, &n);
        rc = order ? sc_rp_items_from(r, &src, order, n) : -1;
        /* the order was the items' last reader: freed before the host times and the joins
         * take their scratch (a value and more an item) */
        free(order);
    }
    return rc;
}

/* Whether the calls come from more than one thread: their threads are their extras'
 * (sc_call_tid), which are few. */
static bool sc_rp_calls_on_threads(const sc_trace *t)
{
    bool seen = false;
    uint32_t tid = 0;
    for (size_t x = 0; x < t->n_call_extras; x++) {
        if (!t->call_extras[x].tid)
            continue;
        if (seen && t->call_extras[x].tid != tid)
            return true;
        seen = true;
        tid = t->call_extras[x].tid;
    }
    return false;
}

int sc_rp_host_items(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    r->call_item = malloc((t->n_calls ? t->n_calls : 1) * sizeof *r->call_item);
    if (!r->call_item)
        return -1;
    sc_rp_call_kinds(r);
    /* on one thread the entries' order is the calls' own, and the walk in time order only
     * costs its ranks and a second pass (1M records: 38.8M instructions more) */
    int rc = sc_rp_items_make(r, sc_rp_calls_on_threads(t));
    if (rc == 0)
        rc = sc_rp_host_times(r);
    if (rc == 0)
        sc_rp_joins(r);
    /* the module loads read r->call_item too, which goes once the work has read it */
    if (rc == 0)
        rc = sc_rp_loads(r);
    return rc;
}

/* ---- what a waiting item waits for -------------------------------------------------- */

/* Built for the waits only: the own work of the items whose step reads it, and the latest
 * recorded end of each device's work in issue order (for the device waits alone, built once
 * the rest is done: sc_rp_device_waits). */
typedef struct sc_rp_wait_index {
    uint64_t *own;                  /* (item << 32 | op) of the work of the items that read
                                       theirs (sc_rp_reads_own), ascending */
    size_t n_own;
    size_t own_next;                /* in the walk: the first entry of the item it is at */
    uint64_t *prefix_end;           /* per device, issue order: max recorded end so far */
    bool launch_blocking;           /* CUDA_LAUNCH_BLOCKING=1 in the recorded environment */
    uint32_t ctx_id[64], ctx_dev[64];   /* context -> device index, from the work */
    size_t n_ctx;
    size_t *near;                   /* per slot: where its last lookup of the work issued
                                       before a wait ended (sc_rp_last_issued_near: a thread's
                                       waits come in time order) */
    sc_rp_classes classes;
    bool quiet[SC_RP_CLASSES];      /* a class whose calls wait for nothing the replay keeps
                                       and read no work of their own (sc_rp_item_wait), a
                                       launch's unless it loaded a module */
} sc_rp_wait_index;

static bool sc_rp_env_set(const sc_trace *t, const char *var, const char *value)
{
    size_t n = strlen(var);
    for (size_t i = 0; i < t->n_env; i++)
        if (t->env[i] && strncmp(t->env[i], var, n) == 0 && t->env[i][n] == '=' &&
            strcasecmp(t->env[i] + n + 1, value) == 0)
            return true;
    return false;
}

/* Whether the step of an item of this class reads its own work (sc_rp_item_wait): a copy or a
 * set waits for its own, an async copy looks for its pageable or staged copy, a launch under
 * CUDA_LAUNCH_BLOCKING waits for its kernels. The rest never look: a launch's kernels, the
 * most work, are listed for none. */
static bool sc_rp_reads_own(const sc_rp_wait_index *w, uint16_t cls)
{
    return cls == SC_CALL_MEMCPY || cls == SC_CALL_MEMSET || cls == SC_CALL_MEMCPY_ASYNC ||
           (cls == SC_CALL_LAUNCH && w->launch_blocking);
}

/* The classes, the quiet ones (sc_rp_wait_index.quiet) and whether launches block. */
static void sc_rp_quiet_fill(const sc_replay *r, sc_rp_wait_index *w)
{
    w->launch_blocking = sc_rp_env_set(r->ctx->trace, "CUDA_LAUNCH_BLOCKING", "1");
    sc_rp_classes_make(&w->classes);
    for (uint16_t c = 0; c < SC_RP_CLASSES; c++)
        w->quiet[c] = !w->classes.sync[c] && !w->classes.implicit[c] && !sc_rp_is_query(c) &&
                      !sc_rp_reads_own(w, c) && c != SC_CALL_EVENT_READ;
}

void sc_rp_quiet_classes(const sc_replay *r, bool quiet[SC_RP_CLASSES])
{
    sc_rp_wait_index w = {0};
    sc_rp_quiet_fill(r, &w);
    memcpy(quiet, w.quiet, sizeof w.quiet);
}

static int sc_rp_wait_index_build(const sc_replay *r, sc_rp_wait_index *w)
{
    if (r->n_ops > INT32_MAX)   /* the graph names work by int32_t indices */
        return -1;
    size_t no = r->n_ops ? r->n_ops : 1;
    w->near = calloc(r->n_slots + 1, sizeof *w->near);
    /* room for every op, of which only the pages the listed ones take are touched */
    w->own = malloc(no * sizeof *w->own);
    if (!w->near || !w->own)
        return -1;
    const sc_trace *t = r->ctx->trace;
    sc_rp_quiet_fill(r, w);
    /* each context's device, and the work of the items that read theirs, in one walk */
    bool ascending = true;
    for (size_t i = 0; i < r->n_ops; i++) {
        const sc_rp_op *o = &r->ops[i];
        uint32_t context = sc_work_at(t, i).context_id;
        size_t k = 0;
        while (k < w->n_ctx && w->ctx_id[k] != context)
            k++;
        if (k == w->n_ctx && w->n_ctx < sizeof w->ctx_id / sizeof *w->ctx_id) {
            w->ctx_id[w->n_ctx] = context;
            w->ctx_dev[w->n_ctx++] = o->dev;
        }
        if (o->item == SC_RP_NONE ||
            !sc_rp_reads_own(w, sc_call_class_id(t, &t->calls[r->item_call[o->item]])))
            continue;
        uint64_t key = (uint64_t)(uint32_t)o->item << 32 | (uint32_t)i;
        ascending &= w->n_own == 0 || w->own[w->n_own - 1] < key;
        w->own[w->n_own++] = key;
    }
    if (!ascending)     /* each kind's work by start, an item's by its thread's time */
        sc_sort_u64(w->own, w->n_own);
    return 0;
}

/* The per-device prefix maxima of the recorded ends in issue order (the device waits'). */
static int sc_rp_prefix_ends(const sc_replay *r, sc_rp_wait_index *w)
{
    w->prefix_end = malloc((r->n_ops ? r->n_ops : 1) * sizeof *w->prefix_end);
    if (!w->prefix_end)
        return -1;
    for (size_t d = 0; d < r->n_devs; d++) {
        uint64_t *p = w->prefix_end + r->dev_first[d];
        const int32_t *order = r->dev_order + r->dev_first[d];
        for (size_t k = 0; k < r->dev_count[d]; k++) {
            uint64_t end = sc_rp_rec_end(r, order[k]);
            p[k] = k > 0 && p[k - 1] > end ? p[k - 1] : end;
        }
    }
    return 0;
}

/* The own work of item i, in op order, as the walk over the items in order reaches it: *n of
 * the entries of w->own from the returned one (their low halves: the ops). */
static const uint64_t *sc_rp_own_of(sc_rp_wait_index *w, int32_t i, size_t *n)
{
    uint64_t item = (uint64_t)(uint32_t)i;
    while (w->own_next < w->n_own && w->own[w->own_next] >> 32 < item)
        w->own_next++;
    size_t k = w->own_next;
    while (k < w->n_own && w->own[k] >> 32 == item)
        k++;
    *n = k - w->own_next;
    return w->own + w->own_next;
}

static void sc_rp_wait_index_free(sc_rp_wait_index *w)
{
    free(w->own);
    free(w->prefix_end);
    free(w->near);
}

/* The device (index) of a context: the device of its work; n_devs when it ran none. */
static uint32_t sc_rp_context_dev(const sc_replay *r, const sc_rp_wait_index *w,
                                  uint32_t context_id)
{
    for (size_t k = 0; k < w->n_ctx; k++)
        if (w->ctx_id[k] == context_id)
            return w->ctx_dev[k];
    return (uint32_t)r->n_devs;
}

/* How many of a device's pieces (in issue order) were issued before t. */
static size_t sc_rp_dev_issued_before(const sc_replay *r, size_t dev, uint64_t t)
{
    const int32_t *order = r->dev_order + r->dev_first[dev];
    size_t lo = 0, hi = r->dev_count[dev];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_rp_issue(r, order[mid]) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct sc_rp_conds {
    int32_t *ops;
    size_t n, cap;
} sc_rp_conds;

static int sc_rp_cond_add(sc_rp_conds *c, int32_t op)
{
    if (!SC_GROW(c->ops, c->cap, c->n + 1, 256))
        return -1;
    c->ops[c->n++] = op;
    return 0;
}

/* The stream slot a call names, when the trace can tell; n_slots when not. */
static uint32_t sc_rp_call_slot(const sc_replay *r, const sc_api_call *c, uint32_t dev)
{
    const sc_stream_summary *s = dev < r->n_devs ? sc_ctx_call_stream(r->ctx, c) : NULL;
    return s ? (uint32_t)(s - r->ctx->analysis->streams) : (uint32_t)r->n_slots;
}

/* An implicit synchronization (blocking.h): what the call waited for, when the trace
 * explains its return by the end of other work, is that work (sc_rp_drained_work). */
static int sc_rp_drained(const sc_replay *r, int32_t call, sc_rp_conds *conds)
{
    const sc_rp_sparse *v = sc_rp_value_of(r->drained, r->n_drained, call);
    return v ? sc_rp_cond_add(conds, v->other) : 0;
}

/* Item i's pinned copy is op (the last one named wins, as the loop over the call's work
 * names them); items come in increasing order, so the list stays sorted. */
static int sc_rp_set_pinned_copy(sc_replay *r, int32_t i, int32_t op)
{
    sc_rp_item *it = &r->items[i];
    if (it->pinned) {   /* the list's last entry is this item's */
        r->pinned_copies[r->n_pinned_copies - 1].other = op;
        return 0;
    }
    if (sc_rp_push_value(&r->pinned_copies, &r->n_pinned_copies, &r->cap_pinned_copies,
                         (sc_rp_sparse){.index = i, .other = op}) != 0)
        return -1;
    it->pinned = true;
    return 0;
}

/* Item i waits (`wait`) for what `cond` names (sc_rp_wait_ref); items come in increasing
 * order, so the list stays sorted. */
static int sc_rp_wait_set(sc_replay *r, int32_t i, uint8_t wait, uint32_t cond)
{
    if (!SC_GROW(r->waits, r->cap_waits, r->n_waits + 1, 256))
        return -1;
    r->waits[r->n_waits++] = (sc_rp_wait_ref){.item = i, .cond = cond, .next = SC_RP_NONE};
    r->items[i].wait = wait;
    return 0;
}

/* Item i waits for a device: `dev` (an index), or every device when dev is n_devs or more. */
static int sc_rp_wait_device(sc_replay *r, int32_t i, uint32_t dev)
{
    if (!SC_GROW(r->dev_waits, r->cap_dev_waits, r->n_dev_waits + 1, 16))
        return -1;
    sc_rp_dev_wait *v = &r->dev_waits[r->n_dev_waits];
    *v = (sc_rp_dev_wait){.dev = UINT32_MAX};
    uint64_t at = r->items[i].rec_start;
    if (dev < r->n_devs) {
        v->dev = dev;
        v->limit = (uint32_t)sc_rp_dev_issued_before(r, dev, at);
    } else {    /* each device's count, for the passes (which keep no issue times) */
        if (!SC_GROW(r->dev_limits, r->cap_dev_limits, r->n_dev_limits + r->n_devs, 16))
            return -1;
        v->limit = (uint32_t)r->n_dev_limits;
        for (size_t d = 0; d < r->n_devs; d++)
            r->dev_limits[r->n_dev_limits++] = (uint32_t)sc_rp_dev_issued_before(r, d, at);
    }
    return sc_rp_wait_set(r, i, SC_RP_WAIT_DEVICE, (uint32_t)r->n_dev_waits++);
}

/* Fills the item's condition (kind and list); the recorded end of it is computed after. */
static int sc_rp_item_wait(sc_replay *r, sc_rp_wait_index *w, int32_t i,
                           const sc_api_call *c, sc_rp_conds *conds)
{
    const sc_trace *t = r->ctx->trace;
    sc_rp_item *it = &r->items[i];
    int32_t call = (int32_t)(c - t->calls);
    uint16_t cls = sc_call_class_id(t, c);
    it->sync = sc_rp_sync_class(&w->classes, cls);
    it->async_copy = cls == SC_CALL_MEMCPY_ASYNC;
    /* a launch (the walk leaves out those that loaded no module: w->quiet) waits for its
     * device, as below, without the context's device looked up first or the walk of the
     * classes */
    if (cls == SC_CALL_LAUNCH && !w->launch_blocking) {
        if (sc_rp_load_ns(r, i) == 0)
            return 0;
        it->loads = true;   /* as below */
        return sc_rp_wait_device(r, i, sc_rp_context_dev(r, w, sc_call_context(t, c)));
    }
    uint32_t dev = sc_rp_context_dev(r, w, sc_call_context(t, c));
    bool loop = sc_rp_is_query(cls) && sc_rp_item_end(r, i) > sc_call_end(t, c);
    size_t first = conds->n;
    int32_t p = SC_RP_NONE;
    size_t own_count = 0;
    const uint64_t *own = sc_rp_reads_own(w, cls) ? sc_rp_own_of(w, i, &own_count) : NULL;
    if (cls == SC_CALL_DEVICE_SYNC)
        return sc_rp_wait_device(r, i, dev);
    if (cls == SC_CALL_STREAM_SYNC || (loop && cls == SC_CALL_STREAM_QUERY)) {
        uint32_t slot = sc_rp_call_slot(r, c, dev);
        if (slot >= r->n_slots)     /* a stream the trace cannot name: the whole device */
            return sc_rp_wait_device(r, i, dev);
        p = sc_rp_last_issued_near(r, slot, it->rec_start, &w->near[slot]);
    } else if (sc_rp_event_class(cls) && (loop || cls != SC_CALL_EVENT_QUERY)) {
        /* an event read needs the event complete: the program waited for it before, and
         * would have to wait here if a fix took that earlier wait away */
        const sc_rp_sparse *v = sc_rp_value_of(r->event_records, r->n_event_records, call);
        const sc_api_call *rec = v && v->other != SC_RP_NONE ? &t->calls[v->other] : NULL;
        uint32_t slot = rec ? sc_rp_call_slot(r, rec, dev) : (uint32_t)r->n_slots;
        if (slot < r->n_slots)
            p = sc_rp_last_issued_near(r, slot, rec->rec.start_ns, &w->near[slot]);
    } else if (sc_rp_implicit_class(&w->classes, cls)) {
        if (sc_rp_drained(r, call, conds) != 0)
            return -1;
        if (cls == SC_CALL_MEMCPY || cls == SC_CALL_MEMSET)   /* and its own copy or set */
            for (size_t k = 0; k < own_count; k++)
                if (sc_rp_cond_add(conds, (int32_t)(uint32_t)own[k]) != 0)
                    return -1;
    } else if (cls == SC_CALL_MEMCPY_ASYNC) {
        for (size_t k = 0; k < own_count; k++) {
            int32_t op = (int32_t)(uint32_t)own[k];
            if (r->ops[op].kind != SC_WORK_MEMCPY)
                continue;
            size_t copy = sc_work_ref_in(&r->records, (size_t)op).index;
            const sc_copy_shape *m = sc_copy_shape_of(t, &t->copies[copy]);
            if (sc_copy_pageable_async(m)) {
                /* the call returned once its copy was staged */
                if (sc_rp_set_pinned_copy(r, i, op) != 0)
                    return -1;
                p = op;
            } else if (sc_copy_peer_staged(m) && m->copy_kind == 2) {
                /* staged through the host: the call is slow, but returned before its copy */
                if (sc_rp_set_pinned_copy(r, i, op) != 0)
                    return -1;
            }
        }
    } else if (cls == SC_CALL_LAUNCH && sc_rp_load_ns(r, i) > 0) {
        /* A module load inside the call waits for the device first (GPU-FACTS.md: a first
         * launch beside a running kernel returned once that kernel had ended); its kernel
         * starts once the call has loaded it. */
        it->loads = true;
        return sc_rp_wait_device(r, i, dev);
    } else if (cls == SC_CALL_LAUNCH && w->launch_blocking) {
        for (size_t k = 0; k < own_count; k++)
            if (sc_rp_cond_add(conds, (int32_t)(uint32_t)own[k]) != 0)
                return -1;
    }
    if (p != SC_RP_NONE && sc_rp_cond_add(conds, p) != 0)
        return -1;
    if (conds->n > first) {     /* the count after the list, its return after it */
        if (sc_rp_cond_add(conds, (int32_t)(conds->n - first)) != 0 ||
            sc_rp_cond_add(conds, 0) != 0)
            return -1;
        return sc_rp_wait_set(r, i, SC_RP_WAIT_OPS, (uint32_t)(conds->n - 2));
    }
    return 0;
}

/* The recorded end of what an item waited for. */
static uint64_t sc_rp_cond_recorded(const sc_replay *r, const sc_rp_wait_index *w,
                                    const sc_rp_item *it, uint32_t cond)
{
    uint64_t end = 0;
    if (it->wait == SC_RP_WAIT_OPS) {
        uint32_t n;
        const int32_t *ops = sc_rp_cond_list(r, cond, &n);
        for (uint32_t k = 0; k < n; k++)
            if (sc_rp_rec_end(r, ops[k]) > end)
                end = sc_rp_rec_end(r, ops[k]);
    } else if (it->wait == SC_RP_WAIT_DEVICE) {
        const sc_rp_dev_wait *v = &r->dev_waits[cond];
        for (size_t d = 0; d < r->n_devs; d++) {
            if (v->dev != UINT32_MAX && v->dev != d)
                continue;
            size_t k = v->dev != UINT32_MAX ? v->limit : r->dev_limits[v->limit + d];
            if (k > 0 && w->prefix_end[r->dev_first[d] + k - 1] > end)
                end = w->prefix_end[r->dev_first[d] + k - 1];
        }
    }
    return end;
}

/* Sorts a list of item values by item and keeps one entry per item: the largest value, or
 * (sum) their sum. */
static size_t sc_rp_values_per_item(sc_rp_sparse *v, size_t n, bool sum)
{
    sc_sort(v, n, sizeof *v, sc_rp_value_item_cmp);
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        if (kept > 0 && v[kept - 1].index == v[k].index) {
            if (sum)
                v[kept - 1].value += v[k].value;
            else if (v[k].value > v[kept - 1].value)
                v[kept - 1].value = v[k].value;
        } else {
            v[kept++] = v[k];
        }
    }
    return kept;
}

/* Module loads CUPTI saw inside launch calls (OVERHEAD records, same correlation id): their
 * time per item (r->load_times) and the end of each item's last load (r->load_ends), both
 * sorted by item: few items load a module. */
static int sc_rp_loads(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    size_t cap_ends = 0, cap_times = 0;
    for (size_t k = 0; k < t->n_overheads; k++) {
        const sc_rec_overhead *o = &t->overheads[k];
        if (o->kind != SC_OVERHEAD_LAZY_FUNCTION_LOADING && o->kind != SC_OVERHEAD_MODULE_LOADING)
            continue;
        const sc_api_call *c = sc_ctx_call(r->ctx, o->correlation_id);
        int32_t it = c ? r->call_item[c - t->calls] : SC_RP_NONE;
        if (it != SC_RP_NONE && o->end_ns > o->start_ns) {
            sc_rp_sparse end = {.index = it, .other = SC_RP_NONE, .value = o->end_ns};
            sc_rp_sparse time = {.index = it, .other = SC_RP_NONE,
                                 .value = o->end_ns - o->start_ns};
            if (sc_rp_push_value(&r->load_ends, &r->n_load_ends, &cap_ends, end) != 0 ||
                sc_rp_push_value(&r->load_times, &r->n_load_times, &cap_times, time) != 0)
                return -1;
        }
    }
    r->n_load_ends = sc_rp_values_per_item(r->load_ends, r->n_load_ends, false);
    r->n_load_times = sc_rp_values_per_item(r->load_times, r->n_load_times, true);
    return 0;
}

/* Item i's return after what it waited for (`cond`; the recorded end of that is complete
 * once its own condition is); a loading launch whose load did not wait waits for nothing.
 * Returns 0, or -1 without memory. */
static int sc_rp_item_post(sc_replay *r, const sc_rp_wait_index *w, int32_t i, uint32_t cond,
                           bool *device_waits)
{
    sc_rp_item *it = &r->items[i];
    uint64_t end = sc_rp_cond_recorded(r, w, it, cond);
    uint64_t rec_end = sc_rp_item_end(r, i);
    if (it->loads && end > rec_end) {
        /* the load did not wait: the device was still busy when the call returned (its
         * kernel was held on the device instead, replay_lags.c); its wait's entry goes */
        it->wait = SC_RP_WAIT_NONE;
        return 0;
    }
    /* the devices' trees of replayed ends answer device waits only: without one, no pass
     * keeps them (a raise per op and pass, and 8 bytes an op) */
    *device_waits |= it->wait == SC_RP_WAIT_DEVICE;
    it->waited = end > it->rec_start;
    return sc_rp_wide_put_signed(&r->wide_posts, i,
                                 it->waited ? (int64_t)rec_end - (int64_t)end : 0,
                                 (int32_t *)sc_rp_post_field(r, it->wait, cond));
}

/* The device waits' returns (sc_rp_item_post), once the walk over every item is done and its
 * own work lists are freed: the recorded ends they read are 8 bytes an op, built only for
 * them. The entries of the loading launches whose load did not wait go. */
static int sc_rp_device_waits(sc_replay *r, sc_rp_wait_index *w, bool *device_waits)
{
    if (sc_rp_prefix_ends(r, w) != 0)
        return -1;
    size_t n_wide = r->wide_posts.n;
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < r->n_waits; k++) {
        const sc_rp_wait_ref *v = &r->waits[k];
        if (r->items[v->item].wait == SC_RP_WAIT_DEVICE)
            rc = sc_rp_item_post(r, w, v->item, v->cond, device_waits);
    }
    size_t kept = 0;
    for (size_t k = 0; k < r->n_waits; k++)
        if (r->items[r->waits[k].item].wait != SC_RP_WAIT_NONE)
            r->waits[kept++] = r->waits[k];
    r->n_waits = kept;
    /* the list is searched by item: the few values these added after the walk's */
    if (rc == 0 && n_wide > 0 && r->wide_posts.n > n_wide)
        sc_sort(r->wide_posts.v, r->wide_posts.n, sizeof *r->wide_posts.v,
                sc_rp_value_item_cmp);
    return rc;
}

int sc_rp_host_waits(sc_replay *r)
{
    sc_rp_wait_index w = {0};
    sc_rp_conds conds = {0};
    int rc = sc_rp_wait_index_build(r, &w);
    /* each item in one walk: what it waits for and, when that is listed work, its return
     * after it; the device waits' returns after (sc_rp_device_waits) */
    bool device_waits = false, loads = false, waits_device = false;
    const sc_api_call *calls = r->ctx->trace->calls;
    const sc_call_extra *extras = r->ctx->trace->call_extras;  /* in locals: the loop's stores
                                                                  cannot make them reloaded */
    size_t next_load = 0;   /* into r->load_times */
    for (size_t i = 0; rc == 0 && i < r->n_items; i++) {
        sc_rp_item *it = &r->items[i];
        if (it->mark)
            continue;   /* waits for nothing */
        const sc_api_call *c = &calls[r->item_call[i]];
        /* most calls are launches and calls of a class that waits for nothing: their flags
         * stay as the items were made, all clear. A launch waits when it loaded a module:
         * the loads are sorted by item, and walked as the items are. */
        uint16_t cls = extras[c->rec.extra_at].call_class;   /* as written: past a byte, no
                                                                 class w.quiet holds */
        if (cls < SC_RP_CLASSES && w.quiet[cls]) {
            if (cls != SC_CALL_LAUNCH)
                continue;
            while (next_load < r->n_load_times && r->load_times[next_load].index < (int32_t)i)
                next_load++;
            if (next_load == r->n_load_times || r->load_times[next_load].index != (int32_t)i ||
                r->load_times[next_load].value == 0)
                continue;
        }
        rc = sc_rp_item_wait(r, &w, (int32_t)i, c, &conds);
        if (rc != 0)
            break;
        loads |= it->loads;
        waits_device |= it->wait == SC_RP_WAIT_DEVICE;
        if (it->wait != SC_RP_WAIT_OPS)
            continue;
        r->cond_ops = conds.ops;    /* as it has grown */
        r->n_cond_ops = conds.n;
        rc = sc_rp_item_post(r, &w, (int32_t)i, r->waits[r->n_waits - 1].cond, &device_waits);
    }
    r->cond_ops = conds.ops;
    r->n_cond_ops = conds.n;
    free(w.own);
    w.own = NULL;
    free(r->item_call);     /* the walk was its last reader */
    r->item_call = NULL;
    if (rc == 0 && waits_device)
        rc = sc_rp_device_waits(r, &w, &device_waits);
    sc_rp_wait_index_free(&w);
    /* the work of a loading launch is marked (the lags ask it of every op) */
    for (size_t i = 0; rc == 0 && loads && i < r->n_ops; i++)
        if (r->ops[i].item != SC_RP_NONE && r->items[r->ops[i].item].loads)
            r->ops[i].item_loads = 1;
    /* the devices' trees of ends are indexed by the work's places in its device's issue order,
     * the only reader of the order after this */
    if (rc == 0 && device_waits) {
        r->dev_tree = calloc(r->n_ops ? r->n_ops : 1, sizeof *r->dev_tree);
        r->dev_pos = malloc((r->n_ops ? r->n_ops : 1) * sizeof *r->dev_pos);
        rc = r->dev_tree && r->dev_pos ? 0 : -1;
        for (size_t d = 0; rc == 0 && d < r->n_devs; d++)
            for (size_t k = 0; k < r->dev_count[d]; k++)
                r->dev_pos[r->dev_order[r->dev_first[d] + k]] = (uint32_t)k;
    }
    free(r->dev_order);
    r->dev_order = NULL;
    return rc;
}
