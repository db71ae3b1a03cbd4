/* Rule lazy-loading. Streams 20, 21 and 22 are non-blocking, 7 is the legacy stream and 13 a
 * blocking one. Kernels: name 1 "spin_kernel", name 2 "sweep_kernel", name 3 "tail_kernel".
 * The trace has no device record, so no-room stays out of the way. Every expected number is
 * worked out from the timings in the comments: the delay as the rule measures it, the saving
 * with the replay (src/analyze/replay.h: issue lags are the lower quartile of the trace's
 * launch latencies, 10 us here unless said; work held behind other work keeps its lag).
 * Without CUPTI's OVERHEAD records the rule infers a load (the first tests); with them it
 * takes CUPTI's word (the last ones). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define LEGACY 7
#define BLOCKING 13
#define A 20
#define B 21
#define C 22
#define SPIN 1
#define SWEEP 2
#define TAIL 3

static const char *const names[] = {"?", "spin_kernel", "sweep_kernel", "tail_kernel"};

static void streams(syn *s)
{
    syn_stream(s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(s, 0, BLOCKING, SC_STREAM_FLAG_BLOCKING, 100);
    syn_stream(s, 0, A, SC_STREAM_FLAG_NON_BLOCKING, 101);
    syn_stream(s, 0, B, SC_STREAM_FLAG_NON_BLOCKING, 102);
}

/* A launch call [call_start, call_end] and its kernel [start, end]. */
static void launch(syn *s, uint32_t stream, uint32_t name, uint64_t call_start,
                   uint64_t call_end, uint64_t start, uint64_t end, uint32_t corr)
{
    syn_call(s, SC_CALL_LAUNCH, call_start, call_end, corr, NULL, NULL, 0);
    sc_kernel *k = syn_kernel(s, 0, stream, start, end, corr);
    syn_shape(s, k)->name_id = name;
    syn_shape(s, k)->name = names[name];
}

/* The GPU-FACTS case, cold then warm:
 *   spin#1  on 20: call 0 .. 5 us,       runs 10 .. 1010 us
 *   sweep#1 on 21: call 20 .. 25 us,     runs 1015 .. 1115 us  (5 us after the spin ended)
 *   spin#2  on 20: call 2000 .. 2005 us, runs 2010 .. 3010 us
 *   sweep#2 on 21: call 2020 .. 2025 us, runs 2033 .. 2133 us  (inside spin#2: overlapped)
 * sweep#1: spin#1 in flight at its issue (ends 1010 > 20), independent streams, started
 * 1015 - 1010 = 5 us after it (<= 20 us); corroborated by sweep#2 overlapping. Usual call =
 * median of {5 us} = 5 us; ready = min(call end 25, 20 + 5) = 25 us, own stream empty.
 * Delay = 1015 - 25 = 990 us. spin#1 had nothing in flight at its issue. */
static void cold_then_warm(syn *s)
{
    streams(s);
    launch(s, A, SPIN, 0, US(5), US(10), US(1010), 1);
    launch(s, B, SWEEP, US(20), US(25), US(1015), US(1115), 2);
    launch(s, A, SPIN, US(2000), US(2005), US(2010), US(3010), 3);
    launch(s, B, SWEEP, US(2020), US(2025), US(2033), US(2133), 4);
}

/* The report's kernel-name hook (sc_analyze_options): what it returns names the kernels in
 * the finding's text and title, and it is asked once per distinct name, not per mention. */
static unsigned hook_calls;

static char *prefixed_name(const char *recorded)
{
    hook_calls++;
    char *out = malloc(strlen(recorded) + 5);
    if (out)
        sprintf(out, "ns::%s", recorded);
    return out;
}

