/* The order of the replay's host entries (replay_entries.h): by thread, start, position.
 *
 * It was a sort of every entry, made as a 40-byte record (223 MB for a 10M-record trace),
 * by a 64-bit key of thread and position, then by start within each thread (42M
 * instructions at 1M records, with 12 bytes an entry of keys and order beside the records).
 * The calls already lie in start order, and a thread's calls are that order's subsequence:
 * dealt to their threads (a count, then a place each), each thread's calls are in order, and
 * only its range marks are not (an end mark sits where its range ended). The marks alone are
 * sorted (two a range: few), then merged with the calls into the thread's part of the order
 * from its back, where its calls were put: the merge never writes over a call it has yet to
 * read. A trace whose calls are not in start order (none the loader makes) is sorted as
 * before. */
#include "analyze/replay_entries.h"

#include <stdlib.h>
#include <string.h>

#include "trace/order_by_time.h"
#include "trace/sort_u64.h"

/* ---- the sort ------------------------------------------------------------------------- */

typedef struct sc_rp_entry_list {
    const sc_rp_entry_src *s;
    const uint32_t *positions;      /* entry k's position */
} sc_rp_entry_list;

static uint64_t sc_rp_listed_start(const void *ctx, size_t k)
{
    const sc_rp_entry_list *l = ctx;
    return sc_rp_entry_at(l->s, l->positions[k]).start;
}

/* The entries' positions in position order: the calls that are entries, then the marks. */
static uint32_t *sc_rp_entry_positions(const sc_rp_entry_src *s, size_t *n_out)
{
    const sc_trace *t = s->t;
    if (t->n_calls + 2 * t->n_ranges > UINT32_MAX)
        return NULL;
    uint32_t *p = malloc((t->n_calls + 2 * t->n_ranges + 1) * sizeof *p);
    if (!p)
        return NULL;
    size_t n = 0;
    for (size_t c = 0; c < t->n_calls; c++)
        if (sc_rp_call_is_entry(s, c))
            p[n++] = (uint32_t)c;
    for (size_t m = 0; m < 2 * t->n_ranges; m++)
        p[n++] = (uint32_t)(t->n_calls + m);
    *n_out = n;
    return p;
}

uint32_t *sc_rp_entry_order_sorted(const sc_rp_entry_src *s, size_t *n_out)
{
    size_t n = 0;
    uint32_t *positions = sc_rp_entry_positions(s, &n);
    uint64_t *v = positions ? malloc((n ? n : 1) * sizeof *v) : NULL;
    uint32_t *order = v ? malloc((n ? n : 1) * sizeof *order) : NULL;
    for (size_t k = 0; order && k < n; k++)
        v[k] = (uint64_t)sc_rp_entry_at(s, positions[k]).tid << 32 | k;
    sc_rp_entry_list l = {s, positions};
    int rc = order ? sc_order_by_group_time(v, n, &l, sc_rp_listed_start, order) : -1;
    free(v);
    for (size_t k = 0; rc == 0 && k < n; k++)
        order[k] = positions[order[k]];
    free(positions);
    if (rc != 0) {
        free(order);
        return NULL;
    }
    *n_out = n;
    return order;
}

/* ---- the merge -------------------------------------------------------------------------- */

/* Threads by tid, in the order they are first seen: an open-addressed table of tids, and
 * each group's tid and count of calls. */
typedef struct sc_rp_tids {
    uint32_t *tid, *group;          /* slot -> tid, its group + 1 (0: empty) */
    size_t cap, n;
    uint32_t *tids, *calls;         /* group -> its tid, how many entries are its calls */
    uint32_t last_tid, last_group;  /* the last lookup: a thread's calls come in runs */
} sc_rp_tids;

#define SC_RP_TIDS_MAX 4096u        /* more threads than this: the sort */

static size_t sc_rp_tid_slot(const sc_rp_tids *h, uint32_t tid)
{
    size_t i = (size_t)(tid * 2654435761u) & (h->cap - 1);
    while (h->group[i] && h->tid[i] != tid)
        i = (i + 1) & (h->cap - 1);
    return i;
}

