/* Rule implicit-sync. Device 0, context 1; streams 20 and 21 non-blocking, 13 a blocking
 * stream, 7 the legacy stream. Every expected number is worked out from the timings in the
 * comments: what the call measured with the definitions of src/analyze/blocking.h, what its
 * fix saves with the replay of src/analyze/replay.h (the call no longer waits: it returns
 * after its own time after the wait, and its thread issues on). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

/*   kernel K1 on 20   launch 0 .. 5 us, runs 10 .. 1000 us
 *   cudaFree          200 .. 1010 us (a driver cuMemFree inside it, same correlation id)
 *   kernel K2 on 21   launch 1100 .. 1105 us, runs 1110 .. 1200 us
 * K1 was in flight at 200 and ended at 1000, inside the free; the free returned 10 us later
 * (tolerance max(20 us, 5% of 810 us)): it waited for stream 20.
 * idle in [200, 1010]: 1000 .. 1010 = 10 us. After the return the device idled until K2 at
 * 1110, issued at 1100, after the return: starve 100 us. Measured: min(10 + 100, 810) =
 * 110 us. Run span 0 .. 1200 us.
 * The replay (both launches start their kernels 10 us after the call: the typical lag):
 * without the wait the free returns after its own 10 us, at 210; the launch comes 90 us of
 * host time later, at 300, K2 runs 310 .. 400, and the run ends with K1 at 1000. Saving
 * 1200 - 1000 = 200 us, 16.7% of the run: error. */
