/* The replay (src/analyze/replay.h) and the cost model it feeds (src/analyze/costs.c),
 * through sc_analyze on synthetic traces: a finding's cost is the run replayed as recorded
 * minus the run replayed with its fix, and its severity follows that saving's share of the
 * run (analysis.h). Every expected number is worked out in the comments from the timings
 * (all in us) and the replay's rules:
 *   - a piece of work starts at the latest of: its issuing call's replayed start plus the
 *     typical issue lag of its kind, the end of the work before it on its stream plus the
 *     typical stream lag, the end of what an event or the legacy barrier makes it wait for
 *     plus the typical cross-stream lag; never inside a full grid it did not overlap;
 *   - typical lags are the lower quartile of what the trace shows for work bound by that
 *     constraint, 5 / 1 / 2 us (issue / stream / cross) when it shows none;
 *   - a thread's calls keep their order and the host time between them; a call that waited
 *     returns when what it waited for has ended plus the time it took after it, and without
 *     its wait only that time after it;
 *   - the costs are measured without the time streamcheck spent taking stacks after calls
 *     (its own OVERHEAD records), and, in a run streamcheck recorded (a PROCESS record),
 *     without what tracing adds to each call (tracer_cost.h): the fidelity is against the
 *     recording, which has both. Traces here have no PROCESS record unless a test says so.
 * Stream 7 is the legacy stream, 13 a blocking stream the program created; 20 and 21 are
 * non-blocking streams whose calls name them by the handles 0xA0 and 0xA1. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define LEGACY 7
#define BLOCKING 13
#define S20 20
#define S21 21
#define H20 0xA0u
#define H21 0xA1u

/* The severity analysis.h gives a saving, as a share of the recorded run. */
static sc_severity expected_severity(uint64_t saving, uint64_t span)
{
    double share = span ? (double)saving / (double)span : 0.0;
    if (saving >= SC_ERROR_MIN_NS && share >= SC_ERROR_SHARE)
        return SC_SEV_ERROR;
    if (saving >= SC_WARNING_MIN_NS && share >= SC_WARNING_SHARE)
        return SC_SEV_WARNING;
    return SC_SEV_NOTE;
}

/* What holds for every finding of every run: its severity is its saving's, so a finding
 * that saves nothing is a note; a join is a note. */
static void check_findings(const sc_analysis *a)
{
    for (size_t i = 0; i < a->n_findings; i++) {
        const sc_finding *f = &a->findings[i];
        assert_int_equal(f->severity, expected_severity(f->cost_ns, a->replay.recorded_span_ns));
        if (f->cost_ns == 0)
            assert_int_equal(f->severity, SC_SEV_NOTE);
        if (f->join)
            assert_int_equal(f->severity, SC_SEV_NOTE);
    }
}

static void analyze(syn *s, sc_analysis *a)
{
    syn_analyze(s, a);
    check_findings(a);
}

/* A 5 us launch call at `at` naming its stream by `handle`, and its kernel. */
static sc_kernel *launch(syn *s, uint32_t stream, uint64_t handle, uint64_t at, uint64_t start,
                         uint64_t end, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, at, at + US(5), corr, NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    return syn_kernel(s, 0, stream, start, end, corr);
}

static sc_api_call *call(syn *s, uint16_t cls, uint64_t start, uint64_t end, const char *name)
{
    return syn_call(s, cls, start, end, 0, name, NULL, 0);
}