static void test_kernel_names_through_the_hook(void **state)
{
    (void)state;
    static const char *env[] = {"CUDA_MODULE_LOADING=LAZY"};
    syn s;
    syn_init(&s);
    cold_then_warm(&s);
    s.t.env = env;
    s.t.n_env = 1;
    syn_finish(&s);
    const sc_analyze_options opt = {.kernel_name = prefixed_name};
    sc_analysis a;
    char err[256];
    hook_calls = 0;
    assert_int_equal(sc_analyze_with(&s.t, &opt, &a, err, sizeof err), 0);
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_non_null(strstr(f->worst.text, "first launch of ns::sweep_kernel on stream 21"));
    assert_non_null(strstr(f->worst.text, " behind ns::spin_kernel on stream 20"));
    assert_non_null(strstr(f->title, "ns::sweep_kernel"));
    assert_true(hook_calls >= 1 && hook_calls <= 2);  /* sweep_kernel, spin_kernel */
    sc_analysis_free(&a);
    /* without a hook, the names as recorded */
    assert_int_equal(sc_analyze(&s.t, &a, err, sizeof err), 0);
    f = syn_finding(&a, "lazy-loading");
    assert_non_null(strstr(f->worst.text, "first launch of sweep_kernel on stream 21"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The delay is real, but nothing waits for sweep#1: the host launches round two at 2000 us
 * whatever happens, and the run ends with spin#2. Unholding sweep#1 (30 .. 130 us) saves
 * nothing: a note, and a join (it waited 990 us for what the run waited for anyway). */
static void test_first_launch_behind_other_stream(void **state)
{
    (void)state;
    static const char *env[] = {"CUDA_MODULE_LOADING=LAZY"};
    syn s;
    syn_init(&s);
    cold_then_warm(&s);
    s.t.env = env;
    s.t.n_env = 1;
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(990));
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_true(f->join);
    assert_int_equal(f->worst.call->rec.correlation_id, 2);
    assert_int_equal(f->worst.start_ns, US(1015));
    const sc_evidence *ev = f->worst.evidence;
    size_t n = f->worst.n_evidence;
    assert_true(syn_evidence(ev, n, "delay_us") == 990.0);
    assert_true(syn_evidence(ev, n, "first_call_us") == 5.0);
    assert_true(syn_evidence(ev, n, "usual_call_us") == 5.0);
    assert_true(syn_evidence(ev, n, "stream") == B);
    assert_true(syn_evidence(ev, n, "waited_behind_stream") == A);
    assert_true(syn_evidence(ev, n, "later_launches") == 1.0);
    assert_true(syn_evidence(ev, n, "later_overlapped") == 1.0);
    assert_true(syn_evidence(ev, n, "long_first_call") == 0.0);
    assert_string_equal(f->worst.text,
                        "first launch of sweep_kernel on stream 21 waited 990 us behind "
                        "spin_kernel on stream 20 (launch call 5.00 us, usually 5.00 us)");
    assert_non_null(strstr(f->title, "lazy module loading"));
    assert_non_null(strstr(f->fix, "CUDA_MODULE_LOADING=EAGER"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The same, with the host waiting for the device after round one (cudaDeviceSynchronize
 * 30 .. 1120 us: it waits for spin#1 and sweep#1, 5 us after sweep#1's end) before the 880
 * us of host time that lead to round two. Unheld, sweep#1 runs 30 .. 130 us and the sync
 * returns 5 us after spin#1's end, at 1015: round two, and the run, end 105 us sooner. 105
 * of 3010 us is 3.5%: a warning. */
static void test_first_launch_behind_other_stream_host_waits(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, A, SPIN, 0, US(5), US(10), US(1010), 1);
    launch(&s, B, SWEEP, US(20), US(25), US(1015), US(1115), 2);
    syn_call(&s, SC_CALL_DEVICE_SYNC, US(30), US(1120), 5, "cudaDeviceSynchronize", NULL, 0);
    launch(&s, A, SPIN, US(2000), US(2005), US(2010), US(3010), 3);
    launch(&s, B, SWEEP, US(2020), US(2025), US(2033), US(2133), 4);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(990));
    assert_int_equal(f->cost_ns, US(105));
    assert_int_equal(f->severity, SC_SEV_WARNING);
    assert_false(f->join);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Corroborated by the call instead: the module load happened inside the first call.
 *   spin    on 20: call 0 .. 5 us,       runs 10 .. 1010 us
 *   sweep#1 on 21: call 20 .. 1012 us,   runs 1015 .. 1115 us  (call 992 us)
 *   sweep#2 on 21: call 2000 .. 2004 us, runs 2010 .. 2110 us  (alone)
 *   sweep#3 on 21: call 2200 .. 2206 us, runs 2210 .. 2310 us  (alone)
 * Usual call = median of {4, 6} = 5 us; 992 >= 5 x 5 and >= 5 + 20: a long first call.
 * ready = min(1012, 20 + 5) = 25 us (the load inside the call is charged too), so the
 * delay is 1015 - 25 = 990 us. Nothing waits for sweep#1 (the host issues sweep#2 at 2000 us
 * whatever): the fix saves nothing; without CUPTI's record of the load the call keeps its
 * time in the replay. */
static void test_long_first_call_corroborates(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, A, SPIN, 0, US(5), US(10), US(1010), 1);
    launch(&s, B, SWEEP, US(20), US(1012), US(1015), US(1115), 2);
    launch(&s, B, SWEEP, US(2000), US(2004), US(2010), US(2110), 3);
    launch(&s, B, SWEEP, US(2200), US(2206), US(2210), US(2310), 4);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(990));
    assert_int_equal(f->cost_ns, 0);
    const sc_evidence *ev = f->worst.evidence;
    size_t n = f->worst.n_evidence;
    assert_true(syn_evidence(ev, n, "first_call_us") == 992.0);
    assert_true(syn_evidence(ev, n, "usual_call_us") == 5.0);
    assert_true(syn_evidence(ev, n, "long_first_call") == 1.0);
    assert_true(syn_evidence(ev, n, "later_overlapped") == 0.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Nothing corroborates: sweep#2 also starts only after spin#2 ends (3012 > 3010) and every
 * call takes 5 us. The first launch may have had no room, or anything else: no finding. */
static void test_uncorroborated_wait_is_silent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, A, SPIN, 0, US(5), US(10), US(1010), 1);
    launch(&s, B, SWEEP, US(20), US(25), US(1015), US(1115), 2);
    launch(&s, A, SPIN, US(2000), US(2005), US(2010), US(3010), 3);
    launch(&s, B, SWEEP, US(2020), US(2025), US(3012), US(3112), 4);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "lazy-loading"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* (iv): the same run under CUDA_MODULE_LOADING=EAGER (any case) has nothing to load late. */
static void test_eager_loading_is_silent(void **state)
{
    (void)state;
    static const char *env[] = {"CUDA_VISIBLE_DEVICES=0", "CUDA_MODULE_LOADING=eager"};
    syn s;
    syn_init(&s);
    cold_then_warm(&s);
    s.t.env = env;
    s.t.n_env = 2;
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "lazy-loading"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* (iii): spin#1 on the blocking stream 13, sweep#1 on the legacy stream 7: that wait is the
 * legacy stream's serialization (the legacy-stream rule reports it), not a module load. The
 * warm pair runs on the independent streams 20 and 21, so the corroboration is there and
 * only (iii) keeps the rule quiet. */
static void test_legacy_blocking_pair_is_silent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, BLOCKING, SPIN, 0, US(5), US(10), US(1010), 1);
    launch(&s, LEGACY, SWEEP, US(20), US(25), US(1015), US(1115), 2);
    launch(&s, A, SPIN, US(2000), US(2005), US(2010), US(3010), 3);
    launch(&s, B, SWEEP, US(2020), US(2025), US(2033), US(2133), 4);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "lazy-loading"));
    assert_non_null(syn_finding(&a, "legacy-stream"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* (ii): a first launch that overlapped the spin (started at 500 us, inside 10 .. 1010), or
 * that started 40 us after the spin ended (> 20 us), did not wait behind it. */
static void test_overlapped_or_late_first_launch_is_silent(void **state)
{
    (void)state;
    const uint64_t starts[] = {US(500), US(1050)};
    for (size_t i = 0; i < 2; i++) {
        syn s;
        syn_init(&s);
        streams(&s);
        launch(&s, A, SPIN, 0, US(5), US(10), US(1010), 1);
        launch(&s, B, SWEEP, US(20), US(25), starts[i], starts[i] + US(100), 2);
        launch(&s, A, SPIN, US(2000), US(2005), US(2010), US(3010), 3);
        launch(&s, B, SWEEP, US(2020), US(2025), US(2033), US(2133), 4);
        sc_analysis a;
        syn_analyze(&s, &a);
        assert_null(syn_finding(&a, "lazy-loading"));
        sc_analysis_free(&a);
        syn_free(&s);
    }
}

/* (v): the own stream was busy until 1012 us (a copy on 21 issued at 15 us, running 30 ..
 * 1012 us), later than the spin's end: the sweep waited for its own stream. */
static void test_own_stream_busy_is_silent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    cold_then_warm(&s);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(15), US(18), 9, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, B, US(30), US(1012), 4096, 9, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
             SC_MEM_DEVICE);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "lazy-loading"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A short delay in a long run, and nothing waits for the delayed sweep: a note.
 *   spin#1  on 20: call 0 .. 5 us,       runs 10 .. 60 us
 *   sweep#1 on 21: call 20 .. 25 us,     runs 62 .. 70 us   (2 us after the spin)
 *   spin#2  on 20: call 2000 .. 2005 us, runs 2010 .. 3010 us
 *   sweep#2 on 21: call 2020 .. 2025 us, runs 2033 .. 2133 us (overlapped)
 *   tail    on 20: call 8990 .. 8995 us, runs 9000 .. 10000 us (nothing in flight)
 * Delay = 62 - 25 = 37 us; unheld, sweep#1 runs 30 .. 38 us and nothing moves: saves 0. */
static void test_short_delay_saving_nothing_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, A, SPIN, 0, US(5), US(10), US(60), 1);
    launch(&s, B, SWEEP, US(20), US(25), US(62), US(70), 2);
    launch(&s, A, SPIN, US(2000), US(2005), US(2010), US(3010), 3);
    launch(&s, B, SWEEP, US(2020), US(2025), US(2033), US(2133), 4);
    launch(&s, A, TAIL, US(8990), US(8995), US(9000), US(10000), 5);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(37));
    assert_int_equal(f->cost_ns, 0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* ---- from CUPTI's OVERHEAD records ---------------------------------------------------- */

/* A launch with its stream handle (the handle names the stream in a synchronization). */
static void launch_on(syn *s, uint32_t stream, uint64_t handle, uint32_t name,
                      uint64_t call_start, uint64_t call_end, uint64_t start, uint64_t end,
                      uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, call_start, call_end, corr, NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    sc_kernel *k = syn_kernel(s, 0, stream, start, end, corr);
    syn_shape(s, k)->name_id = name;
    syn_shape(s, k)->name = names[name];
}

/* GPU-FACTS.md's "one launch": a 2.5 ms spin on A, then the only launch ever of the sweep on
 * B, whose call 20 .. 40 us loaded its module (CUPTI: 25 .. 37 us, the call's correlation
 * id). The sweep ran 2514 .. 2614 us, 4 us after the spin ended.
 * The rule: ready = the call's end without the load, 40 - 12 = 28 us; delay 2514 - 28 = 2486
 * us; one operation held. The replay (issue lag: the lower quartile of 10 and 2494 us, 10 us):
 * the load is still paid, at the thread's start (a module loaded eagerly or by a warm-up
 * takes its time all the same), so everything moves 12 us later: the spin runs 22 .. 2522;
 * unheld, the sweep runs 42 .. 142 us inside it, and the run ends with the spin at 2522
 * instead of 2614: 92 us saved, 3.5% of the run: a warning. */
static void test_load_record_holding_the_kernel(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, A, SPIN, 0, US(5), US(10), US(2510), 1);
    launch(&s, B, SWEEP, US(20), US(40), US(2514), US(2614), 2);
    syn_overhead(&s, SC_OVERHEAD_LAZY_FUNCTION_LOADING, US(25), US(37), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->worst.call->rec.correlation_id, 2);
    const sc_evidence *ev = f->worst.evidence;
    size_t n = f->worst.n_evidence;
    assert_true(syn_evidence(ev, n, "load_us") == 12.0);
    assert_true(syn_evidence(ev, n, "delay_us") == 2486.0);
    assert_true(syn_evidence(ev, n, "held_operations") == 1.0);
    assert_true(syn_evidence(ev, n, "waited_behind_stream") == A);
    assert_non_null(strstr(f->worst.text, "first launch of sweep_kernel on stream 21 loaded "
                                          "its module (12.0 us): 1 operation waited"));
    assert_int_equal(f->waited_ns, US(2486));
    assert_int_equal(f->cost_ns, US(92));
    assert_int_equal(f->severity, SC_SEV_WARNING);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The call itself waits (what the H200 does: the load waits for the running kernel): the
 * spin on A 10 .. 2510 us, then the only launch of the sweep on B, whose call 20 .. 2530 us
 * returned after the spin ended and loaded the module 2515 .. 2525 us (CUPTI, the call's
 * correlation id); the sweep ran 2535 .. 2635, 5 us after the call; the host's last
 * cudaDeviceSynchronize 2540 .. 2641.
 * The rule: the spin ended inside the call, so the call waited 2510 - 20 = 2490 us, the host
 * and the sweep with it; no operation was held behind the call.
 * The replay (issue lag 10 us: the spin's; the sweep, issued by a loading call, is not a
 * sample) reproduces the run: the call waits for the device and returns 20 us after the
 * spin, the sweep 5 us after the call, the sync 6 us after the sweep: 2641 us. Without the
 * load in the call, it is paid at the thread's start: everything 10 us later, the spin
 * 20 .. 2520; the call takes its 20 us after the wait less the load: 30 .. 40; the sweep
 * runs 40 .. 140 inside the spin; the sync (10 us after the call, as recorded: 50) waits for
 * the spin and returns 6 us after it: 2526. Saving 2641 - 2526 = 115 us, 4.4% of the run: a
 * warning. The sync is the program's last wait: no work followed it, nothing to price. */
static void test_load_record_call_waited(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, A, SPIN, 0, US(5), US(10), US(2510), 1);
    launch(&s, B, SWEEP, US(20), US(2530), US(2535), US(2635), 2);
    syn_overhead(&s, SC_OVERHEAD_LAZY_FUNCTION_LOADING, US(2515), US(2525), 2);
    syn_call(&s, SC_CALL_DEVICE_SYNC, US(2540), US(2641), 3, "cudaDeviceSynchronize", NULL, 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(2641));
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    const sc_evidence *ev = f->worst.evidence;
    size_t n = f->worst.n_evidence;
    assert_true(syn_evidence(ev, n, "load_us") == 10.0);
    assert_true(syn_evidence(ev, n, "delay_us") == 2490.0);
    assert_true(syn_evidence(ev, n, "call_waited") == 1.0);
    assert_true(syn_evidence(ev, n, "held_operations") == 0.0);
    assert_true(syn_evidence(ev, n, "waited_behind_stream") == A);
    assert_non_null(strstr(f->worst.text, "first launch of sweep_kernel on stream 21 loaded "
                                          "its module (10.0 us): the call waited 2.49 ms "
                                          "for spin_kernel on stream 20 to end"));
    assert_int_equal(f->waited_ns, US(2490));
    assert_int_equal(f->cost_ns, US(115));
    assert_int_equal(f->severity, SC_SEV_WARNING);
    assert_int_equal(a.replay.fixed_span_ns, US(2526));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* As the H200 records it (suspects lazy-once): the kernel starts 2 us after the load ended
 * but before the call returns. Spin on A 10 .. 2510; the sweep's call 20 .. 2530 waited, its
 * load 2515 .. 2525, the sweep 2527 .. 2627; the last cudaDeviceSynchronize 2530 .. 2633.
 * The replay times the sweep from the load's end (the call's end less the 5 us it spent after
 * the load) and reproduces 2633 us. Without the load in the call (paid at the thread's start:
 * everything 10 us later, the spin 20 .. 2520) the call ends at 30 + 20 - 10 = 40, the sweep
 * runs 40 .. 140, the sync (at 40) returns 6 us after the spin, at 2526: saving 107 us, 4.1%
 * of the run: a warning. */
