/* Runs of calls: a thread's calls one after another that the replay only ever moves together
 * (no call of them waits, reads its own work, loads a module, joins, is named by a fix, has
 * another thread wait for its end or streamcheck's own time before it) are one host item. A
 * pass then takes one step where it took one a call: in the report of the benchmark's
 * training-like mix at 10M records, the 5.58M items are 2.12M (the calls the findings' fixes
 * name and the async copies, which read their own work, stay alone), and a pass walks 5.96M
 * nodes instead of 9.42M.
 *
 * The replay is the same: an item of the run's calls would start at the end of the one before
 * plus the recorded gap between them, and end its own recorded time later, less what tracing
 * added to it in a plain pass. Summed over the run, the run ends when its last call would,
 * and each call starts at the run's start plus the recorded time from the run's start to it,
 * less, in a plain pass, the tracing of the calls before it in the run (sc_rp_in_run): where
 * its work is issued. Calls whose gap after the previous one is negative (clipped to none) are
 * not joined, nor a run whose sums leave their fields (32-bit durations, 16-bit tracer times).
 * The unit test test_replay_runs replays every fixture both ways, with fixes of every kind. */
#include <stdlib.h>
#include <string.h>

#include "analyze/replay_parts.h"
#include "analyze/work.h"

enum {
    SC_RP_APART = 1,            /* in no run: its start or end is read apart, or a fix names it */
    SC_RP_FIRST_ONLY = 2,       /* first of its run at most: work it issued was issued at
                                   another time than its start (by a call nested in it, or
                                   recorded as starting before the call did) */
};

/* What keeps each item out of a run, or from being one's later call (the enum above): the
 * calls the fixes name, the joins and what they wait for, the module loads; the items whose
 * work's issue is not their start (a run's later call's work is placed from it). */
static uint8_t *sc_rp_kept_apart(const sc_replay *r)
{
    uint8_t *apart = calloc(r->n_items ? r->n_items : 1, 1);
    if (!apart)
        return NULL;
    for (size_t k = 0; k < r->n_fix_items; k++)
        apart[r->fix_items[k].other] = SC_RP_APART;
    for (size_t k = 0; k < r->n_joins; k++)
        apart[r->joins[k].index] = apart[r->joins[k].other] = SC_RP_APART;
    for (size_t k = 0; k < r->n_load_times; k++)
        apart[r->load_times[k].index] = SC_RP_APART;
    for (size_t k = 0; k < r->n_load_ends; k++)
        apart[r->load_ends[k].index] = SC_RP_APART;
    for (size_t o = 0; o < r->n_ops; o++) {
        int32_t item = r->ops[o].item;
        if (item == SC_RP_NONE || sc_rp_issue(r, (int32_t)o) == r->items[item].rec_start)
            continue;
        apart[item] |= SC_RP_FIRST_ONLY;
        /* work recorded before its call started: the items of the thread that ended after
         * it started stay alone, so that its step finds them done or not as each call alone
         * would be */
        uint64_t start = sc_rp_rec_start(r, (int32_t)o);
        for (int32_t j = item; !r->items[j].first && sc_rp_item_end(r, j - 1) > start; j--)
            apart[j - 1] |= SC_RP_APART;
    }
    return apart;
}

/* Item i may be part of a run: neither end of its thread, a call of a quiet class, its times
 * in their fields, and not kept apart. */
static bool sc_rp_may_run(const sc_replay *r, const uint8_t *apart, size_t i)
{
    const sc_rp_item *it = &r->items[i];
    return !(it->first || it->last || it->mark || it->joins || (apart[i] & SC_RP_APART) ||
             it->dur == SC_RP_WIDE || it->tracer == SC_RP_WIDE16) &&
           it->quiet;
}

/* The runs' firsts among the old items, a bit each, with the count of firsts before each word
 * of 64: an old item's run (its new index) in a few instructions, without a map of 4 bytes an
 * item beside the items at the build's peak. */
