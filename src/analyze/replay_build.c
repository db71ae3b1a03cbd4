/* Building the replay's graph: the device side (work, streams, events, the legacy barrier,
 * copy engines, room) and the assembly of the whole. The host side is replay_host.c, the
 * typical lags and what the model cannot explain replay_lags.c, the pass replay_run.c. */
#include "analyze/replay.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/hw_queues.h"
#include "analyze/occupancy.h"
#include "analyze/peer_copy.h"
#include "analyze/replay_graph.h"
#include "trace/order_by_time.h"
#include "analyze/replay_parts.h"
#include "analyze/stage_clock.h"
#include "analyze/stream_kind.h"
#include "analyze/work.h"
#include "trace/grow.h"
#include "trace/sort.h"
#include "trace/sort_u64.h"

#define SC_RP_ROOM_LOOKBACK 8       /* full grids before a kernel that may hold it */
#define SC_RP_TOUCH_NS 1000u        /* "ended when the other started": clock noise */

/* ---- growing arrays ----------------------------------------------------------------- */

int sc_rp_push_edge(sc_replay *r, size_t *cap, sc_rp_edge e)
{
    if (!SC_GROW(r->edges, *cap, r->n_edges + 1, 256))
        return -1;
    r->edges[r->n_edges++] = e;
    return 0;
}

/* ---- work and its order ------------------------------------------------------------- */

/* qsort has no context argument; per thread, since the report analyzes traces at once (-j) */
static _Thread_local const sc_replay *sc_rp_sort_ctx;

/* Recorded start, then position: issue order among work issued at one time. */
static int sc_rp_start_cmp(const void *pa, const void *pb)
{
    uint64_t x = sc_rp_rec_start(sc_rp_sort_ctx, *(const int32_t *)pa);
    uint64_t y = sc_rp_rec_start(sc_rp_sort_ctx, *(const int32_t *)pb);
    if (x != y)
        return x < y ? -1 : 1;
    return *(const int32_t *)pa < *(const int32_t *)pb ? -1 : 1;
}

/* The times are ordered as keys (order_by_time.h: by time, then position), then each run of
 * work issued at one time, which is short, by recorded start (sc_rp_start_cmp): the same
 * order as sc_rp_issue_cmp's sort, which took 12.3M instructions at 100k records (this:
 * 5.0M). */
int sc_rp_issue_sort(const sc_replay *r, int32_t *ops, size_t n)
{
    if (n < 2)
        return 0;
    uint64_t *at = malloc(n * sizeof *at);
    if (!at)
        return -1;
    for (size_t j = 0; j < n; j++)
        at[j] = sc_rp_issue(r, ops[j]);
    uint32_t *pos = sc_order_by_time(at, n);    /* takes at */
    if (!pos)
        return -1;
    for (size_t j = 0; j < n; j++)
        pos[j] = (uint32_t)ops[pos[j]];
    memcpy(ops, pos, n * sizeof *ops);
    free(pos);
    sc_rp_sort_ctx = r;
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        uint64_t t = sc_rp_issue(r, ops[lo]);
        for (hi = lo + 1; hi < n && sc_rp_issue(r, ops[hi]) == t; hi++)
            ;
        if (hi - lo > 1)
            sc_sort(ops + lo, hi - lo, sizeof *ops, sc_rp_start_cmp);
    }
    return 0;
}

/* Issue order (sc_rp_issue_sort's), through a comparator: work of no known stream. */
static int sc_rp_issue_cmp(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    uint64_t ia = sc_rp_issue(sc_rp_sort_ctx, a), ib = sc_rp_issue(sc_rp_sort_ctx, b);
    if (ia != ib)
        return ia < ib ? -1 : 1;
    return sc_rp_start_cmp(pa, pb);
}

/* Groups the work by a key (stream slot or device) in issue order (sc_rp_issue_sort):
 * first[k], count[k] and order[] (op indices). Takes key (freed once the groups are laid
 * out: the sorts' keys and scratch, the build's peak of memory, come after). */
static int sc_rp_group(sc_replay *r, size_t n_keys, uint32_t *key, size_t **first_out,
                       size_t **count_out, int32_t **order_out)
{
    size_t *first = calloc(n_keys + 1, sizeof *first);
    size_t *count = calloc(n_keys + 1, sizeof *count);
    int32_t *order = malloc((r->n_ops ? r->n_ops : 1) * sizeof *order);
    size_t *fill = calloc(n_keys + 1, sizeof *fill);
    if (!first || !count || !order || !fill) {
        free(key);
        free(first);
        free(count);
        free(order);
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < r->n_ops; i++)
        count[key[i]]++;
    for (size_t k = 1; k < n_keys; k++)
        first[k] = first[k - 1] + count[k - 1];
    for (size_t i = 0; i < r->n_ops; i++)
        order[first[key[i]] + fill[key[i]]++] = (int32_t)i;
    free(key);
    free(fill);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < n_keys; k++)
        rc = sc_rp_issue_sort(r, order + first[k], count[k]);
    *first_out = first;
    *count_out = count;
    *order_out = order;
    return rc;
}

