/* sc_packed_times: every value read back exactly, against the plain array it was packed from,
 * for random lists of ascending runs (a device's issue times each) whose steps are mostly
 * small and now and then past 32 bits, with values near 0 and near UINT64_MAX, and for
 * distances from a block's least value just inside and just past what 32 bits hold; the lower
 * bound over each run against sc_u64_lower_bound on the plain values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "trace/packed_times.h"
#include "trace/sort_u64.h"

static uint64_t sc_value_at(const void *ctx, size_t i)
{
    return ((const uint64_t *)ctx)[i];
}

static uint64_t sc_rand64(void)
{
    return (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ (uint64_t)rand();
}

static void assert_same(const uint64_t *v, size_t n, const sc_packed_times *p)
{
    for (size_t i = 0; i < n; i++)
        assert_true(sc_packed_time(p, i) == v[i]);
}

static void test_random_runs_against_plain(void **state)
{
    (void)state;
    enum { MOST = 2000 };
    uint64_t *v = malloc(MOST * sizeof *v);
    assert_non_null(v);
    srand(11);
    for (int round = 0; round < 400; round++) {
        size_t n = (size_t)rand() % MOST, runs = 1 + (size_t)rand() % 4;
        size_t first[5] = {0}, far_every = 1 + (size_t)rand() % 300;
        for (size_t r = 1; r < runs; r++)
            first[r] = (size_t)rand() % (n + 1);
        first[runs] = n;
        for (size_t r = 1; r < runs; r++)     /* run starts in order */
            for (size_t q = r; q > 1 && first[q - 1] > first[q]; q--) {
                size_t x = first[q];
                first[q] = first[q - 1];
                first[q - 1] = x;
            }
        for (size_t r = 0; r < runs; r++) {
            uint64_t t = round % 5 == 0 ? UINT64_MAX - ((uint64_t)1 << 40) : sc_rand64() >> 8;
            for (size_t i = first[r]; i < first[r + 1]; i++) {
                uint64_t step = (size_t)rand() % far_every == 0 ? (uint64_t)rand() << 12
                                                                : (uint64_t)rand() % 5000;
                t = t <= UINT64_MAX - step ? t + step : t;
                v[i] = t;
            }
        }
        sc_packed_times p;
        assert_int_equal(sc_packed_times_make(&p, n, v, sc_value_at), 0);
        assert_same(v, n, &p);
        for (size_t r = 0; r < runs; r++) {
            size_t lo = first[r], hi = first[r + 1];
            for (int q = 0; q < 20; q++) {
                uint64_t x = q == 0 ? 0 : q == 1 ? UINT64_MAX
                             : hi > lo ? v[lo + (size_t)rand() % (hi - lo)] + (uint64_t)(q % 3) - 1
                                       : sc_rand64();
                assert_int_equal(sc_packed_lower_bound(&p, lo, hi, x),
                                 sc_u64_lower_bound(v + lo, hi - lo, x));
            }
        }
        sc_packed_times_free(&p);
    }
    free(v);
}

/* Distances of SC_PACKED_FAR - 1 (the largest an offset holds) and SC_PACKED_FAR (the first
 * far mark: kept in the far list) from the block's least, in one block and in the next; a
 * block whose values are all far but its least, after blocks with far values and before one
 * without: each far value is read back from its own place in the list. */
static void test_distances_at_the_limit(void **state)
{
    (void)state;
    enum { N = 5 * SC_PACKED_BLOCK };
    uint64_t v[N];
    for (size_t i = 0; i < N; i++)
        v[i] = 1000 + i;
    v[5] = 1000 + (uint64_t)SC_PACKED_FAR - 1;
    v[6] = 1000 + (uint64_t)SC_PACKED_FAR;
    v[7] = 1000 + (uint64_t)UINT32_MAX;
    v[SC_PACKED_BLOCK + 3] = UINT64_MAX;
    v[2 * SC_PACKED_BLOCK] = 0;
    v[2 * SC_PACKED_BLOCK + 1] = (uint64_t)UINT32_MAX + 1;
    for (size_t i = 1; i < SC_PACKED_BLOCK; i++)     /* the fourth block: 63 far values */
        v[3 * SC_PACKED_BLOCK + i] = ((uint64_t)i << 40) + i;
    v[3 * SC_PACKED_BLOCK] = 7;
    sc_packed_times p;
    assert_int_equal(sc_packed_times_make(&p, N, v, sc_value_at), 0);
    assert_same(v, N, &p);
    assert_int_equal(p.n_far, 4 + SC_PACKED_BLOCK - 1);
    assert_int_equal(p.far_first[4], p.n_far);      /* the last block has none */
    sc_packed_times_free(&p);
    assert_int_equal(sc_packed_times_make(&p, 0, v, sc_value_at), 0);
    assert_int_equal(sc_packed_lower_bound(&p, 0, 0, 5), 0);
    sc_packed_times_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_runs_against_plain),
        cmocka_unit_test(test_distances_at_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
