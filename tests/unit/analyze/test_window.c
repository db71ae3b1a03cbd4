/* sc_window_build: its three orders (every item by time; those with a thread by thread, then
 * time; those without by time), each a stable order (ties keep the input order), against a
 * plain insertion sort: with a few threads (read off the time order by thread) and with more
 * threads than it buckets (sorted); with refs that repeat, that ascend (sorted by keys), and
 * that ascend beside times too far apart for the keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "window_model.h"

/* Whether a goes after b: by thread first when by_tid, then time, then ref. */
static bool after(const sc_window_item *a, const sc_window_item *b, bool by_tid)
{
    if (by_tid && a->tid != b->tid)
        return a->tid > b->tid;
    if (a->t != b->t)
        return a->t > b->t;
    return a->ref > b->ref;
}

/* The items that pass `keep` (0: all, 1: with a thread, 2: without), stably ordered. */
static size_t reference(const sc_window_item *in, size_t n, int keep, bool by_tid,
                        sc_window_item *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if ((keep == 1 && !in[i].has_tid) || (keep == 2 && in[i].has_tid))
            continue;
        size_t j = m++;
        while (j > 0 && after(&out[j - 1], &in[i], by_tid)) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = in[i];
    }
    return m;
}

static void assert_same(const sc_window_item *a, const sc_window_item *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_true(a[i].t == b[i].t);
        assert_int_equal(a[i].tid, b[i].tid);
        assert_int_equal(a[i].has_tid, b[i].has_tid);
        assert_int_equal(a[i].ref, b[i].ref);
    }
}

/* Whether range r holds item x: its time inside, and its thread r's (any for an item with no
 * thread, or for a start/end range). */
static bool holds(const sc_rec_range *r, const sc_window_item *x)
{
    bool thread = r->depth == SC_RANGE_ANY_THREAD || !x->has_tid || x->tid == r->tid;
    return thread && x->t >= r->start_ns && x->t <= r->end_ns;
}

/* Ranges on the items' threads, on a thread with no item and on none: each query returns as
 * many items as range holds, each one held, each slice in time order. */
static void check_queries(const sc_window *w, const sc_window_item *in, size_t n,
                          uint32_t threads, uint32_t tid_step)
{
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int q = 0; q < 300; q++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t tid = q % 7 == 6 ? 7 : (uint32_t)(x >> 24) % threads * tid_step + 100;
        uint64_t start = (x >> 8) % (n / 3 + 10);
        sc_rec_range r = {.start_ns = start, .end_ns = start + (x >> 40) % 60, .tid = tid,
                          .depth = q % 5 == 0 ? SC_RANGE_ANY_THREAD : 1};
        size_t want = 0;
        for (size_t i = 0; i < n; i++)
            want += holds(&r, &in[i]);
        sc_window_hits h = sc_window_query(w, &r);
        assert_int_equal(sc_window_hits_count(&h), want);
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < h.n[s]; i++) {
                assert_true(holds(&r, &h.slice[s][i]));
                if (i > 0)
                    assert_true(h.slice[s][i - 1].t <= h.slice[s][i].t);
            }
    }
}

/* refs: how the items' refs go. The build sorts by 64-bit keys when the refs ascend and the
 * times fit beside the position, by the comparator otherwise: each way is checked. */
enum {
    REFS_REPEAT,
    REFS_ASCEND,
    REFS_ASCEND_WIDE_TIMES,
    REFS_ASCEND_TIMES_IN_ORDER,
    REFS_REPEAT_TIMES_IN_ORDER, /* ties of time whose refs do not ascend: not in order */
};

/* sc_window_build_owned on a copy of in[] gives the window w that sc_window_build gave. */
static void check_owned_same(const sc_window *w, const sc_window_item *in, size_t n)
{
    sc_window_item *copy = malloc((n ? n : 1) * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, in, n * sizeof *copy);
    sc_window owned;
    assert_int_equal(sc_window_build_owned(&owned, copy, n), 0);
    assert_int_equal(owned.n_by_time, w->n_by_time);
    assert_same(owned.by_time, w->by_time, w->n_by_time);
    assert_int_equal(owned.n_by_thread, w->n_by_thread);
    assert_same(owned.by_thread, w->by_thread, w->n_by_thread);
    assert_int_equal(owned.n_no_thread, w->n_no_thread);
    assert_same(owned.no_thread, w->no_thread, w->n_no_thread);
    sc_window_free(&owned);
}