/* Streams' slots remembered by a hash of their key: each piece of work names its stream,
 * and a lookup (sc_ctx_stream) scans every stream, 30 instructions a piece at 1M records
 * (the few streams interleave record by record, so the last one alone nearly always
 * misses). A key with no stream remembers n_streams. */
#define SC_RP_SLOT_MEMO 64u

typedef struct sc_rp_slot_memo {
    uint32_t device[SC_RP_SLOT_MEMO], context_id[SC_RP_SLOT_MEMO], stream_id[SC_RP_SLOT_MEMO];
    uint32_t slot[SC_RP_SLOT_MEMO];     /* UINT32_MAX: empty */
    uint32_t dev[SC_RP_SLOT_MEMO];      /* the device's index (sc_device_index) */
} sc_rp_slot_memo;

static void sc_rp_slot_memo_init(sc_rp_slot_memo *m)
{
    for (size_t k = 0; k < SC_RP_SLOT_MEMO; k++)
        m->slot[k] = UINT32_MAX;
}

static inline uint32_t sc_rp_slot_of(const sc_ctx *ctx, sc_rp_slot_memo *m, uint32_t device,
                                     uint32_t context_id, uint32_t stream_id, uint32_t *dev)
{
    size_t h = (stream_id ^ context_id * 31u ^ device * 131u) & (SC_RP_SLOT_MEMO - 1);
    if (m->slot[h] != UINT32_MAX && m->stream_id[h] == stream_id &&
        m->context_id[h] == context_id && m->device[h] == device) {
        *dev = m->dev[h];
        return m->slot[h];
    }
    const sc_stream_summary *s = sc_ctx_stream(ctx, device, context_id, stream_id);
    uint32_t slot = s ? (uint32_t)(s - ctx->analysis->streams)
                      : (uint32_t)ctx->analysis->n_streams;
    m->device[h] = device;
    m->context_id[h] = context_id;
    m->stream_id[h] = stream_id;
    m->slot[h] = slot;
    m->dev[h] = *dev = (uint32_t)sc_device_index(ctx->analysis, device);
    return slot;
}

/* The work, and when each piece was issued (sc_replay.op_issue), packed a block at a time as
 * the work is laid out (sc_packed_times_put_block): the issue times pass through a block's
 * buffer on the stack, not an array of 8 bytes a piece that the packing then read twice
 * (31 MB written and freed at 10M records). */
static int sc_rp_ops_fill(sc_replay *r)
{
    sc_rp_slot_memo memo;
    sc_rp_slot_memo_init(&memo);
    const sc_ctx *ctx = r->ctx;
    const sc_trace *t = ctx->trace;
    r->n_ops = sc_work_count(t);
    r->records = sc_work_records_of(t);
    if (r->n_ops > INT32_MAX)   /* the graph names work by int32_t indices */
        return -1;
    size_t n_blocks = (r->n_ops + SC_PACKED_BLOCK - 1) / SC_PACKED_BLOCK;
    /* every op is written whole below: no zeroing */
    r->ops = malloc((r->n_ops ? r->n_ops : 1) * sizeof *r->ops);
    r->op_slot = malloc((r->n_ops ? r->n_ops : 1) * sizeof *r->op_slot);
    sc_packed_times *p = &r->op_issue;
    if (!r->ops || !r->op_slot || sc_packed_times_open(p, r->n_ops) != 0)
        return -1;
    size_t cap_far = 0;
    uint64_t issue[SC_PACKED_BLOCK];
    for (size_t b = 0; b < n_blocks; b++) {
        size_t from = b * SC_PACKED_BLOCK;
        size_t end = from + SC_PACKED_BLOCK < r->n_ops ? from + SC_PACKED_BLOCK : r->n_ops;
        for (size_t i = from; i < end; i++) {
            sc_work w = sc_work_at(t, i);
            /* by index: the call's item is read off a per-call array */
            uint32_t at = ctx->work_call ? ctx->work_call[i]
                                         : sc_ctx_call_at(ctx, w.correlation_id);
            const sc_api_call *call = at != UINT32_MAX ? &t->calls[at] : NULL;
            int32_t item = call ? r->call_item[at] : SC_RP_NONE;
            /* the device's index is remembered with the stream's slot */
            uint32_t dev;
            r->op_slot[i] = sc_rp_slot_of(ctx, &memo, w.device, w.context_id, w.stream_id, &dev);
            sc_rp_op *o = &r->ops[i];
            *o = (sc_rp_op){.item = item, .stream_prev = SC_RP_NONE,
                            .link = SC_RP_NO_LINK, .dev = dev, .kind = w.kind};
            uint64_t v = item != SC_RP_NONE && call->rec.start_ns <= w.start_ns
                             ? call->rec.start_ns
                             : w.start_ns;
            issue[i - from] = v;
            o->peer_staged = w.kind == SC_WORK_MEMCPY && sc_copy_peer_staged(
                                                  sc_copy_shape_of(t, &t->copies[w.index]));
        }
        if (sc_packed_times_put_block(p, b, issue, end - from, &cap_far) != 0)
            return -1;
    }
    return 0;
}

/* Each slot's work in issue order, read off the devices' issue orders (dev_order, device
 * after device): a stream's work all runs on its device, so its order is its device's with
 * the other streams' work left out, and needs no sort. Work of no known stream (the last
 * slot) may span devices: sorted, as before. */
