/* The replay's host side: each thread's items in order (calls, polling loops, NVTX range
 * marks) and what a waiting call waits for (replay.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/blocking.h"
#include "analyze/peer_copy.h"
#include "analyze/polls.h"
#include "analyze/replay_parts.h"
#include "analyze/stream_kind.h"
#include "analyze/tracer_cost.h"
#include "analyze/work.h"
#include "trace/grow.h"
#include "trace/order_by_time.h"
#include "trace/sort.h"
#include "trace/sort_u64.h"


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
    /* the calls that synchronize implicitly are among those that may hold the host,
     * blocking.h; as the rule implicit-sync, measured as one walk in start order */
    sc_blocking_walk walk;
    if (sc_blocking_walk_begin(ix, &walk) != 0)
        return -1;
    for (size_t k = 0; k < ix->n_holding; k++) {
        size_t i = ix->holding[k];
        const sc_api_call *c = &t->calls[i];
        /* an inner call is no item's call (sc_rp_entries), and is never asked about */
        if (!sc_blocking_implicit_class(c->rec.call_class) || sc_blocking_is_inner(r->ctx, c))
            continue;
        bool copy_or_set = c->rec.call_class == SC_CALL_MEMCPY ||
                           c->rec.call_class == SC_CALL_MEMSET;
        sc_blocking_call q = {.start_ns = c->rec.start_ns, .end_ns = c->rec.end_ns,
                              .tid = c->rec.tid, .call_class = c->rec.call_class,
                              .context_id = c->rec.context_id,
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

/* ---- items ---------------------------------------------------------------------------- */

typedef struct sc_rp_entry {
    uint64_t start, end;
    uint32_t tid;
    int32_t call;               /* trace->calls index, or SC_RP_NONE for a mark */
    int32_t range;              /* trace->ranges index for a mark */
    size_t order;
} sc_rp_entry;

/* An entry's start, by its position (sc_order_by_group_time's time_of). */
static uint64_t sc_rp_entry_start(const void *entries, size_t position)
{
    return ((const sc_rp_entry *)entries)[position].start;
}

static bool sc_rp_is_query(uint16_t c)
{
    return c == SC_CALL_STREAM_QUERY || c == SC_CALL_EVENT_QUERY;
}

/* Polling loops (polls.h): loop_of[call] = the loop's first query, and loop_end[first] its
 * last query's end; SC_RP_NONE for every other call. */
static int sc_rp_loops(const sc_replay *r, int32_t *loop_of, uint64_t *loop_end)
{
    const sc_trace *t = r->ctx->trace;
    const sc_poll_loop *loops = r->ctx->polls;     /* polling loops (polls.h) */
    size_t n = r->ctx->n_polls;
    for (size_t i = 0; i < t->n_calls; i++)
        loop_of[i] = SC_RP_NONE;
    for (size_t k = 0; k < n; k++) {
        for (size_t c = loops[k].first; c <= loops[k].last; c++)
            if (t->calls[c].rec.tid == t->calls[loops[k].first].rec.tid &&
                sc_rp_is_query(t->calls[c].rec.call_class))
                loop_of[c] = (int32_t)loops[k].first;
        loop_end[loops[k].first] = t->calls[loops[k].last].rec.end_ns;
    }
    return 0;
}

/* What an entry is made from: the calls that are entries, in order (their indices), then
 * each range's start and end mark. */
typedef struct sc_rp_entry_source {
    const sc_trace *t;
    const int32_t *loop_of;
    const uint64_t *loop_end;
    const int32_t *calls;       /* entry i < n_calls is calls[i]'s */
    size_t n_calls;
} sc_rp_entry_source;

/* Entry i, written to *e. Inline: it runs twice for every call (1.1M calls at 1M records),
 * and as a call it cost a third of its own instructions again. */
static inline __attribute__((always_inline)) void
sc_rp_entry_make(const sc_rp_entry_source *s, size_t i, sc_rp_entry *e)
{
    if (i < s->n_calls) {
        int32_t ci = s->calls[i];
        const sc_api_call *c = &s->t->calls[ci];
        uint64_t end = s->loop_of[ci] == ci ? s->loop_end[ci] : c->rec.end_ns;
        *e = (sc_rp_entry){c->rec.start_ns, end > c->rec.start_ns ? end : c->rec.start_ns,
                           c->rec.tid, ci, SC_RP_NONE, i};
        return;
    }
    size_t j = (i - s->n_calls) / 2;
    const sc_rec_range *g = &s->t->ranges[j].rec;
    uint64_t at = (i - s->n_calls) % 2 == 0 ? g->start_ns
                  : g->end_ns > g->start_ns ? g->end_ns : g->start_ns;
    *e = (sc_rp_entry){at, at, g->tid, SC_RP_NONE, (int32_t)j, i};
}

static sc_rp_entry *sc_rp_entries(const sc_replay *r, const int32_t *loop_of,
                                  const uint64_t *loop_end, size_t *n_out)
{
    const sc_trace *t = r->ctx->trace;
    sc_rp_entry *e = malloc((t->n_calls + 2 * t->n_ranges + 1) * sizeof *e);
    int32_t *calls = malloc((t->n_calls ? t->n_calls : 1) * sizeof *calls);
    if (!e || !calls) {
        free(e);
        free(calls);
        return NULL;
    }
    sc_rp_entry_source src = {t, loop_of, loop_end, calls, 0};
    for (size_t i = 0; i < t->n_calls; i++)
        if (!sc_blocking_is_inner(r->ctx, &t->calls[i]) &&
            (loop_of[i] == SC_RP_NONE || loop_of[i] == (int32_t)i))
            calls[src.n_calls++] = (int32_t)i;
    size_t n = src.n_calls + 2 * t->n_ranges;
    for (size_t i = 0; i < n; i++)
        sc_rp_entry_make(&src, i, &e[i]);
    /* by thread, then start, then position (the entry's `order`), moving most entries
     * across the list: made again in order from the calls and ranges, not gathered into a
     * second array of entries (223 MB for a 10M-record trace) */
    uint64_t *v = n <= UINT32_MAX ? malloc((n ? n : 1) * sizeof *v) : NULL;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    for (size_t i = 0; v && i < n; i++)
        v[i] = (uint64_t)e[i].tid << 32 | i;
    int rc = v && order ? sc_order_by_group_time(v, n, e, sc_rp_entry_start, order) : -1;
    free(v);
    for (size_t k = 0; rc == 0 && k < n; k++)
        sc_rp_entry_make(&src, order[k], &e[k]);
    free(order);
    free(calls);
    if (rc != 0) {
        free(e);
        return NULL;
    }
    *n_out = n;
    return e;
}

/* Lays the entries out as items, thread after thread. A call inside the previous call of its
 * thread (a callback's calls, a nested call CUPTI numbered apart) belongs to that item. */
static int sc_rp_items_from(sc_replay *r, const sc_rp_entry *e, size_t n, const int32_t *loop_of)
{
    const sc_trace *t = r->ctx->trace;
    r->items = calloc(n ? n : 1, sizeof *r->items);
    r->range_marks = malloc((2 * t->n_ranges + 1) * sizeof *r->range_marks);
    if (!r->items || !r->range_marks)
        return -1;
    for (size_t j = 0; j < 2 * t->n_ranges; j++)
        r->range_marks[j] = SC_RP_NONE;
    int32_t prev = SC_RP_NONE;
    for (size_t k = 0; k < n; k++) {
        bool new_thread = k == 0 || e[k].tid != e[k - 1].tid;
        if (new_thread)
            prev = SC_RP_NONE;
        if (!new_thread && prev != SC_RP_NONE && e[k].call != SC_RP_NONE &&
            !r->items[prev].mark && e[k].end <= sc_rp_item_end(r, prev)) {
            r->call_item[e[k].call] = prev;     /* nested in the previous call */
            continue;
        }
        int32_t i = (int32_t)r->n_items++;
        sc_rp_item *it = &r->items[i];
        *it = (sc_rp_item){.rec_start = e[k].start, .call = e[k].call, .last = true,
                           .mark = e[k].call == SC_RP_NONE};
        if (sc_rp_wide_put(&r->wide_durs, i, e[k].end - e[k].start, &it->dur) != 0)
            return -1;
        if (prev == SC_RP_NONE) {
            it->first = true;
            it->thread = (uint32_t)r->n_threads++;
        } else {
            sc_rp_item *p = &r->items[prev];
            it->thread = p->thread;
            p->last = false;    /* i - 1: a thread's items are consecutive */
        }
        if (e[k].call != SC_RP_NONE)
            r->call_item[e[k].call] = i;
        else   /* a range's start mark sorts before its end mark */
            r->range_marks[2 * e[k].range + (r->range_marks[2 * e[k].range] != SC_RP_NONE)] = i;
        prev = i;
    }
    /* the other queries of a polling loop belong to the loop's item */
    for (size_t c = 0; c < t->n_calls; c++)
        if (loop_of[c] != SC_RP_NONE && loop_of[c] != (int32_t)c)
            r->call_item[c] = r->call_item[loop_of[c]];
    return 0;
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
    sc_rp_sparse join = {.index = i, .other = SC_RP_NONE};
    /* back from the first item that ended after i started */
    for (size_t k = sc_u64_upper_bound(ends, n, it->rec_start); k-- > 0;) {
        uint64_t x_end = ends[k], lag = it->rec_start - x_end;
        if (x_end <= gap_start || lag > SC_RP_JOIN_LAG_NS || lag * SC_RP_JOIN_SHARE > gap)
            break;      /* every earlier end lags more */
        if (r->items[by_end[k]].thread == it->thread)
            continue;
        join.other = (int32_t)by_end[k];
        join.value = lag;
        break;
    }
    return join;
}

static void sc_rp_joins(sc_replay *r)
{
    if (r->n_threads < 2)
        return;     /* one thread waits for no other */
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
    for (size_t i = 0; ends && i < r->n_items; i++) {
        sc_rp_item *it = &r->items[i];
        if (it->first || sc_rp_gap(r, (int32_t)i) <= SC_RP_JOIN_GAP_NS)
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
 * kind) is part of the gap before the thread's next item: recorded there (tool[], per item),
 * so that a plain pass can leave it out. */
static void sc_rp_tool_times(sc_replay *r, uint64_t *tool)
{
    const sc_trace *t = r->ctx->trace;
    for (size_t k = 0; k < t->n_overheads; k++) {
        const sc_rec_overhead *o = &t->overheads[k];
        if (o->kind != SC_OVERHEAD_STREAMCHECK_STACK || o->end_ns <= o->start_ns)
            continue;
        const sc_api_call *c = sc_ctx_call(r->ctx, o->correlation_id);
        int32_t i = c ? r->call_item[c - t->calls] : SC_RP_NONE;
        if (i == SC_RP_NONE || r->items[i].last)
            continue;
        int32_t next = i + 1;
        uint64_t ns = o->end_ns - o->start_ns, room = sc_rp_gap(r, next) - tool[next];
        tool[next] += ns < room ? ns : room;
        r->summary.tool_ns += ns < room ? ns : room;
        r->summary.tool_calls++;
    }
}

/* What CUPTI's and streamcheck's callbacks added to each item's calls (tracer_cost.h): a
 * plain pass leaves it out of the item's own time, and out of its work's issue lag (a launch
 * submits its work as it returns: the kernel starts after the callbacks' time, not during).
 * Only a run streamcheck recorded (its PROCESS record) paid it. */
static void sc_rp_tracer_times(sc_replay *r, uint64_t *tracer)
{
    const sc_trace *t = r->ctx->trace;
    if (!t->has_process)
        return;
    r->async_call_tracer = sc_tracer_cost_ns(SC_CALL_MEMCPY_ASYNC);
    for (size_t c = 0; c < t->n_calls; c++) {
        int32_t i = r->call_item[c];
        if (i == SC_RP_NONE)
            continue;
        uint64_t own = sc_rp_item_end(r, i) - r->items[i].rec_start, before = tracer[i];
        tracer[i] += sc_tracer_cost_ns(t->calls[c].rec.call_class);
        if (tracer[i] > own)
            tracer[i] = own;
        r->summary.tracer_ns += tracer[i] - before;
        r->summary.tracer_calls += tracer[i] > before;
    }
}

/* The tool and tracer times, summed per item in 64 bits (each added from records in their own
 * order), then kept in the items' 32-bit fields (replay_wide.h). */
static int sc_rp_host_times(sc_replay *r)
{
    uint64_t *sum = calloc(r->n_items ? r->n_items : 1, sizeof *sum);
    if (!sum)
        return -1;
    int rc = 0;
    sc_rp_tool_times(r, sum);
    for (size_t i = 0; rc == 0 && i < r->n_items; i++)
        rc = sc_rp_wide_put(&r->wide_tools, (int32_t)i, sum[i], &r->items[i].tool);
    memset(sum, 0, (r->n_items ? r->n_items : 1) * sizeof *sum);
    sc_rp_tracer_times(r, sum);
    for (size_t i = 0; rc == 0 && i < r->n_items; i++)
        rc = sc_rp_wide_put16(&r->wide_tracers, (int32_t)i, sum[i], &r->items[i].tracer);
    free(sum);
    return rc;
}

int sc_rp_host_items(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    size_t nc = t->n_calls ? t->n_calls : 1;
    r->call_item = malloc(nc * sizeof *r->call_item);
    int32_t *loop_of = malloc(nc * sizeof *loop_of);
    uint64_t *loop_end = malloc(nc * sizeof *loop_end);
    int rc = r->call_item && loop_of && loop_end ? sc_rp_loops(r, loop_of, loop_end) : -1;
    sc_rp_entry *e = NULL;
    size_t n = 0;
    if (rc == 0) {
        for (size_t i = 0; i < t->n_calls; i++)
            r->call_item[i] = SC_RP_NONE;
        e = sc_rp_entries(r, loop_of, loop_end, &n);
        rc = e ? 0 : -1;
    }
    if (rc == 0)
        rc = sc_rp_items_from(r, e, n, loop_of);
    /* the entries (40 bytes each) were the items' last readers: freed before the host times
     * and the joins take their scratch (a value and more an item) */
    free(e);
    free(loop_of);
    free(loop_end);
    if (rc == 0)
        rc = sc_rp_host_times(r);
    if (rc == 0)
        sc_rp_joins(r);
    return rc;
}

/* ---- what a waiting item waits for -------------------------------------------------- */

/* Built for the waits only: each item's own work, each device's work by end, and the latest
 * recorded end of each device's work in issue order. */
typedef struct sc_rp_wait_index {
    uint32_t *own_first;        /* per item and one past the last, into own_ops (op indices
                                   are 32-bit): item i's work is own_first[i] .. [i + 1] */
    int32_t *own_ops;
    int32_t *by_end;                /* per device (dev_first/dev_count layout), by rec_end */
    uint64_t *prefix_end;           /* per device, issue order: max rec_end so far */
    bool launch_blocking;           /* CUDA_LAUNCH_BLOCKING=1 in the recorded environment */
    uint32_t ctx_id[64], ctx_dev[64];   /* context -> device index, from the work */
    size_t n_ctx;
    size_t *near;                   /* per slot: where its last lookup of the work issued
                                       before a wait ended (sc_rp_last_issued_near: a thread's
                                       waits come in time order) */
} sc_rp_wait_index;

/* Each device's work by recorded end, then op index, into w->by_end, with prefix_end as the
 * keys' scratch (it is filled after). A device's ops are laid out in index order first, so
 * that a tie between ends breaks by position, which is then the op index
 * (order_by_time.h). */
static int sc_rp_order_by_end(const sc_replay *r, sc_rp_wait_index *w)
{
    size_t most = 1, *fill = calloc(r->n_devs + 1, sizeof *fill);
    for (size_t d = 0; d < r->n_devs; d++)
        most = r->dev_count[d] > most ? r->dev_count[d] : most;
    uint32_t *order = malloc(most * sizeof *order);
    if (!fill || !order) {
        free(fill);
        free(order);
        return -1;
    }
    for (size_t i = 0; i < r->n_ops; i++) {
        size_t at = r->dev_first[r->ops[i].dev] + fill[r->ops[i].dev]++;
        w->by_end[at] = (int32_t)i;
        w->prefix_end[at] = r->ops[i].rec_end;
    }
    free(fill);
    int rc = 0;
    for (size_t d = 0; rc == 0 && d < r->n_devs; d++) {
        int32_t *ops = w->by_end + r->dev_first[d];
        size_t n = r->dev_count[d];
        rc = sc_order_by_time_in(w->prefix_end + r->dev_first[d], n, order);
        for (size_t k = 0; rc == 0 && k < n; k++)
            order[k] = (uint32_t)ops[order[k]];
        for (size_t k = 0; rc == 0 && k < n; k++)
            ops[k] = (int32_t)order[k];
    }
    free(order);
    return rc;
}

static bool sc_rp_env_set(const sc_trace *t, const char *var, const char *value)
{
    size_t n = strlen(var);
    for (size_t i = 0; i < t->n_env; i++)
        if (t->env[i] && strncmp(t->env[i], var, n) == 0 && t->env[i][n] == '=' &&
            strcasecmp(t->env[i] + n + 1, value) == 0)
            return true;
    return false;
}

static int sc_rp_wait_index_build(const sc_replay *r, sc_rp_wait_index *w)
{
    if (r->n_ops > INT32_MAX)   /* the graph names work by int32_t indices */
        return -1;
    size_t no = r->n_ops ? r->n_ops : 1;
    w->by_end = malloc(no * sizeof *w->by_end);
    w->prefix_end = malloc(no * sizeof *w->prefix_end);
    w->near = calloc(r->n_slots + 1, sizeof *w->near);
    if (!w->by_end || !w->prefix_end || !w->near)
        return -1;
    const sc_trace *t = r->ctx->trace;
    w->launch_blocking = sc_rp_env_set(t, "CUDA_LAUNCH_BLOCKING", "1");
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
    }
    if (sc_rp_order_by_end(r, w) != 0)
        return -1;
    for (size_t i = 0; i < r->n_ops; i++)
        w->prefix_end[r->dev_first[r->ops[i].dev] + r->ops[i].dev_pos] = r->ops[i].rec_end;
    for (size_t d = 0; d < r->n_devs; d++) {
        for (size_t k = 1; k < r->dev_count[d]; k++) {
            uint64_t *p = &w->prefix_end[r->dev_first[d] + k];
            if (p[-1] > *p)
                *p = p[-1];
        }
    }
    /* Each item's own work, after the order by end, whose scratch (an order and the sort's
     * merge room) is gone by then: the build's peak of memory. Counted one place ahead
     * (own_first[i + 2] holds item i's count), summed, then each item's cursor
     * (own_first[i + 1]) advanced as its work is placed: it ends at item i's end, which is
     * where item i + 1 starts. No count or cursor array beside it. */
    w->own_first = calloc(r->n_items + 2, sizeof *w->own_first);
    w->own_ops = malloc(no * sizeof *w->own_ops);
    if (!w->own_first || !w->own_ops)
        return -1;
    for (size_t i = 0; i < r->n_ops; i++)
        if (r->ops[i].item != SC_RP_NONE)
            w->own_first[(size_t)r->ops[i].item + 2]++;
    for (size_t k = 2; k <= r->n_items + 1; k++)
        w->own_first[k] += w->own_first[k - 1];
    for (size_t i = 0; i < r->n_ops; i++) {
        int32_t it = r->ops[i].item;
        if (it != SC_RP_NONE)
            w->own_ops[w->own_first[(size_t)it + 1]++] = (int32_t)i;
    }
    return 0;
}

static void sc_rp_wait_index_free(sc_rp_wait_index *w)
{
    free(w->own_first);
    free(w->own_ops);
    free(w->by_end);
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
    return sc_packed_lower_bound(&r->dev_issue, r->dev_first[dev],
                                 r->dev_first[dev] + r->dev_count[dev], t);
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

static bool sc_rp_pageable_copy(const sc_trace *t, size_t copy)
{
    const sc_rec_memcpy *m = &t->copies[copy];
    return (m->flags & SC_MEMCPY_ASYNC) &&
           (m->src_kind == SC_MEM_PAGEABLE || m->dst_kind == SC_MEM_PAGEABLE);
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

/* Item i waits for a device: `dev` (an index), or every device when dev is n_devs or more. */
static int sc_rp_wait_device(sc_replay *r, int32_t i, uint32_t dev)
{
    if (!SC_GROW(r->dev_waits, r->cap_dev_waits, r->n_dev_waits + 1, 16))
        return -1;
    sc_rp_dev_wait *v = &r->dev_waits[r->n_dev_waits];
    *v = (sc_rp_dev_wait){.dev = UINT32_MAX};
    if (dev < r->n_devs) {
        v->dev = dev;
        v->limit = (uint32_t)sc_rp_dev_issued_before(r, dev, r->items[i].rec_start);
    }
    r->items[i].cond = (uint32_t)r->n_dev_waits++;
    r->items[i].wait = SC_RP_WAIT_DEVICE;
    return 0;
}

/* Fills the item's condition (kind and list); the recorded end of it is computed after. */
static int sc_rp_item_wait(sc_replay *r, const sc_rp_wait_index *w, int32_t i,
                           sc_rp_conds *conds)
{
    const sc_trace *t = r->ctx->trace;
    sc_rp_item *it = &r->items[i];
    int32_t call = it->call;
    const sc_api_call *c = &t->calls[call];
    uint16_t cls = c->rec.call_class;
    it->sync = sc_blocking_sync_class(cls);
    it->async_copy = cls == SC_CALL_MEMCPY_ASYNC;
    uint32_t dev = sc_rp_context_dev(r, w, c->rec.context_id);
    bool loop = sc_rp_is_query(cls) && sc_rp_item_end(r, i) > c->rec.end_ns;
    size_t first = conds->n;
    int32_t p = SC_RP_NONE;
    const uint32_t *own_first = w->own_first;
    size_t own_count = own_first[i + 1] - own_first[i];
    if (cls == SC_CALL_DEVICE_SYNC)
        return sc_rp_wait_device(r, i, dev);
    if (cls == SC_CALL_STREAM_SYNC || (loop && cls == SC_CALL_STREAM_QUERY)) {
        uint32_t slot = sc_rp_call_slot(r, c, dev);
        if (slot >= r->n_slots)     /* a stream the trace cannot name: the whole device */
            return sc_rp_wait_device(r, i, dev);
        p = sc_rp_last_issued_near(r, slot, it->rec_start, &w->near[slot]);
    } else if (cls == SC_CALL_EVENT_SYNC || cls == SC_CALL_EVENT_READ ||
               (loop && cls == SC_CALL_EVENT_QUERY)) {
        /* an event read needs the event complete: the program waited for it before, and
         * would have to wait here if a fix took that earlier wait away */
        const sc_api_call *rec = sc_deps_last_record(&r->ctx->deps, c->rec.aux, it->rec_start);
        uint32_t slot = rec ? sc_rp_call_slot(r, rec, dev) : (uint32_t)r->n_slots;
        if (slot < r->n_slots)
            p = sc_rp_last_issued_near(r, slot, rec->rec.start_ns, &w->near[slot]);
    } else if (sc_blocking_implicit_class(cls)) {
        if (sc_rp_drained(r, call, conds) != 0)
            return -1;
        if (cls == SC_CALL_MEMCPY || cls == SC_CALL_MEMSET)   /* and its own copy or set */
            for (size_t k = 0; k < own_count; k++)
                if (sc_rp_cond_add(conds, w->own_ops[own_first[i] + k]) != 0)
                    return -1;
    } else if (cls == SC_CALL_MEMCPY_ASYNC) {
        for (size_t k = 0; k < own_count; k++) {
            int32_t op = w->own_ops[own_first[i] + k];
            if (r->ops[op].kind != SC_WORK_MEMCPY)
                continue;
            const sc_rec_memcpy *m = &t->copies[(size_t)op - t->n_kernels];
            if (sc_rp_pageable_copy(t, (size_t)op - t->n_kernels)) {
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
            if (sc_rp_cond_add(conds, w->own_ops[own_first[i] + k]) != 0)
                return -1;
    }
    if (p != SC_RP_NONE && sc_rp_cond_add(conds, p) != 0)
        return -1;
    if (conds->n > first) {     /* the count after the list */
        if (sc_rp_cond_add(conds, (int32_t)(conds->n - first)) != 0)
            return -1;
        it->wait = SC_RP_WAIT_OPS;
        it->cond = (uint32_t)(conds->n - 1);
    }
    return 0;
}

/* The recorded end of what an item waited for. */
static uint64_t sc_rp_cond_recorded(const sc_replay *r, const sc_rp_wait_index *w,
                                    const sc_rp_item *it)
{
    uint64_t end = 0;
    if (it->wait == SC_RP_WAIT_OPS) {
        uint32_t n;
        const int32_t *cond = sc_rp_cond_list(r, it, &n);
        for (uint32_t k = 0; k < n; k++)
            if (r->ops[cond[k]].rec_end > end)
                end = r->ops[cond[k]].rec_end;
    } else if (it->wait == SC_RP_WAIT_DEVICE) {
        const sc_rp_dev_wait *v = &r->dev_waits[it->cond];
        for (size_t d = 0; d < r->n_devs; d++) {
            if (v->dev != UINT32_MAX && v->dev != d)
                continue;
            size_t k = v->dev != UINT32_MAX ? v->limit
                                            : sc_rp_dev_issued_before(r, d, it->rec_start);
            if (k > 0 && w->prefix_end[r->dev_first[d] + k - 1] > end)
                end = w->prefix_end[r->dev_first[d] + k - 1];
        }
    }
    return end;
}

static int sc_rp_value_item_cmp(const void *pa, const void *pb)
{
    const sc_rp_sparse *x = pa, *y = pb;
    return x->index < y->index ? -1 : x->index > y->index;
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

int sc_rp_host_waits(sc_replay *r)
{
    if (sc_rp_loads(r) != 0)
        return -1;
    sc_rp_wait_index w = {0};
    sc_rp_conds conds = {0};
    int rc = sc_rp_wait_index_build(r, &w);
    for (size_t i = 0; rc == 0 && i < r->n_items; i++)
        if (!r->items[i].mark)
            rc = sc_rp_item_wait(r, &w, (int32_t)i, &conds);
    r->cond_ops = conds.ops;
    r->n_cond_ops = conds.n;
    for (size_t i = 0; rc == 0 && i < r->n_items; i++)   /* the lags ask it of every op */
        if (r->items[i].loads)
            for (uint32_t k = w.own_first[i]; k < w.own_first[i + 1]; k++)
                r->ops[w.own_ops[k]].item_loads = 1;
    for (size_t i = 0; rc == 0 && i < r->n_items; i++) {
        sc_rp_item *it = &r->items[i];
        it->post = 0;       /* its place held the call until here */
        if (it->wait == SC_RP_WAIT_NONE)
            continue;
        uint64_t cond = sc_rp_cond_recorded(r, &w, it);
        uint64_t rec_end = sc_rp_item_end(r, (int32_t)i);
        if (it->loads && cond > rec_end) {
            /* the load did not wait: the device was still busy when the call returned (its
             * kernel was held on the device instead, replay_lags.c) */
            it->wait = SC_RP_WAIT_NONE;
            continue;
        }
        it->waited = cond > it->rec_start;
        rc = sc_rp_wide_put_signed(&r->wide_posts, (int32_t)i,
                                   it->waited ? (int64_t)rec_end - (int64_t)cond : 0,
                                   &it->post);
    }
    sc_rp_wait_index_free(&w);
    /* the devices' trees of replayed ends answer device waits only: without one, no pass
     * keeps them (a raise per op and pass, and 8 bytes an op) */
    bool device_waits = false;
    for (size_t i = 0; rc == 0 && i < r->n_items && !device_waits; i++)
        device_waits = r->items[i].wait == SC_RP_WAIT_DEVICE;
    if (rc == 0 && device_waits) {
        r->dev_tree = calloc(r->n_ops ? r->n_ops : 1, sizeof *r->dev_tree);
        rc = r->dev_tree ? 0 : -1;
    }
    return rc;
}
