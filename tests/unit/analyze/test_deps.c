/* deps.h's stream handles: one handle named by many calls is one entry, and every call finds
 * its stream; a handle that names two streams (reused after a destroy) keeps every entry; so
 * many handles that the set of distinct ones gives up; the stream of a call's correlation id
 * found by table and by list alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

/* The streams of the calls' correlation ids, whichever way they are looked up: a table by id
 * (dense ids, one stream each), or the sorted list (an id whose work ran on two streams, or
 * ids too sparse for a table). */
static void check_streams(uint32_t far_id, bool two_streams)
{
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < 20; k++)
        launch(&s, 0xa000 + (k % 2) * 0x1000, 7 + (k % 2) * 2, US(20 * k), k + 1);
    if (two_streams)    /* a second kernel of launch 1 on another stream */
        syn_kernel(&s, 0, 11, US(500), US(510), 1);
    if (far_id)
        launch(&s, 0xc000, 13, US(600), far_id);
    syn_finish(&s);
    sc_deps d;
    assert_int_equal(sc_deps_build(&s.t, &d), 0);
    for (size_t i = 0; i < s.t.n_calls; i++) {
        const sc_api_call *c = &s.t.calls[i];
        uint32_t stream = 0;
        assert_true(sc_deps_stream_of(&d, c, &stream));
        uint32_t want = c->rec.stream == 0xa000 ? 7 : c->rec.stream == 0xb000 ? 9 : 13;
        if (!(two_streams && c->rec.correlation_id == 1))
            assert_int_equal(stream, want);
    }
    sc_deps_free(&d);
    syn_free(&s);
}

/* A stream per step, each on a handle of its own: more distinct handles than the set of
 * distinct entries keeps (deps.c), so the list is made from every call's entry; every call
 * still finds its stream. */
static void test_many_handles(void **state)
{
    (void)state;
    enum { N = 3000 };
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < N; k++)   /* handles in descending order: each one inserted first */
        launch(&s, 0x100000 - 0x10 * (uint64_t)k, 100 + k, US(20 * k), k + 1);
    syn_finish(&s);
    sc_deps d;
    assert_int_equal(sc_deps_build(&s.t, &d), 0);
    assert_int_equal(d.n_handles, N);
    for (size_t i = 0; i < s.t.n_calls; i++) {
        uint32_t stream = 0;
        assert_true(sc_deps_stream_of(&d, &s.t.calls[i], &stream));
        assert_int_equal(stream, 100 + (0x100000 - s.t.calls[i].rec.stream) / 0x10);
    }
    sc_deps_free(&d);
    syn_free(&s);
}

static void test_streams_by_table(void **state)
{
    (void)state;
    check_streams(0, false);
}

static void test_streams_by_list(void **state)
{
    (void)state;
    check_streams(0, true);         /* id 1 names two streams */
    check_streams(9000000, false);  /* ids too sparse */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_entry_per_handle),
        cmocka_unit_test(test_reused_handle_keeps_all),
        cmocka_unit_test(test_many_handles),
        cmocka_unit_test(test_streams_by_table),
        cmocka_unit_test(test_streams_by_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
