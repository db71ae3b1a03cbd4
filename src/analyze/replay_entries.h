/* The replay's host entries (replay_host.c lays them out as items): the calls that are an
 * item's own (not a runtime call's inner driver call, not a polling loop's later query: each
 * loop is one entry, from its first query to its last's end) and each NVTX range's start and
 * end mark. An entry is named by a position: a call's is its trace->calls index, a mark's
 * n_calls + 2 * range (+ 1 for the end mark). Nothing is kept per entry: each is made from its
 * position when it is read (sc_rp_entry_at). */
#ifndef SC_ANALYZE_REPLAY_ENTRIES_H
#define SC_ANALYZE_REPLAY_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/polls.h"
#include "analyze/replay_graph.h"

/* What a call is while the items are made, in sc_replay.call_item before it holds the
 * calls' items: SC_RP_NONE for an entry of its own; SC_RP_CALL_INNER for a call that is no
 * entry (an inner driver call); SC_RP_CALL_LOOP(k) for a query of polling loop k (the
 * loop's entry when it is the loop's first). */
#define SC_RP_CALL_INNER INT32_MIN
#define SC_RP_CALL_LOOP(k) (-2 - (int32_t)(k))
#define SC_RP_CALL_LOOP_OF(v) ((size_t)(-2 - (int64_t)(v)))

typedef struct sc_rp_entry_src {
    const sc_trace *t;
    const int32_t *call_item;       /* as above */
    const sc_poll_loop *loops;
} sc_rp_entry_src;

typedef struct sc_rp_entry {
    uint64_t start, end;
    uint32_t tid;
    int32_t call;               /* trace->calls index, or SC_RP_NONE for a mark */
    int32_t range;              /* trace->ranges index for a mark */
} sc_rp_entry;

/* Call c is an entry. */
static inline bool sc_rp_call_is_entry(const sc_rp_entry_src *s, size_t c)
{
    int32_t v = s->call_item[c];
    return v == SC_RP_NONE ||
           (v != SC_RP_CALL_INNER && v < SC_RP_NONE && s->loops[SC_RP_CALL_LOOP_OF(v)].first == c);
}

/* The entry at position p. Inline: it is made for every entry, for its time and then for
 * its item. */
static inline __attribute__((always_inline)) sc_rp_entry
sc_rp_entry_at(const sc_rp_entry_src *s, size_t p)
{
    const sc_trace *t = s->t;
    if (p < t->n_calls) {
        const sc_api_call *c = &t->calls[p];
        int32_t v = s->call_item[p];
        uint64_t end = v < SC_RP_NONE && v != SC_RP_CALL_INNER
                           ? sc_call_end(t, &t->calls[s->loops[SC_RP_CALL_LOOP_OF(v)].last])
                           : sc_call_end(t, c);
        return (sc_rp_entry){c->rec.start_ns, end > c->rec.start_ns ? end : c->rec.start_ns,
                             sc_call_tid(t, c), (int32_t)p, SC_RP_NONE};
    }
    size_t j = (p - t->n_calls) / 2;
    const sc_rec_range *g = &t->ranges[j].rec;
    uint64_t at = (p - t->n_calls) % 2 == 0 ? g->start_ns
                  : g->end_ns > g->start_ns ? g->end_ns : g->start_ns;
    return (sc_rp_entry){at, at, g->tid, SC_RP_NONE, (int32_t)j};
}

/* The entries' positions by thread (ascending tid), then start, then position, into a new
 * array (*n_out of them; the caller frees it), or NULL without memory. A thread's calls
 * come in start order (the loader sorts them), and so do its ranges' start marks: they are
 * merged with its marks put in order, a sort of the few marks alone; a thread whose calls
 * are out of order is sorted whole (sc_rp_entry_order_sorted's way). */
uint32_t *sc_rp_entry_order(const sc_rp_entry_src *s, size_t *n_out);
/* The same order by a sort of every entry by (thread, start, position). */
uint32_t *sc_rp_entry_order_sorted(const sc_rp_entry_src *s, size_t *n_out);

/* The entries in time order, (start, position), each with the rank of its thread among the
 * threads by ascending tid (the order in which sc_rp_entry_order lays them out): for a
 * builder that takes a thread's entries in its order but reads the calls in theirs. On many
 * threads a thread's calls lie far apart in the list, and reading them thread after thread
 * took the list from memory once a thread. */
typedef struct sc_rp_time_walk {
    const sc_rp_entry_src *s;
    uint16_t *call_rank;        /* per call that is an entry: its thread's rank */
    uint16_t *mark_rank;        /* per mark (2 * range, + 1 for an end mark): its thread's */
    uint32_t *marks;            /* the marks by (time, position) */
    size_t n_marks, n_threads;
    size_t call, mark;          /* the next of each */
    uint64_t mark_at;           /* the next mark's time */
} sc_rp_time_walk;

/* 0 and *w at the first entry; 1 when the entry calls are out of start order or their
 * threads too many for the merge (sc_rp_entry_order then sorts), -1 without memory. */
int sc_rp_time_walk_begin(const sc_rp_entry_src *s, sc_rp_time_walk *w);
/* Back to the first entry. */
void sc_rp_time_walk_rewind(sc_rp_time_walk *w);
void sc_rp_time_walk_end(sc_rp_time_walk *w);

/* The next entry's position and its thread's rank: false after the last. At a tie the call
 * first: its position is below every mark's. */
static inline __attribute__((always_inline)) bool
sc_rp_time_walk_next(sc_rp_time_walk *w, size_t *pos, uint32_t *rank)
{
    const sc_rp_entry_src *s = w->s;
    const size_t n_calls = s->t->n_calls;
    while (w->call < n_calls && !sc_rp_call_is_entry(s, w->call))
        w->call++;
    bool call = w->call < n_calls, mark = w->mark < w->n_marks;
    if (call && mark)
        call = s->t->calls[w->call].rec.start_ns <= w->mark_at;
    else if (!call && !mark)
        return false;
    if (call) {
        *pos = w->call;
        *rank = w->call_rank[w->call++];
        return true;
    }
    uint32_t m = w->marks[w->mark++];
    *pos = n_calls + m;
    *rank = w->mark_rank[m];
    if (w->mark < w->n_marks)
        w->mark_at = sc_rp_entry_at(s, n_calls + w->marks[w->mark]).start;
    return true;
}

#endif
