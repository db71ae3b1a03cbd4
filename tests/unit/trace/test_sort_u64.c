/* sc_sort_u64 against qsort: on values in order, in a few ascending lists with ties across
 * them (dealt onto piles and merged), in descending order and in no order (more piles than it
 * takes: the general sort), on two ascending lists one after the other (one merge) and on
 * three (the piles again), on the smallest lists, and on every length the stack sort takes
 * (up to 256) and just past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/sort_u64.h"

static int reference_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Sorts v (n values) both ways and compares; frees v. */
static void check(uint64_t *v, size_t n)
{
    uint64_t *want = malloc((n ? n : 1) * sizeof *want);
    assert_non_null(want);
    memcpy(want, v, n * sizeof *v);
    qsort(want, n, sizeof *want, reference_cmp);
    sc_sort_u64(v, n);
    assert_memory_equal(v, want, n * sizeof *v);
    free(want);
    free(v);
}

static uint64_t *values(size_t n)
{
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    assert_non_null(v);
    return v;
}

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_in_order(void **state)
{
    (void)state;
    enum { N = 3000 };
    uint64_t *v = values(N);
    for (size_t i = 0; i < N; i++)
        v[i] = 10 + i / 4;
    check(v, N);
}

/* The analyzer's shape: a few lists each ascending, one after another or interleaved, their
 * values tied across lists. */
static void test_few_ascending_lists(void **state)
{
    (void)state;
    enum { LISTS = 7, EACH = 3000 };
    uint64_t *v = values(LISTS * EACH);
    for (size_t l = 0; l < LISTS; l++)
        for (size_t i = 0; i < EACH; i++)
            v[l * EACH + i] = 1000 + i * 3 * (l + 1) / 2 + (l % 2) * (i % 3);
    check(v, LISTS * EACH);
    v = values(LISTS * EACH);
    for (size_t i = 0; i < LISTS * EACH; i++)
        v[i] = (i % LISTS) * 5 + (i / LISTS) * 2;
    check(v, LISTS * EACH);
}

/* Exactly as many piles as it takes, and one more. */
static void test_pile_limit(void **state)
{
    (void)state;
    for (size_t piles = 63; piles <= 65; piles++) {
        uint64_t *v = values(piles * 10);
        for (size_t i = 0; i < piles * 10; i++)
            v[i] = (piles - 1 - i % piles) * 100 + i / piles;
        check(v, piles * 10);
    }
}

static void test_descending(void **state)
{
    (void)state;
    enum { N = 2000 };
    uint64_t *v = values(N);
    for (size_t i = 0; i < N; i++)
        v[i] = UINT64_MAX - i;
    check(v, N);
}

static void test_no_order(void **state)
{
    (void)state;
    enum { N = 10000 };
    uint64_t *v = values(N), x = 88172645463325252u;
    for (size_t i = 0; i < N; i++)
        v[i] = next_random(&x) % 5000;
    check(v, N);
}

static void test_small(void **state)
{
    (void)state;
    check(values(0), 0);
    uint64_t *v = values(1);
    v[0] = 5;
    check(v, 1);
    v = values(2);
    v[0] = 9;
    v[1] = 3;
    check(v, 2);
}

/* Two ascending runs, the second after the first: split anywhere (one value either side
 * too), tied across the two, wholly below or above the first; and a third run after them,
 * which the one merge must not take. */
static void test_two_runs(void **state)
{
    (void)state;
    enum { N = 1000 };
    static const size_t splits[] = {1, 2, 300, 500, 999};
    for (size_t k = 0; k < sizeof splits / sizeof *splits; k++)
        for (int shape = 0; shape < 3; shape++) {
            size_t mid = splits[k];
            uint64_t *v = values(N);
            for (size_t i = 0; i < N; i++) {   /* ties across the runs; below; above */
                uint64_t in_run = i < mid ? i : i - mid;
                v[i] = shape == 0 ? in_run / 3 + (i < mid ? 1 : 0)
                                  : shape == 1 ? (i < mid ? 5000 + in_run : in_run)
                                               : (i < mid ? in_run : 5000 + in_run);
            }
            if (shape == 2)
                v[mid - 1] = 6000 + N, v[N - 1] = 7000 + N;  /* still two runs, out of order */
            check(v, N);
        }
    uint64_t *v = values(N);
    for (size_t i = 0; i < N; i++)
        v[i] = i % 400;     /* three runs */
    check(v, N);
}

/* One long run and a few short ones of very unequal lengths (piles.h merges the shortest
 * adjacent pair first, from whichever array holds each run): every pile count from 2 to 9,
 * the short runs' values spread over the long one's and tied with it. */
static void test_unequal_piles(void **state)
{
    (void)state;
    enum { N = 5000 };
    for (size_t piles = 2; piles <= 9; piles++) {
        uint64_t *v = values(N);
        for (size_t i = 0; i < N; i++) {
            size_t every = 7 + 13 * (i % piles);   /* shorter runs for the later piles */
            v[i] = i % every == 0 && i % piles != 0 ? (piles - i % piles) * 100000 + i * 3
                                                   : i * 20;
        }
        check(v, N);
    }
}

static void test_every_small_length(void **state)
{
    (void)state;
    uint64_t x = 2463534242u;
    for (size_t n = 3; n <= 260; n++)
        for (int shape = 0; shape < 3; shape++) {
            uint64_t *v = values(n);
            for (size_t i = 0; i < n; i++)     /* random, with ties; descending; runs */
                v[i] = shape == 0 ? next_random(&x) % 97 : shape == 1 ? n - i : i % 17;
            check(v, n);
        }
}

/* The bounds against a scan, over sorted lists with ties (0 to 40 values), at every value
 * they hold, between them, below and above them, and at UINT64_MAX. */
static void test_bounds(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    uint64_t v[40];
    for (size_t n = 0; n <= 40; n++)
        for (int round = 0; round < 20; round++) {
            for (size_t i = 0; i < n; i++)
                v[i] = next_random(&x) % 13 * 10 + (round == 19 ? UINT64_MAX - 130 : 0);
            sc_sort_u64(v, n);
            for (uint64_t probe = 0; probe <= 140; probe++) {
                uint64_t at = round == 19 ? UINT64_MAX - 140 + probe : probe;
                size_t lo = 0, up = 0;
                while (lo < n && v[lo] < at) lo++;
                while (up < n && v[up] <= at) up++;
                assert_int_equal(sc_u64_lower_bound(v, n, at), lo);
                assert_int_equal(sc_u64_upper_bound(v, n, at), up);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_few_ascending_lists),
        cmocka_unit_test(test_pile_limit),
        cmocka_unit_test(test_descending),
        cmocka_unit_test(test_no_order),
        cmocka_unit_test(test_two_runs),
        cmocka_unit_test(test_unequal_piles),
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_every_small_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