typedef struct sc_rp_firsts {
    uint64_t *bits;
    uint32_t *before;
} sc_rp_firsts;

static int32_t sc_rp_run_of(const sc_rp_firsts *f, int32_t i)
{
    size_t w = (size_t)i / 64;
    uint64_t upto = f->bits[w] & (UINT64_MAX >> (63 - (unsigned)i % 64));
    return (int32_t)(f->before[w] + (uint32_t)__builtin_popcountll(upto)) - 1;
}

static bool sc_rp_is_first(const sc_rp_firsts *f, int32_t i)
{
    return (f->bits[(size_t)i / 64] >> ((unsigned)i % 64)) & 1;
}

/* The new index of every index in a list of item values. */
static void sc_rp_renumber(sc_rp_sparse *v, size_t n, const sc_rp_firsts *f, bool other)
{
    for (size_t k = 0; k < n; k++) {
        v[k].index = sc_rp_run_of(f, v[k].index);
        if (other)
            v[k].other = sc_rp_run_of(f, v[k].other);
    }
}

/* Every op's call its item's own (no runs). */
static int sc_rp_in_run_whole(sc_replay *r)
{
    r->in_run = malloc((r->n_ops ? r->n_ops : 1) * sizeof *r->in_run);
    if (!r->in_run)
        return -1;
    for (size_t i = 0; i < r->n_ops; i++) {
        int32_t item = r->ops[i].item;
        r->in_run[i] = (sc_rp_in_run){
            .tracer = item != SC_RP_NONE ? r->items[item].tracer : 0};
    }
    return 0;
}

/* Marks the runs' firsts (f) and counts them: item i goes on the run of the one before when
 * both may run, it may be a later call, no streamcheck time lies in the gap before it, the
 * gaps before and after it are not empty and the run's sums stay in their fields. */
static size_t sc_rp_mark_firsts(const sc_replay *r, const uint8_t *apart, sc_rp_firsts *f)
{
    size_t n = 0;
    bool prev_may = false;
    uint64_t prev_end = 0, run_start = 0, run_tracer = 0;
    for (size_t i = 0; i < r->n_items; i++) {
        const sc_rp_item *it = &r->items[i];
        uint64_t end = sc_rp_item_end(r, (int32_t)i);
        bool may = sc_rp_may_run(r, apart, i);
        /* the gaps on either side of a later call are not empty: no other step of its
         * thread (a mark, work recorded early) lies between its calls' ends */
        bool join = may && prev_may && !(apart[i] & SC_RP_FIRST_ONLY) && !it->tool &&
                    it->rec_start > prev_end && r->items[i + 1].rec_start > end &&
                    end - run_start < SC_RP_WIDE && run_tracer + it->tracer < SC_RP_WIDE16;
        if (i % 64 == 0)
            f->before[i / 64] = (uint32_t)n;
        if (join) {
            run_tracer += it->tracer;
        } else {
            f->bits[i / 64] |= UINT64_C(1) << (i % 64);
            n++;
            run_start = it->rec_start;
            run_tracer = it->tracer;
        }
        prev_may = may;
        prev_end = end;
    }
    return n;
}