static int sc_rp_tids_grow(sc_rp_tids *h)
{
    size_t cap = h->cap ? 2 * h->cap : 16;
    uint32_t *tid = calloc(cap, sizeof *tid), *group = calloc(cap, sizeof *group);
    uint32_t *tids = realloc(h->tids, cap / 2 * sizeof *tids);
    if (tids)
        h->tids = tids;
    uint32_t *calls = tids ? realloc(h->calls, cap / 2 * sizeof *calls) : NULL;
    if (calls)
        h->calls = calls;
    if (!tid || !group || !tids || !calls) {
        free(tid);
        free(group);
        return -1;
    }
    sc_rp_tids old = *h;
    h->tid = tid;
    h->group = group;
    h->cap = cap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.group[i]) {
            size_t j = sc_rp_tid_slot(h, old.tid[i]);
            h->tid[j] = old.tid[i];
            h->group[j] = old.group[i];
        }
    free(old.tid);
    free(old.group);
    return 0;
}

/* The group of tid (a new one when it is new, its count of calls 0): 0 and *group; 1 with
 * more than SC_RP_TIDS_MAX threads, -1 without memory. */
static inline int sc_rp_tid_group(sc_rp_tids *h, uint32_t tid, uint32_t *group)
{
    if (h->n > 0 && tid == h->last_tid) {
        *group = h->last_group;
        return 0;
    }
    if (2 * (h->n + 1) > h->cap) {
        if (h->n >= SC_RP_TIDS_MAX)
            return 1;
        if (sc_rp_tids_grow(h) != 0)
            return -1;
    }
    size_t i = sc_rp_tid_slot(h, tid);
    if (!h->group[i]) {
        h->tid[i] = tid;
        h->group[i] = (uint32_t)++h->n;
        h->tids[h->n - 1] = tid;
        h->calls[h->n - 1] = 0;
    }
    h->last_tid = tid;
    h->last_group = *group = h->group[i] - 1;
    return 0;
}

static void sc_rp_tids_free(sc_rp_tids *h)
{
    free(h->tid);
    free(h->group);
    free(h->tids);
    free(h->calls);
}

/* Each group's rank among the threads by ascending tid into rank[group]: the tids sorted,
 * each above its group (v: scratch of h->n values). */
static void sc_rp_tids_rank(const sc_rp_tids *h, uint64_t *v, uint32_t *rank)
{
    for (size_t g = 0; g < h->n; g++)
        v[g] = (uint64_t)h->tids[g] << 32 | g;
    sc_sort_u64(v, h->n);
    for (size_t k = 0; k < h->n; k++)
        rank[(uint32_t)v[k]] = (uint32_t)k;
}

/* Mark m's time (m: its place among the marks, 2 * range + 1 for an end mark), for the
 * marks' sort. */
static uint64_t sc_rp_mark_start(const void *ctx, size_t m)
{
    const sc_rp_entry_src *s = ctx;
    return sc_rp_entry_at(s, s->t->n_calls + m).start;
}

/* Merges a thread's calls, sorted, at order[from .. from + n_calls) with its marks (by time,
 * then position: marks[0 .. n_marks), indices into the marks) into order[lo ...]: the calls
 * lie past every place the merge writes before it reads them (from = lo + n_marks). */
static void sc_rp_merge_thread(const sc_rp_entry_src *s, uint32_t *order, size_t lo,
                               size_t from, size_t n_calls, const uint32_t *marks,
                               size_t n_marks)
{
    size_t nc = s->t->n_calls, end = from + n_calls, out = lo;
    size_t m = 0;
    uint64_t mark_at = n_marks ? sc_rp_entry_at(s, nc + marks[0]).start : 0;
    while (from < end && m < n_marks) {
        uint32_t c = order[from];
        /* at a tie the call first: its position is below every mark's */
        if (s->t->calls[c].rec.start_ns <= mark_at) {
            order[out++] = c;
            from++;
        } else {
            order[out++] = (uint32_t)(nc + marks[m++]);
            if (m < n_marks)
                mark_at = sc_rp_entry_at(s, nc + marks[m]).start;
        }
    }
    while (from < end)
        order[out++] = order[from++];
    while (m < n_marks)
        order[out++] = (uint32_t)(nc + marks[m++]);
}

/* The merge: 0 and *order_out (n_out entries), 1 when the calls are out of start order or
 * the threads too many (the sort then), -1 without memory. */
