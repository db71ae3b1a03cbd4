/* replay_wide.h: a host item's 32-bit (or 16-bit) time and the list beside it for the values
 * that do not fit. Every value reads back exactly, at the edges of 32 and 16 bits and far past
 * them; values that fit leave the list empty; the mark is never a value that fits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/replay_graph.h"
#include "analyze/replay_wide.h"

static void test_unsigned_edges(void **state)
{
    (void)state;
    const uint64_t v[] = {0, 1, 999, UINT32_MAX - 1, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
                          12345678901234ull, 7, UINT64_MAX};
    size_t n = sizeof v / sizeof *v;
    uint32_t field[sizeof v / sizeof *v];
    sc_rp_wides w = {0};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(sc_rp_wide_put(&w, (int32_t)i, v[i], &field[i]), 0);
    assert_int_equal(w.n, 4);   /* UINT32_MAX and the three above it */
    assert_int_equal(field[3], UINT32_MAX - 1);
    assert_int_equal(field[4], SC_RP_WIDE);
    for (size_t i = 0; i < n; i++)
        assert_true(sc_rp_wide_of(&w, (int32_t)i, field[i]) == v[i]);
    free(w.v);
}

static void test_signed_edges(void **state)
{
    (void)state;
    const int64_t v[] = {0, -1, 1, INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN + 1,
                         INT32_MIN, (int64_t)INT32_MIN - 1, INT64_MIN, INT64_MAX, -5};
    size_t n = sizeof v / sizeof *v;
    int32_t field[sizeof v / sizeof *v];
    sc_rp_wides w = {0};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(sc_rp_wide_put_signed(&w, (int32_t)i, v[i], &field[i]), 0);
    assert_int_equal(w.n, 5);   /* INT32_MAX + 1, INT32_MIN and the three beyond */
    assert_int_equal(field[5], INT32_MIN + 1);
    assert_int_equal(field[6], SC_RP_WIDE_SIGNED);
    for (size_t i = 0; i < n; i++)
        assert_true(sc_rp_wide_signed_of(&w, (int32_t)i, field[i]) == v[i]);
    free(w.v);
}

static void test_16_bit_edges(void **state)
{
    (void)state;
    const uint64_t v[] = {0, 1664, UINT16_MAX - 1, UINT16_MAX, (uint64_t)UINT16_MAX + 1,
                          UINT32_MAX, 3};
    size_t n = sizeof v / sizeof *v;
    uint16_t field[sizeof v / sizeof *v];
    sc_rp_wides w = {0};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(sc_rp_wide_put16(&w, (int32_t)i, v[i], &field[i]), 0);
    assert_int_equal(w.n, 3);   /* UINT16_MAX and the two above it */
    assert_int_equal(field[2], UINT16_MAX - 1);
    assert_int_equal(field[3], SC_RP_WIDE16);
    for (size_t i = 0; i < n; i++)
        assert_true(sc_rp_wide16_of(&w, (int32_t)i, field[i]) == v[i]);
    free(w.v);
}

/* Many items, one in a hundred too large: the list grows past its first allocation and every
 * item still finds its own value. */
static void test_many(void **state)
{
    (void)state;
    enum { N = 10000 };
    uint32_t *field = malloc(N * sizeof *field);
    assert_non_null(field);
    sc_rp_wides w = {0};
    for (int32_t i = 0; i < N; i++) {
        uint64_t v = i % 100 == 0 ? (uint64_t)i << 33 : (uint64_t)i * 3;
        assert_int_equal(sc_rp_wide_put(&w, i, v, &field[i]), 0);
    }
    assert_int_equal(w.n, N / 100 - 1);    /* item 0's value, 0 << 33, fits */
    for (int32_t i = 0; i < N; i++)
        assert_true(sc_rp_wide_of(&w, i, field[i]) ==
                    (i % 100 == 0 ? (uint64_t)i << 33 : (uint64_t)i * 3));
    free(w.v);
    free(field);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unsigned_edges),
        cmocka_unit_test(test_signed_edges),
        cmocka_unit_test(test_16_bit_edges),
        cmocka_unit_test(test_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
