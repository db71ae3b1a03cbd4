/* sc_order_by_time and sc_order_by_time_in against a plain insertion sort by (time,
 * position): on times in order, in a few ascending lists (piled and merged) and in no order
 * (more piles than that takes: sorted), on runs that fit its 64-bit keys (relative time above
 * the position), a run longer than 4.3 s (more than 32-bit relative times hold) among them,
 * at the edge of what the keys hold and past it (the times' piles, or in no order the (time,
 * position) pairs), over a day-long span in a few ascending lists, with ties (the
 * lower position first: work before host items), and with times near the top of the 64-bit
 * range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/order_by_time.h"

static void reference_order(const uint64_t *at, size_t n, uint32_t *order)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && at[order[j - 1]] > at[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = (uint32_t)i;
    }
}

/* sc_order_by_time_in on a copy of the n times: the same order as want. */
static void check_in(const uint64_t *at, size_t n, const uint32_t *want)
{
    uint64_t *keys = malloc(n * sizeof *keys);
    uint32_t *got = malloc(n * sizeof *got);
    assert_non_null(keys);
    assert_non_null(got);
    memcpy(keys, at, n * sizeof *at);
    assert_int_equal(sc_order_by_time_in(keys, n, got), 0);
    assert_memory_equal(got, want, n * sizeof *got);
    free(keys);
    free(got);
}

/* Orders n times, the first `base`, the last `last`, the others base + a pseudo-random step
 * below `spread` (every fifth equal to the one before), both ways, and compares. */
static void check(uint64_t base, uint64_t spread, size_t n, uint64_t last)
{
    uint64_t *at = malloc(n * sizeof *at), *copy = malloc(n * sizeof *copy);
    uint32_t *want = malloc(n * sizeof *want);
    assert_non_null(at);
    assert_non_null(copy);
    assert_non_null(want);
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        at[i] = base + (spread ? x % spread : 0);
        if (i % 5 == 0 && i > 0)
            at[i] = at[i - 1];
    }
    at[0] = base;
    at[n - 1] = last;
    memcpy(copy, at, n * sizeof *at);
    reference_order(copy, n, want);
    check_in(copy, n, want);
    uint32_t *got = sc_order_by_time(at, n);  /* takes at */
    assert_non_null(got);
    assert_memory_equal(got, want, n * sizeof *got);
    free(got);
    free(copy);
    free(want);
}

/* Orders the n times of at (taken) both ways and compares. */
static void check_times(uint64_t *at, size_t n)
{
    uint64_t *copy = malloc(n * sizeof *copy);
    uint32_t *want = malloc(n * sizeof *want);
    assert_non_null(copy);
    assert_non_null(want);
    memcpy(copy, at, n * sizeof *at);
    reference_order(copy, n, want);
    check_in(copy, n, want);
    uint32_t *got = sc_order_by_time(at, n);
    assert_non_null(got);
    assert_memory_equal(got, want, n * sizeof *got);
    free(got);
    free(copy);
    free(want);
}

/* The replay's shape: a few lists each in time order (kernels, copies, each thread's items),
 * one after the other, their times interleaved and tied across lists: a few piles. */
static void test_few_ascending_runs(void **state)
{
    (void)state;
    enum { LISTS = 6, EACH = 4000 };
    uint64_t *at = malloc(LISTS * EACH * sizeof *at);
    assert_non_null(at);
    for (size_t l = 0; l < LISTS; l++)
        for (size_t i = 0; i < EACH; i++)
            at[l * EACH + i] = 1000000 + i * 7 * (l + 1) / 3 + (l % 2) * (i % 3);
    check_times(at, LISTS * EACH);
}

/* Four threads' buffers as the loader meets them: batches of each thread's ascending times,
 * the threads' batches in turn and overlapping in time, each batch dealt onto the pile its
 * values before went to. */
static void test_batches_of_threads(void **state)
{
    (void)state;
    enum { THREADS = 4, BATCHES = 30, EACH = 200 };
    uint64_t *at = malloc(THREADS * BATCHES * EACH * sizeof *at);
    assert_non_null(at);
    size_t k = 0;
    for (size_t b = 0; b < BATCHES; b++)
        for (size_t t = 0; t < THREADS; t++)
            for (size_t i = 0; i < EACH; i++)
                at[k++] = 1000 + (b * EACH + i) * 10 + t * 3 + (i % 9 == 0 ? 0 : t);
    check_times(at, k);
}