static int sc_rp_slot_orders(sc_replay *r, const int32_t *dev_order)
{
    size_t n_keys = r->n_slots + 1;
    r->slot_first = calloc(n_keys + 1, sizeof *r->slot_first);
    r->slot_count = calloc(n_keys + 1, sizeof *r->slot_count);
    r->slot_ops = malloc((r->n_ops ? r->n_ops : 1) * sizeof *r->slot_ops);
    size_t *fill = calloc(n_keys + 1, sizeof *fill);
    if (!r->slot_first || !r->slot_count || !r->slot_ops || !fill) {
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < r->n_ops; i++)
        r->slot_count[r->op_slot[i]]++;
    for (size_t k = 1; k < n_keys; k++)
        r->slot_first[k] = r->slot_first[k - 1] + r->slot_count[k - 1];
    for (size_t p = 0; p < r->n_ops; p++) {
        uint32_t s = r->op_slot[dev_order[p]];
        r->slot_ops[r->slot_first[s] + fill[s]++] = dev_order[p];
    }
    free(fill);
    sc_rp_sort_ctx = r;
    sc_sort(r->slot_ops + r->slot_first[r->n_slots], r->slot_count[r->n_slots],
            sizeof *r->slot_ops, sc_rp_issue_cmp);
    return 0;
}

/* The per-device issue orders (the order stays in r->dev_order for the edges and the host
 * waits), then stream order and the per-slot issue orders the other edges look up. */
static int sc_rp_orders(sc_replay *r)
{
    /* merged from the slots' runs (replay_issue.c); else sorted, each slot's order then read
     * off its device's */
    int rc = sc_rp_issue_orders(r);
    bool sorted = rc > 0;
    if (sorted) {
        uint32_t *key = malloc((r->n_ops ? r->n_ops : 1) * sizeof *key);
        if (!key)
            return -1;
        int32_t *order = NULL;
        for (size_t i = 0; i < r->n_ops; i++)
            key[i] = r->ops[i].dev;
        rc = sc_rp_group(r, r->n_devs, key, &r->dev_first, &r->dev_count, &order);
        r->dev_order = order;
    }
    if (rc != 0)
        return -1;
    if (sorted)
        rc = sc_rp_slot_orders(r, r->dev_order);
    for (size_t s = 0; rc == 0 && s <= r->n_slots; s++)
        for (size_t k = 1; s < r->n_slots && k < r->slot_count[s]; k++)
            r->ops[r->slot_ops[r->slot_first[s] + k]].stream_prev =
                r->slot_ops[r->slot_first[s] + k - 1];
    return rc;
}

/* The first of ops[lo, hi) (in issue order) issued at or after `before_ns`, knowing that
 * those below lo were issued before it and those from hi on at or after: hi when none. */
static size_t sc_rp_first_issued_at(const sc_replay *r, const int32_t *ops, size_t lo,
                                    size_t hi, uint64_t before_ns)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_rp_issue(r, ops[mid]) < before_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int32_t sc_rp_last_issued_before(const sc_replay *r, uint32_t slot, uint64_t before_ns,
                                 size_t *pos_out)
{
    if (slot >= r->n_slots)
        return SC_RP_NONE;
    const int32_t *ops = r->slot_ops + r->slot_first[slot];
    size_t lo = sc_rp_first_issued_at(r, ops, 0, r->slot_count[slot], before_ns);
    if (pos_out)
        *pos_out = lo;
    return lo > 0 ? ops[lo - 1] : SC_RP_NONE;
}

/* The first of n pieces of work (ops, in issue order) issued at or after `before_ns`: from
 * `near` (at most n) out, a step that doubles, then halving; the same position as a search
 * of the whole list, in a few steps when the answer lies close to `near`. */
static size_t sc_rp_issued_from(const sc_replay *r, const int32_t *ops, size_t n, size_t near,
                                uint64_t before_ns)
{
    size_t lo, hi, step = 1;
    if (near < n && sc_rp_issue(r, ops[near]) < before_ns) {
        /* beyond near: every position below lo is issued before, hi at or after (or n) */
        lo = near + 1;
        while (lo + step - 1 < n && sc_rp_issue(r, ops[lo + step - 1]) < before_ns) {
            lo += step;
            step *= 2;
        }
        hi = lo + step - 1 < n ? lo + step - 1 : n;
    } else {
        /* at or below near: every position from hi on is issued at or after */
        hi = near;
        while (hi >= step && sc_rp_issue(r, ops[hi - step]) >= before_ns) {
            hi -= step;
            step *= 2;
        }
        lo = hi >= step ? hi - step + 1 : 0;
    }
    return sc_rp_first_issued_at(r, ops, lo, hi, before_ns);
}

int32_t sc_rp_last_issued_near(const sc_replay *r, uint32_t slot, uint64_t before_ns,
                               size_t *near)
{
    if (slot >= r->n_slots)
        return SC_RP_NONE;
    const int32_t *ops = r->slot_ops + r->slot_first[slot];
    size_t n = r->slot_count[slot];
    size_t lo = sc_rp_issued_from(r, ops, n, *near < n ? *near : n, before_ns);
    *near = lo;
    return lo > 0 ? ops[lo - 1] : SC_RP_NONE;
}