static void nonblocking(syn *s)
{
    syn_stream(s, 0, S20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_stream(s, 0, S21, SC_STREAM_FLAG_NON_BLOCKING, 0);
}

/* ---- fidelity ------------------------------------------------------------------------- */

/* A kernel on stream 20, an event recorded after it and waited for on stream 21, then a
 * kernel there: the second kernel starts when the first has ended (test_unchanged_replay_is_
 * the_recording tells the timings). */
static void event_joined_kernels(syn *s)
{
    launch(s, S20, H20, 0, US(10), US(110), 1);
    sc_api_call *rec = call(s, SC_CALL_EVENT_RECORD, US(5), US(7), "cudaEventRecord");
    syn_call_stream(s, rec, H20);
    syn_call_aux(s, rec, 0xE1);
    sc_api_call *wait = call(s, SC_CALL_EVENT_WAIT, US(7), US(9), "cudaStreamWaitEvent");
    syn_call_stream(s, wait, H21);
    syn_call_aux(s, wait, 0xE1);
    launch(s, S21, H21, US(9), US(112), US(212), 2);
}

/* Lags that are the same wherever they occur: the replay is the recording.
 *   launch 0 .. 5 (20)          K1 10 .. 110          issue lag 10
 *   cudaEventRecord 5 .. 7 on 20, cudaStreamWaitEvent 7 .. 9 on 21
 *   launch 9 .. 14 (21)         K2 112 .. 212         after K1 by the event: cross 2
 *   cudaMemcpyAsync 14 .. 19 (20), pinned 4 KiB: C 111 .. 121   after K1 on 20: stream 1
 *   cudaMemsetAsync 19 .. 24 (21): M 213 .. 218                  after K2 on 21: stream 1
 *   cudaDeviceSynchronize 24 .. 224: returns 6 after M, the last work issued before it
 * Medians: kernel issue 10, cross 2, stream 1; copies and memsets bound by their stream
 * (no issue sample: 5); wake 6. Replayed, every piece lands where it was recorded and the
 * sync returns at max(24, 218) + 6 = 224: span 224 us, error 0. The graph: 4 pieces of work,
 * 7 host items (the calls), nothing held, nothing late.
 * The one finding, host-sync: no work followed the sync, so it is the wait the program
 * keeps before it reads its results: no fix, cost 0, a note; the run with every fix is the
 * run as recorded, 224 us. */
static void test_unchanged_replay_is_the_recording(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    nonblocking(&s);
    event_joined_kernels(&s);
    sc_api_call *cp = syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(14), US(19), 3, "cudaMemcpyAsync",
                               NULL, 0);
    syn_call_stream(&s, cp, H20);
    syn_copy(&s, 0, S20, US(111), US(121), 4096, 3, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
             SC_MEM_DEVICE);
    sc_api_call *ms = syn_call(&s, SC_CALL_MEMSET_ASYNC, US(19), US(24), 4, "cudaMemsetAsync",
                               NULL, 0);
    syn_call_stream(&s, ms, H21);
    syn_memset(&s, 0, S21, US(213), US(218), 4);
    call(&s, SC_CALL_DEVICE_SYNC, US(24), US(224), "cudaDeviceSynchronize");
    sc_analysis a;
    analyze(&s, &a);
    const sc_replay_summary *r = &a.replay;
    assert_true(r->done);
    assert_int_equal(r->recorded_span_ns, US(224));
    assert_int_equal(r->replay_span_ns, US(224));
    assert_true(r->error == 0.0);
    assert_true(r->trusted);
    assert_int_equal(r->ops, 4);
    assert_int_equal(r->calls, 7);
    assert_int_equal(r->held, 0);
    assert_int_equal(r->unexplained, 0);
    assert_int_equal(r->unexplained_ns, 0);
    assert_int_equal(a.n_findings, 1);
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(r->fixed_span_ns, US(224));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The run of test_unchanged_replay_is_the_recording (its copy and memset left out), then 5 s
 * without work and a last cudaDeviceSynchronize (5.000224 .. 5.000230 s): longer than
 * 32-bit times relative to the run's start hold. The replay still reproduces the recording:
 * span 5.000230 s, error 0. */
static void test_run_longer_than_4_3_s(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    nonblocking(&s);
    event_joined_kernels(&s);
    call(&s, SC_CALL_DEVICE_SYNC, US(24), US(224), "cudaDeviceSynchronize");
    call(&s, SC_CALL_DEVICE_SYNC, US(5000224), US(5000230), "cudaDeviceSynchronize");
    sc_analysis a;
    analyze(&s, &a);
    const sc_replay_summary *r = &a.replay;
    assert_true(r->done);
    assert_int_equal(r->recorded_span_ns, US(5000230));
    assert_int_equal(r->replay_span_ns, US(5000230));
    assert_true(r->error == 0.0);
    assert_int_equal(r->ops, 2);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Lags no typical lag stands for: ten 10 us kernels on stream 20, launched back to back (5 us
 * calls at 0, 5, .. 45 us); the first starts 10 us after its call, 10 .. 20, and each of the
 * others after the one before with gaps of 1, 19, 1, 19, .. us (never 20 us late: nothing
 * to explain), the last 181 .. 191: span 191 us. The stream gaps' lower quartile (five of 1
 * us, four of 19) is 1 us: the replay runs the chain at 11 us a kernel, 10 + 11 i, the last
 * 109 .. 119 us. 119 against 191 recorded, -37.7%: not trusted, and the summary says so. */
static void test_replay_summary_says_when_it_is_off(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    nonblocking(&s);
    uint64_t start = US(10);
    for (uint32_t i = 0; i < 10; i++) {
        launch(&s, S20, H20, US(5 * i), start, start + US(10), 1 + i);
        start += US(10) + (i % 2 == 0 ? US(1) : US(19));
    }
    sc_analysis a;
    analyze(&s, &a);
    const sc_replay_summary *r = &a.replay;
    assert_true(r->done);
    assert_int_equal(r->recorded_span_ns, US(191));
    assert_int_equal(r->replay_span_ns, US(119));
    assert_true(r->error > -72.0 / 191.0 - 1e-9 && r->error < -72.0 / 191.0 + 1e-9);
    assert_false(r->trusted);
    assert_int_equal(r->unexplained, 0);
    assert_int_equal(r->held, 0);
    assert_int_equal(r->ops, 10);
    assert_int_equal(r->calls, 10);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Nothing to replay: no calls, no device work. */
static void test_empty_trace_has_no_replay(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    sc_analysis a;
    analyze(&s, &a);
    assert_false(a.replay.done);
    assert_int_equal(a.replay.replay_span_ns, 0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* ---- the legacy barrier: a trap, a join, one wait told twice ---------------------------- */

/* The trap:
 *   cudaStreamCreate 0 .. 1 makes 13
 *   launch 10 .. 15: K on 13, 20 .. 2020
 *   launch 30 .. 35: S on the legacy stream, 2022 .. 4022: waited min(2022, 2020) - 30 =
 *                    1990 us for K
 * Lags: issue 10 (K), cross 2 (S). Replayed unchanged: 0 .. 4022 us. Without the barrier S
 * runs 30 + 10 = 40 .. 2040 beside K: the run ends at 2040. Saving 1982 us, 49.3%: an error.
 * legacy-stream (charged to S) and blocking-stream (charged to 13) describe the one barrier:
 * both show 1982 us and name each other; the run with every fix applied is 2040 us, the
 * saving counted once. */
static void test_legacy_trap_is_an_error_told_twice_counted_once(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(&s, 0, BLOCKING, SC_STREAM_FLAG_BLOCKING, 100);
    syn_call(&s, SC_CALL_STREAM_CREATE, 0, US(1), 100, "cudaStreamCreate", NULL, 0);
    launch(&s, BLOCKING, SC_STREAM_NONE, US(10), US(20), US(2020), 1);
    launch(&s, LEGACY, SC_STREAM_NONE, US(30), US(2022), US(4022), 2);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(4022));
    const sc_finding *l = syn_finding(&a, "legacy-stream");
    const sc_finding *b = syn_finding(&a, "blocking-stream");
    assert_non_null(l);
    assert_non_null(b);
    assert_int_equal(l->waited_ns, US(1990));
    assert_int_equal(b->waited_ns, US(1990));
    assert_int_equal(l->cost_ns, US(1982));
    assert_int_equal(b->cost_ns, US(1982));
    assert_int_equal(l->severity, SC_SEV_ERROR);
    assert_int_equal(b->severity, SC_SEV_ERROR);
    assert_false(l->join);
    assert_string_equal(l->same_wait_as, "blocking-stream");
    assert_string_equal(b->same_wait_as, "legacy-stream");
    assert_int_equal(a.replay.fixed_span_ns, US(2040));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A join: a short legacy kernel that reads the blocking stream's result, then a device
 * synchronization.
 *   cudaStreamCreate 0 .. 1 makes 13
 *   launch 10 .. 15: A on 13, 20 .. 1020
 *   launch 30 .. 35: R on the legacy stream, 1022 .. 1027: waited min(1022, 1020) - 30 =
 *                    990 us for A
 *   cudaDeviceSynchronize 40 .. 1033: returns 6 us after R
 * Lags: issue 10, cross 2, wake 6; replayed unchanged: 0 .. 1033 us. Without the barrier R
 * runs at 40 .. 45, but the sync still waits for A: it returns at 1020 + 6 = 1026. Saving
 * 7 us (R's 5 us and its 2 us lag): a note; it waited 990 us and saves less than a twentieth
 * of that: a join, on legacy-stream and blocking-stream alike.
 * host-sync: no work followed the sync, the wait the program keeps: no fix, cost 0, a note;
 * it measured 2 us lost (the gap between A and R inside it): no join.
 * Every fix at once: R 40 .. 45, the sync still returns 6 us after A, at 1026. */
static void test_join_saves_nothing(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(&s, 0, BLOCKING, SC_STREAM_FLAG_BLOCKING, 100);
    syn_call(&s, SC_CALL_STREAM_CREATE, 0, US(1), 100, "cudaStreamCreate", NULL, 0);
    launch(&s, BLOCKING, SC_STREAM_NONE, US(10), US(20), US(1020), 1);
    launch(&s, LEGACY, SC_STREAM_NONE, US(30), US(1022), US(1027), 2);
    call(&s, SC_CALL_DEVICE_SYNC, US(40), US(1033), "cudaDeviceSynchronize");
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(1033));
    const sc_finding *l = syn_finding(&a, "legacy-stream");
    const sc_finding *b = syn_finding(&a, "blocking-stream");
    const sc_finding *h = syn_finding(&a, "host-sync");
    assert_non_null(l);
    assert_non_null(b);
    assert_non_null(h);
    assert_int_equal(l->waited_ns, US(990));
    assert_int_equal(l->cost_ns, US(7));
    assert_int_equal(l->severity, SC_SEV_NOTE);
    assert_true(l->join);
    assert_int_equal(b->cost_ns, US(7));
    assert_true(b->join);
    assert_string_equal(l->same_wait_as, "blocking-stream");
    assert_int_equal(h->cost_ns, 0);
    assert_int_equal(h->waited_ns, US(2));
    assert_false(h->join);
    assert_int_equal(a.replay.fixed_span_ns, US(1026));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* ---- unwaiting the host: device, stream and event syncs, a polling loop ---------------- */

enum { WAIT_DEVICE, WAIT_STREAM, WAIT_EVENT, WAIT_POLL };

/* K1 on 20 (launch 0 .. 5, runs 10 .. 1010), then the host waits for it, then launches K2
 * on 21 4 us after the wait returned: K2 starts 10 us after its call and runs 1000 us.
 *   device/stream/event sync 20 .. 1016 (6 us after K1); launch 1020 .. 1025; K2 1030 .. 2030
 *   polling: cudaStreamQuery(20) every 20 us from 20 to 1020, 2 us each: one loop 20 .. 1022
 *            (12 us after K1); launch 1026 .. 1031; K2 1036 .. 2036
 * The event variant records the event on 20 right after the launch (5 .. 7) and waits on it
 * with cudaEventSynchronize. */
static void sync_then_launch(syn *s, int kind)
{
    nonblocking(s);
    launch(s, S20, H20, 0, US(10), US(1010), 1);
    uint64_t next = US(1020);
    switch (kind) {
    case WAIT_DEVICE:
        call(s, SC_CALL_DEVICE_SYNC, US(20), US(1016), "cudaDeviceSynchronize");
        break;
    case WAIT_STREAM:
        syn_call_stream(s, call(s, SC_CALL_STREAM_SYNC, US(20), US(1016), "cudaStreamSynchronize"),
                        H20);
        break;
    case WAIT_EVENT: {
        sc_api_call *r = call(s, SC_CALL_EVENT_RECORD, US(5), US(7), "cudaEventRecord");
        syn_call_stream(s, r, H20);
        syn_call_aux(s, r, 0xE1);
        syn_call_aux(s, call(s, SC_CALL_EVENT_SYNC, US(20), US(1016), "cudaEventSynchronize"),
                     0xE1);
        break;
    }
    default:
        for (uint64_t t = 20; t <= 1020; t += 20)
            syn_call_stream(s, call(s, SC_CALL_STREAM_QUERY, US(t), US(t + 2), "cudaStreamQuery"),
                            H20);
        next = US(1026);
        break;
    }
    launch(s, S21, H21, next, next + US(10), next + US(1010), 2);
}

/* Each wait replays as recorded (issue lag 10 us for both kernels; the sync returns its
 * recorded 6 us, the loop its 12 us, after K1): the run is the recording, 2030 us (2036 with
 * the loop). Without the wait the host goes on after those 6 (12) us: the launch at 30 (36),
 * K2 at 40 .. 1040 (46 .. 1046) beside K1: the run ends at 1040 (1046). Saving 990 us:
 * 48.8% (48.6%) of the run: an error. Measured: K1 ended 6 (12) us before the return and K2
 * started 14 us after it: 20 (26) us; the saving goes to that one instance. */
static void test_unwait(int kind, const char *api, uint64_t span, uint64_t waited)
{
    syn s;
    syn_init(&s);
    sync_then_launch(&s, kind);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, span);
    assert_int_equal(a.replay.recorded_span_ns, span);
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_string_equal(sc_call_name(&s.t, f->worst.call), api);
    assert_int_equal(f->waited_ns, waited);
    assert_int_equal(f->cost_ns, US(990));
    assert_int_equal(f->worst.cost_ns, US(990));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_int_equal(a.replay.fixed_span_ns, span - US(990));
    sc_analysis_free(&a);
    syn_free(&s);
}

static void test_unwait_device_sync(void **state)
{
    (void)state;
    test_unwait(WAIT_DEVICE, "cudaDeviceSynchronize", US(2030), US(20));
}

static void test_unwait_stream_sync(void **state)
{
    (void)state;
    test_unwait(WAIT_STREAM, "cudaStreamSynchronize", US(2030), US(20));
}

static void test_unwait_event_sync(void **state)
{
    (void)state;
    test_unwait(WAIT_EVENT, "cudaEventSynchronize", US(2030), US(20));
}

static void test_unwait_polling_loop(void **state)
{
    (void)state;
    test_unwait(WAIT_POLL, "cudaStreamQuery", US(2036), US(26));
}

/* A stream sync waits for its stream only. The stream-sync run above with a third kernel D
 * on stream 22, launched 7 .. 12 (handle 0xA2), running 17 .. 1500, past the sync's return:
 * the sync (on 20) returned 6 us after K1. Issue lags 10, 10, 10. Replayed, the sync waits
 * for K1 alone and the run is the recording, 0 .. 2030 us (had it waited for the device, it
 * would return after D and the replay would end near 2520). Without the wait K2 runs 40 ..
 * 1040 and the run ends with D at 1500: saving 530 us, 26%: an error. Measured: D kept the
 * device busy through the wait and after it: nothing lost, so the one instance takes all
 * of the saving. */
static void test_stream_sync_waits_for_its_stream(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, 22, SC_STREAM_FLAG_NON_BLOCKING, 0);
    launch(&s, 22, 0xA2, US(7), US(17), US(1500), 3);
    sync_then_launch(&s, WAIT_STREAM);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.recorded_span_ns, US(2030));
    assert_int_equal(a.replay.replay_span_ns, US(2030));
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, 0);
    assert_int_equal(f->cost_ns, US(530));
    assert_int_equal(f->worst.cost_ns, US(530));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* ---- pinned copies ----------------------------------------------------------------------- */

/* A pageable async copy of 4 MiB, then a kernel on the same stream (20) that reads it:
 *   [with_pinned: cudaMemcpyAsync 0 .. 5, pinned 1 MiB: P 10 .. 60, 1 MiB in 50 us]
 *   cudaMemcpyAsync 70 .. 885, pageable 4 MiB: Q 80 .. 880; the call returns 5 us after Q
 *   launch 890 .. 895: K 900 .. 1900 (after Q on 20)
 * The device is compute capability 9.x (default pinned rate 50 GB/s). */
static void pageable_then_kernel(syn *s, bool with_pinned)
{
    syn_device(s, 0, 132)->rec.cc_major = 9;
    syn_stream(s, 0, S20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    const uint64_t mib = 1u << 20;
    if (with_pinned) {
        syn_call(s, SC_CALL_MEMCPY_ASYNC, 0, US(5), 1, "cudaMemcpyAsync", NULL, 0);
        syn_copy(s, 0, S20, US(10), US(60), mib, 1, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
                 SC_MEM_DEVICE);
    }
    syn_call(s, SC_CALL_MEMCPY_ASYNC, US(70), US(885), 2, "cudaMemcpyAsync", NULL, 0);
    syn_copy(s, 0, S20, US(80), US(880), 4 * mib, 2, SC_MEMCPY_ASYNC, SC_MEM_PAGEABLE,
             SC_MEM_DEVICE);
    launch(s, S20, SC_STREAM_NONE, US(890), US(900), US(1900), 3);
}

/* At the pinned rate the trace measured: 1 MiB in 50 us, so Q's 4 MiB take 200 us. Lags:
 * copy issue 10 (P, Q), kernel issue 10; the pinned async call takes 5 us. Replayed
 * unchanged: 0 .. 1900 us. Pinned: Q 80 .. 280; its call returns at 70 + 5 + the 5 us it
 * spent after its copy = 80; the launch at 85, K at max(95, 280 + 1) = 281 .. 1281 (stream
 * lag: none measured, 1). Saving 1900 - 1281 = 619 us, 32.6%: an error. Measured: the
 * device ran no kernel during the call: 815 us. The rule's own estimate says the same rate:
 * 200 us, saving 815 - 200 = 615 us of host time. */
static void test_pinned_at_the_measured_rate(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    pageable_then_kernel(&s, true);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(1900));
    const sc_finding *f = syn_finding(&a, "pageable-async");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(815));
    assert_true(syn_ev(&f->worst, "pinned_estimate_us") == 200.0);
    assert_true(syn_ev(&f->worst, "host_back_us") == 615.0);
    assert_int_equal(f->cost_ns, US(619));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* No pinned copy to measure: the default rate of compute capability 9.x, 50 GB/s, plus
 * 2 us: Q takes 2000 + 4194304 / 50 = 85886 ns. The run starts with the pageable call at
 * 70 us; lags: copy and kernel issue 10; the pinned async call the default 5 us. Replayed
 * unchanged: 70 .. 1900 us (1830 us). Pinned: Q 80 .. 165.886; the call returns at 80; K at
 * max(95, 166.886) = 166.886 .. 1166.886. Saving 1900 - 1166.886 = 733.114 us: an error.
 * The rule's estimate is the same, and says where its rate came from. */
static void test_pinned_at_the_default_rate(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    pageable_then_kernel(&s, false);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(1830));
    const sc_finding *f = syn_finding(&a, "pageable-async");
    assert_non_null(f);
    assert_true(fabs(syn_ev(&f->worst, "pinned_estimate_us") - 85.886) < 1e-9);
    assert_true(syn_ev(&f->worst, "pinned_rate_measured") == 0.0);
    assert_non_null(strstr(f->worst.text, "; pinned: ~85.9 us (50 GB/s, cc 9.x default)"));
    assert_int_equal(f->cost_ns, 733114);
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* ---- room and held work ------------------------------------------------------------------ */

/* A grid that fills the device (an H200: 1056 blocks of 256 threads, 8 per SM on 132 SMs)
 * on stream 20 (launch 0 .. 5, runs 10 .. 1010), and a 1-block kernel on 21 launched at
 * 20 .. 25 that could start only at 1012 and ran 500 us, 1012 .. 1512. Measured: it waited
 * 1012 - max(25, 10) = 987 us. The replay: the grid's start gives the issue lag, 10 us; the
 * small kernel is bound by the room edge (no lag): ready at 30, inside the grid, it starts
 * at the grid's end, 1010 .. 1510: span 1510 us (recorded 1512). With room it runs 30 ..
 * 530 and the run ends with the grid at 1010: saving 500 us, 33%: an error. */
static void test_room(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_device(&s, 0, 132)->rec = (sc_rec_device){
        .device = 0, .sm_count = 132, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
        .max_regs_per_sm = 65536, .max_shared_per_sm = 233472, .cc_major = 9};
    nonblocking(&s);
    sc_kernel *g = launch(&s, S20, H20, 0, US(10), US(1010), 1);
    syn_shape(&s, g)->grid_x = 1056;
    syn_shape(&s, g)->block_x = 256;
    syn_shape(&s, g)->registers_per_thread = 16;
    launch(&s, S21, H21, US(20), US(1012), US(1512), 2);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(1510));
    const sc_finding *f = syn_finding(&a, "no-room");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(987));
    assert_int_equal(f->cost_ns, US(500));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Work held behind another stream's work for a reason the trace does not name: on 20, Ka
 * 10 .. 20, Kb 40 .. 50 and K0 70 .. 1070 (launches at 0, 30, 60); K1 on 21, launched at
 * 80, starts at 1072, 2 us after K0 ended. Issue lags 10, 10, 10, 992: median 10. K1 is 982
 * us later than its issue allows, and K0, of another stream, had started before K1 was ready
 * and ended 2 us before it started: held by K0, kept with its 2 us. Replayed: 0 .. 2072 us,
 * one held piece. With CUDA_DEVICE_MAX_CONNECTIONS=1 in the environment the fix is to hold
 * nothing: K1 runs 90 .. 1090 beside K0, the run ends at 1090: saving 982 us, 47%: an
 * error. */
static void test_held_work(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    nonblocking(&s);
    const uint64_t at[] = {0, 30, 60, 80}, start[] = {10, 40, 70, 1072};
    const uint64_t end[] = {20, 50, 1070, 2072};
    for (uint32_t i = 0; i < 4; i++)
        launch(&s, i < 3 ? S20 : S21, i < 3 ? H20 : H21, US(at[i]), US(start[i]), US(end[i]),
               i + 1);
    const char *env[] = {"CUDA_DEVICE_MAX_CONNECTIONS=1"};
    s.t.env = env;
    s.t.n_env = 1;
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.held, 1);
    assert_int_equal(a.replay.unexplained, 0);
    assert_int_equal(a.replay.replay_span_ns, US(2072));
    const sc_finding *f = syn_finding(&a, "serializing-env");
    assert_non_null(f);
    assert_int_equal(f->cost_ns, US(982));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* ---- severity at its edges --------------------------------------------------------------- */

/* K1 on 20 (launch 0 .. 5, runs 10 .. 10+k1); cudaDeviceSynchronize 20 .. 10+k1+post; the
 * next launch `gap` us after it returned, K2 on 21 10 us after that call, running k2 us.
 * Issue lag 10, wake `post`: the replay is the recording, 20 + k1 + post + gap + k2 us.
 * Without the wait the launch comes at 20 + post + gap and K2 ends at 30 + post + gap + k2,
 * before K1 (k1 is long): the run ends at 10 + k1. Saving 10 + post + gap + k2 us. */
static void severity_case(uint64_t k1, uint64_t k2, uint64_t post, uint64_t gap,
                          uint64_t saving, uint64_t span, sc_severity sev)
{
    syn s;
    syn_init(&s);
    nonblocking(&s);
    launch(&s, S20, H20, 0, US(10), US(10 + k1), 1);
    call(&s, SC_CALL_DEVICE_SYNC, US(20), US(10 + k1 + post), "cudaDeviceSynchronize");
    uint64_t at = 10 + k1 + post + gap;
    launch(&s, S21, H21, US(at), US(at + 10), US(at + 10 + k2), 2);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.recorded_span_ns, US(span));
    assert_int_equal(a.replay.replay_span_ns, US(span));
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->cost_ns, US(saving));
    assert_int_equal(f->severity, sev);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* An error needs 5% of the run and 100 us:
 *   k1 1890, k2 80, post 6, gap 4: saving 100 us of 2000 us, 5% exactly: an error
 *   k1 1891: 100 us of 2001 us, 4.998%: a warning
 *   k1 890, k2 80: 100 us of 1000 us: an error; k2 79: 99 us of 999 us, 9.9%: a warning */