static void check_ids(size_t n, uint32_t threads, int refs, uint32_t tid_step)
{
    sc_window_item *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want);
    assert_non_null(in);
    assert_non_null(want);
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* times nearly in order, with ties; refs repeat, so (t, ref) ties too */
        uint32_t tid = (uint32_t)(x >> 20) % threads * tid_step + 100;
        in[i] = (sc_window_item){.t = i / 3 + x % 5, .tid = tid, .has_tid = x % 7 != 0,
                                 .ref = (x >> 40) % 4};
        if (refs != REFS_REPEAT && refs != REFS_REPEAT_TIMES_IN_ORDER)
            in[i].ref = 2 * i + 1;
        if (refs == REFS_ASCEND_WIDE_TIMES && i % 100 == 0)
            in[i].t = i % 200 ? UINT64_MAX - x % 3 : x % 3;
        if (refs == REFS_ASCEND_TIMES_IN_ORDER || refs == REFS_REPEAT_TIMES_IN_ORDER)
            in[i].t = i / 3;    /* ties of time */
    }
    sc_window w;
    assert_int_equal(sc_window_build(&w, in, n), 0);
    assert_int_equal(w.n_by_time, reference(in, n, 0, false, want));
    assert_same(w.by_time, want, w.n_by_time);
    assert_int_equal(w.n_by_thread, reference(in, n, 1, true, want));
    assert_same(w.by_thread, want, w.n_by_thread);
    assert_int_equal(w.n_no_thread, reference(in, n, 2, false, want));
    assert_same(w.no_thread, want, w.n_no_thread);
    check_queries(&w, in, n, threads, tid_step);
    check_owned_same(&w, in, n);
    sc_window_free(&w);
    free(in);
    free(want);
}

static void check(size_t n, uint32_t threads, int refs)
{
    check_ids(n, threads, refs, 1);
}

static void test_few_threads(void **state)
{
    (void)state;
    check(5000, 6, REFS_REPEAT);
    check(5000, 6, REFS_ASCEND);
    check(5000, 6, REFS_ASCEND_WIDE_TIMES);
    check(5000, 6, REFS_ASCEND_TIMES_IN_ORDER);
    check(5000, 6, REFS_REPEAT_TIMES_IN_ORDER);
}

static void test_more_threads_than_bucketed(void **state)
{
    (void)state;
    check(6000, 3000, REFS_REPEAT);
    check(6000, 3000, REFS_ASCEND);
    check(6000, 3000, REFS_ASCEND_TIMES_IN_ORDER);
}

/* Thread ids 2048 apart land on one slot of the window's thread table: the probes walk on.
 * 1024 threads are still bucketed, 1025 are sorted. */
static void test_thread_ids_that_collide(void **state)
{
    (void)state;
    check_ids(5000, 40, REFS_ASCEND, 2048);
    check_ids(20000, 1024, REFS_ASCEND, 2048);
    check_ids(20000, 1025, REFS_ASCEND, 2048);
    check_ids(20000, 1024, REFS_ASCEND, 1);
}

static void test_empty(void **state)
{
    (void)state;
    sc_window w;
    assert_int_equal(sc_window_build(&w, NULL, 0), 0);
    assert_int_equal(w.n_by_time + w.n_by_thread + w.n_no_thread, 0);
    sc_window_free(&w);
    assert_int_equal(sc_window_build_owned(&w, malloc(1), 0), 0);
    assert_int_equal(w.n_by_time + w.n_by_thread + w.n_no_thread, 0);
    sc_window_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_few_threads),
        cmocka_unit_test(test_more_threads_than_bucketed),
        cmocka_unit_test(test_thread_ids_that_collide),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
