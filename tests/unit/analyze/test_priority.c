/* Rule priority, and the replay's dispatch in arrival order (SC_FIX_ARRIVAL). Device 0 an
 * H200-like device (132 SMs, 2048 threads per SM); stream 20 (L, handle 0xA0) at priority 0,
 * stream 21 (H, handle 0xA1) at priority -5 (higher). H's grids are 8448 blocks of 128
 * threads: 16 blocks per SM by threads, a wave of 2112 blocks, 4 waves, 100 us each. Every
 * expected number is worked out in the comments from src/analyze/priority.c and
 * src/analyze/replay.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define SL 20
#define SH 21
#define HL 0xA0u
#define HH 0xA1u

static const char *const names[] = {"?", "grid_h", "small_l"};

static void setup(syn *s, int32_t low_priority, int32_t high_priority)
{
    syn_init(s);
    syn_device(s, 0, 132)->rec =
        (sc_rec_device){.device = 0, .sm_count = 132, .max_threads_per_sm = 2048,
                        .max_blocks_per_sm = 32, .max_regs_per_sm = 65536,
                        .max_shared_per_sm = 233472, .cc_major = 9};
    syn_stream(s, 0, SL, SC_STREAM_FLAG_NON_BLOCKING, 0)->priority = low_priority;
    syn_stream(s, 0, SH, SC_STREAM_FLAG_NON_BLOCKING, 0)->priority = high_priority;
}

/* A 5 us launch call at `at` on stream handle `handle`, and its kernel. */
static void launch(syn *s, uint32_t stream, uint64_t handle, uint32_t name, uint64_t at,
                   uint64_t start, uint64_t end, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, at, at + US(5), corr, NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    sc_kernel *k = syn_kernel(s, 0, stream, start, end, corr);
    syn_shape(s, k)->name_id = name;
    syn_shape(s, k)->name = names[name];
    syn_shape(s, k)->grid_x = name == 1 ? 8448 : 8;
    syn_shape(s, k)->block_x = 128;
}

/*   H: G1  launch 0 .. 5,   runs 10 .. 410
 *   L: L1  launch 5 .. 10,  runs 810 .. 910
 *   H: G2  launch 10 .. 15, runs 410 .. 810
 *   L: L2  launch 15 .. 20, runs 910 .. 1010
 * L1 was ready at 10 (its call's end, nothing before it on L). G2 became ready at 410 (G1's
 * end), after L1, and ran first: it overtook L1, which waited 810 - 10 = 800 us. G1 became
 * ready at 5, before L1: not an overtaker. L2 was ready at 910, when it started: no wait.
 * Run span 0 .. 1010.
 * The replay: the issue lag is G1's 10 us (the only kernel bound by its issue); the stream
 * lag 0 (G2 after G1, L2 after L1); L1 is bound by room behind the full grids G1 and G2:
 * unchanged, every kernel lands where it was recorded.
 * The fix dispatches L1 and L2 in arrival order: L1 ready at 5 + 10 = 15 starts when G1,
 * ready before it, begins its last wave: 10 + 3 x 100 = 310, and runs 310 .. 410; L2, ready
 * at 410, finds G1 over and G2 ready no earlier than itself: 410 .. 510. The run ends with
 * G2 at 810: saving 1010 - 810 = 200 us, 19.8% of the run: error. */
static void build_starved(syn *s, int32_t low, int32_t high)
{
    setup(s, low, high);
    launch(s, SH, HH, 1, 0, US(10), US(410), 1);
    launch(s, SL, HL, 2, US(5), US(810), US(910), 2);
    launch(s, SH, HH, 1, US(10), US(410), US(810), 3);
    launch(s, SL, HL, 2, US(15), US(910), US(1010), 4);
}

static void test_starved_by_a_higher_priority_stream_is_error(void **state)
{
    (void)state;
    syn s;
    build_starved(&s, 0, -5);
    sc_analysis a;
    syn_analyze(&s, &a);

    assert_int_equal(a.replay.recorded_span_ns, US(1010));
    assert_int_equal(a.replay.replay_span_ns, US(1010));
    const sc_finding *f = syn_finding(&a, "priority");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(800));
    assert_int_equal(f->cost_ns, US(200));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(syn_ev(&f->worst, "wait_us") == 800.0);
    assert_true(syn_ev(&f->worst, "overtaken_by") == 1.0);
    assert_true(syn_ev(&f->worst, "priority") == 0.0);
    assert_true(syn_ev(&f->worst, "highest_overtaking_priority") == -5.0);
    assert_true(syn_ev(&f->worst, "stream") == 20.0);
    assert_non_null(strstr(f->worst.text, "small_l on stream 20 (priority 0) waited 800 us"));
    assert_non_null(strstr(f->fix, "cudaStreamCreateWithPriority"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The same run with both streams at priority 0: nothing overtook by priority. */
static void test_equal_priorities_are_silent(void **state)
{
    (void)state;
    syn s;
    build_starved(&s, 0, 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "priority"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Without G2, L1 (launch 5 .. 10) runs 410 .. 510, after G1, which was ready before it: it
 * waited for room, not for a grid that overtook it. */
static void test_waiting_for_an_earlier_grid_is_not_priority(void **state)
{
    (void)state;
    syn s;
    setup(&s, 0, -5);
    launch(&s, SH, HH, 1, 0, US(10), US(410), 1);
    launch(&s, SL, HL, 2, US(5), US(410), US(510), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "priority"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The program orders L1 behind G2: an event recorded on H after G2's launch (15 .. 17) and
 * waited for on L (17 .. 19) before L1 is launched (19 .. 24, runs 810 .. 910). G2 did not
 * overtake L1: L1 waited because the program said so. */
static void test_ordered_by_an_event_is_not_priority(void **state)
{
    (void)state;
    syn s;
    setup(&s, 0, -5);
    launch(&s, SH, HH, 1, 0, US(10), US(410), 1);
    launch(&s, SH, HH, 1, US(10), US(410), US(810), 3);
    sc_api_call *rec = syn_call(&s, SC_CALL_EVENT_RECORD, US(15), US(17), 0, "cudaEventRecord",
                                NULL, 0);
    syn_call_stream(&s, rec, HH);
    syn_call_aux(&s, rec, 0xE1);
    sc_api_call *wait = syn_call(&s, SC_CALL_EVENT_WAIT, US(17), US(19), 0,
                                 "cudaStreamWaitEvent", NULL, 0);
    syn_call_stream(&s, wait, HL);
    syn_call_aux(&s, wait, 0xE1);
    launch(&s, SL, HL, 2, US(19), US(810), US(910), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "priority"));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_starved_by_a_higher_priority_stream_is_error),
        cmocka_unit_test(test_equal_priorities_are_silent),
        cmocka_unit_test(test_waiting_for_an_earlier_grid_is_not_priority),
        cmocka_unit_test(test_ordered_by_an_event_is_not_priority),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