/* The same shape over a run too long for the keys (a day-long run's idle steps: hours of
 * nanoseconds above the positions' bits), with ties within and across lists: the times'
 * piles merged by time and position, at once (LISTS up to 8) or pairwise (more). */
static void check_long_runs(size_t lists, size_t each)
{
    uint64_t *at = malloc(lists * each * sizeof *at);
    assert_non_null(at);
    for (size_t l = 0; l < lists; l++)
        for (size_t i = 0; i < each; i++)
            at[l * each + i] = 1000 + (i / 2) * ((uint64_t)1 << 44) + l % 3;
    check_times(at, lists * each);
}

static void test_long_run_few_piles(void **state)
{
    (void)state;
    check_long_runs(6, 3000);
}

static void test_long_run_more_piles(void **state)
{
    (void)state;
    check_long_runs(20, 700);
}

/* More piles than the merge takes (times in no order): the general sort, the same order. */
static void test_many_runs(void **state)
{
    (void)state;
    enum { N = 12000 };
    uint64_t *at = malloc(N * sizeof *at);
    assert_non_null(at);
    uint64_t x = 2463534242u;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        at[i] = 5000 + x % 100000;
    }
    check_times(at, N);
}

static void test_short_run(void **state)
{
    (void)state;
    check(1700000000000000000u, 1000000000u, 3000, 1700000000000000000u + 7);
}

static void test_run_longer_than_4_3_s(void **state)
{
    (void)state;
    check(5000000000u, 10000000000u, 3000, 5000000000u);  /* 10 s */
}

static void test_all_tied(void **state)
{
    (void)state;
    check(42, 0, 500, 42);
}

static void test_span_at_the_edge(void **state)
{
    (void)state;
    /* 2048 nodes: positions take 11 bits, times 53. The last node 2^53 - 1 ns after the
     * first still fits the keys; one nanosecond more, and the pairs sort. */
    uint64_t keys_hold = UINT64_MAX >> 11;
    check(1000, 1000, 2048, 1000 + keys_hold);
    check(1000, 1000, 2048, 1000 + keys_hold + 1);
    /* 2049 nodes need 12 bits */
    check(1000, 1000, 2049, 1000 + (keys_hold >> 1) + 1);
}

static void test_times_near_the_top(void **state)
{
    (void)state;
    check(UINT64_MAX - 1000000, 1000000, 1000, UINT64_MAX);
    check(0, 1000, 1000, UINT64_MAX);
}

/* Times already in order (the blocking index's work by start, mostly): the positions as they
 * are, ties included. */
static void test_in_order(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint64_t *at = malloc(N * sizeof *at);
    assert_non_null(at);
    for (size_t i = 0; i < N; i++)
        at[i] = 100 + i / 3;
    check_times(at, N);
}

/* No times: nothing to write, and success. */
static void test_in_nothing(void **state)
{
    (void)state;
    uint64_t key = 0;
    uint32_t order = 7;
    assert_int_equal(sc_order_by_time_in(&key, 0, &order), 0);
    assert_int_equal(order, 7);
}

static void test_one_node(void **state)
{
    (void)state;
    uint64_t *at = malloc(sizeof *at);
    assert_non_null(at);
    *at = 9;
    uint32_t *order = sc_order_by_time(at, 1);
    assert_non_null(order);
    assert_int_equal(order[0], 0);
    free(order);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_run),
        cmocka_unit_test(test_run_longer_than_4_3_s),
        cmocka_unit_test(test_all_tied),
        cmocka_unit_test(test_span_at_the_edge),
        cmocka_unit_test(test_times_near_the_top),
        cmocka_unit_test(test_one_node),
        cmocka_unit_test(test_few_ascending_runs),
        cmocka_unit_test(test_batches_of_threads),
        cmocka_unit_test(test_long_run_few_piles),
        cmocka_unit_test(test_long_run_more_piles),
        cmocka_unit_test(test_many_runs),
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_in_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