static void test_error_edges(void **state)
{
    (void)state;
    severity_case(1890, 80, 6, 4, 100, 2000, SC_SEV_ERROR);
    severity_case(1891, 80, 6, 4, 100, 2001, SC_SEV_WARNING);
    severity_case(890, 80, 6, 4, 100, 1000, SC_SEV_ERROR);
    severity_case(890, 79, 6, 4, 99, 999, SC_SEV_WARNING);
}

/* A warning needs 1% of the run and 20 us:
 *   k1 1970, k2 4, post 2, gap 4: saving 20 us of 2000 us, 1% exactly: a warning
 *   k1 1971: 20 us of 2001 us, 0.9995%: a note
 *   k1 171, k2 4, post 2, gap 3: 19 us of 200 us, 9.5%: a note (and no join: it measured
 *   2 us idle and 13 us before the next kernel, 15 us, under 20) */
static void test_warning_edges(void **state)
{
    (void)state;
    severity_case(1970, 4, 2, 4, 20, 2000, SC_SEV_WARNING);
    severity_case(1971, 4, 2, 4, 20, 2001, SC_SEV_NOTE);
    severity_case(171, 4, 2, 3, 19, 200, SC_SEV_NOTE);
}

/* ---- a saving of nothing -------------------------------------------------------------- */

