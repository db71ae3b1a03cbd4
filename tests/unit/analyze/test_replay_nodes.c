/* sc_rp_nodes, the pass's node order merged from ascending runs (the ops of each kind, each
 * thread's calls and its range marks), against sc_rp_nodes_sorted, a sort of every node's
 * time: the same order on graphs built to stress the merge: ties between runs (an op and an
 * item, a mark and a call, two marks), marks inside the call before them, loading launches
 * placed at their load's end, durations kept in the wide list, one thread or several, empty
 * kinds, a time too far past the rest for the merge's keys (a day-long run: merged again by
 * time and position apart); and on graphs the merge must give up on (work or a thread's
 * items out of time order, too many threads), where it falls back to the sort. Fails on any
 * tie broken the other way or any node left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/replay_parts.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct shape {
    size_t kernels, copies, memsets;
    size_t threads, items_per_thread;
    unsigned mark_share;    /* 1 in mark_share items is a mark (0: none) */
    bool ops_shuffled;      /* the work out of start order */
    bool items_shuffled;    /* some call ends before the one before it */
    bool far;               /* one time far past the rest (2^62 ns) */
} shape;

typedef struct world {
    sc_trace t;
    sc_ctx ctx;
    sc_replay r;
} world;

static void world_make(world *w, const shape *s, uint64_t *seed)
{
    memset(w, 0, sizeof *w);
    size_t n_ops = s->kernels + s->copies + s->memsets;
    size_t n_items = s->threads * s->items_per_thread;
    sc_rp_op *ops = calloc(n_ops + 1, sizeof *ops);
    uint64_t *starts = calloc(n_ops + 1, sizeof *starts);   /* the ops' recorded starts */
    sc_rp_item *items = calloc(n_items + 1, sizeof *items);
    int32_t *marks = malloc((2 * n_items + 1) * sizeof *marks);
    sc_rp_sparse *load_ends = calloc(n_items + 1, sizeof *load_ends);
    assert_non_null(ops);
    assert_non_null(starts);
    assert_non_null(items);
    assert_non_null(marks);
    assert_non_null(load_ends);
    /* times step by 0-3: ties everywhere */
    size_t counts[3] = {s->kernels, s->copies, s->memsets};
    for (size_t k = 0, i = 0; k < 3; k++) {
        uint64_t t = 1000 + rnd(seed) % 5;
        for (size_t j = 0; j < counts[k]; j++, i++) {
            t += rnd(seed) % 4;
            starts[i] = s->ops_shuffled && rnd(seed) % 7 == 0 ? t - rnd(seed) % 9 : t;
        }
    }
    size_t n_marks = 0, n_load_ends = 0;
    for (size_t th = 0; th < s->threads; th++) {
        uint64_t t = 1000 + rnd(seed) % 5, mark_at = 0;
        for (size_t j = 0; j < s->items_per_thread; j++) {
            size_t i = th * s->items_per_thread + j;
            sc_rp_item *it = &items[i];
            it->first = j == 0;
            it->last = j + 1 == s->items_per_thread;
            it->mark = s->mark_share && rnd(seed) % s->mark_share == 0;
            uint64_t dur;
            if (it->mark) {     /* inside the call before it, or after it; after the marks
                                   before it (items are in start order) */
                it->rec_start = t - rnd(seed) % 3;
                if (it->rec_start < mark_at)
                    it->rec_start = mark_at;
                mark_at = it->rec_start;
                dur = 0;
                marks[n_marks++] = (int32_t)i;
            } else {
                it->rec_start = t + rnd(seed) % 2;
                dur = rnd(seed) % 4;
                if (rnd(seed) % 50 == 0)
                    dur = (uint64_t)1 << 33;    /* kept in the wide list */
                if (s->items_shuffled && rnd(seed) % 9 == 0 && it->rec_start > 1010)
                    it->rec_start -= 10;
                t = it->rec_start + dur;
                if (rnd(seed) % 10 == 0 && dur > 1) {   /* a loading launch */
                    it->loads = true;
                    load_ends[n_load_ends++] = (sc_rp_sparse){
                        .index = (int32_t)i, .other = SC_RP_NONE,
                        .value = it->rec_start + rnd(seed) % (dur + 2)};
                }
            }
            assert_int_equal(sc_rp_wide_put(&w->r.wide_durs, (int32_t)i, dur, &it->dur), 0);
        }
    }
    if (s->far && n_ops > 0)
        starts[n_ops - 1] = (uint64_t)1 << 62;
    /* the marks as ranges' start and end marks, in no particular order */
    for (size_t k = n_marks; k > 1; k--) {
        size_t j = rnd(seed) % k;
        int32_t x = marks[k - 1];
        marks[k - 1] = marks[j];
        marks[j] = x;
    }
    if (n_marks % 2)
        marks[n_marks++] = SC_RP_NONE;      /* a range without its end mark */
    /* the starts in the trace's records, where the replay reads them */
    w->t.kernels = calloc(s->kernels + 1, sizeof *w->t.kernels);
    w->t.copies = calloc(s->copies + 1, sizeof *w->t.copies);
    w->t.memsets = calloc(s->memsets + 1, sizeof *w->t.memsets);
    assert_non_null(w->t.kernels);
    assert_non_null(w->t.copies);
    assert_non_null(w->t.memsets);
    for (size_t i = 0; i < n_ops; i++)
        if (i < s->kernels)
            w->t.kernels[i].rec.start_ns = starts[i];
        else if (i < s->kernels + s->copies)
            w->t.copies[i - s->kernels].start_ns = starts[i];
        else
            w->t.memsets[i - s->kernels - s->copies].start_ns = starts[i];
    free(starts);
    w->t.n_kernels = s->kernels;
    w->t.n_copies = s->copies;
    w->t.n_memsets = s->memsets;
    w->r.records = sc_work_records_of(&w->t);
    w->t.n_ranges = n_marks / 2;
    w->ctx.trace = &w->t;
    w->r.ctx = &w->ctx;
    w->r.ops = ops;
    w->r.n_ops = n_ops;
    w->r.items = items;
    w->r.n_items = n_items;
    w->r.n_threads = s->threads;
    w->r.range_marks = marks;
    w->r.load_ends = load_ends;
    w->r.n_load_ends = n_load_ends;
}

