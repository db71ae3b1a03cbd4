/* sc_rp_entry_order, the replay's host entries merged thread by thread (each thread's calls,
 * which lie in start order, with its range marks sorted alone), against
 * sc_rp_entry_order_sorted, a sort of every entry by (thread, start, position): the same
 * positions in the same order, on traces built to stress the merge: several threads whose
 * calls interleave, ties between calls and marks and between marks (a range ending where the
 * next begins, empty ranges), ranges of a thread without calls, inner calls and polling
 * loops (no entries but a loop's first query), one thread, no ranges, no calls; and calls out
 * of start order, which the merge leaves to the sort. Fails on any tie broken the other way
 * or any entry left out or taken twice. On each trace the host items made in time order
 * (sc_rp_time_walk) are those made thread after thread from that order, field for field:
 * nested calls, loops, marks, calls too long for an item's 32 bits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/internal.h"
#include "analyze/replay_entries.h"
#include "analyze/replay_parts.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct shape {
    size_t calls, ranges, threads;
    unsigned inner_share;       /* 1 in inner_share calls is inner (0: none) */
    size_t loops;
    bool shuffled;              /* a few calls out of start order */
} shape;

static int range_cmp(const void *pa, const void *pb)
{
    const sc_range *x = pa, *y = pb;
    return x->rec.start_ns < y->rec.start_ns ? -1 : x->rec.start_ns > y->rec.start_ns;
}

/* The host items made both ways from the same calls (sc_rp_items_make: in time order, and
 * thread after thread from the entries' order): equal, field for field. */
static void check_items(const sc_trace *t, const int32_t *kinds, sc_poll_loop *loops)
{
    sc_ctx ctx = {.trace = t, .polls = loops};
    sc_replay r[2] = {{.ctx = &ctx}, {.ctx = &ctx}};
    for (int k = 0; k < 2; k++) {
        r[k].call_item = malloc((t->n_calls + 1) * sizeof *r[k].call_item);
        assert_non_null(r[k].call_item);
        memcpy(r[k].call_item, kinds, t->n_calls * sizeof *kinds);
        assert_int_equal(sc_rp_items_make(&r[k], k == 0), 0);
    }
    const sc_replay *a = &r[0], *b = &r[1];
    assert_int_equal(a->n_items, b->n_items);
    assert_int_equal(a->n_threads, b->n_threads);
    if (a->n_items) {
        assert_memory_equal(a->items, b->items, a->n_items * sizeof *a->items);
        assert_memory_equal(a->item_call, b->item_call, a->n_items * sizeof *a->item_call);
    }
    if (a->n_threads)
        assert_memory_equal(a->thread_first, b->thread_first,
                            a->n_threads * sizeof *a->thread_first);
    if (t->n_ranges)
        assert_memory_equal(a->range_marks, b->range_marks,
                            2 * t->n_ranges * sizeof *a->range_marks);
    if (t->n_calls)
        assert_memory_equal(a->call_item, b->call_item, t->n_calls * sizeof *a->call_item);
    assert_int_equal(a->wide_durs.n, b->wide_durs.n);
    for (size_t i = 0; i < a->wide_durs.n; i++) {
        assert_int_equal(a->wide_durs.v[i].index, b->wide_durs.v[i].index);
        assert_true(a->wide_durs.v[i].value == b->wide_durs.v[i].value);
    }
    for (int k = 0; k < 2; k++) {
        free(r[k].call_item);
        free(r[k].items);
        free(r[k].item_call);
        free(r[k].range_marks);
        free(r[k].thread_first);
        free(r[k].wide_durs.v);
    }
}

