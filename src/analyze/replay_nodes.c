/* The pass's node order (sc_replay.nodes): every op at its recorded start and every item at
 * its recorded end (a loading launch where its load ended), by time, at a tie by position
 * (the ops' positions, then n_ops + the item's).
 *
 * That order is a merge. The ops of each kind are sorted by start (the trace's loader sorts
 * each list), and so, nearly always, are a thread's items once its range marks are taken
 * apart from its calls: a call that is not nested in the one before it ends after it, while
 * a mark sits where its range began or ended, which may lie inside the call before it. At
 * 1M records every descent among the items' times was a mark's (19,225 of them). The runs
 * are merged by their heads' keys, kept in key order: a run's next node takes its place
 * among a few. Where the run is too long for keys of time above position (10M nodes leave
 * the time 40 bits: 18 minutes; a day-long run), the heads are compared by time and then
 * position, a second comparison at a tie. A run that is not ascending after all, or more
 * runs than a merge pays for (more than 30 threads), and the nodes are sorted by their
 * times instead (order_by_time.h): the same order. At 1M records the sort took 74M
 * instructions with its keys, and 9 bytes a node (keys, pile bytes) beside the order. */
#include <stdlib.h>

#include "analyze/replay_parts.h"
#include "trace/order_by_time.h"
#include "trace/sort_u64.h"

/* Runs merged at most (the ops' three kinds and two a thread: 30 threads): beyond, the nodes
 * are sorted, with 8 bytes a node of times beside the order (a trace of 16 threads: 74 MB at
 * 10M records, and more instructions than a run's head put in place among 35). */
#define SC_RP_NODE_RUNS 64

/* Item i's node time. */
static inline uint64_t sc_rp_item_node_at(const sc_replay *r, size_t i)
{
    /* a loading launch is placed where its load ended: its kernel may start before the call
     * returns, and must see the call's replayed end */
    const sc_rp_item *it = &r->items[i];
    uint64_t load_end = it->loads ? sc_rp_load_end(r, (int32_t)i) : 0;
    uint64_t rec_end = sc_rp_item_end(r, (int32_t)i);
    return load_end && load_end < rec_end ? load_end : rec_end;
}

int sc_rp_nodes_sorted(sc_replay *r)
{
    r->n_nodes = r->n_ops + r->n_items;
    uint64_t *at = malloc((r->n_nodes ? r->n_nodes : 1) * sizeof *at);
    if (!at)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < r->n_ops; i++)
        at[k++] = sc_rp_rec_start(r, (int32_t)i);
    for (size_t i = 0; i < r->n_items; i++)
        at[k++] = sc_rp_item_node_at(r, i);
    /* at a tie, work first (its positions come first): an item may wait for it */
    r->nodes = sc_order_by_time(at, r->n_nodes);
    return r->nodes ? 0 : -1;
}

/* A run of nodes, by one key a node: its time less the earliest, above its position
 * (order_by_time.h's keys: one comparison a pair), or where the run is too long for such
 * keys (a day-long run), its time as the key and its position apart. kind: the ops [next,
 * end); the items [next, end) (a thread's) that are no marks; or the marks' items
 * marks[next .. end). `key` and `pos` are its head's. */
enum { SC_RP_RUN_OPS, SC_RP_RUN_CALLS, SC_RP_RUN_MARKS };
typedef struct sc_rp_node_run {
    uint64_t key;
    uint32_t next, end;
    uint32_t kind, pos;
} sc_rp_node_run;

typedef struct sc_rp_node_merge {
    const sc_replay *r;
    uint64_t *marks;            /* the marks' items, ascending */
    size_t n_marks;
    uint64_t lo, max_off;       /* the earliest time; how far past it a key holds */
    unsigned position_bits;
    sc_rp_node_run runs[SC_RP_NODE_RUNS];
    size_t n_runs;
} sc_rp_node_merge;

/* How a merge ended: every node placed, a run that goes back in time (the nodes are sorted
 * instead), or a time too far from the earliest for the keys (merged again by time and
 * position apart). */
enum { SC_RP_MERGED, SC_RP_NOT_ASCENDING, SC_RP_TOO_FAR };

/* Whether a node comes before another: by its key, and where the key is the time alone
 * (apart), at a tie by the position. */
static inline __attribute__((always_inline)) bool sc_rp_node_before(uint64_t key, uint64_t pos,
                                                                    uint64_t bkey, uint64_t bpos,
                                                                    bool apart)
{
    return key < bkey || (apart && key == bkey && pos < bpos);
}

/* The time of the run's element k (an op, a thread's item, or an index into the marks, as
 * the run's kind says), and its node position in *pos. */
static inline uint64_t sc_rp_run_at(const sc_rp_node_merge *m, const sc_rp_node_run *run,
                                    size_t k, uint64_t *pos)
{
    const sc_replay *r = m->r;
    if (run->kind == SC_RP_RUN_OPS) {
        *pos = k;
        return sc_rp_rec_start(r, (int32_t)k);
    }
    size_t i = run->kind == SC_RP_RUN_CALLS ? k : (size_t)m->marks[k];
    *pos = r->n_ops + i;
    return sc_rp_item_node_at(r, i);
}

