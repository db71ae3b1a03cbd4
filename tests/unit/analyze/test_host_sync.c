/* Rule host-sync. Device 0, context 1, kernels on stream 20. Every expected number is
 * worked out from the timings in the comments: what was measured with the definitions of
 * src/analyze/blocking.h, what the fix saves with the replay's (src/analyze/replay.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define STREAM 20

static double total(const sc_finding *f, const char *key)
{
    return syn_evidence(f->totals, f->n_totals, key);
}

/* One training-like step at t0, with a `.item()` at its end:
 *   launch t0 .. t0+5, kernel t0+10 .. t0+10+k, cudaStreamSynchronize t0+20 .. t0+15+k
 * (the sync returns 5 us after the kernel). The sync's stream handle was never seen with
 * work, so the replay has it wait for all of the device's work issued before it. */
static void item_step_of(syn *s, uint64_t t0, uint32_t corr, uint64_t k)
{
    syn_call(s, SC_CALL_LAUNCH, t0, t0 + US(5), corr, NULL, NULL, 0);
    syn_kernel(s, 0, STREAM, t0 + US(10), t0 + US(10) + k, corr);
    sc_api_call *c = syn_call(s, SC_CALL_STREAM_SYNC, t0 + US(20), t0 + US(15) + k, corr + 1,
                              "cudaStreamSynchronize", NULL, 0);
    syn_call_stream(s, c, 0x20);
}

/* A step whose kernel runs 1000 us: kernel t0+10 .. t0+1010, sync t0+20 .. t0+1015. */
static void item_step(syn *s, uint64_t t0, uint32_t corr)
{
    item_step_of(s, t0, corr, US(1000));
}

/* Four steps 1100 us apart. Measured: each sync drained its step's kernel (ended 5 us before
 * the return): blocked 995 us, idle 1010 .. 1015 = 5 us. Steps 0..2: the next kernel starts
 * at t0+1110, issued at t0+1100 after the return: starve 95 us, measured 100 us. Step 3:
 * nothing follows, 0. Measured 300 us; idle 20 us; starve 285 us; blocked 3980 us.
 * The replay: every kernel starts 10 us after its launch call (issue lag 10 us), every sync
 * returns 5 us after its kernel (wake 5 us), no stream sample (stream lag 1 us): it
 * reproduces 0 .. 3300+1015 = 4315 us. The fix removes the waits of steps 0..2 only: no work
 * followed step 3's sync, the one before the results are read, so the program keeps it.
 * Without the three waits the host runs ahead: those syncs end 5 us after they start,
 * launches at 110, 220, 330 us, and each kernel follows the previous one 1 us after it on
 * the stream: 10 .. 1010, 1011 .. 2011, 2012 .. 3012, 3013 .. 4013; the last sync returns
 * 5 us later, at 4018. Saving 4315 - 4018 = 297 us (99 us between each pair of kernels):
 * 6.9% of the run and >= 100 us: an error. Shared by what each measured: steps 0..2
 * 297 / 3 = 99 us each, step 3 nothing. */
static void test_item_every_step_is_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < 4; k++)
        item_step(&s, US(1100) * k, 1 + 2 * k);
    sc_analysis a;
    syn_analyze(&s, &a);

    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_int_equal(f->count, 4);
    assert_int_equal(f->waited_ns, US(300));
    assert_int_equal(f->cost_ns, US(297));
    assert_int_equal(a.replay.replay_span_ns, US(4315));
    assert_int_equal(a.replay.fixed_span_ns, US(4018));
    assert_true(f->share > 297.0 / 4315.0 - 1e-9 && f->share < 297.0 / 4315.0 + 1e-9);
    assert_true(total(f, "host_blocked_us") == 3980.0);
    assert_true(total(f, "worst_blocked_us") == 995.0);
    assert_true(total(f, "idle_us") == 20.0);
    assert_true(total(f, "starve_us") == 285.0);
    assert_true(total(f, "cost_us") == 300.0);
    assert_true(total(f, "polling_episodes") == 0.0);
    const sc_instance *w = &f->worst;
    assert_int_equal(w->cost_ns, US(99));
    assert_int_equal(w->start_ns, US(20));     /* ties go to the first */
    assert_true(syn_ev(w, "wait_us") == 990.0); /* kernel end 1010 - sync start 20 */
    assert_true(syn_ev(w, "cost_us") == 100.0);
    assert_true(syn_ev(w, "drained_streams") == 1.0);
    assert_int_equal(f->n_sites, 1);
    assert_int_equal(f->sites[0].count, 4);
    assert_int_equal(f->sites[0].cost_ns, US(297));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The same four syncs beside kernels of 4000 us, steps 4100 us apart: the same 100 us
 * measured per step but a smaller share. The replay reproduces 3 x 4100 + 4015 = 16315 us;
 * without the waits of steps 0..2 the kernels run back to back (1 us apart): 10 .. 4010,
 * 4011 .. 8011, 8012 .. 12012, 12013 .. 16013, and the kept last sync returns at 16018.
 * Saving 16315 - 16018 = 297 us: 1.82% of the run, >= 1% and >= 20 us, < 5%: a warning. */
