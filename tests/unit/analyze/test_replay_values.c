/* sc_rp_value_of, the look-up of what only a few host items or ops have (a join, a module
 * load's end, a late start): found at the start, middle and end of the list, absent before,
 * between and after its entries, and in an empty list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/replay_graph.h"

static void test_found_and_absent(void **state)
{
    (void)state;
    const sc_rp_sparse v[] = {{.index = 3, .other = 1, .value = 30},
                              {.index = 7, .other = SC_RP_NONE, .value = 70},
                              {.index = 8, .other = 2, .held_lag = -80},
                              {.index = 100, .other = 5, .value = 1000}};
    size_t n = sizeof v / sizeof *v;
    for (size_t k = 0; k < n; k++) {
        const sc_rp_sparse *x = sc_rp_value_of(v, n, v[k].index);
        assert_ptr_equal(x, &v[k]);
    }
    assert_int_equal(sc_rp_value_of(v, n, 8)->held_lag, -80);
    const int32_t absent[] = {0, 2, 4, 6, 9, 99, 101, INT32_MAX};
    for (size_t k = 0; k < sizeof absent / sizeof *absent; k++)
        assert_null(sc_rp_value_of(v, n, absent[k]));
    assert_null(sc_rp_value_of(NULL, 0, 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found_and_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