uint32_t sc_rp_op_slot(const sc_replay *r, int32_t i)
{
    if (r->op_slot)
        return r->op_slot[i];
    const sc_ctx *ctx = r->ctx;
    sc_work w = sc_work_at(ctx->trace, (size_t)i);
    const sc_stream_summary *s = sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id);
    return s ? (uint32_t)(s - ctx->analysis->streams) : (uint32_t)ctx->analysis->n_streams;
}

/* ---- edges ------------------------------------------------------------------------------ */

/* The stream an event was recorded on: the waiting stream's device first; an event of
 * another device's context (a cross-device wait) on that device. */
static const sc_stream_summary *sc_rp_event_stream(const sc_ctx *ctx, uint32_t device,
                                                   const sc_dep_edge *e)
{
    const sc_analysis *a = ctx->analysis;
    const sc_stream_summary *s = sc_ctx_stream(ctx, device, e->from_context, e->from_stream);
    for (size_t d = 0; !s && d < a->n_devices; d++)
        if (a->devices[d].device != device)
            s = sc_ctx_stream(ctx, a->devices[d].device, e->from_context, e->from_stream);
    return s;
}

/* Per stream slot, where the walk of the event waits (sc_rp_event_edges) stopped for the
 * slot's last work: the first edge of its stream waited at or after that work's issue. */
typedef struct sc_rp_wait_cursor {
    int32_t op;                 /* the work it was walked for, SC_RP_NONE */
    size_t next;                /* into ctx->deps.edges */
} sc_rp_wait_cursor;

/* The first edge of o's stream waited at or after `after`, the issue of o's previous
 * work on it: where that work's walk stopped, when it was the last walked on the slot (the
 * work is walked in issue order, so it nearly always was), else a search. */
static size_t sc_rp_first_wait(const sc_replay *r, const sc_rp_op *o, uint32_t slot,
                               const sc_rp_wait_cursor *cursor, uint64_t after)
{
    const sc_stream_summary *s = &r->ctx->analysis->streams[slot];
    if (o->stream_prev != SC_RP_NONE && cursor->op == o->stream_prev)
        return cursor->next;
    return sc_deps_first_edge(&r->ctx->deps, s->context_id, s->stream_id, after);
}

/* What a stream's work asks of the edges (sc_rp_edges), per slot. */
enum { SC_RP_SLOT_WAITED = 1, SC_RP_SLOT_BARRIER = 2 };

/* cudaStreamWaitEvent: work on `to` issued after a wait (and after the previous work on `to`,
 * which carries the earlier waits) runs after the recorded stream's work issued before the
 * record. cursors: per slot (sc_rp_wait_cursor); near: per slot, where its last record was
 * looked up (the records of a stream mostly come in order: sc_rp_last_issued_near). */

static int sc_rp_event_edges(sc_replay *r, int32_t i, sc_rp_wait_cursor *cursors, size_t *near,
                             const uint8_t *waited, size_t *cap)
{
    const sc_ctx *ctx = r->ctx;
    const sc_deps *d = &ctx->deps;
    sc_rp_op *o = &r->ops[i];
    uint32_t slot = r->op_slot[i];
    /* a stream that waited for no event: the run below would stop at its first edge (and
     * its cursor is read by its own work alone) */
    if (slot >= r->n_slots || !(waited[slot] & SC_RP_SLOT_WAITED))
        return 0;
    const sc_stream_summary *s = &ctx->analysis->streams[slot];
    uint64_t after = o->stream_prev != SC_RP_NONE ? sc_rp_issue(r, o->stream_prev) : 0;
    uint64_t issue = sc_rp_issue(r, i);
    /* The waits on this stream between its previous work and this one: a run of the edges,
     * which are sorted by (context, stream waiting, wait time). It stops at the first edge
     * of the stream waited at or after `issue` (the next work's start) unless it started
     * past it (after > issue). */
    size_t k = sc_rp_first_wait(r, o, slot, &cursors[slot], after);
    for (; k < d->n_edges; k++) {
        const sc_dep_edge *e = &d->edges[k];
        if (e->context_id != s->context_id || e->to_stream != s->stream_id ||
            e->wait_ns >= issue)
            break;
        const sc_stream_summary *from = sc_rp_event_stream(ctx, s->device, e);
        if (!from)
            continue;
        size_t from_slot = (size_t)(from - ctx->analysis->streams);
        int32_t p = sc_rp_last_issued_near(r, (uint32_t)from_slot, e->record_ns,
                                           &near[from_slot]);
        if (p != SC_RP_NONE &&
            sc_rp_push_edge(r, cap, (sc_rp_edge){.op = p, .kind = SC_RP_EDGE_EVENT,
                                                 .slot = e->wait_call}) != 0)
            return -1;
    }
    cursors[slot] = after <= issue ? (sc_rp_wait_cursor){.op = i, .next = k}
                                      : (sc_rp_wait_cursor){.op = SC_RP_NONE};
    return 0;
}

