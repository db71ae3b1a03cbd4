/* sc_ctx_call: a correlation id's call is its runtime call when there is one, else its first
 * driver call in trace order; 0 and unknown ids have none. Dense ids take the direct table,
 * sparse ones the sorted list: both answer alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/internal.h"
#include "synthetic.h"

/* Calls of ids base + 0 .. base + 3 (id base + 3 only as driver calls, two of them), each
 * driver call first in trace order (same start, added first). */
static void add_calls(syn *s, uint32_t base)
{
    for (uint32_t k = 0; k < 4; k++) {
        uint64_t t = US(100 * k);
        sc_api_call *d = syn_call(s, SC_CALL_MALLOC, t, t + US(5), base + k, "cuMemAlloc",
                                  NULL, 0);
        syn_call_flags(s, d, SC_API_DRIVER);
        if (k == 3) {
            sc_api_call *d2 = syn_call(s, SC_CALL_MALLOC, t, t + US(6), base + k,
                                       "cuMemAlloc_second", NULL, 0);
            syn_call_flags(s, d2, SC_API_DRIVER);
        } else {
            syn_call(s, SC_CALL_MALLOC, t, t + US(9), base + k, "cudaMalloc", NULL, 0);
        }
    }
}

static void check(uint32_t base, uint32_t far_id, bool table)
{
    syn s;
    syn_init(&s);
    add_calls(&s, base);
    if (far_id)     /* one id far from the others: too sparse for a table */
        syn_call(&s, SC_CALL_MALLOC, US(900), US(901), far_id, "cudaMalloc", NULL, 0);
    syn_finish(&s);
    sc_analysis a = {0};
    a.trace = &s.t;
    sc_ctx ctx = {.trace = &s.t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    assert_int_equal(ctx.corr_first != NULL, table);
    for (uint32_t k = 0; k < 3; k++)
        assert_string_equal(sc_call_name(&s.t, sc_ctx_call(&ctx, base + k)), "cudaMalloc");
    assert_string_equal(sc_call_name(&s.t, sc_ctx_call(&ctx, base + 3)), "cuMemAlloc");
    assert_null(sc_ctx_call(&ctx, 0));
    assert_null(sc_ctx_call(&ctx, base + 4));
    assert_null(sc_ctx_call(&ctx, base - 1));
    if (far_id)
        assert_non_null(sc_ctx_call(&ctx, far_id));
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
    syn_free(&s);
}

static void test_dense_ids(void **state)
{
    (void)state;
    check(10, 0, true);
}

static void test_sparse_ids(void **state)
{
    (void)state;
    check(10, 5000000, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_ids),
        cmocka_unit_test(test_sparse_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