static void check(const shape *s, uint64_t *seed)
{
    sc_trace t = {0};
    t.calls = calloc(s->calls + 1, sizeof *t.calls);
    /* a thread's at 1 + k, then one per call too long for its record (sc_call_end) */
    t.call_extras = calloc(s->threads + 1 + s->calls, sizeof *t.call_extras);
    assert_non_null(t.call_extras);
    for (size_t k = 0; k < s->threads; k++)
        t.call_extras[1 + k].tid = 100 + (uint32_t)k * 7;
    t.ranges = calloc(s->ranges + 1, sizeof *t.ranges);
    int32_t *call_item = calloc(s->calls + 1, sizeof *call_item);
    sc_poll_loop *loops = calloc(s->loops + 1, sizeof *loops);
    assert_non_null(t.calls);
    assert_non_null(t.ranges);
    assert_non_null(call_item);
    assert_non_null(loops);
    t.n_calls = s->calls;
    t.n_call_extras = s->threads + 1;
    t.n_ranges = s->ranges;
    uint64_t at = 1000;
    for (size_t c = 0; c < s->calls; c++) {
        at += rnd(seed) % 3;    /* ties */
        sc_call_rec *rec = &t.calls[c].rec;
        rec->start_ns = s->shuffled && rnd(seed) % 11 == 0 && at > 1005 ? at - 5 : at;
        /* now and then a call longer than an item's 32 bits hold (replay_wide.h) */
        bool wide = rnd(seed) % 97 == 0;
        uint64_t dur = wide ? 5000000000ull : rnd(seed) % 7;
        rec->dur_ns = wide ? SC_CALL_DUR_WIDE : (uint32_t)dur;
        rec->extra_at = 1 + (uint32_t)(rnd(seed) % s->threads);    /* its thread */
        if (wide) {
            t.call_extras[t.n_call_extras] = t.call_extras[rec->extra_at];
            t.call_extras[t.n_call_extras].wide_end_ns = rec->start_ns + dur;
            rec->extra_at = (uint32_t)t.n_call_extras++;
        }
        call_item[c] = s->inner_share && rnd(seed) % s->inner_share == 0 ? SC_RP_CALL_INNER
                                                                          : SC_RP_NONE;
    }
    /* loops: a few consecutive calls taken as one, their first the entry */
    for (size_t k = 0; k < s->loops && s->calls > 0; k++) {
        size_t first = rnd(seed) % s->calls, last = first + rnd(seed) % 4;
        if (last >= s->calls)
            last = s->calls - 1;
        loops[k] = (sc_poll_loop){.first = first, .last = last};
        for (size_t c = first; c <= last; c++)
            if (sc_call_tid(&t, &t.calls[c]) == sc_call_tid(&t, &t.calls[first]))
                call_item[c] = SC_RP_CALL_LOOP(k);
    }
    uint64_t span = at > 1000 ? at - 1000 + 10 : 20;
    for (size_t j = 0; j < s->ranges; j++) {
        sc_rec_range *g = &t.ranges[j].rec;
        g->start_ns = 1000 + rnd(seed) % span;
        uint64_t len = rnd(seed) % 4 == 0 ? 0 : rnd(seed) % 30;
        g->end_ns = rnd(seed) % 9 == 0 ? g->start_ns - 1 : g->start_ns + len;  /* ends early */
        g->tid = 100 + (uint32_t)(rnd(seed) % (s->threads + 1)) * 7;    /* one thread's alone */
    }
    qsort(t.ranges, t.n_ranges, sizeof *t.ranges, range_cmp);   /* as the loader sorts them */
    for (size_t j = 1; j < s->ranges; j++)  /* one ends where the next begins */
        if (rnd(seed) % 5 == 0)
            t.ranges[j - 1].rec.end_ns = t.ranges[j].rec.start_ns;
    sc_rp_entry_src src = {&t, call_item, loops};
    size_t n_want = 0, n_got = 0;
    uint32_t *want = sc_rp_entry_order_sorted(&src, &n_want);
    uint32_t *got = sc_rp_entry_order(&src, &n_got);
    assert_non_null(want);
    assert_non_null(got);
    assert_int_equal(n_got, n_want);
    assert_memory_equal(got, want, n_want * sizeof *want);
    check_items(&t, call_item, loops);
    free(want);
    free(got);
    free(t.calls);
    free(t.call_extras);
    free(t.ranges);
    free(call_item);
    free(loops);
}

static void test_merged_entries_are_the_sorted_ones(void **state)
{
    (void)state;
    uint64_t seed = 88172645463325252ull;
    for (int rep = 0; rep < 300; rep++) {
        shape s = {.calls = rnd(&seed) % 80, .ranges = rnd(&seed) % 25,
                   .threads = 1 + rnd(&seed) % 4, .inner_share = (unsigned)(rnd(&seed) % 5),
                   .loops = rnd(&seed) % 4};
        check(&s, &seed);
    }
    check(&(shape){.calls = 50000, .ranges = 4000, .threads = 1, .inner_share = 7,
                   .loops = 300}, &seed);
    check(&(shape){.calls = 50000, .ranges = 4000, .threads = 6, .inner_share = 7,
                   .loops = 300}, &seed);
    check(&(shape){.calls = 9000, .threads = 5000}, &seed);   /* too many threads: sorted */
    check(&(shape){.ranges = 30, .threads = 3}, &seed);         /* marks alone */
    check(&(shape){.calls = 30, .threads = 2}, &seed);          /* calls alone */
    check(&(shape){.threads = 1}, &seed);
}

static void test_calls_out_of_order_are_sorted(void **state)
{
    (void)state;
    uint64_t seed = 2463534242ull;
    for (int rep = 0; rep < 100; rep++) {
        shape s = {.calls = 1 + rnd(&seed) % 80, .ranges = rnd(&seed) % 25,
                   .threads = 1 + rnd(&seed) % 3, .inner_share = (unsigned)(rnd(&seed) % 5),
                   .loops = rnd(&seed) % 3, .shuffled = true};
        check(&s, &seed);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_entries_are_the_sorted_ones),
        cmocka_unit_test(test_calls_out_of_order_are_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