/* The legacy-stream barrier of one context, walked in issue order: each piece of work waits
 * for the other side's latest work issued before it, once per new piece (older pieces are
 * behind it on their own stream). seen[0][k]: how many pieces of syncing stream k the legacy
 * stream already waited for; seen[1][s]: how many legacy pieces stream s already waited
 * for. near: per slot, where its last lookup ended (the work is walked in issue order, so
 * each lookup starts where the one before it on that slot ended). */
static int sc_rp_barrier_edges(sc_replay *r, int32_t i, size_t *seen[2], size_t *near,
                               size_t *cap)
{
    const sc_stream_summary *streams = r->ctx->analysis->streams;
    uint32_t slot = r->op_slot[i];
    if (slot >= r->n_slots)
        return 0;
    const sc_stream_summary *s = &streams[slot];
    bool legacy = sc_stream_is_legacy(s);
    if (!legacy && !sc_stream_syncs_with_legacy(s))
        return 0;
    for (size_t k = 0; k < r->n_slots; k++) {
        const sc_stream_summary *x = &streams[k];
        if (x->device != s->device || x->context_id != s->context_id || k == slot)
            continue;
        bool other = legacy ? sc_stream_syncs_with_legacy(x) : sc_stream_is_legacy(x);
        if (!other)
            continue;
        int32_t p = sc_rp_last_issued_near(r, (uint32_t)k, sc_rp_issue(r, i), &near[k]);
        size_t pos = near[k];
        size_t *mark = legacy ? &seen[0][k] : &seen[1][slot];
        if (p == SC_RP_NONE || pos <= *mark)
            continue;
        *mark = pos;
        uint32_t syncing = legacy ? (uint32_t)k : slot;
        if (sc_rp_push_edge(r, cap, (sc_rp_edge){.op = p, .kind = SC_RP_EDGE_BARRIER,
                                                 .slot = syncing}) != 0)
            return -1;
    }
    return 0;
}

/* A kernel waits for a full grid of another stream that ran before it and did not overlap it
 * in the recording: if the replay puts it inside that grid, it waits for the grid's end. */