static void test_free_draining_other_stream_is_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(10), US(1000), 1);
    syn_call(&s, SC_CALL_FREE, US(200), US(1010), 2, "cudaFree", NULL, 0);
    sc_api_call *drv = syn_call(&s, SC_CALL_FREE, US(201), US(1009), 2, "cuMemFree_v2", NULL, 0);
    syn_call_flags(&s, drv, SC_API_DRIVER);
    syn_call(&s, SC_CALL_LAUNCH, US(1100), US(1105), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, 21, US(1110), US(1200), 3);
    sc_analysis a;
    syn_analyze(&s, &a);

    const sc_finding *f = syn_finding(&a, "implicit-sync");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->cost_ns, US(200));
    assert_int_equal(f->waited_ns, US(110));
    assert_true(f->share > 200.0 / 1200.0 - 1e-9 && f->share < 200.0 / 1200.0 + 1e-9);
    const sc_instance *w = &f->worst;
    assert_non_null(w->call);
    assert_string_equal(sc_call_name(&s.t, w->call), "cudaFree");
    assert_true(syn_ev(w, "host_blocked_us") == 810.0);
    assert_true(syn_ev(w, "wait_us") == 800.0);
    assert_true(syn_ev(w, "idle_us") == 10.0);
    assert_true(syn_ev(w, "starve_us") == 100.0);
    assert_true(syn_ev(w, "cost_us") == 110.0);
    assert_true(syn_ev(w, "drained_streams") == 1.0);
    assert_true(syn_ev(w, "drained_stream") == 20.0);
    assert_true(syn_ev(w, "other_thread") == 0.0);
    assert_non_null(strstr(w->text, "stream(s) 20;"));
    assert_non_null(strstr(w->text, "next call, cudaLaunchKernel, waited with it"));
    assert_true(syn_evidence(f->totals, f->n_totals, "checked_calls") == 1.0);
    assert_non_null(strstr(f->title, "cudaFree"));
    assert_non_null(strstr(f->fix, "cudaMallocAsync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/*   K1 on 20 runs 10 .. 800 us, K2 on 21 runs 10 .. 1000 us (launches 0 .. 5, 5 .. 8 us)
 *   cudaFree 200 .. 1010 us, nothing after it
 * Both drained; the last to end is on 21. idle 1000 .. 1010 = 10 us, but no work followed:
 * measured 0, and no fix to price: a wait at the end is one the program keeps (its results
 * are read, its buffers freed). Cost 0, a note. It did wait: reported, not silent. */
static void test_free_draining_two_streams_nothing_after_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(10), US(800), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(5), US(8), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, 21, US(10), US(1000), 2);
    syn_call(&s, SC_CALL_FREE, US(200), US(1010), 3, "cudaFree", NULL, 0);
    sc_analysis a;
    syn_analyze(&s, &a);

    const sc_finding *f = syn_finding(&a, "implicit-sync");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->cost_ns, 0);
    assert_false(f->join);      /* it measured nothing lost: not a join, just small */
    const sc_instance *w = &f->worst;
    assert_true(syn_ev(w, "idle_us") == 10.0);
    assert_true(syn_ev(w, "drained_streams") == 2.0);
    assert_true(syn_ev(w, "drained_stream") == 21.0);
    assert_true(syn_ev(w, "starve_us") == 0.0);
    assert_non_null(strstr(w->text, "stream(s) 20, 21;"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/*   K1 on 20 runs 10 .. 100 us; cudaMalloc 200 .. 500 us; K2 launched 510, runs 520 .. 600.
 * Nothing was in flight at 200: the malloc waited for nothing. The device idled 300 us while
 * the host was blocked, but that is a slow call, not an implicit synchronization. */
static void test_slow_malloc_with_nothing_in_flight_is_not_flagged(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(10), US(100), 1);
    syn_call(&s, SC_CALL_MALLOC, US(200), US(500), 2, "cudaMalloc", NULL, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(510), US(515), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(520), US(600), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "implicit-sync"));
    assert_null(syn_finding(&a, "host-sync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Work in flight that the call did not wait for:
 *   K1 on 20 runs 10 .. 5000 us; cudaMalloc 200 .. 250 us returns while K1 still runs.
 *   K2 on 21 runs 1010 .. 1300 us (launched 1000); cudaMalloc 1100 .. 3000 us: K2 ended
 *   inside it, but 1700 us before it returned (tolerance max(20, 5% of 1900) = 95 us).
 * Neither is an implicit sync. */
static void test_work_not_waited_for_is_not_flagged(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(10), US(5000), 1);
    syn_call(&s, SC_CALL_MALLOC, US(200), US(250), 2, "cudaMalloc", NULL, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(1000), US(1005), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, 21, US(1010), US(1300), 3);
    syn_call(&s, SC_CALL_MALLOC, US(1100), US(3000), 4, "cudaMalloc", NULL, 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "implicit-sync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/*   K on the legacy stream 7 runs 10 .. 1000 us (launch 0 .. 5)
 *   cudaMemcpy 100 .. 1100 us, its copy on 7 runs 1005 .. 1095 us
 * The copy waited for its own stream, as a synchronous copy must: not flagged. */
static void test_sync_memcpy_own_stream_is_not_flagged(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 7, US(10), US(1000), 1);
    syn_call(&s, SC_CALL_MEMCPY, US(100), US(1100), 2, "cudaMemcpy", NULL, 0);
    syn_copy(&s, 0, 7, US(1005), US(1095), 4096, 2, 0, SC_MEM_PAGEABLE, SC_MEM_DEVICE);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "implicit-sync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Same copy, but the kernel ran on blocking stream 13:
 *   K on 13 runs 10 .. 1000 us; cudaMemcpy 100 .. 1100 us, its copy on 7 at 1005 .. 1095 us.
 * The copy started 5 us after K ended (wait point 1005): it waited for stream 13.
 * idle in [100, 1100]: 1000 .. 1005 and 1095 .. 1100 = 10 us. Nothing followed, so only the
 * gap the copy closed counts: 1000 .. 1005, measured 5 us. The wait: 1000 - 100 = 900 us.
 * No work followed the copy: it is the program's read of its results, a wait it keeps, so
 * there is no fix to price: cost 0, a note. */
static void test_sync_memcpy_draining_other_stream_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 13, US(10), US(1000), 1);
    syn_call(&s, SC_CALL_MEMCPY, US(100), US(1100), 2, "cudaMemcpy", NULL, 0);
    syn_copy(&s, 0, 7, US(1005), US(1095), 4096, 2, 0, SC_MEM_PAGEABLE, SC_MEM_DEVICE);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "implicit-sync");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->cost_ns, 0);
    const sc_instance *w = &f->worst;
    assert_true(syn_ev(w, "wait_us") == 900.0);
    assert_true(syn_ev(w, "idle_us") == 10.0);
    assert_true(syn_ev(w, "drained_stream") == 13.0);
    assert_non_null(strstr(f->fix, "cudaMemcpyAsync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The fix moves the allocations out of the loop: the thread's cudaMalloc and cudaFree calls,
 * not only the one that waited (the next would wait in its place). The loop shows as a
 * thread that allocates again what it freed: the first cudaMalloc stays (one buffer is
 * still needed), without a wait to lose; every free followed by a cudaMalloc, and every
 * cudaMalloc after a free, goes.
 *   thread 1: launch 0 .. 5: KA on 20 runs 10 .. 2010 us
 *   thread 2, three steps on 21:
 *     cudaMalloc 100 .. 110, launch 110 .. 115: KB1 120 .. 220, cudaFree 115 .. 2016: it
 *       waited for KA of thread 1 (6 us after it ended): the instance
 *     cudaMalloc 2020 .. 2030, launch 2030 .. 2035: KB2 2040 .. 2140, cudaFree 2200 .. 2210
 *       (KB2 was over: it waited for nothing)
 *     cudaMalloc 2215 .. 2225, launch 2225 .. 2230: KB3 2235 .. 2335
 *     cudaDeviceSynchronize 2230 .. 2341: the last wait, kept
 * Lags: issue 10, wake 6, stream 1 (none shown). The first cudaMalloc 100 .. 110 as recorded;
 * without the later allocation calls (each takes no time, its gap before it kept): launch 1
 * at 110, KB1 120 .. 220; launch 2 at 119, KB2 after KB1 on 21 at 221 .. 321; launch 3 at 294
 * (the 165 us before the second cudaFree and the 5 us after it kept), KB3 322 .. 422; the
 * device sync waits for KA and returns at 2016. Saving 2341 - 2016 = 325 us, 14% of the run:
 * an error. */
static void test_fix_moves_the_family_out_of_the_loop(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    sc_api_call *c;
    c = syn_call(&s, SC_CALL_LAUNCH, 0, US(5), 1, NULL, NULL, 0);
    syn_call_tid(&s, c, 1);
    syn_kernel(&s, 0, 20, US(10), US(2010), 1);
    const uint64_t step[3][4] = {{100, 110, 120, 220}, {2020, 2030, 2040, 2140},
                                 {2215, 2225, 2235, 2335}};
    const uint64_t free_at[2][2] = {{115, 2016}, {2200, 2210}};
    for (uint32_t k = 0; k < 3; k++) {
        c = syn_call(&s, SC_CALL_MALLOC, US(step[k][0]), US(step[k][1]), 10 + 3 * k, "cudaMalloc",
                     NULL, 0);
        syn_call_tid(&s, c, 2);
        c = syn_call(&s, SC_CALL_LAUNCH, US(step[k][1]), US(step[k][1] + 5), 11 + 3 * k, NULL,
                     NULL, 0);
        syn_call_tid(&s, c, 2);
        syn_kernel(&s, 0, 21, US(step[k][2]), US(step[k][3]), 11 + 3 * k);
        if (k < 2) {
            c = syn_call(&s, SC_CALL_FREE, US(free_at[k][0]), US(free_at[k][1]), 12 + 3 * k,
                         "cudaFree", NULL, 0);
            syn_call_tid(&s, c, 2);
        }
    }
    c = syn_call(&s, SC_CALL_DEVICE_SYNC, US(2230), US(2341), 30, "cudaDeviceSynchronize", NULL,
                 0);
    syn_call_tid(&s, c, 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(2341));
    const sc_finding *f = syn_finding(&a, "implicit-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_string_equal(sc_call_name(&s.t, f->worst.call), "cudaFree");
    assert_int_equal(f->cost_ns, US(325));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The timings of the first test with cudaFreeAsync: stream-ordered, never an implicit sync. */
static void test_stream_ordered_free_is_not_looked_at(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(10), US(1000), 1);
    syn_call(&s, SC_CALL_FREE_ASYNC, US(200), US(1010), 2, "cudaFreeAsync", NULL, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(1100), US(1105), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, 21, US(1110), US(1200), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "implicit-sync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The fix follows the worst instance's kind of call:
 *   K1 on 20 runs 10 .. 100 us;  cudaFreeHost 50 .. 105 us: drained K1, idle 100 .. 105
 *   K2 on 20 runs 300 .. 1000 us (launch 200); cudaHostRegister 400 .. 1010 us: drained K2,
 *   idle 1000 .. 1010 = 10 us; nothing followed.
 * cudaFreeHost: idle 5 us; starve: next work K2 at 300 was issued at 200 >= 105: 195 us;
 * measured min(200, 55) = 55 us. cudaHostRegister: nothing followed, measured 0, and its
 * wait is kept (no fix: the program's last wait).
 * The replay: issue lag 10 us (lower quartile of K1's 10 and K2's 100); K2 started 90 us
 * later than that for no reason the trace shows (kept). The thread releases pinned memory
 * and pins again: the fix takes the release out of the loop (cudaHostRegister, the last
 * wait, which nothing followed, stays): cudaFreeHost takes no time at 50, the launch comes
 * 95 us later at 145, K2 runs 245 .. 945; cudaHostRegister (at 150 + 195 = 345) waits for K2
 * and returns 10 us after it, at 955. The run ends at 955 instead of 1010: 55 us saved, all
 * of it cudaFreeHost's. 55 us is 5.4% of the run but under 100 us: a warning. */
static void test_fix_follows_worst_call(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(10), US(100), 1);
    syn_call(&s, SC_CALL_HOST_FREE, US(50), US(105), 2, "cudaFreeHost", NULL, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(200), US(205), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(300), US(1000), 3);
    syn_call(&s, SC_CALL_HOST_REGISTER, US(400), US(1010), 4, "cudaHostRegister", NULL, 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "implicit-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 2);
    assert_int_equal(f->cost_ns, US(55));
    assert_int_equal(f->waited_ns, US(55));
    assert_int_equal(f->worst.cost_ns, US(55));
    assert_string_equal(sc_call_name(&s.t, f->worst.call), "cudaFreeHost");
    assert_true(syn_ev(&f->worst, "starve_us") == 195.0);
    assert_non_null(strstr(f->fix, "pinned host buffers"));
    assert_int_equal(f->severity, SC_SEV_WARNING);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The timings of the first test on device 0 (context 1), plus device 1 (context 2) running a
 * kernel on stream 30 from 10 to 1005 us, launched by another thread at 0 .. 3 us. The free
 * belongs to context 1, so only device 0 counts: drained stream 20 alone, idle 10 us, starve
 * 100 us, measured 110 us. Were device 1 counted, stream 30 would be drained last and the
 * idle time only 5 us. The fix saves as in the first test, but the run cannot end before
 * device 1's kernel at 1005: 1200 - 1005 = 195 us. */
static void test_other_device_work_is_not_counted(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(10), US(1000), 1);
    sc_api_call *l = syn_call(&s, SC_CALL_LAUNCH, US(0), US(3), 4, NULL, NULL, 0);
    syn_call_context(&s, l, 2);
    syn_call_tid(&s, l, 1);
    sc_kernel *k = syn_kernel(&s, 1, 30, US(10), US(1005), 4);
    syn_shape(&s, k)->context_id = 2;
    syn_call(&s, SC_CALL_FREE, US(200), US(1010), 2, "cudaFree", NULL, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(1100), US(1105), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, 21, US(1110), US(1200), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "implicit-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->cost_ns, US(195));
    assert_int_equal(f->waited_ns, US(110));
    assert_true(syn_ev(&f->worst, "drained_streams") == 1.0);
    assert_true(syn_ev(&f->worst, "drained_stream") == 20.0);
    assert_true(syn_ev(&f->worst, "idle_us") == 10.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Across threads (GPU-FACTS.md: a cudaFree in one thread waits for another thread's kernels).
 * Thread 1 queues three 170 us kernels on stream 20 (launches 0 .. 2, 2 .. 4, 4 .. 6 us;
 * they run 5 .. 175, 176 .. 346, 347 .. 517). Thread 2 launches K_b1 on 21 (30 .. 32, runs
 * 35 .. 55), calls cudaFree 60 .. 422, launches K_b2 (425 .. 427, runs 430 .. 450) and
 * frees again at 600 .. 675, when nothing is in flight: a cudaFree takes 75 us of its own.
 * The first free drained K_a1 and K_a2, both thread 1's; it returned 76 us after K_a2 ended,
 * within max(20 us, 5% of 362 us) + 75 us: it waited for them. The second drained nothing.
 * The replay (issue lag 5 us, stream gap 1 us): without the wait the first free returns at
 * 60 + 76 = 136, K_b2's launch comes 3 us later and the second free at 314 + 75 = 389; the
 * run ends with K_a3 at 517 instead of the second free at 675: 158 us saved, 23% of the run:
 * an error. */
static void test_free_waiting_for_another_threads_work(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint32_t i = 0; i < 3; i++) {
        sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, US(2 * i), US(2 * i + 2), 1 + i, NULL,
                                  NULL, 0);
        syn_call_tid(&s, c, 1);
        syn_kernel(&s, 0, 20, US(5 + 171 * i), US(175 + 171 * i), 1 + i);
    }
    sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, US(30), US(32), 4, NULL, NULL, 0);
    syn_call_tid(&s, c, 2);
    syn_kernel(&s, 0, 21, US(35), US(55), 4);
    c = syn_call(&s, SC_CALL_FREE, US(60), US(422), 5, "cudaFree", NULL, 0);
    syn_call_tid(&s, c, 2);
    c = syn_call(&s, SC_CALL_LAUNCH, US(425), US(427), 6, NULL, NULL, 0);
    syn_call_tid(&s, c, 2);
    syn_kernel(&s, 0, 21, US(430), US(450), 6);
    c = syn_call(&s, SC_CALL_FREE, US(600), US(675), 7, "cudaFree", NULL, 0);
    syn_call_tid(&s, c, 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "implicit-sync");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->worst.call->rec.correlation_id, 5);
    assert_true(syn_ev(&f->worst, "other_thread") == 1.0);
    assert_true(syn_ev(&f->worst, "waited_for_thread") == 1.0);
    assert_true(syn_ev(&f->worst, "drained_stream") == 20.0);
    assert_true(syn_ev(&f->worst, "host_blocked_us") == 362.0);
    assert_non_null(strstr(f->worst.text, "stream(s) 20 of thread 1"));
    assert_non_null(strstr(f->worst.text, "next call, cudaLaunchKernel, waited with it"));
    assert_int_equal(f->cost_ns, US(158));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(a.replay.error > -1e-9 && a.replay.error < 1e-9);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The same without the second, idle free: nothing tells what a cudaFree takes on its own, so
 * returning 76 us after K_a2 ended is beyond the 20 us that explain a return: not reported
 * (a slow call is not a synchronization unless the trace shows it). */
static void test_free_own_time_unknown_is_not_flagged(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint32_t i = 0; i < 3; i++) {
        sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, US(2 * i), US(2 * i + 2), 1 + i, NULL,
                                  NULL, 0);
        syn_call_tid(&s, c, 1);
        syn_kernel(&s, 0, 20, US(5 + 171 * i), US(175 + 171 * i), 1 + i);
    }
    sc_api_call *c = syn_call(&s, SC_CALL_FREE, US(60), US(422), 5, "cudaFree", NULL, 0);
    syn_call_tid(&s, c, 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "implicit-sync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_draining_other_stream_is_error),
        cmocka_unit_test(test_free_draining_two_streams_nothing_after_is_note),
        cmocka_unit_test(test_slow_malloc_with_nothing_in_flight_is_not_flagged),
        cmocka_unit_test(test_work_not_waited_for_is_not_flagged),
        cmocka_unit_test(test_sync_memcpy_own_stream_is_not_flagged),
        cmocka_unit_test(test_sync_memcpy_draining_other_stream_is_note),
        cmocka_unit_test(test_stream_ordered_free_is_not_looked_at),
        cmocka_unit_test(test_fix_follows_worst_call),
        cmocka_unit_test(test_fix_moves_the_family_out_of_the_loop),
        cmocka_unit_test(test_other_device_work_is_not_counted),
        cmocka_unit_test(test_free_waiting_for_another_threads_work),
        cmocka_unit_test(test_free_own_time_unknown_is_not_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
