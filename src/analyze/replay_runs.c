/* Runs of calls: a thread's calls one after another that the replay only ever moves together
 * (no call of them waits, loads a module, joins, is named by a fix, has another thread wait
 * for its end or streamcheck's own time before it) are one host item. A pass then takes one
 * step where it took one a call: in the benchmark's training-like mix, 5.6M items of a 10M-record
 * trace are 1.0M runs, and the pass's nodes half as many.
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

/* The items no run may take in (their start or end is read apart, or a fix names them):
 * those of the calls the fixes name, the joins and what they wait for, the module loads. */
static uint8_t *sc_rp_kept_apart(const sc_replay *r)
{
    uint8_t *apart = calloc(r->n_items ? r->n_items : 1, 1);
    if (!apart)
        return NULL;
    for (size_t k = 0; k < r->n_fix_items; k++)
        apart[r->fix_items[k].other] = 1;
    for (size_t k = 0; k < r->n_joins; k++)
        apart[r->joins[k].index] = apart[r->joins[k].other] = 1;
    for (size_t k = 0; k < r->n_load_times; k++)
        apart[r->load_times[k].index] = 1;
    for (size_t k = 0; k < r->n_load_ends; k++)
        apart[r->load_ends[k].index] = 1;
    return apart;
}

/* Item i may be part of a run: neither end of its thread, a call of a quiet class, its times
 * in their fields, and nothing kept apart. */
static bool sc_rp_may_run(const sc_replay *r, const bool *quiet, const uint8_t *apart, size_t i)
{
    const sc_rp_item *it = &r->items[i];
    if (it->first || it->last || it->mark || it->joins || apart[i] || it->dur == SC_RP_WIDE ||
        it->tracer == SC_RP_WIDE16)
        return false;
    const sc_trace *t = r->ctx->trace;
    uint16_t cls = t->call_extras[t->calls[r->item_call[i]].rec.extra_at].call_class;
    return cls < SC_RP_CLASSES && quiet[cls];
}

