/* sc_json_real_text (src/report/json_real.h) writes what jansson's json_dumps writes for the
 * same real: checked on the values where a conversion of its own could go wrong (ties at the
 * seventeenth digit, powers of ten and their neighbours, integers, the ends of the fixed
 * notation, ratios like a report's), and on random ones of every magnitude. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "report/json_real.h"

static size_t n_checked;

static void check(double v)
{
    if (!isfinite(v))
        return;     /* past DBL_MAX: the generators below reach it (jansson holds no such real) */
    char ours[SC_JSON_REAL_MAX];
    int n = sc_json_real_text(v, ours);
    json_t *j = json_real(v);
    assert_non_null(j);
    char *theirs = json_dumps(j, JSON_ENCODE_ANY);
    assert_non_null(theirs);
    if (n < 0 || strcmp(ours, theirs) != 0)
        fail_msg("%a: ours \"%s\" (%d), jansson's \"%s\"", v, n < 0 ? "" : ours, n, theirs);
    assert_int_equal((size_t)n, strlen(theirs));
    free(theirs);
    json_decref(j);
    n_checked++;
}

static void check_both_signs(double v)
{
    check(v);
    check(-v);
}

/* A deterministic generator: the test checks the same values each run. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* j / 2^n, j odd, has an exact decimal text ending in 5: at 18 significant digits, a tie for
 * the seventeenth, which printf rounds to the even digit. */
static void test_ties_at_the_seventeenth_digit_round_to_even(void **state)
{
    (void)state;
    for (int n = 1; n <= 60; n++)
        for (uint64_t j = 1; j < 4000; j += 2) {
            check_both_signs(ldexp((double)j, -n));
            check_both_signs(ldexp((double)((1ull << 52) + j), -n));
        }
}

static void test_powers_of_ten_and_their_neighbours(void **state)
{
    (void)state;
    for (int k = -330; k <= 310; k++) {
        double p = pow(10.0, k);
        check_both_signs(p);
        double below = p, above = p;
        for (int step = 0; step < 4; step++) {
            below = nextafter(below, 0.0);
            above = nextafter(above, INFINITY);
            if (below > 0)
                check_both_signs(below);
            if (isfinite(above))
                check_both_signs(above);
        }
        for (int d = 1; d <= 9; d++) {   /* 9.999...: rounding carries into the next power */
            check_both_signs(p * d);
            check_both_signs(p * (10.0 - 1e-15 * d));
        }
    }
}

static void test_integers_zeros_and_the_ends(void **state)
{
    (void)state;
    check(0.0);
    check(-0.0);
    for (int64_t i = 1; i < 100000; i++)
        check_both_signs((double)i);
    /* 2^s + d built unsigned: a signed 1 << 63 overflows */
    for (int s = 50; s < 64; s++)
        for (int64_t d = -20; d <= 20; d++)
            check_both_signs((double)((1ull << s) + (uint64_t)d));
    const double ends[] = {DBL_MAX, DBL_MIN, 4.9e-324, 1e-3, 1e-4, 1e16, 1e17, 1e21,
                           9.9999999999999995e16, 99999999999999984.0, 0.00099999999999999998};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
        check_both_signs(ends[i]);
}

/* What a report writes: concurrency, speedups and shares, ratios of counts and times. */
static void test_ratios_like_a_reports(void **state)
{
    (void)state;
    for (int a = 1; a < 700; a++)
        for (int b = 1; b < 300; b++)
            check_both_signs((double)a / (double)b);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 100000; i++) {
        uint64_t busy = next_random(&s) % 50000000000ull + 1;
        uint64_t sum = next_random(&s) % 200000000000ull;
        check((double)sum / (double)busy);
    }
}

static void test_random_values_of_every_magnitude(void **state)
{
    (void)state;
    size_t before = n_checked;
    uint64_t s = 0x243f6a8885a308d3ull;
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = next_random(&s);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            check(v);
        /* and as many in the range the integer conversion takes */
        double f = (double)(next_random(&s) >> 11) / 9007199254740992.0;   /* [0, 1) */
        check_both_signs(ldexp(1.0 + f, (int)(next_random(&s) % 70) - 12));
    }
    /* not finite: no text (the writer writes null) */
    char out[SC_JSON_REAL_MAX];
    assert_int_equal(sc_json_real_text(NAN, out), -1);
    assert_int_equal(sc_json_real_text(INFINITY, out), -1);
    assert_int_equal(sc_json_real_text(-INFINITY, out), -1);
    assert_true(n_checked - before > 500000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ties_at_the_seventeenth_digit_round_to_even),
        cmocka_unit_test(test_powers_of_ten_and_their_neighbours),
        cmocka_unit_test(test_integers_zeros_and_the_ends),
        cmocka_unit_test(test_ratios_like_a_reports),
        cmocka_unit_test(test_random_values_of_every_magnitude),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