/* The run's head (next) made its key (or its time and position); SC_RP_NOT_ASCENDING when
 * it goes back below the head before (the run's previous key or time and position: for a
 * run's first, none), SC_RP_TOO_FAR when it lies too far from the earliest for the keys. */
static inline int sc_rp_run_key(const sc_rp_node_merge *m, sc_rp_node_run *run, bool first,
                                bool apart)
{
    uint64_t pos, at = sc_rp_run_at(m, run, run->next, &pos);
    if (!apart && (at < m->lo || at - m->lo > m->max_off))
        return SC_RP_TOO_FAR;
    uint64_t key = apart ? at : (at - m->lo) << m->position_bits | pos;
    bool back = !first && sc_rp_node_before(key, pos, run->key, run->pos, apart);
    run->key = key;
    run->pos = (uint32_t)pos;
    return back ? SC_RP_NOT_ASCENDING : SC_RP_MERGED;
}

static bool sc_rp_add_run(sc_rp_node_merge *m, uint32_t kind, size_t next, size_t end)
{
    if (next >= end)
        return true;
    if (m->n_runs == SC_RP_NODE_RUNS)
        return false;
    m->runs[m->n_runs++] = (sc_rp_node_run){.next = (uint32_t)next, .end = (uint32_t)end,
                                            .kind = kind};
    return true;
}

/* The runs: the ops of each kind, and each thread's calls and marks. False when there are too
 * many. */
static bool sc_rp_node_runs(sc_rp_node_merge *m)
{
    const sc_replay *r = m->r;
    const sc_trace *t = r->ctx->trace;
    size_t nk = t->n_kernels, nc = t->n_copies;
    if (r->n_threads * 2 + 3 > SC_RP_NODE_RUNS || nk + nc > r->n_ops ||
        !sc_rp_add_run(m, SC_RP_RUN_OPS, 0, nk) ||
        !sc_rp_add_run(m, SC_RP_RUN_OPS, nk, nk + nc) ||
        !sc_rp_add_run(m, SC_RP_RUN_OPS, nk + nc, r->n_ops))
        return false;
    size_t j = 0;
    for (size_t first = 0, end; first < r->n_items; first = end) {
        end = first + 1;    /* a thread's items are consecutive, from `first` to `last` */
        if (r->n_threads > 1)
            while (!r->items[end - 1].last)
                end++;
        else
            end = r->n_items;
        size_t c = first;   /* its first item that is not a mark */
        while (c < end && r->items[c].mark)
            c++;
        size_t marks_from = j;
        while (j < m->n_marks && m->marks[j] < end)
            j++;
        if (!sc_rp_add_run(m, SC_RP_RUN_CALLS, c, end) ||
            !sc_rp_add_run(m, SC_RP_RUN_MARKS, marks_from, j))
            return false;
    }
    return true;
}

/* The marks' items, ascending, from the ranges' marks (every mark item is one of them). */
static int sc_rp_node_marks(sc_rp_node_merge *m)
{
    const sc_replay *r = m->r;
    size_t n_ranges = r->ctx->trace->n_ranges;
    m->marks = malloc((2 * n_ranges + 1) * sizeof *m->marks);
    if (!m->marks)
        return -1;
    for (size_t g = 0; g < 2 * n_ranges; g++)
        if (r->range_marks[g] != SC_RP_NONE)
            m->marks[m->n_marks++] = (uint64_t)r->range_marks[g];
    sc_sort_u64(m->marks, m->n_marks);
    return 0;
}

/* A run's place among the heads: its head's key and position beside it, for the
 * comparisons. */
typedef struct sc_rp_node_head {
    uint64_t key;
    uint32_t pos, run;
} sc_rp_node_head;

/* The merge into nodes: SC_RP_MERGED, or how it stopped (nodes then holds nothing of use).
 * apart: the heads compared by time and position rather than by keys (a constant in each of
 * the two copies). nodes is restrict: its stores alias none of the runs' fields. */