static int sc_rp_room_edges(sc_replay *r, int32_t i, const int32_t *full, size_t n_full,
                            size_t *cap)
{
    sc_rp_op *o = &r->ops[i];
    if (o->kind != SC_WORK_KERNEL)
        return 0;
    uint64_t start = sc_rp_rec_start(r, i);
    size_t lo = 0, hi = n_full;
    while (lo < hi) {   /* full grids that started before it */
        size_t mid = lo + (hi - lo) / 2;
        if (sc_rp_rec_start(r, full[mid]) < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t looked = 0;
    for (size_t k = lo; k-- > 0 && looked < SC_RP_ROOM_LOOKBACK;) {
        const sc_rp_op *a = &r->ops[full[k]];
        if (a->dev != o->dev)
            continue;
        looked++;
        if (r->op_slot[full[k]] == r->op_slot[i] ||
            sc_rp_rec_end(r, full[k]) > start + SC_RP_TOUCH_NS)
            continue;   /* its own stream orders it already; or they overlapped: room was */
        if (sc_rp_push_edge(r, cap, (sc_rp_edge){.op = full[k], .kind = SC_RP_EDGE_ROOM}) != 0)
            return -1;
    }
    return 0;
}

/* Kernels filling their device, by recorded start, with their waves (r->full). */
static int sc_rp_full_grids(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    size_t n_k = t->n_kernels ? t->n_kernels : 1;
    r->full = malloc(n_k * sizeof *r->full);
    r->full_waves = malloc(n_k * sizeof *r->full_waves);
    r->full_ready = malloc(n_k * sizeof *r->full_ready);
    r->full_slots = malloc(n_k * sizeof *r->full_slots);
    if (!r->full || !r->full_waves || !r->full_ready || !r->full_slots)
        return -1;
    size_t n = 0;
    for (size_t k = 0; k < t->n_kernels; k++)
        if (sc_ctx_kernel_full(r->ctx, k, NULL))
            r->full[n++] = (int32_t)k;    /* kernels come first among the work positions */
    sc_rp_sort_ctx = r;
    sc_sort(r->full, n, sizeof *r->full, sc_rp_start_cmp);
    for (size_t j = 0; j < n; j++) {
        sc_occupancy o;
        sc_ctx_kernel_full(r->ctx, (size_t)r->full[j], &o);
        r->full_waves[j] = (uint32_t)((o.blocks + o.wave - 1) / o.wave);
        r->full_slots[j] = r->op_slot[r->full[j]];
    }
    r->n_full = n;
    return 0;
}

/* The engine direction of a copy: to the device, from it, peer (PtoP), or -1 (none kept).
 * A peer copy's record names the device whose stream issued it (CUPTI's deviceId, "where
 * the copy is occurring"); CUDA does not document which device's engine moves the bytes, so
 * we assume that device's, in a direction of its own: peer copies of one device that ran
 * one after the other keep their order, and never order its uploads or downloads. */
static int sc_rp_engine_dir(const sc_copy_shape *m)
{
    return m->copy_kind == 1 ? 0 : m->copy_kind == 2 ? 1 : m->copy_kind == SC_COPY_PTOP ? 2
                                                                                      : -1;
}

/* Work i's link (sc_rp_op.link), made when it has none yet (in the order work first needs
 * one: the links are looked up by index, not searched). NULL without memory. */
static sc_rp_link *sc_rp_link_of(sc_replay *r, int32_t i)
{
    sc_rp_op *o = &r->ops[i];
    if (o->link == SC_RP_NO_LINK) {
        if (!SC_GROW(r->links, r->cap_links, r->n_links + 1, 64))
            return NULL;
        r->links[r->n_links] = (sc_rp_link){.edge_first = SC_RP_NO_EDGES,
                                            .engine_prev = SC_RP_NONE,
                                            .queue_prev = SC_RP_NONE};
        o->link = (uint32_t)r->n_links++;
    }
    return &r->links[o->link];
}

/* Copies of one direction on one device that ran one after the other keep that order: one
 * engine per direction did them. Copies that overlapped had engines enough. */
static int sc_rp_engine_order(sc_replay *r)
{
    const sc_trace *t = r->ctx->trace;
    int32_t last[3];        /* per direction, on the current device */
    /* copies are sorted by start in the trace; devices are few, so one walk per device */
    for (size_t d = 0; d < r->n_devs; d++) {
        last[0] = last[1] = last[2] = SC_RP_NONE;
        for (size_t c = 0; c < t->n_copies; c++) {
            int32_t i = (int32_t)(t->n_kernels + c);
            sc_rp_op *o = &r->ops[i];
            int dir = sc_rp_engine_dir(sc_copy_shape_of(t, &t->copies[c]));
            if (o->dev != d || dir < 0)
                continue;
            int32_t p = last[dir];
            if (p != SC_RP_NONE && r->op_slot[p] != r->op_slot[i] &&
                sc_rp_rec_end(r, p) <= t->copies[c].start_ns + SC_RP_TOUCH_NS) {
                sc_rp_link *l = sc_rp_link_of(r, i);
                if (!l)
                    return -1;
                l->engine_prev = p;
            }
            last[dir] = i;
        }
    }
    return 0;
}

/* Each op's queue predecessor (replay.h, "queues"; hw_queues.h says which streams share a
 * queue): work the recording shows starting before its queue predecessor had started says
 * the mapping is not so there: no edge. `order`: every op in issue order. */
static int sc_rp_queue_order(sc_replay *r, const int32_t *order)
{
    uint32_t n_q;
    uint32_t *slot_queue = sc_hw_slot_queues(r->ctx, &n_q);
    int32_t *last = malloc((r->n_slots + 1) * sizeof *last);   /* per queue: keyed by slot */
    if (!slot_queue || !last) {
        free(slot_queue);
        free(last);
        return -1;
    }
    for (size_t s = 0; s <= r->n_slots; s++)
        last[s] = SC_RP_NONE;
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < r->n_ops; k++) {
        int32_t i = order[k];
        uint32_t slot = r->op_slot[i];
        uint32_t q = slot < r->n_slots ? slot_queue[slot] : UINT32_MAX;
        if (q == UINT32_MAX)
            continue;
        int32_t p = last[q];
        if (p != SC_RP_NONE && r->op_slot[p] != slot &&
            sc_rp_rec_start(r, p) <= sc_rp_rec_start(r, i) + SC_RP_TOUCH_NS) {
            sc_rp_link *l = sc_rp_link_of(r, i);
            if (l)
                l->queue_prev = p;
            else
                rc = -1;
        }
        last[q] = i;
    }
    free(slot_queue);
    free(last);
    return rc;
}

static int sc_rp_edges(sc_replay *r)
{
    size_t cap = 0;
    size_t *seen[2] = {calloc(r->n_slots + 1, sizeof(size_t)),
                       calloc(r->n_slots + 1, sizeof(size_t))};
    sc_rp_wait_cursor *cursors = malloc((r->n_slots + 1) * sizeof *cursors);
    size_t *near[2] = {calloc(r->n_slots + 1, sizeof(size_t)),
                       calloc(r->n_slots + 1, sizeof(size_t))};   /* events, barrier */
    int rc = seen[0] && seen[1] && cursors && near[0] && near[1] && sc_rp_full_grids(r) == 0
                 ? 0
                 : -1;
    for (size_t s = 0; cursors && s <= r->n_slots; s++)
        cursors[s] = (sc_rp_wait_cursor){.op = SC_RP_NONE};
    /* which streams waited for an event: the edges are sorted by context and stream waiting
     * (deps.h), so a stream's first edge tells; the work of the others skips the search of
     * its run (15M instructions at 1M records). And which take part in the legacy barrier:
     * the work of the others has none of its edges. */
    uint8_t *waited = calloc(r->n_slots + 1, 1);
    if (!waited)
        rc = -1;
    const sc_deps *d = &r->ctx->deps;
    for (size_t s = 0; waited && s < r->n_slots; s++) {
        const sc_stream_summary *x = &r->ctx->analysis->streams[s];
        size_t k = sc_deps_first_edge(d, x->context_id, x->stream_id, 0);
        if (k < d->n_edges && d->edges[k].context_id == x->context_id &&
            d->edges[k].to_stream == x->stream_id)
            waited[s] |= SC_RP_SLOT_WAITED;
        if (sc_stream_is_legacy(x) || sc_stream_syncs_with_legacy(x))
            waited[s] |= SC_RP_SLOT_BARRIER;
    }
    size_t *first = NULL, *count = NULL;
    uint32_t *key = NULL;
    const int32_t *order = NULL;
    int32_t *all = NULL;
    if (rc == 0 && r->n_devs == 1) {
        order = r->dev_order;   /* one device: its issue order is all work's */
    } else if (rc == 0 && (key = calloc(r->n_ops ? r->n_ops : 1, sizeof *key)) != NULL) {
        /* all work, in issue order */
        rc = sc_rp_group(r, 1, key, &first, &count, &all);
        order = all;
    } else {
        rc = -1;
    }
    for (size_t k = 0; rc == 0 && k < r->n_ops; k++) {
        int32_t i = order[k];
        size_t first = r->n_edges;
        rc = sc_rp_event_edges(r, i, cursors, near[0], waited, &cap);
        if (rc == 0 && (waited[r->op_slot[i]] & SC_RP_SLOT_BARRIER))
            rc = sc_rp_barrier_edges(r, i, seen, near[1], &cap);
        if (rc == 0)
            rc = sc_rp_room_edges(r, i, r->full, r->n_full, &cap);
        if (rc == 0 && r->n_edges > first) {
            r->edges[r->n_edges - 1].last = true;
            sc_rp_link *l = sc_rp_link_of(r, i);
            if (l)
                l->edge_first = (uint32_t)first;
            else
                rc = -1;
        }
    }
    if (rc == 0)
        rc = sc_rp_engine_order(r);
    if (rc == 0)
        rc = sc_rp_queue_order(r, order);
    free(waited);
    free(seen[0]);
    free(seen[1]);
    free(near[0]);
    free(near[1]);
    free(cursors);
    free(all);
    free(first);
    free(count);
    return rc;
}

/* ---- assembly ----------------------------------------------------------------------- */

/* The items whose replayed end is read after their own step (sc_rp_item.end_read): what a
 * join waits for, launches that loaded their module (their kernel follows the load's end),
 * and the marks that end NVTX ranges (the ranges' walls, after the pass). */
static int sc_rp_item_ends(sc_replay *r)
{
    for (size_t k = 0; k < r->n_joins; k++)
        r->items[r->joins[k].other].end_read = true;
    for (size_t g = 0; g < r->ctx->trace->n_ranges; g++)
        if (r->range_marks[2 * g + 1] != SC_RP_NONE)
            r->items[r->range_marks[2 * g + 1]].end_read = true;
    size_t cap = 0;
    for (size_t i = 0; i < r->n_items; i++) {   /* in index order: the list is sorted */
        sc_rp_item *it = &r->items[i];
        if (!it->end_read && !it->loads)
            continue;
        it->end_read = true;
        if (!SC_GROW(r->item_ends, cap, r->n_item_ends + 1, 16))
            return -1;
        r->item_ends[r->n_item_ends++] = (sc_rp_sparse){.index = (int32_t)i,
                                                        .other = SC_RP_NONE};
    }
    return 0;
}

static int sc_rp_scratch(sc_replay *r)
{
    size_t ni = r->n_items ? r->n_items : 1;
    r->thread_shift = malloc((r->n_threads + 1) * sizeof(uint64_t));
    r->moved_load = malloc((r->n_threads + 1) * sizeof(uint64_t));
    r->fix_barrier = calloc(r->n_slots + 1, 1);
    r->item_fix = calloc(ni, 1);
    r->fix_unevent = calloc(r->ctx->trace->n_calls + 1, 1);
    return r->op_end && r->item_start && sc_rp_item_ends(r) == 0 && r->thread_shift &&
                   r->moved_load && r->fix_barrier && r->item_fix && r->op_fix && r->fix_unevent
               ? 0
               : -1;
}

/* Keeps the items of the calls in fix_calls alone (sc_replay_build), sorted by call, where
 * call_item held every call's: 4 bytes a call through every pass, for the few calls fixes
 * name. */
static int sc_rp_keep_fix_calls(sc_replay *r, uint64_t *fix_calls, size_t n)
{
    sc_sort_u64(fix_calls, n);
    r->fix_items = malloc((n ? n : 1) * sizeof *r->fix_items);
    if (!r->fix_items)
        return -1;
    const sc_trace *t = r->ctx->trace;
    for (size_t k = 0; k < n; k++) {
        uint64_t c = fix_calls[k];
        if (c >= t->n_calls || r->call_item[c] == SC_RP_NONE || (k > 0 && fix_calls[k - 1] == c))
            continue;
        r->fix_items[r->n_fix_items++] = (sc_rp_sparse){.index = (int32_t)c,
                                                        .other = r->call_item[c]};
    }
    free(r->call_item);
    r->call_item = NULL;
    return 0;
}

int sc_replay_build(sc_ctx *ctx, uint64_t *fix_calls, size_t n_fix_calls, sc_replay **out)
{
    return sc_replay_build_as(ctx, fix_calls, n_fix_calls, true, out);
}

int sc_replay_build_as(sc_ctx *ctx, uint64_t *fix_calls, size_t n_fix_calls, bool runs,
                       sc_replay **out)
{
    sc_replay *r = calloc(1, sizeof *r);
    *out = r;
    if (!r)
        return -1;
    r->ctx = ctx;
    r->whole_items = !runs;
    r->run_start_ns = ctx->analysis->run_start_ns;
    r->n_slots = ctx->analysis->n_streams;
    r->n_devs = ctx->analysis->n_devices ? ctx->analysis->n_devices : 1;
    if (r->n_devs > SC_RP_MAX_DEVS)     /* sc_rp_op.dev's bits */
        return -1;
    /* what the host waits need of the blocking index first: nothing after reads it, and it
     * holds every piece of work again (blocking.h) */
    if (sc_rp_drained_work(r) != 0)
        return -1;
    sc_ctx_free_blocking_index(ctx);
    /* the calls' items are read by the work as it is made, then kept for the calls the fixes
     * name alone: 4 bytes a call gone before the issue orders and the host waits, which are
     * the build's peaks of memory */
    if (sc_rp_host_items(r) != 0 || sc_rp_event_records(r) != 0)
        return -1;
    /* the context's event records: read by the host waits alone, which have theirs now */
    sc_deps_free_records(&ctx->deps);
    /* the last lookups by id were the host items': each piece of work's call instead of the
     * table of ids from the work on, 4 bytes a piece instead of 4 an id (internal.h) */
    sc_ctx_work_calls_instead(ctx);
    sc_stage_mark("replay: host items");
    if (sc_rp_ops_fill(r) != 0)
        return -1;
    sc_ctx_free_work_calls_unread(ctx);
    sc_stage_mark("replay: work");
    /* the runs of calls before the orders and the edges, the build's peak of memory: the
     * items they replace are 16 bytes and a call each */
    if (sc_rp_keep_fix_calls(r, fix_calls, n_fix_calls) != 0 || sc_rp_fold_runs(r) != 0)
        return -1;
    sc_stage_mark("replay: runs of calls");
    if (sc_rp_orders(r) != 0)
        return -1;
    sc_stage_mark("replay: issue orders");
    if (sc_rp_edges(r) != 0)
        return -1;
    sc_stage_mark("replay: edges");
    sc_ctx_free_edge_inputs(ctx);
    if (sc_rp_host_waits(r) != 0)
        return -1;
    sc_stage_mark("replay: host waits");
    sc_rp_mark_host_funcs(r);
    sc_ctx_free_graph_inputs(ctx);
    /* the per-slot issue orders were for the edges, the waits and the host functions; no
     * pass reads them. Freed before the lags take their memory (and the passes' op_end,
     * op_fix and item_start, which they use as scratch first: replay_lags.c). */
    free(r->slot_first);
    free(r->slot_count);
    free(r->slot_ops);
    r->slot_first = r->slot_count = NULL;
    r->slot_ops = NULL;
    if (sc_rp_lags(r) != 0)
        return -1;
    sc_stage_mark("replay: lags");
    /* the lags were the last to read each op's stream and its issue: 4 and 4 bytes and an
     * eighth an op gone before the nodes are ordered (4 bytes a node, and a sort's keys and
     * scratch when the nodes are not for a merge: replay_nodes.c). The node order reads
     * neither op_slot nor op_issue, and the lags do not read the node order: ordered after
     * the lags, the nodes take the room these held. */
    free(r->op_slot);
    r->op_slot = NULL;
    sc_packed_times_free(&r->op_issue);
    if (sc_rp_nodes(r) != 0 || sc_rp_scratch(r) != 0)
        return -1;
    sc_stage_mark("replay: node order");
    sc_rp_describe_fidelity(r);
    sc_stage_mark("replay: fidelity walks");
    return 0;
}

void sc_replay_free(sc_replay *r)
{
    if (!r)
        return;
    free(r->ops);
    free(r->thread_first);
    free(r->item_call);
    free(r->waits);
    free(r->links);
    free(r->op_slot);
    free(r->full_slots);
    free(r->dev_pos);
    free(r->items);
    free(r->in_run);
    free(r->edges);
    free(r->cond_ops);
    free(r->nodes);
    free(r->call_item);
    free(r->fix_items);
    free(r->range_marks);
    free(r->joins);
    free(r->load_ends);
    free(r->lates);
    free(r->pinned_copies);
    free(r->drained);
    free(r->event_records);
    free(r->wide_durs.v);
    free(r->wide_tools.v);
    free(r->wide_tracers.v);
    free(r->wide_posts.v);
    free(r->slot_first);
    free(r->slot_count);
    free(r->slot_ops);
    free(r->dev_waits);
    free(r->dev_limits);
    free(r->dev_first);
    free(r->dev_count);
    sc_packed_times_free(&r->op_issue);
    free(r->dev_order);
    free(r->dev_tree);
    free(r->pinned);
    free(r->load_times);
    free(r->op_end);
    free(r->item_start);
    free(r->item_ends);
    free(r->thread_shift);
    free(r->moved_load);
    free(r->fix_barrier);
    free(r->item_fix);
    free(r->op_fix);
    free(r->fix_unevent);
    free(r->full_ready);
    free(r->durations);
    free(r->full);
    free(r->full_waves);
    free(r);
}

void sc_replay_describe(const sc_replay *r, sc_replay_summary *out)
{
    *out = r->summary;
}