/* The rules measured real waits here, but the run ends with a call of another thread that
 * waits for nothing:
 *   launch 10 .. 15: K on 13, 20 .. 1020; launch 30 .. 35: S on the legacy stream, 1022 ..
 *   1122 (waited 990 us); cudaMemcpyAsync 1130 .. 1330 from pageable memory, its copy on 20
 *   1140 .. 1330 (the device ran no kernel then: 200 us)
 *   thread 9: a call 4000 .. 5000 that is no synchronization (cudaGetDeviceProperties)
 * Lags: kernel issue 10, cross 2, copy issue 10. Replayed: 0 .. 5000 us, ending with thread
 * 9's call, anchored where it was recorded: no fix moves it, every fix saves 0. Each finding
 * is a note, whatever its rule measured, and a join (each waited 20 us or more). */
static void test_saving_nothing_is_a_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(&s, 0, BLOCKING, SC_STREAM_FLAG_BLOCKING, 100);
    syn_stream(&s, 0, S20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_call(&s, SC_CALL_STREAM_CREATE, 0, US(1), 100, "cudaStreamCreate", NULL, 0);
    launch(&s, BLOCKING, SC_STREAM_NONE, US(10), US(20), US(1020), 1);
    launch(&s, LEGACY, SC_STREAM_NONE, US(30), US(1022), US(1122), 2);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(1130), US(1330), 3, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, S20, US(1140), US(1330), 1u << 20, 3, SC_MEMCPY_ASYNC, SC_MEM_PAGEABLE,
             SC_MEM_DEVICE);
    syn_call_tid(&s, call(&s, SC_CALL_OTHER, US(4000), US(5000), "cudaGetDeviceProperties"), 9);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(5000));
    assert_int_equal(a.replay.fixed_span_ns, US(5000));
    const char *rules[] = {"legacy-stream", "blocking-stream", "pageable-async"};
    const uint64_t waited[] = {US(990), US(990), US(200)};
    for (size_t i = 0; i < 3; i++) {
        const sc_finding *f = syn_finding(&a, rules[i]);
        assert_non_null(f);
        assert_int_equal(f->waited_ns, waited[i]);
        assert_int_equal(f->cost_ns, 0);
        assert_int_equal(f->severity, SC_SEV_NOTE);
        assert_true(f->join);
    }
    /* the rule still says what it measured */
    assert_non_null(strstr(syn_finding(&a, "legacy-stream")->title, "serialized"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* ---- NVTX ranges ----------------------------------------------------------------------- */

/* The device-sync run of test_unwait_device_sync with two ranges on its thread: "wait"
 * (18 .. 1018) around the sync and "tail" (1019 .. 2030) around the next launch. The marks
 * replay as recorded: wait 1000 us, tail 1011 us. With every fix (the sync no longer
 * waits) the sync ends at 26, wait's end mark comes 2 us later, at 28: 10 us; tail starts at
 * 29, its end mark keeps its 1005 us after the launch (30 .. 35): 1040, 1011 us as before.
 * The host-sync instance started inside wait: its saving, 990 us, is wait's. */
/* streamcheck's own time comes out of the costs. Stream 20:
 *   launch 0 .. 5: K1 10 .. 110 us; cudaDeviceSynchronize 5 .. 116 (6 us after K1);
 *   streamcheck took the sync's stack 116 .. 136 (its OVERHEAD record);
 *   launch 140 .. 145: K2 150 .. 250; the last cudaDeviceSynchronize 145 .. 256.
 * Lags: issue 10, wake 6, stream 1 (none shown). Replayed as recorded: 256 us, error 0.
 * Without the 20 us stack: launch 2 at 116 + 4 = 120, K2 130 .. 230, the sync 236: the
 * base of the costs, 236 us.
 * host-sync: the first sync's fix (the last one, which nothing followed, is kept): it ends
 * 6 us after it starts, at 11; launch 2 at 15 .. 20, K2 after K1 on the stream at 111 ..
 * 211, the last sync returns at 217. Saving 236 - 217 = 19 us (measured from the recording,
 * 256 - 217 with the stack kept in the gap: 39 us, twice too much). */
static void test_streamcheck_time_left_out(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    nonblocking(&s);
    launch(&s, S20, H20, 0, US(10), US(110), 1);
    syn_call(&s, SC_CALL_DEVICE_SYNC, US(5), US(116), 2, "cudaDeviceSynchronize", NULL, 0);
    syn_overhead(&s, SC_OVERHEAD_STREAMCHECK_STACK, US(116), US(136), 2);
    launch(&s, S20, H20, US(140), US(150), US(250), 3);
    syn_call(&s, SC_CALL_DEVICE_SYNC, US(145), US(256), 4, "cudaDeviceSynchronize", NULL, 0);
    sc_analysis a;
    analyze(&s, &a);
    const sc_replay_summary *r = &a.replay;
    assert_int_equal(r->recorded_span_ns, US(256));
    assert_int_equal(r->replay_span_ns, US(256));
    assert_int_equal(r->tool_ns, US(20));
    assert_int_equal(r->tool_calls, 1);
    assert_int_equal(r->plain_span_ns, US(236));
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->cost_ns, US(19));
    assert_int_equal(r->fixed_span_ns, US(217));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* What tracing adds to each call (tracer_cost.h) comes out of the costs too, in a run that
 * streamcheck recorded (a PROCESS record). Three steps on stream 20, each a launch, its
 * kernel and a cudaDeviceSynchronize; step i starts at t = 120 i:
 *   launch t .. t+5: K t+10 .. t+110; cudaDeviceSynchronize t+5 .. t+116 (6 us after K);
 *   the next step's launch 4 us after the sync returns.
 * Lags: issue 10, wake 6, stream 1 (none shown). Replayed unchanged: 0 .. 356 us, error 0,
 * with or without the PROCESS record: the fidelity is against the recording.
 * Untraced (no PROCESS record): host-sync unwaits the first two syncs (the last one, which
 * nothing followed, is kept): they end 6 us after they start, the launches run at 0, 15,
 * 30; the kernels follow each other on the stream, 10 .. 110, 111 .. 211, 212 .. 312; the
 * last sync returns at 318. Saving 356 - 318 = 38 us.
 * Traced: L = 1.664 us per launch (tracer_cost.h) comes out of each launch call and of its
 * kernel's issue lag. As recorded each step's kernel then starts L sooner after its call:
 * the base ends at 356 - 3L = 351.008. Fixed, the launches run at 0, 13.336, 26.672 (each
 * call L shorter), K0 at 10 - L, and the kernels follow each other: 8.336 .. 108.336,
 * 109.336 .. 209.336, 210.336 .. 310.336, the sync returns at 316.336. Saving 34.672 us:
 * 38 - 2L, the tracer's share of the two steps' host time the fix takes off the critical
 * path, which the program does not pay untraced. */
static void build_traced_steps(syn *s, bool recorded_by_streamcheck)
{
    syn_init(s);
    nonblocking(s);
    s->t.has_process = recorded_by_streamcheck;
    for (uint32_t i = 0; i < 3; i++) {
        uint64_t t = US(120) * i;
        launch(s, S20, H20, t, t + US(10), t + US(110), 2 * i + 1);
        syn_call(s, SC_CALL_DEVICE_SYNC, t + US(5), t + US(116), 2 * i + 2,
                 "cudaDeviceSynchronize", NULL, 0);
    }
}

static void test_tracer_time_left_out(void **state)
{
    (void)state;
    const uint64_t L = 1664;
    for (int traced = 0; traced < 2; traced++) {
        syn s;
        build_traced_steps(&s, traced);
        sc_analysis a;
        analyze(&s, &a);
        const sc_replay_summary *r = &a.replay;
        assert_int_equal(r->recorded_span_ns, US(356));
        assert_int_equal(r->replay_span_ns, US(356));
        assert_int_equal(r->tracer_ns, traced ? 3 * L : 0);
        assert_int_equal(r->tracer_calls, traced ? 3 : 0);
        assert_int_equal(r->plain_span_ns, traced ? US(356) - 3 * L : US(356));
        const sc_finding *f = syn_finding(&a, "host-sync");
        assert_non_null(f);
        assert_int_equal(f->cost_ns, traced ? US(38) - 2 * L : US(38));
        assert_int_equal(r->fixed_span_ns, traced ? US(318) - L : US(318));
        sc_analysis_free(&a);
        syn_free(&s);
    }
}

/* A join: thread 1 waits (pthread_join: nothing CUDA records) for thread 2, which runs two
 * steps on stream 20, then goes on. Thread 2:
 *   launch 0 .. 5: K1 10 .. 1010; cudaStreamSynchronize 5 .. 1016 (6 us after K1);
 *   launch 1020 .. 1025: K2 1030 .. 2000; cudaStreamSynchronize 1025 .. 2006: its last call.
 * Thread 1: cudaMalloc 0 .. 3, then nothing until 2016, 10 us after thread 2's last call
 * ended (a gap of 2013 us, the join): launch 2016 .. 2021: K3 on 21 2026 .. 2126; its
 * cudaDeviceSynchronize 2021 .. 2132 ends the run.
 * Lags: issue 10, wake 6, stream 1 (none shown). Replayed unchanged: 0 .. 2132 us.
 * host-sync prices thread 2's first sync (its last is followed only by thread 1's work, so
 * it is priced too; thread 1's, which nothing followed, is kept): they end 6 us after they
 * start: the first at 11, the launch at 15 .. 20, K2 after K1 on the stream at 1011 .. 1981;
 * the second sync 20 .. 26. Thread 1 goes on 10 us after thread 2's end: launch 36 .. 41, K3
 * 46 .. 146; its sync waits for the device's work issued before it, K2 included, and returns
 * at 1987. Saving 2132 - 1987 = 145 us. Without the join the gap would hold thread 1 until
 * 2016 and the run would end at 2132: nothing saved. */
/* The join of the test above, with thread 1 going on `lag` us after thread 2's end; with
 * `handoff`, thread 2 goes on too (a cudaMalloc at 2100 .. 2103): its sync at 2006 is then not
 * its last item, as a worker thread hands its result back and waits for more. */
static void build_handoff(syn *s, uint64_t lag, bool handoff)
{
    syn_init(s);
    nonblocking(s);
    sc_api_call *c;
    c = syn_call(s, SC_CALL_LAUNCH, 0, US(5), 1, NULL, NULL, 0);
    syn_call_stream(s, c, H20);
    syn_call_tid(s, c, 2);
    syn_kernel(s, 0, S20, US(10), US(1010), 1);
    c = syn_call(s, SC_CALL_STREAM_SYNC, US(5), US(1016), 2, "cudaStreamSynchronize", NULL, 0);
    syn_call_stream(s, c, H20);
    syn_call_tid(s, c, 2);
    c = syn_call(s, SC_CALL_LAUNCH, US(1020), US(1025), 3, NULL, NULL, 0);
    syn_call_stream(s, c, H20);
    syn_call_tid(s, c, 2);
    syn_kernel(s, 0, S20, US(1030), US(2000), 3);
    c = syn_call(s, SC_CALL_STREAM_SYNC, US(1025), US(2006), 4, "cudaStreamSynchronize", NULL,
                 0);
    syn_call_stream(s, c, H20);
    syn_call_tid(s, c, 2);
    c = syn_call(s, SC_CALL_MALLOC, 0, US(3), 5, "cudaMalloc", NULL, 0);
    syn_call_tid(s, c, 1);
    uint64_t go = US(2006) + US(lag);
    c = syn_call(s, SC_CALL_LAUNCH, go, go + US(5), 6, NULL, NULL, 0);
    syn_call_stream(s, c, H21);
    syn_call_tid(s, c, 1);
    syn_kernel(s, 0, S21, go + US(10), go + US(110), 6);
    c = syn_call(s, SC_CALL_DEVICE_SYNC, go + US(5), go + US(116), 7, "cudaDeviceSynchronize",
                 NULL, 0);
    syn_call_tid(s, c, 1);
    if (handoff) {
        c = syn_call(s, SC_CALL_MALLOC, US(2100), US(2103), 8, "cudaMalloc", NULL, 0);
        syn_call_tid(s, c, 2);
    }
}

static void build_join(syn *s, uint64_t lag)
{
    build_handoff(s, lag, false);
}

/* The join (or hand-off) 10 us after thread 2's sync: replayed 0 .. 2132 us, the fix saves
 * 145 us and the run ends at 1987 (above). */
static void check_join_10us_saves_145us(bool handoff)
{
    syn s;
    build_handoff(&s, 10, handoff);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(2132));
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->cost_ns, US(145));
    assert_int_equal(a.replay.fixed_span_ns, US(1987));
    sc_analysis_free(&a);
    syn_free(&s);
}