/* The new index of every index in a list of item values. */
static void sc_rp_renumber(sc_rp_sparse *v, size_t n, const int32_t *new_of, bool other)
{
    for (size_t k = 0; k < n; k++) {
        v[k].index = new_of[v[k].index];
        if (other)
            v[k].other = new_of[v[k].other];
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

/* Where op o's place in its run is kept while the runs are made: the second half of the old
 * items' slot o (the array holds every op's slot: sc_rp_fold_runs), whose item's own fields
 * are read by then. */
static void *sc_rp_slot_half(sc_rp_item *items, size_t o)
{
    return (uint8_t *)&items[o] + sizeof(sc_rp_in_run);
}

_Static_assert(2 * sizeof(sc_rp_in_run) == sizeof(sc_rp_item),
               "an item's slot holds its place in its run and an op's");

int sc_rp_fold_runs(sc_replay *r)
{
    r->n_call_items = r->n_items;
    if (r->whole_items || r->n_items < 2 || r->n_pinned_copies || r->n_waits ||
        r->n_item_ends || r->wide_posts.n)  /* the waits and what they keep come after */
        return sc_rp_in_run_whole(r);
    bool quiet[SC_RP_CLASSES];
    sc_rp_quiet_classes(r, quiet);
    uint8_t *apart = sc_rp_kept_apart(r);
    if (!apart)
        return -1;
    /* Which item goes on the run of the one before (apart's second bit), counted first: the
     * runs are made beside the items, at the build's peak of memory, one a run (a sixth of
     * the items in the benchmark's mix). */
    size_t n = 0;
    bool prev_may = false;
    uint64_t prev_end = 0, run_start = 0, run_tracer = 0;
    for (size_t i = 0; i < r->n_items; i++) {
        const sc_rp_item *it = &r->items[i];
        uint64_t end = sc_rp_item_end(r, (int32_t)i);
        bool may = sc_rp_may_run(r, quiet, apart, i);
        bool join = may && prev_may && !it->tool && it->rec_start >= prev_end &&
                    end - run_start < SC_RP_WIDE && run_tracer + it->tracer < SC_RP_WIDE16;
        if (join) {
            run_tracer += it->tracer;
            apart[i] |= 2;
        } else {
            n++;
            run_start = it->rec_start;
            run_tracer = it->tracer;
        }
        prev_may = may;
        prev_end = end;
    }
    if (n == r->n_items) {     /* no run of two calls */
        free(apart);
        return sc_rp_in_run_whole(r);
    }
    /* the runs, as items, and their first calls; the old items' array holds a slot of every
     * op too, grown to it where the work outnumbers the items (few calls, many graph nodes) */
    sc_rp_item *runs = malloc(n * sizeof *runs);
    int32_t *run_call = malloc(n * sizeof *run_call);
    sc_rp_item *old = r->n_ops > r->n_items ? realloc(r->items, r->n_ops * sizeof *old)
                                            : r->items;
    if (!runs || !run_call || !old) {
        free(apart);
        free(runs);
        free(run_call);
        return -1;
    }
    r->items = old;
    /* Each item in order: a new run, or the next call of the one before. item_call becomes
     * the map from an item to its run; the first half of each old item's slot, its place in
     * its run (its own fields are read first; its run's are in `runs`). */
    int32_t *new_of = r->item_call;
    n = 0;
    for (size_t i = 0; i < r->n_items; i++) {
        sc_rp_item it = old[i];
        uint64_t end = sc_rp_item_end(r, (int32_t)i);
        sc_rp_in_run place = {.tracer = it.tracer};
        if (apart[i] & 2) {
            sc_rp_item *u = &runs[n - 1];
            place.after = (uint32_t)(it.rec_start - u->rec_start);
            place.before = (uint16_t)(u->tracer);
            u->dur = (uint32_t)(end - u->rec_start);
            u->tracer = (uint16_t)(u->tracer + it.tracer);
        } else {
            run_call[n] = new_of[i];
            runs[n++] = it;
        }
        new_of[i] = (int32_t)(n - 1);
        memcpy(&old[i], &place, sizeof place);    /* its first half */
    }
    free(apart);
    /* each op's place, from its old item's slot into the second half of its own */
    for (size_t o = 0; o < r->n_ops; o++) {
        sc_rp_op *op = &r->ops[o];
        if (op->item == SC_RP_NONE) {
            memset(sc_rp_slot_half(old, o), 0, sizeof(sc_rp_in_run));
            continue;
        }
        memcpy(sc_rp_slot_half(old, o), &old[op->item], sizeof(sc_rp_in_run));
        op->item = new_of[op->item];
    }
    /* the places, one after another at the array's front (each moves down), are r->in_run */
    sc_rp_in_run *places = (sc_rp_in_run *)old;
    for (size_t o = 0; o < r->n_ops; o++)
        memmove(&places[o], sc_rp_slot_half(old, o), sizeof *places);
    sc_rp_in_run *kept = realloc(places, (r->n_ops ? r->n_ops : 1) * sizeof *kept);
    r->in_run = kept ? kept : places;
    r->items = runs;
    /* every other list that names items, while the map is there */
    for (size_t k = 0; k < r->n_threads; k++)
        r->thread_first[k] = (uint32_t)new_of[r->thread_first[k]];
    for (size_t g = 0; g < 2 * r->ctx->trace->n_ranges; g++)
        if (r->range_marks[g] != SC_RP_NONE)
            r->range_marks[g] = new_of[r->range_marks[g]];
    sc_rp_renumber(r->joins, r->n_joins, new_of, true);
    sc_rp_renumber(r->load_ends, r->n_load_ends, new_of, false);
    sc_rp_renumber(r->load_times, r->n_load_times, new_of, false);
    for (size_t k = 0; k < r->n_fix_items; k++)
        r->fix_items[k].other = new_of[r->fix_items[k].other];
    sc_rp_renumber(r->wide_durs.v, r->wide_durs.n, new_of, false);
    sc_rp_renumber(r->wide_tools.v, r->wide_tools.n, new_of, false);
    sc_rp_renumber(r->wide_tracers.v, r->wide_tracers.n, new_of, false);
    memcpy(r->item_call, run_call, n * sizeof *run_call);
    free(run_call);
    r->n_items = n;
    int32_t *calls = realloc(r->item_call, n * sizeof *calls);
    if (calls)
        r->item_call = calls;
    return 0;
}