static void world_free(world *w)
{
    free(w->t.kernels);
    free(w->t.copies);
    free(w->t.memsets);
    free(w->r.ops);
    free(w->r.items);
    free(w->r.range_marks);
    free(w->r.load_ends);
    free(w->r.wide_durs.v);
    free(w->r.nodes);
}

static void check(const shape *s, uint64_t *seed)
{
    world w;
    world_make(&w, s, seed);
    assert_int_equal(sc_rp_nodes_sorted(&w.r), 0);
    uint32_t *want = w.r.nodes;
    size_t n = w.r.n_nodes;
    w.r.nodes = NULL;
    assert_int_equal(sc_rp_nodes(&w.r), 0);
    assert_int_equal(w.r.n_nodes, n);
    assert_memory_equal(w.r.nodes, want, n * sizeof *want);
    free(want);
    world_free(&w);
}

static void test_merged_order_is_the_sorted_one(void **state)
{
    (void)state;
    uint64_t seed = 88172645463325252ull;
    for (int rep = 0; rep < 200; rep++) {
        shape s = {.kernels = rnd(&seed) % 60, .copies = rnd(&seed) % 20,
                   .memsets = rnd(&seed) % 3, .threads = 1 + rnd(&seed) % 4,
                   .items_per_thread = 1 + rnd(&seed) % 40,
                   .mark_share = (unsigned)(rnd(&seed) % 6)};
        check(&s, &seed);
    }
    check(&(shape){.kernels = 20000, .copies = 5000, .memsets = 30, .threads = 1,
                   .items_per_thread = 30000, .mark_share = 25}, &seed);
    check(&(shape){.kernels = 9000, .copies = 0, .memsets = 900, .threads = 14,
                   .items_per_thread = 800, .mark_share = 3}, &seed);
    /* 20 threads: 43 runs, merged */
    check(&(shape){.kernels = 300, .copies = 30, .threads = 20, .items_per_thread = 20,
                   .mark_share = 4}, &seed);
    /* the last op 2^62 ns on: too far for the keys, merged by time and position apart */
    check(&(shape){.kernels = 5000, .copies = 700, .memsets = 3, .threads = 1,
                   .items_per_thread = 6000, .mark_share = 5, .far = true}, &seed);
    check(&(shape){.kernels = 900, .copies = 90, .threads = 6, .items_per_thread = 300,
                   .mark_share = 2, .far = true}, &seed);
    check(&(shape){.threads = 3, .items_per_thread = 5, .mark_share = 2}, &seed);  /* no work */
    check(&(shape){.kernels = 7}, &seed);   /* no items */
    check(&(shape){0}, &seed);
}

static void test_runs_it_cannot_merge_are_sorted(void **state)
{
    (void)state;
    uint64_t seed = 2463534242ull;
    for (int rep = 0; rep < 100; rep++) {
        shape s = {.kernels = 1 + rnd(&seed) % 60, .copies = rnd(&seed) % 20,
                   .memsets = rnd(&seed) % 3, .threads = 1 + rnd(&seed) % 3,
                   .items_per_thread = 1 + rnd(&seed) % 40,
                   .mark_share = (unsigned)(rnd(&seed) % 6),
                   .ops_shuffled = rep % 2 == 0, .items_shuffled = rep % 3 == 0,
                   .far = rep % 5 == 0};
        check(&s, &seed);
    }
    check(&(shape){.kernels = 300, .copies = 30, .threads = 40, .items_per_thread = 20,
                   .mark_share = 4}, &seed);     /* more runs than the merge takes */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_order_is_the_sorted_one),
        cmocka_unit_test(test_runs_it_cannot_merge_are_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