static int sc_rp_entry_merge(const sc_rp_entry_src *s, uint32_t **order_out, size_t *n_out)
{
    const sc_trace *t = s->t;
    sc_rp_tids h = {0};
    size_t n_marks = 2 * t->n_ranges;
    uint32_t *order = NULL;
    uint32_t *place = NULL;     /* per place: where its calls go, then where its part ends */
    uint32_t *mcount = NULL;    /* per place: its marks */
    uint32_t *rank = NULL;      /* group -> place */
    uint64_t *v = NULL;
    uint32_t *marks = NULL;
    int rc = 0;
    /* the calls' groups and counts, and whether they come in start order; while they are
     * of one thread, each call already in its place (past the marks) */
    order = malloc((t->n_calls + n_marks + 1) * sizeof *order);
    if (!order)
        return -1;
    uint64_t prev = 0;
    size_t n = n_marks;
    for (size_t c = 0; rc == 0 && c < t->n_calls; c++) {
        if (!sc_rp_call_is_entry(s, c))
            continue;
        uint32_t g = 0;
        const sc_api_call *call = &t->calls[c];
        if (call->rec.start_ns < prev) {
            rc = 1;
            break;
        }
        prev = call->rec.start_ns;
        rc = sc_rp_tid_group(&h, sc_call_tid(t, call), &g);
        if (rc == 0)
            h.calls[g]++, order[n++] = (uint32_t)c;
    }
    bool placed = h.n <= 1;
    for (size_t j = 0; rc == 0 && j < t->n_ranges; j++) {
        uint32_t g = 0;
        rc = sc_rp_tid_group(&h, t->ranges[j].rec.tid, &g);
    }
    size_t ng = h.n;
    placed = placed && ng <= 1;     /* the ranges' threads too */
    if (rc == 0) {
        place = calloc(ng + 1, sizeof *place);
        mcount = calloc(ng + 1, sizeof *mcount);
        rank = malloc((ng + 1) * sizeof *rank);
        v = malloc((n_marks > ng ? n_marks : ng + 1) * sizeof *v);
        marks = malloc((n_marks + 1) * sizeof *marks);
        rc = place && mcount && rank && v && marks ? 0 : -1;
    }
    if (rc == 0) {
        sc_rp_tids_rank(&h, v, rank);      /* each group's place */
        for (size_t g = 0; g < ng; g++)
            place[rank[g]] = h.calls[g];    /* for now, its count of calls */
        /* the marks by (place, time, position) */
        for (size_t m = 0; m < n_marks; m++) {
            uint32_t g = 0;
            sc_rp_tid_group(&h, t->ranges[m / 2].rec.tid, &g);  /* known: no failure */
            mcount[rank[g]]++;
            v[m] = (uint64_t)rank[g] << 32 | m;
        }
        rc = sc_order_by_group_time(v, n_marks, s, sc_rp_mark_start, marks);
    }
    if (rc == 0) {
        /* each place's calls at the back of its part, in index order */
        size_t lo = 0;
        for (size_t k = 0; k < ng; k++) {
            size_t calls = place[k];
            place[k] = (uint32_t)(lo + mcount[k]);
            lo += calls + mcount[k];
        }
        if (placed && ng == 1)
            place[0] = (uint32_t)n;
        uint32_t *cursor = NULL, tid = 0;   /* the last call's thread's place */
        for (size_t c = 0; !placed && c < t->n_calls; c++) {
            if (!sc_rp_call_is_entry(s, c))
                continue;
            if (!cursor || sc_call_tid(t, &t->calls[c]) != tid) {
                uint32_t g = 0;
                tid = sc_call_tid(t, &t->calls[c]);
                sc_rp_tid_group(&h, tid, &g);
                cursor = &place[rank[g]];
            }
            order[(*cursor)++] = (uint32_t)c;
        }
        /* place[k] is now where place k's part ends */
        lo = 0;
        for (size_t k = 0, m = 0; k < ng; k++) {
            size_t end = place[k], from = lo + mcount[k];
            sc_rp_merge_thread(s, order, lo, from, end - from, marks + m, mcount[k]);
            m += mcount[k];
            lo = end;
        }
    }
    sc_rp_tids_free(&h);
    free(place);
    free(mcount);
    free(rank);
    free(v);
    free(marks);
    if (rc != 0) {
        free(order);
        return rc;
    }
    *order_out = order;
    *n_out = n;
    return 0;
}

