/* Rule host-sync. Device 0, context 1, kernels on stream 20. Every expected number is
 * worked out from the timings in the comments with the definitions of
 * src/analyze/blocking.h. */
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
 *   launch t0 .. t0+5, kernel t0+10 .. t0+1010, cudaStreamSynchronize t0+20 .. t0+1015. */
static void item_step(syn *s, uint64_t t0, uint32_t corr)
{
    syn_call(s, SC_CALL_LAUNCH, t0, t0 + US(5), corr, NULL, NULL, 0);
    syn_kernel(s, 0, STREAM, t0 + US(10), t0 + US(1010), corr);
    sc_api_call *c = syn_call(s, SC_CALL_STREAM_SYNC, t0 + US(20), t0 + US(1015), corr + 1,
                              "cudaStreamSynchronize", NULL, 0);
    c->rec.stream = 0x20;
}

/* Four steps 1100 us apart. Each sync drained its step's kernel (ended 5 us before the
 * return): blocked 995 us, idle 1010 .. 1015 = 5 us. Steps 0..2: the next kernel starts at
 * t0+1110, issued at t0+1100 after the return: starve 95 us, cost min(100, 995) = 100 us.
 * Step 3: nothing follows, the device had nothing left to run: cost 0. Total 300 us; idle
 * 20 us; starve 285 us; blocked 3980 us. Run span 0 .. 3300+1015 = 4315 us: 6.95% of the
 * run, >= 1%, < 10%: warning. */
static void test_item_every_step_is_warning(void **state)
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
    assert_int_equal(f->severity, SC_SEV_WARNING);
    assert_int_equal(f->count, 4);
    assert_int_equal(f->cost_ns, US(300));
    assert_true(f->share > 300.0 / 4315.0 - 1e-9 && f->share < 300.0 / 4315.0 + 1e-9);
    assert_true(total(f, "host_blocked_us") == 3980.0);
    assert_true(total(f, "worst_blocked_us") == 995.0);
    assert_true(total(f, "idle_us") == 20.0);
    assert_true(total(f, "starve_us") == 285.0);
    assert_true(total(f, "polling_episodes") == 0.0);
    const sc_instance *w = &f->worst;
    assert_int_equal(w->cost_ns, US(100));
    assert_int_equal(w->start_ns, US(20));     /* ties go to the first */
    assert_true(syn_ev(w, "wait_us") == 990.0); /* kernel end 1010 - sync start 20 */
    assert_true(syn_ev(w, "drained_streams") == 1.0);
    assert_int_equal(f->n_sites, 1);
    assert_int_equal(f->sites[0].count, 4);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Two steps 1500 us apart: the host spends 485 us after each return before it launches.
 * Step 0: starve 1510 - 1015 = 495 us, cost min(500, 995) = 500 us; step 1: 0 (nothing
 * follows). 500 us of a 1500+1015 = 2515 us run is 19.9%: error. */
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
    assert_int_equal(f->cost_ns, US(500));
    assert_true(syn_ev(&f->worst, "starve_us") == 495.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A short sync cannot cost more than it blocked:
 *   kernel 10 .. 1010 us; cudaStreamSynchronize 1000 .. 1015 us; next launch 5000 us, kernel
 *   5010 .. 5100 us. idle 5 us, starve 5010 - 1015 = 3995 us, cost min(4000, 15) = 15 us:
 *   the 4 ms of host work after it would have happened without the sync. 15/5100: note. */
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
    assert_int_equal(f->cost_ns, US(15));
    assert_true(syn_ev(&f->worst, "starve_us") == 3995.0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The last sync before exit: kernel 10 .. 1000 us, cudaDeviceSynchronize 20 .. 1002 us.
 * idle 1000 .. 1002 = 2 us, but nothing follows: the device had nothing left to run, cost 0:
 * note. */
static void test_final_sync_costs_almost_nothing(void **state)
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
    assert_int_equal(f->cost_ns, 0);
    assert_true(syn_ev(&f->worst, "host_blocked_us") == 982.0);
    assert_true(syn_ev(&f->worst, "idle_us") == 2.0);
    assert_true(syn_ev(&f->worst, "starve_us") == 0.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

static void query(syn *s, uint16_t call_class, uint64_t start, uint64_t handle, uint32_t tid)
{
    sc_api_call *c = syn_call(s, call_class, start, start + US(2), 0,
                              call_class == SC_CALL_STREAM_QUERY ? "cudaStreamQuery"
                                                                 : "cudaEventQuery",
                              NULL, 0);
    c->rec.tid = tid;
    if (call_class == SC_CALL_STREAM_QUERY)
        c->rec.stream = handle;
    else
        c->rec.aux = handle;
}

/* A cudaStreamQuery loop on thread 7, stream handle 0x20: queries at 10 + 20 i us, 2 us each,
 * i = 0 .. 25 (18 us apart, under 50): one episode 10 .. 512 us of 26 queries.
 *   kernel 10 .. 500 us (launch 0 .. 5): drained, ended 12 us before the last return.
 *   idle 500 .. 512 = 12 us; next launch 600 us, kernel 605 .. 700 us: starve 93 us.
 *   cost min(105, 502) = 105 us.
 * Not episodes: lone queries at 800 and 900 us (98 us apart), and two dense queries of
 * handle 0x21 at 1000 and 1010 us (a run of 2). Run span 0 .. 1012 us: 10.4%: error. */
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
    assert_int_equal(f->cost_ns, US(105));
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

/* Two events polled in turn from one thread (A, B, A, B, A, B, 10 us apart), no device
 * work: grouped per event, two episodes of 3 queries; nothing to wait for, cost 0: note.
 * The same pattern split over two threads (A on 1, A on 2, ...) makes no episode. */
static void test_event_query_polling_grouped_by_event(void **state)
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
    const sc_finding *f = syn_finding(&a, "host-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 2);
    assert_true(total(f, "polling_episodes") == 2.0);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    /* A: 0 .. 42 us, B: 10 .. 52 us */
    assert_true(total(f, "host_blocked_us") == 84.0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_item_every_step_is_warning),
        cmocka_unit_test(test_item_with_long_host_gap_is_error),
        cmocka_unit_test(test_cost_capped_at_blocked_time),
        cmocka_unit_test(test_final_sync_costs_almost_nothing),
        cmocka_unit_test(test_stream_query_polling_is_one_episode),
        cmocka_unit_test(test_event_query_polling_grouped_by_event),
        cmocka_unit_test(test_lone_queries_are_not_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
