/* Rule host-func, and the replay's hold after a host function. Device 0, context 1; streams 20
 * and 21 non-blocking (handles 0xA0, 0xA1). Every expected number is worked out in the
 * comments from the definitions of src/analyze/host_func.c (held = the next work's start
 * minus the later of the end of the work before the function and the next work's issue) and
 * of src/analyze/replay.h (a piece of work starts at the latest of its issue plus the typical
 * issue lag and its stream predecessor's end plus the typical stream lag, plus the delay the
 * function added, which the fix removes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define S20 20
#define S21 21
#define H20 0xA0u
#define H21 0xA1u

/* A 5 us launch call at `at` naming its stream by `handle`, and its kernel. */
static void launch(syn *s, uint32_t stream, uint64_t handle, uint64_t at, uint64_t start,
                   uint64_t end, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, at, at + US(5), corr, NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    syn_kernel(s, 0, stream, start, end, corr);
}

static void host_func(syn *s, uint64_t handle, uint64_t start, uint64_t end, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_HOST_FUNC, start, end, corr, "cudaLaunchHostFunc",
                              NULL, 0);
    syn_call_stream(s, c, handle);
    syn_call_aux(s, c, 0x401000);  /* the function's address */
}

static void setup(syn *s)
{
    syn_init(s);
    syn_stream(s, 0, S20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_stream(s, 0, S21, SC_STREAM_FLAG_NON_BLOCKING, 0);
}

/*   launch K1 on 20   0 .. 5 us, runs 10 .. 110
 *   cudaLaunchHostFunc on 20   5 .. 7
 *   launch K2 on 20   7 .. 12, runs 410 .. 510
 * K2 was issued at 7, long before K1 ended at 110: it could have started at 110; it started
 * at 410: held 300 us. Run span 0 .. 510.
 * The replay: the issue lag is K1's 10 us (K2 is bound by its stream, no issue sample); the
 * gap after a host function is not a stream-lag sample, so the stream lag is the default
 * 1 us. K2's model start is max(7 + 10, 110 + 1) = 111; the function added 410 - 111 = 299
 * us, kept as recorded: the unchanged replay is the recording. Without the hold K2 runs
 * 111 .. 211 and the run ends there: saving 510 - 211 = 299 us, 58.6% of the run: error. */
static void test_host_func_holding_the_stream_is_error(void **state)
{
    (void)state;
    syn s;
    setup(&s);
    launch(&s, S20, H20, 0, US(10), US(110), 1);
    host_func(&s, H20, US(5), US(7), 2);
    launch(&s, S20, H20, US(7), US(410), US(510), 3);
    sc_analysis a;
    syn_analyze(&s, &a);

    assert_int_equal(a.replay.recorded_span_ns, US(510));
    assert_int_equal(a.replay.replay_span_ns, US(510));
    assert_int_equal(a.replay.held, 0);
    assert_int_equal(a.replay.unexplained, 0);
    const sc_finding *f = syn_finding(&a, "host-func");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(300));
    assert_int_equal(f->cost_ns, US(299));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(syn_ev(&f->worst, "held_us") == 300.0);
    assert_true(syn_ev(&f->worst, "stream") == 20.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "host_functions") == 1.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "longest_held_us") == 300.0);
    assert_string_equal(sc_call_name(&s.t, f->worst.call), "cudaLaunchHostFunc");
    assert_non_null(strstr(f->worst.text, "stream 20"));
    assert_non_null(strstr(f->fix, "cudaEventSynchronize"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The same, with stream 21 running beside: K3 (launch 12 .. 17) runs 22 .. 400 and ends 10 us
 * before K2 starts. Another stream's work that ended right before late work would be taken
 * as holding it (room, a load); here the host function explains the delay, so nothing is
 * held and nothing is unexplained (K3's issue lag is 10 us too, so the model is unchanged).
 * Without the hold K2 runs 111 .. 211, K3 still ends at
 * 400: saving 510 - 400 = 110 us. The host function's own finding is the only one. */
static void test_hold_is_the_functions_not_the_other_streams(void **state)
{
    (void)state;
    syn s;
    setup(&s);
    launch(&s, S20, H20, 0, US(10), US(110), 1);
    host_func(&s, H20, US(5), US(7), 2);
    launch(&s, S20, H20, US(7), US(410), US(510), 3);
    launch(&s, S21, H21, US(12), US(22), US(400), 4);
    sc_analysis a;
    syn_analyze(&s, &a);

    assert_int_equal(a.replay.replay_span_ns, US(510));
    assert_int_equal(a.replay.held, 0);
    assert_int_equal(a.replay.unexplained, 0);
    const sc_finding *f = syn_finding(&a, "host-func");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(300));
    assert_int_equal(f->cost_ns, US(110));
    assert_int_equal(a.n_findings, 1);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A host function with nothing after it on its stream held nothing: no finding. */
static void test_nothing_after_the_function_is_silent(void **state)
{
    (void)state;
    syn s;
    setup(&s);
    launch(&s, S20, H20, 0, US(10), US(110), 1);
    host_func(&s, H20, US(5), US(7), 2);
    launch(&s, S21, H21, US(7), US(20), US(300), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "host-func"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The next work was issued only at 600, long after K1 ended at 110 (the host was late, not
 * the stream): it could start at 600 and started at 610, 10 us later, under the 20 us a
 * hold must exceed: no finding. */
static void test_work_issued_after_the_function_ran_is_not_held(void **state)
{
    (void)state;
    syn s;
    setup(&s);
    launch(&s, S20, H20, 0, US(10), US(110), 1);
    host_func(&s, H20, US(5), US(7), 2);
    launch(&s, S20, H20, US(600), US(610), US(700), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "host-func"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Two functions in a row (5 .. 7 and 7 .. 9) before K2 (launch 9 .. 14, runs 410 .. 510):
 * one hold of the same work, counted once (300 us, the later function named), two
 * functions. */
static void test_functions_in_a_row_hold_once(void **state)
{
    (void)state;
    syn s;
    setup(&s);
    launch(&s, S20, H20, 0, US(10), US(110), 1);
    host_func(&s, H20, US(5), US(7), 2);
    host_func(&s, H20, US(7), US(9), 3);
    launch(&s, S20, H20, US(9), US(410), US(510), 4);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "host-func");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(300));
    assert_int_equal(f->worst.call->rec.correlation_id, 3);
    assert_true(syn_evidence(f->totals, f->n_totals, "host_functions") == 2.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_func_holding_the_stream_is_error),
        cmocka_unit_test(test_hold_is_the_functions_not_the_other_streams),
        cmocka_unit_test(test_nothing_after_the_function_is_silent),
        cmocka_unit_test(test_work_issued_after_the_function_ran_is_not_held),
        cmocka_unit_test(test_functions_in_a_row_hold_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
