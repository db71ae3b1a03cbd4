/* One process, two devices: a cudaStreamWaitEvent on device 1's stream for an event recorded
 * on device 0's stream is an edge of the replay, and rule cross-device-wait prices it.
 * Device 0 runs context 1 and stream 20 (handle 0xA0); device 1 runs context 2 and stream 30
 * (handle 0xB0), as CUDA gives each device a context of its own. Every expected number is
 * worked out in the comments from the timings (us) and the replay's rules (replay.h): the
 * typical issue lag is the lower quartile of launch latencies, the cross-stream lag that of
 * the ends an event let work start after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define CTX1 2u                 /* device 1's context */
#define H20 0xA0u
#define H30 0xB0u
#define EVENT 0xE1u

static void two_devices(syn *s, uint32_t dev_b, uint32_t ctx_b)
{
    syn_device(s, 0, 132);
    if (dev_b != 0)
        syn_device(s, dev_b, 132);
    syn_stream(s, 0, 20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_stream(s, dev_b, 30, SC_STREAM_FLAG_NON_BLOCKING, 0)->context_id = ctx_b;
}

/* A 5 us launch call at `at` on a stream of (device, context) and its kernel. */
static void launch(syn *s, uint32_t dev, uint32_t ctx, uint32_t stream, uint64_t handle,
                   uint64_t at, uint64_t start, uint64_t end, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, at, at + US(5), corr, NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    syn_call_context(s, c, ctx);
    syn_shape(s, syn_kernel(s, dev, stream, start, end, corr))->context_id = ctx;
}

/*   launch A 0 .. 5 on device 0's 20: A 10 .. 1010 (issue lag 10)
 *   cudaEventRecord(E, 20) 5 .. 7, context 1
 *   cudaStreamWaitEvent(30, E) 7 .. 9, context 2 (device 1)
 *   launch B 9 .. 14 on device 1's 30: B 1012 .. 2012 (2 us after A: the event's lag)
 * Replayed unchanged: A at 0 + 10, B at max(9 + 10, 1010 + 2) = 1012: 2012 us, the recording,
 * with nothing held and nothing unexplained (without the edge across devices B would be
 * 993 us late for no reason the model names). */
static void serializing_wait(syn *s, uint32_t dev_b, uint32_t ctx_b)
{
    two_devices(s, dev_b, ctx_b);
    launch(s, 0, SYN_CONTEXT, 20, H20, 0, US(10), US(1010), 1);
    sc_api_call *rec = syn_call(s, SC_CALL_EVENT_RECORD, US(5), US(7), 0, "cudaEventRecord",
                                NULL, 0);
    syn_call_stream(s, rec, H20);
    syn_call_aux(s, rec, EVENT);
    sc_api_call *w = syn_call(s, SC_CALL_EVENT_WAIT, US(7), US(9), 0, "cudaStreamWaitEvent",
                              NULL, 0);
    syn_call_stream(s, w, H30);
    syn_call_aux(s, w, EVENT);
    syn_call_context(s, w, ctx_b);
    launch(s, dev_b, ctx_b, 30, H30, US(9), US(1012), US(2012), 2);
}

/* The wait across devices, priced: without it B starts 10 us after its call, 19 .. 1019,
 * while A runs 10 .. 1010 on the other device: span 1019, saving 2012 - 1019 = 993 us,
 * 49% of the run: an error. It waited from B's issue (9; nothing before it on 30) to A's
 * end (1010): 1001 us. */
static void test_cross_device_wait_is_an_edge_and_a_finding(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    serializing_wait(&s, 1, CTX1);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.recorded_span_ns, US(2012));
    assert_int_equal(a.replay.replay_span_ns, US(2012));
    assert_int_equal(a.replay.held, 0);
    assert_int_equal(a.replay.unexplained, 0);
    const sc_finding *f = syn_finding(&a, "cross-device-wait");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(1001));
    assert_int_equal(f->cost_ns, US(993));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_false(f->join);
    assert_true(syn_ev(&f->worst, "waiting_device") == 1.0);
    assert_true(syn_ev(&f->worst, "recorded_device") == 0.0);
    assert_int_equal(a.replay.fixed_span_ns, US(1019));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The same wait, then A2 on device 0's 20 (launch 15 .. 20, A2 1011 .. 3011 after A): the run
 * ends with A2 whatever B does. Without the wait B runs 19 .. 1019 and the span stays 3011:
 * saving 0 against 1001 us waited: a note, and a join (the run waits for device 0 anyway;
 * whether B reads A's result the trace cannot tell). */
static void test_wait_that_saves_nothing_is_a_join(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    serializing_wait(&s, 1, CTX1);
    launch(&s, 0, SYN_CONTEXT, 20, H20, US(15), US(1011), US(3011), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(3011));
    const sc_finding *f = syn_finding(&a, "cross-device-wait");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(1001));
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_true(f->join);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Both streams on device 0, one context: the same edge orders them (span 2012, nothing
 * unexplained), but a wait inside one device is no cross-device wait. */
static void test_wait_within_a_device_is_not_cross(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    serializing_wait(&s, 0, SYN_CONTEXT);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(2012));
    assert_int_equal(a.replay.unexplained, 0);
    assert_null(syn_finding(&a, "cross-device-wait"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The clean twin: device 1 waits for nothing (no record, no wait): B 19 .. 1019 as issued,
 * A 10 .. 1010: both devices at once, span 1019, no finding. */
static void test_clean_twin_has_no_finding(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    two_devices(&s, 1, CTX1);
    launch(&s, 0, SYN_CONTEXT, 20, H20, 0, US(10), US(1010), 1);
    launch(&s, 1, CTX1, 30, H30, US(9), US(19), US(1019), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(1019));
    assert_null(syn_finding(&a, "cross-device-wait"));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_device_wait_is_an_edge_and_a_finding),
        cmocka_unit_test(test_wait_that_saves_nothing_is_a_join),
        cmocka_unit_test(test_wait_within_a_device_is_not_cross),
        cmocka_unit_test(test_clean_twin_has_no_finding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