static void test_load_record_kernel_before_the_call_returns(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, A, SPIN, 0, US(5), US(10), US(2510), 1);
    launch(&s, B, SWEEP, US(20), US(2530), US(2527), US(2627), 2);
    syn_overhead(&s, SC_OVERHEAD_LAZY_FUNCTION_LOADING, US(2515), US(2525), 2);
    syn_call(&s, SC_CALL_DEVICE_SYNC, US(2530), US(2633), 3, "cudaDeviceSynchronize", NULL, 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(2633));
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->cost_ns, US(107));
    assert_int_equal(f->severity, SC_SEV_WARNING);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The load holds more than its kernel: a tail kernel on C, launched after the load (45 .. 50
 * us), also started as the spin ended (2515 .. 2615). The host then waits for stream C only
 * (cudaStreamSynchronize 55 .. 2620) and runs a 1 ms kernel on C (launched 2700, runs 2710 ..
 * 3710). Delays: sweep 2514 - 28 = 2486 us, tail 2515 - 50 = 2465 us: 4951 us, two held.
 * The 12 us load is paid at the thread's start: everything 12 us later, the spin 22 .. 2522.
 * Unheld: the sweep runs 42 .. 142, the tail 67 .. 167, the sync returns at 172, the 1 ms
 * kernel runs 262 .. 1262 (the host's 80 us after the sync and the 10 us lag), and the run
 * ends with the spin at 2522 instead of 3710: 1188 us saved, 32% of the run: an error. */
static void test_load_record_holding_other_streams(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    syn_stream(&s, 0, C, SC_STREAM_FLAG_NON_BLOCKING, 103);
    launch(&s, A, SPIN, 0, US(5), US(10), US(2510), 1);
    launch(&s, B, SWEEP, US(20), US(40), US(2514), US(2614), 2);
    syn_overhead(&s, SC_OVERHEAD_LAZY_FUNCTION_LOADING, US(25), US(37), 2);
    launch_on(&s, C, 0xC0, TAIL, US(45), US(50), US(2515), US(2615), 3);
    sc_api_call *sync = syn_call(&s, SC_CALL_STREAM_SYNC, US(55), US(2620), 4,
                                 "cudaStreamSynchronize", NULL, 0);
    syn_call_stream(&s, sync, 0xC0);
    launch_on(&s, C, 0xC0, TAIL, US(2700), US(2705), US(2710), US(3710), 5);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_true(syn_ev(&f->worst, "held_operations") == 2.0);
    assert_int_equal(f->waited_ns, US(4951));
    assert_int_equal(f->cost_ns, US(1188));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(a.replay.error > -1e-9 && a.replay.error < 1e-9);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The load holds the whole device, behind the kernel's own stream too (NVIDIA's simpleHyperQ
 * on the H200: kernel_B's load behind its own stream's kernel_A held every other stream):
 * the spin on A 10 .. 2510; the first launch of the sweep, also on A, call 20 .. 35, its load
 * 22 .. 32, the sweep after the spin 2512 .. 2612; a tail on B, launched 40 .. 45, started
 * only as the spin ended, 2514 .. 2614; the host waits for B (cudaStreamSynchronize 50 ..
 * 2620) and runs a 1 ms kernel on B (launch 2625 .. 2630, 2635 .. 3635).
 * The rule: the front is the spin on the sweep's own stream; the tail, independent of A and
 * ready at 45, waited 2514 - 45 = 2469 us. The replay (issue lag 10) reproduces 3635 us;
 * without the load in the call (paid at the thread's start: everything 10 us later, the spin
 * 20 .. 2520) the tail runs 50 .. 150 (its call at 40, the loading call being 10 us
 * shorter), the sync returns at 156, the kernel runs 171 .. 1171, and the run ends with the
 * sweep behind the spin at 2621: saving 1014 us, an error. */
static void test_load_behind_its_own_stream_holds_the_others(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch_on(&s, A, 0xA0, SPIN, 0, US(5), US(10), US(2510), 1);
    launch_on(&s, A, 0xA0, SWEEP, US(20), US(35), US(2512), US(2612), 2);
    syn_overhead(&s, SC_OVERHEAD_LAZY_FUNCTION_LOADING, US(22), US(32), 2);
    launch_on(&s, B, 0xB0, TAIL, US(40), US(45), US(2514), US(2614), 3);
    sc_api_call *sync = syn_call(&s, SC_CALL_STREAM_SYNC, US(50), US(2620), 4,
                                 "cudaStreamSynchronize", NULL, 0);
    syn_call_stream(&s, sync, 0xB0);
    launch_on(&s, B, 0xB0, TAIL, US(2625), US(2630), US(2635), US(3635), 5);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(3635));
    const sc_finding *f = syn_finding(&a, "lazy-loading");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_true(syn_ev(&f->worst, "held_operations") == 1.0);
    assert_true(syn_ev(&f->worst, "call_waited") == 0.0);
    assert_true(syn_ev(&f->worst, "waited_behind_stream") == A);
    assert_int_equal(f->waited_ns, US(2469));
    assert_int_equal(f->cost_ns, US(1014));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A load with nothing in flight beside it held nothing: not reported. */
static void test_load_record_alone_is_silent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, B, SWEEP, US(20), US(40), US(45), US(145), 2);
    syn_overhead(&s, SC_OVERHEAD_LAZY_FUNCTION_LOADING, US(25), US(37), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "lazy-loading"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The first test's timings with OVERHEAD records that name no load (CUPTI watched, and saw
 * its own buffer request only): whatever held sweep#1, it was not a module load. */