static void test_thread_join_follows_the_other_thread(void **state)
{
    (void)state;
    check_join_10us_saves_145us(false);
}

/* The same join with thread 1 going on 250 us after thread 2's end (thread exit and
 * pthread_join's wake-up took 202 us in one H200 run): more than 200 us, still a join (its
 * gap, 2253 us, is more than 8 times that). Recorded and replayed unchanged the run ends at
 * 2256 + 116 = 2372 us; with the fixes thread 1 goes on at 26 + 250 = 276, and its sync
 * returns at 1987 as above. */
static void test_slow_join_follows_the_other_thread(void **state)
{
    (void)state;
    syn s;
    build_join(&s, 250);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(2372));
    assert_int_equal(a.replay.fixed_span_ns, US(1987));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A hand-off: the join above, but thread 2 goes on after thread 1 does (its cudaMalloc at
 * 2100, a worker waiting for more, as PyTorch's autograd thread does between steps). Thread
 * 1's gap still ends 10 us after thread 2's sync, which is no longer thread 2's last item:
 * the gap waits for it all the same, and the same fix saves the same 145 us (thread 2's
 * malloc goes on 94 us after its sync, at 120 .. 123, and ends nothing). When only a
 * thread's last item could be waited for, thread 1 stayed at 2016 and nothing was saved. */
static void test_thread_handoff_follows_the_other_thread(void **state)
{
    (void)state;
    check_join_10us_saves_145us(true);
}

static void test_range_walls(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    sync_then_launch(&s, WAIT_DEVICE);
    syn_range(&s, "wait", US(18), US(1018), 0, 0);
    syn_range(&s, "tail", US(1019), US(2030), 0, 0);
    sc_analysis a;
    analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(2030));
    assert_int_equal(a.n_ranges, 2);
    const sc_range_summary *wait = &a.ranges[0], *tail = &a.ranges[1];
    assert_string_equal(wait->range->name, "wait");
    assert_int_equal(wait->wall_ns, US(1000));
    assert_int_equal(wait->replay_wall_ns, US(1000));
    assert_int_equal(wait->fixed_wall_ns, US(10));
    assert_int_equal(wait->n_findings, 1);
    assert_string_equal(sc_range_finding_rule(&a, &wait->findings[0]), "host-sync");
    assert_int_equal(wait->findings[0].cost_ns, US(990));
    assert_string_equal(tail->range->name, "tail");
    assert_int_equal(tail->replay_wall_ns, US(1011));
    assert_int_equal(tail->fixed_wall_ns, US(1011));
    assert_int_equal(tail->n_findings, 0);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unchanged_replay_is_the_recording),
        cmocka_unit_test(test_replay_summary_says_when_it_is_off),
        cmocka_unit_test(test_run_longer_than_4_3_s),
        cmocka_unit_test(test_empty_trace_has_no_replay),
        cmocka_unit_test(test_legacy_trap_is_an_error_told_twice_counted_once),
        cmocka_unit_test(test_join_saves_nothing),
        cmocka_unit_test(test_unwait_device_sync),
        cmocka_unit_test(test_unwait_stream_sync),
        cmocka_unit_test(test_stream_sync_waits_for_its_stream),
        cmocka_unit_test(test_unwait_event_sync),
        cmocka_unit_test(test_unwait_polling_loop),
        cmocka_unit_test(test_pinned_at_the_measured_rate),
        cmocka_unit_test(test_pinned_at_the_default_rate),
        cmocka_unit_test(test_room),
        cmocka_unit_test(test_held_work),
        cmocka_unit_test(test_error_edges),
        cmocka_unit_test(test_warning_edges),
        cmocka_unit_test(test_saving_nothing_is_a_note),
        cmocka_unit_test(test_range_walls),
        cmocka_unit_test(test_streamcheck_time_left_out),
        cmocka_unit_test(test_tracer_time_left_out),
        cmocka_unit_test(test_thread_join_follows_the_other_thread),
        cmocka_unit_test(test_slow_join_follows_the_other_thread),
        cmocka_unit_test(test_thread_handoff_follows_the_other_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
