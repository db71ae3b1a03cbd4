/* deps.h's stream handles: one handle named by many calls is one entry, and every call finds
 * its stream; a handle that names two streams (reused after a destroy) keeps every entry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/deps.h"
#include "synthetic.h"

/* A launch on `handle` at `start` whose kernel ran on stream id `stream`. */
static void launch(syn *s, uint64_t handle, uint32_t stream, uint64_t start, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, start, start + US(2), corr, NULL, NULL, 0);
    c->rec.stream = handle;
    syn_kernel(s, 0, stream, start + US(5), start + US(10), corr);
}

static void test_one_entry_per_handle(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < 50; k++) {
        launch(&s, 0xa000, 7, US(20 * k), 2 * k + 1);
        launch(&s, 0xb000, 9, US(20 * k + 10), 2 * k + 2);
    }
    syn_finish(&s);
    sc_deps d;
    assert_int_equal(sc_deps_build(&s.t, &d), 0);
    assert_int_equal(d.n_handles, 2);
    for (size_t i = 0; i < s.t.n_calls; i++) {
        uint32_t stream = 0;
        assert_true(sc_deps_stream_of(&d, &s.t.calls[i], &stream));
        assert_int_equal(stream, s.t.calls[i].rec.stream == 0xa000 ? 7 : 9);
    }
    sc_deps_free(&d);
    syn_free(&s);
}

static void test_reused_handle_keeps_all(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < 10; k++)      /* the handle names stream 3, then stream 4 */
        launch(&s, 0xc000, k < 5 ? 3 : 4, US(20 * k), k + 1);
    syn_finish(&s);
    sc_deps d;
    assert_int_equal(sc_deps_build(&s.t, &d), 0);
    assert_int_equal(d.n_handles, 10);
    uint32_t stream = 0;
    assert_true(sc_deps_stream_of(&d, &s.t.calls[0], &stream));
    assert_true(stream == 3 || stream == 4);
    sc_deps_free(&d);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_entry_per_handle),
        cmocka_unit_test(test_reused_handle_keeps_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