static inline __attribute__((always_inline)) int
sc_rp_merge_runs_with(sc_rp_node_merge *m, uint32_t *restrict nodes, bool apart)
{
    sc_rp_node_run *runs = m->runs;
    sc_rp_node_head heads[SC_RP_NODE_RUNS];     /* in order: the front one's node is next */
    size_t live = 0;
    for (size_t k = 0; k < m->n_runs; k++) {
        int rc = sc_rp_run_key(m, &runs[k], true, apart);
        if (rc != SC_RP_MERGED)
            return rc;
        sc_rp_node_head h = {runs[k].key, runs[k].pos, (uint32_t)k};
        size_t at = live++;
        for (; at > 0 &&
               sc_rp_node_before(h.key, h.pos, heads[at - 1].key, heads[at - 1].pos, apart);
             at--)
            heads[at] = heads[at - 1];
        heads[at] = h;
    }
    const uint64_t mask = ((uint64_t)1 << m->position_bits) - 1;
    const uint64_t lo = m->lo, max_off = m->max_off;
    const unsigned bits = m->position_bits;
    const sc_replay *r = m->r;
    const sc_rp_item *items = r->items;
    const size_t n_ops = r->n_ops;
    for (size_t k = 0; live > 0; k++) {
        sc_rp_node_head front = heads[0];
        sc_rp_node_run *run = &runs[front.run];
        nodes[k] = apart ? front.pos : (uint32_t)(front.key & mask);
        /* the run's next node, its time and position */
        size_t next = run->next + 1, end = run->end;
        uint64_t at, pos;
        if (run->kind == SC_RP_RUN_OPS) {
            at = next < end ? sc_rp_rec_start(r, (int32_t)next) : 0;
            pos = next;
        } else if (run->kind == SC_RP_RUN_CALLS) {
            while (next < end && items[next].mark)
                next++;
            at = next < end ? sc_rp_item_node_at(r, next) : 0;
            pos = n_ops + next;
        } else {
            size_t i = next < end ? (size_t)m->marks[next] : 0;
            at = next < end ? sc_rp_item_node_at(r, i) : 0;
            pos = n_ops + i;
        }
        if (next >= end) {      /* the run is done */
            live--;
            for (size_t j = 0; j < live; j++)
                heads[j] = heads[j + 1];
            continue;
        }
        run->next = (uint32_t)next;
        uint64_t key = at;
        if (!apart) {
            if (at - lo > max_off)  /* before the earliest (wrapped), or too far for a key */
                return SC_RP_TOO_FAR;
            key = (at - lo) << bits | pos;
        }
        if (sc_rp_node_before(key, pos, front.key, front.pos, apart))
            return SC_RP_NOT_ASCENDING;     /* the run goes back in time */
        front.key = key;
        if (apart)
            front.pos = (uint32_t)pos;
        size_t place = 0;
        for (; place + 1 < live &&
               sc_rp_node_before(heads[place + 1].key, heads[place + 1].pos, key, pos, apart);
             place++)
            heads[place] = heads[place + 1];
        heads[place] = front;
    }
    return SC_RP_MERGED;
}

/* By keys, or where the runs' last nodes lie too far from their first for them (or a node
 * turns out to), by time and position apart. The earliest time (m->lo, the keys' base) is a
 * run's first; the latest, when the runs ascend, a run's last (a thread's calls run holds no
 * marks: its last that is none). */
static int sc_rp_merge_runs(sc_rp_node_merge *m, uint32_t *restrict nodes)
{
    size_t next[SC_RP_NODE_RUNS];   /* the runs' heads, for a second merge */
    uint64_t hi = 0, pos;
    m->lo = UINT64_MAX;
    for (size_t k = 0; k < m->n_runs; k++) {
        const sc_rp_node_run *run = &m->runs[k];
        next[k] = run->next;
        size_t last = run->end - 1;
        while (run->kind == SC_RP_RUN_CALLS && last > run->next && m->r->items[last].mark)
            last--;
        uint64_t first_at = sc_rp_run_at(m, run, run->next, &pos);
        uint64_t last_at = sc_rp_run_at(m, run, last, &pos);
        m->lo = first_at < m->lo ? first_at : m->lo;
        hi = last_at > hi ? last_at : hi;
    }
    if (hi < m->lo || hi - m->lo <= m->max_off) {
        int rc = sc_rp_merge_runs_with(m, nodes, false);
        if (rc != SC_RP_TOO_FAR)
            return rc;
        for (size_t k = 0; k < m->n_runs; k++)
            m->runs[k].next = (uint32_t)next[k];
    }
    return sc_rp_merge_runs_with(m, nodes, true);
}

int sc_rp_nodes(sc_replay *r)
{
    r->n_nodes = r->n_ops + r->n_items;
    if (r->n_nodes == 0 || r->n_nodes > UINT32_MAX)
        return sc_rp_nodes_sorted(r);
    sc_rp_node_merge m = {.r = r};
    unsigned bits = 1;      /* enough for the last position */
    while (bits < 32 && ((uint64_t)(r->n_nodes - 1) >> bits) != 0)
        bits++;
    m.position_bits = bits;
    m.max_off = UINT64_MAX >> bits;
    if (sc_rp_node_marks(&m) != 0)
        return -1;
    uint32_t *nodes = NULL;
    int merged = 0;
    if (sc_rp_node_runs(&m)) {
        nodes = malloc(r->n_nodes * sizeof *nodes);
        if (!nodes) {
            free(m.marks);
            return -1;
        }
        merged = sc_rp_merge_runs(&m, nodes) == SC_RP_MERGED;
    }
    free(m.marks);
    if (!merged) {
        free(nodes);
        return sc_rp_nodes_sorted(r);
    }
    r->nodes = nodes;
    return 0;
}