/* ---- the entries in time order ------------------------------------------------------ */

/* A group's number, then its rank, in the walk's 16 bits: sc_rp_tid_group refuses more. */
_Static_assert(SC_RP_TIDS_MAX <= UINT16_MAX + 1u, "a thread's rank fits sc_rp_time_walk's");

int sc_rp_time_walk_begin(const sc_rp_entry_src *s, sc_rp_time_walk *w)
{
    const sc_trace *t = s->t;
    memset(w, 0, sizeof *w);
    w->s = s;
    w->n_marks = 2 * t->n_ranges;
    if (t->n_calls + w->n_marks > UINT32_MAX)
        return 1;
    sc_rp_tids h = {0};
    uint32_t *rank = NULL;      /* group -> rank */
    uint64_t *v = NULL;
    w->call_rank = malloc((t->n_calls + 1) * sizeof *w->call_rank);
    w->mark_rank = malloc((w->n_marks + 1) * sizeof *w->mark_rank);
    int rc = w->call_rank && w->mark_rank ? 0 : -1;
    /* each entry call's group, and whether they come in start order */
    uint64_t prev = 0;
    for (size_t c = 0; rc == 0 && c < t->n_calls; c++) {
        if (!sc_rp_call_is_entry(s, c))
            continue;
        const sc_api_call *call = &t->calls[c];
        if (call->rec.start_ns < prev) {
            rc = 1;
            break;
        }
        prev = call->rec.start_ns;
        uint32_t g = 0;
        rc = sc_rp_tid_group(&h, sc_call_tid(t, call), &g);
        w->call_rank[c] = (uint16_t)g;
    }
    for (size_t m = 0; rc == 0 && m < w->n_marks; m++) {
        uint32_t g = 0;
        rc = sc_rp_tid_group(&h, t->ranges[m / 2].rec.tid, &g);
        w->mark_rank[m] = (uint16_t)g;
    }
    size_t ng = h.n;
    if (rc == 0) {
        rank = malloc((ng + 1) * sizeof *rank);
        v = malloc((ng + 1) * sizeof *v);
        rc = rank && v ? 0 : -1;
    }
    if (rc == 0) {
        sc_rp_tids_rank(&h, v, rank);
        for (size_t c = 0; c < t->n_calls; c++)
            if (sc_rp_call_is_entry(s, c))
                w->call_rank[c] = (uint16_t)rank[w->call_rank[c]];
        for (size_t m = 0; m < w->n_marks; m++)
            w->mark_rank[m] = (uint16_t)rank[w->mark_rank[m]];
        w->n_threads = ng;
        /* the marks by (time, position) */
        uint64_t *at = malloc((w->n_marks + 1) * sizeof *at);
        if (at)
            at[0] = 0;      /* the one key sorted when there are no marks */
        for (size_t m = 0; at && m < w->n_marks; m++)
            at[m] = sc_rp_entry_at(s, t->n_calls + m).start;
        w->marks = at ? sc_order_by_time(at, w->n_marks ? w->n_marks : 1) : NULL;
        rc = w->marks ? 0 : -1;
    }
    sc_rp_tids_free(&h);
    free(rank);
    free(v);
    if (rc != 0) {
        sc_rp_time_walk_end(w);
        return rc;
    }
    sc_rp_time_walk_rewind(w);
    return 0;
}

void sc_rp_time_walk_rewind(sc_rp_time_walk *w)
{
    w->call = w->mark = 0;
    if (w->n_marks)
        w->mark_at = sc_rp_entry_at(w->s, w->s->t->n_calls + w->marks[0]).start;
}

void sc_rp_time_walk_end(sc_rp_time_walk *w)
{
    free(w->call_rank);
    free(w->mark_rank);
    free(w->marks);
    w->call_rank = w->mark_rank = NULL;
    w->marks = NULL;
}

uint32_t *sc_rp_entry_order(const sc_rp_entry_src *s, size_t *n_out)
{
    const sc_trace *t = s->t;
    if (t->n_calls + 2 * t->n_ranges > UINT32_MAX)
        return NULL;
    uint32_t *order = NULL;
    int rc = sc_rp_entry_merge(s, &order, n_out);
    return rc == 0 ? order : rc > 0 ? sc_rp_entry_order_sorted(s, n_out) : NULL;
}