static void test_item_every_step_beside_long_kernels_is_warning(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < 4; k++)
        item_step_of(&s, US(4100) * k, 1 + 2 * k, US(4000));
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(300));
    assert_int_equal(a.replay.replay_span_ns, US(16315));
    assert_int_equal(f->cost_ns, US(297));
    assert_int_equal(f->severity, SC_SEV_WARNING);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Two steps 1500 us apart: the host spends 485 us after each return before it launches.
 * Measured: step 0 starve 1510 - 1015 = 495 us, min(500, 995) = 500 us; step 1: 0 (nothing
 * follows). The replay (issue lag 10 us, wake 5 us) reproduces 0 .. 2515 us; without the
 * first wait (the second is the last one, kept) the first sync ends at 25 us, the second
 * launch is at 25 + 485 = 510 us and its kernel runs right after the first:
 * max(520, 1010 + 1) = 1011 .. 2011; the second sync returns at 2016. Saving 2515 - 2016 =
 * 499 us, 19.8% of the run: an error. */
static void test_item_with_long_host_gap_is_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    item_step(&s, 0, 1);
    item_step(&s, US(1500), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_int_equal(f->waited_ns, US(500));
    assert_int_equal(f->cost_ns, US(499));
    assert_int_equal(f->worst.cost_ns, US(499));
    assert_true(syn_ev(&f->worst, "starve_us") == 495.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A short sync cannot save more than it blocked:
 *   kernel 10 .. 1010 us; cudaStreamSynchronize 1000 .. 1015 us; next launch 5000 us, kernel
 *   5010 .. 5100 us. Measured: idle 5 us, starve 5010 - 1015 = 3995 us, min(4000, 15) =
 *   15 us: the 4 ms of host work after it would have happened without the sync.
 * The replay (issue lag 10 us, wake 5 us) reproduces 0 .. 5100 us. Without the wait the sync
 * still takes the 5 us it spent after the kernel: it ends at 1005, the next launch at
 * 1005 + 3985 = 4990, its kernel 5000 .. 5090. Saving 10 us: a note (and no join: it waited
 * less than 20 us). */
static void test_cost_capped_at_blocked_time(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, 0, US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(10), US(1010), 1);
    syn_call(&s, SC_CALL_STREAM_SYNC, US(1000), US(1015), 2, "cudaStreamSynchronize", NULL, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(5000), US(5005), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(5010), US(5100), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(15));
    assert_int_equal(f->cost_ns, US(10));
    assert_true(syn_ev(&f->worst, "starve_us") == 3995.0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_false(f->join);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The last sync before exit: kernel 10 .. 1000 us, cudaDeviceSynchronize 20 .. 1002 us.
 * Measured: idle 1000 .. 1002 = 2 us, but nothing follows: 0. No work followed it, so it is
 * the wait the program needs before it reads its results: there is no fix to price, and the
 * finding (kept, so the sync is still seen) costs nothing: a note. */
static void test_final_sync_costs_nothing(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, 0, US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(10), US(1000), 1);
    syn_call(&s, SC_CALL_DEVICE_SYNC, US(20), US(1002), 2, "cudaDeviceSynchronize", NULL, 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, 0);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->worst.cost_ns, 0);
    assert_true(syn_ev(&f->worst, "host_blocked_us") == 982.0);
    assert_true(syn_ev(&f->worst, "idle_us") == 2.0);
    assert_true(syn_ev(&f->worst, "starve_us") == 0.0);
    assert_true(syn_ev(&f->worst, "cost_us") == 0.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

static void query(syn *s, uint16_t call_class, uint64_t start, uint64_t handle, uint32_t tid)
{
    sc_api_call *c = syn_call(s, call_class, start, start + US(2), 0,
                              call_class == SC_CALL_STREAM_QUERY ? "cudaStreamQuery"
                                                                 : "cudaEventQuery",
                              NULL, 0);
    syn_call_tid(s, c, tid);
    if (call_class == SC_CALL_STREAM_QUERY)
        syn_call_stream(s, c, handle);
    else
        syn_call_aux(s, c, handle);
}

/* A cudaStreamQuery loop on thread 7, stream handle 0x20: queries at 10 + 20 i us, 2 us each,
 * i = 0 .. 25 (18 us apart, under 50): one episode 10 .. 512 us of 26 queries.
 *   kernel 10 .. 500 us (launch 0 .. 5, thread 0): drained, ended 12 us before the last
 *   return. Measured: idle 500 .. 512 = 12 us; next launch 600 us, kernel 605 .. 700 us:
 *   starve 93 us; min(105, 502) = 105 us.
 * Not episodes: lone queries at 800 and 900 us (98 us apart), and two dense queries of
 * handle 0x21 at 1000 and 1010 us (a run of 2).
 * The replay. Kernel issue lags 10 us (0 -> 10) and 5 us (600 -> 605): their lower quartile
 * is 5 us. The loop waits for the device's work issued before it (the handle is unknown)
 * and returns 12 us after it. Unchanged: the first kernel 5 .. 495 us, the loop ends 507,
 * the lone queries follow with their recorded gaps (288, 98, 98, 8 us) and the last ends at
 * 1007 us; thread 0's second kernel runs 605 .. 700. Span 1007 us (recorded 1012).
 * Without the wait the loop ends at 10 + 12 = 22 us and thread 7's last query at 522 us: the
 * run ends with the second kernel at 700. Saving 1007 - 700 = 307 us, 30% of the run: an
 * error. */
static void test_stream_query_polling_is_one_episode(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, 0, US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(10), US(500), 1);
    for (uint64_t i = 0; i <= 25; i++)
        query(&s, SC_CALL_STREAM_QUERY, US(10 + 20 * i), 0x20, 7);
    syn_call(&s, SC_CALL_LAUNCH, US(600), US(603), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(605), US(700), 2);
    query(&s, SC_CALL_STREAM_QUERY, US(800), 0x20, 7);
    query(&s, SC_CALL_STREAM_QUERY, US(900), 0x20, 7);
    query(&s, SC_CALL_STREAM_QUERY, US(1000), 0x21, 7);
    query(&s, SC_CALL_STREAM_QUERY, US(1010), 0x21, 7);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_true(total(f, "polling_episodes") == 1.0);
    assert_int_equal(f->waited_ns, US(105));
    assert_int_equal(a.replay.replay_span_ns, US(1007));
    assert_int_equal(f->cost_ns, US(307));
    const sc_instance *w = &f->worst;
    assert_true(syn_ev(w, "queries") == 26.0);
    assert_true(syn_ev(w, "host_blocked_us") == 502.0);
    assert_true(syn_ev(w, "idle_us") == 12.0);
    assert_true(syn_ev(w, "starve_us") == 93.0);
    assert_int_equal(w->start_ns, US(10));
    assert_non_null(strstr(w->text, "polled 26 times"));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Polling is per event: thread 1 queries A at 0, 10, 20 us, then B at 30, 40, 50 us (2 us
 * each): two episodes of 3 queries, A 0 .. 22 us and B 30 .. 52 us. No device work: nothing
 * to wait for, nothing the replay can save: cost 0, a note. */
static void test_event_query_polling_per_event(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint64_t i = 0; i < 6; i++)
        query(&s, SC_CALL_EVENT_QUERY, US(10 * i), i < 3 ? 0xA : 0xB, 1);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 2);
    assert_true(total(f, "polling_episodes") == 2.0);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_true(total(f, "host_blocked_us") == 44.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A loop is consecutive queries of one handle on one thread (polls.h): two events polled in
 * turn from one thread (A, B, A, B, A, B, 10 us apart) make no episode, each query ending
 * the other's run; nor does one event polled from two threads in turn (A on 1, A on 2, ...),
 * two queries each. No finding. */
static void test_interleaved_queries_are_not_loops(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint64_t i = 0; i < 6; i++)
        query(&s, SC_CALL_EVENT_QUERY, US(10 * i), i % 2 ? 0xB : 0xA, 1);
    for (uint64_t i = 0; i < 4; i++)
        query(&s, SC_CALL_EVENT_QUERY, US(1000 + 10 * i), 0xC, 1 + (uint32_t)(i % 2));
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "host-sync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Two lone queries are a check, not a wait: no finding at all. */
static void test_lone_queries_are_not_flagged(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, 0, US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(10), US(500), 1);
    query(&s, SC_CALL_STREAM_QUERY, US(100), 0x20, 1);
    query(&s, SC_CALL_STREAM_QUERY, US(110), 0x20, 1);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "host-sync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A sync the program needs because it then reads the events' times (cudaEventElapsedTime
 * fails on an event not yet complete, so the program must wait first):
 *   launch 0 .. 5: K1 on 20 runs 10 .. 1010; cudaEventRecord E1 on 20 at 5 .. 7
 *   cudaDeviceSynchronize 10 .. 1016 (6 us after K1)
 *   cudaEventElapsedTime(E0, E1) 1020 .. 1022
 *   cudaMallocHost 1030 .. 5030 (4 ms of its own, nothing in flight)
 *   launch 5030 .. 5035: K2 on 20 runs 5040 .. 5140
 * Without the sync's wait the read would have to wait for E1's work instead: it returns at
 * K1's end plus the typical wake-up (6 us), 1016, just as the sync did; the allocation starts
 * 8 us later as recorded, and everything after moves by 6 us at most (the read's own 2 us
 * and its gap fold into the wait). Saving 6 us, against 1006 us waited: a join, a note. Were
 * the read not known to need the event, the allocation would start at 30 and the sync would
 * look like a 1000 us error. */
static void test_sync_before_reading_event_times_is_a_join(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, 20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, 0, US(5), 1, NULL, NULL, 0);
    syn_call_stream(&s, c, 0xA0);
    syn_kernel(&s, 0, 20, US(10), US(1010), 1);
    c = syn_call(&s, SC_CALL_EVENT_RECORD, US(5), US(7), 2, "cudaEventRecord", NULL, 0);
    syn_call_stream(&s, c, 0xA0);
    syn_call_aux(&s, c, 0xE1);
    syn_call(&s, SC_CALL_DEVICE_SYNC, US(10), US(1016), 3, "cudaDeviceSynchronize", NULL, 0);
    c = syn_call(&s, SC_CALL_EVENT_READ, US(1020), US(1022), 4, "cudaEventElapsedTime", NULL, 0);
    syn_call_aux(&s, c, 0xE1);
    syn_call(&s, SC_CALL_HOST_ALLOC, US(1030), US(5030), 5, "cudaMallocHost", NULL, 0);
    c = syn_call(&s, SC_CALL_LAUNCH, US(5030), US(5035), 6, NULL, NULL, 0);
    syn_call_stream(&s, c, 0xA0);
    syn_kernel(&s, 0, 20, US(5040), US(5140), 6);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(5140));
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->cost_ns, US(6));
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_true(f->join);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_item_every_step_is_error),
        cmocka_unit_test(test_sync_before_reading_event_times_is_a_join),
        cmocka_unit_test(test_item_every_step_beside_long_kernels_is_warning),
        cmocka_unit_test(test_item_with_long_host_gap_is_error),
        cmocka_unit_test(test_cost_capped_at_blocked_time),
        cmocka_unit_test(test_final_sync_costs_nothing),
        cmocka_unit_test(test_stream_query_polling_is_one_episode),
        cmocka_unit_test(test_event_query_polling_per_event),
        cmocka_unit_test(test_interleaved_queries_are_not_loops),
        cmocka_unit_test(test_lone_queries_are_not_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