int sc_rp_fold_runs(sc_replay *r)
{
    r->n_call_items = r->n_items;
    if (r->whole_items || r->n_items < 2 || r->n_items > INT32_MAX || r->n_pinned_copies ||
        r->n_waits || r->n_item_ends || r->wide_posts.n)   /* those come after */
        return sc_rp_in_run_whole(r);
    size_t n_words = r->n_items / 64 + 1;
    sc_rp_firsts f = {calloc(n_words, sizeof *f.bits), malloc(n_words * sizeof *f.before)};
    uint8_t *apart = sc_rp_kept_apart(r);
    size_t n = apart && f.bits && f.before ? sc_rp_mark_firsts(r, apart, &f) : 0;
    free(apart);
    int32_t *run_call = n && n < r->n_items ? malloc(n * sizeof *run_call) : NULL;
    if (!run_call) {
        free(f.bits);
        free(f.before);
        return n == r->n_items ? sc_rp_in_run_whole(r) : -1;
    }
    /* Each item in order: a run's first is moved down to the run's place (at or before its
     * own: the items there are read), a later call adds its time and tracing to it. Each old
     * item's slot in item_call then holds what tracing added to its run's calls before it
     * (high half) and to its own (low), its call kept in run_call for a first. */
    sc_rp_item *items = r->items;
    uint32_t *tracers = (uint32_t *)r->item_call;
    size_t k = 0;
    uint64_t run_tracer = 0;
    for (size_t i = 0; i < r->n_items; i++) {
        sc_rp_item it = items[i];
        uint64_t end = sc_rp_item_end(r, (int32_t)i);
        if (sc_rp_is_first(&f, (int32_t)i)) {
            run_call[k] = r->item_call[i];
            items[k++] = it;
            run_tracer = 0;
        } else {
            sc_rp_item *u = &items[k - 1];
            u->dur = (uint32_t)(end - u->rec_start);
            u->tracer = (uint16_t)(u->tracer + it.tracer);
        }
        tracers[i] = (uint32_t)run_tracer << 16 | it.tracer;
        run_tracer += it.tracer;
    }
    sc_rp_item *kept = realloc(items, n * sizeof *kept);
    r->items = kept ? kept : items;
    r->in_run = malloc((r->n_ops ? r->n_ops : 1) * sizeof *r->in_run);
    if (!r->in_run) {
        free(f.bits);
        free(f.before);
        free(run_call);
        return -1;
    }
    /* each op's place in its run: a later call's work was issued at the call's start
     * (SC_RP_FIRST_ONLY), its run's start is the run's first's */
    for (size_t o = 0; o < r->n_ops; o++) {
        sc_rp_op *op = &r->ops[o];
        if (op->item == SC_RP_NONE) {
            r->in_run[o] = (sc_rp_in_run){0};
            continue;
        }
        int32_t run = sc_rp_run_of(&f, op->item);
        uint32_t t = tracers[op->item];
        r->in_run[o] = sc_rp_is_first(&f, op->item)
                           ? (sc_rp_in_run){.tracer = (uint16_t)t}
                           : (sc_rp_in_run){
                                 .after = (uint32_t)(sc_rp_issue(r, (int32_t)o) -
                                                     r->items[run].rec_start),
                                 .before = (uint16_t)(t >> 16), .tracer = (uint16_t)t};
        op->item = run;
    }
    /* every other list that names items */
    for (size_t j = 0; j < r->n_threads; j++)
        r->thread_first[j] = (uint32_t)sc_rp_run_of(&f, (int32_t)r->thread_first[j]);
    for (size_t g = 0; g < 2 * r->ctx->trace->n_ranges; g++)
        if (r->range_marks[g] != SC_RP_NONE)
            r->range_marks[g] = sc_rp_run_of(&f, r->range_marks[g]);
    sc_rp_renumber(r->joins, r->n_joins, &f, true);
    sc_rp_renumber(r->load_ends, r->n_load_ends, &f, false);
    sc_rp_renumber(r->load_times, r->n_load_times, &f, false);
    for (size_t j = 0; j < r->n_fix_items; j++)
        r->fix_items[j].other = sc_rp_run_of(&f, r->fix_items[j].other);
    sc_rp_renumber(r->wide_durs.v, r->wide_durs.n, &f, false);
    sc_rp_renumber(r->wide_tools.v, r->wide_tools.n, &f, false);
    sc_rp_renumber(r->wide_tracers.v, r->wide_tracers.n, &f, false);
    free(f.bits);
    free(f.before);
    memcpy(r->item_call, run_call, n * sizeof *run_call);
    free(run_call);
    r->n_items = n;
    int32_t *calls = realloc(r->item_call, n * sizeof *calls);
    if (calls)
        r->item_call = calls;
    return 0;
}