static void test_overhead_records_without_a_load_are_silent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    cold_then_warm(&s);
    syn_overhead(&s, SC_OVERHEAD_ACTIVITY_BUFFER_REQUEST, US(1), US(3), 1);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "lazy-loading"));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_launch_behind_other_stream),
        cmocka_unit_test(test_first_launch_behind_other_stream_host_waits),
        cmocka_unit_test(test_long_first_call_corroborates),
        cmocka_unit_test(test_uncorroborated_wait_is_silent),
        cmocka_unit_test(test_eager_loading_is_silent),
        cmocka_unit_test(test_legacy_blocking_pair_is_silent),
        cmocka_unit_test(test_overlapped_or_late_first_launch_is_silent),
        cmocka_unit_test(test_own_stream_busy_is_silent),
        cmocka_unit_test(test_short_delay_saving_nothing_is_note),
        cmocka_unit_test(test_load_record_holding_the_kernel),
        cmocka_unit_test(test_load_record_holding_other_streams),
        cmocka_unit_test(test_load_record_call_waited),
        cmocka_unit_test(test_kernel_names_through_the_hook),
        cmocka_unit_test(test_load_record_kernel_before_the_call_returns),
        cmocka_unit_test(test_load_behind_its_own_stream_holds_the_others),
        cmocka_unit_test(test_load_record_alone_is_silent),
        cmocka_unit_test(test_overhead_records_without_a_load_are_silent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
