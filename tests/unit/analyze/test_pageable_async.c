/* Rule pageable-async. One non-blocking stream (20) on device 0; expected numbers are worked
 * out from the timings in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define STREAM 20

/*   kernel          0 .. 1000 us (launch call 0 .. 5 us)
 *   cudaMemcpyAsync 900 .. 1500 us, pageable -> device, 1 MiB; the copy runs 1200 .. 1450 us
 *                   (a driver call inside it carries the same correlation id)
 *   pinned async    call 1600 .. 1610 us, copy 1610 .. 1700 us: not flagged
 *   sync pageable   cudaMemcpy 1800 .. 2000 us, copy 1850 .. 1950 us: not this rule's
 * Measured: host blocked 600 us; the device ran kernels in [0, 1000): idle for 1000 .. 1500
 * = 500 us. Pinned host-to-device rate measured in the trace: the one pinned copy of
 * >= 1 MiB, 1 MiB in 90 us. The pageable 1 MiB at that rate: 90 us; saved = 600 - 90 =
 * 510 us (the rule's own estimate, kept as evidence).
 * The replay. All of it is on stream 20, in issue order K, C1, C2, C3. Lags: kernel issue
 * 0 us (K starts with its call); copy issue C2 10 us (1600 -> 1610), C3 50 us (1800 ->
 * 1850): lower quartile 10 us; stream: C1 after K (1000 -> 1200) 200 us, a lone sample,
 * which cannot tell a delay from the typical: the default, 1 us. So C1 (model 1001) started
 * 199 us late, and C3 (model max(1810, 1701) = 1810) 40 us late, after nothing: both keep
 * those delays. The pageable call returns 50 us after its copy (1450 -> 1500), the sync
 * copy's call 50 us after its copy (1950 -> 2000); the pinned async call takes 10 us.
 * Unchanged it is the recording: span 2000 us.
 * Pinned: C1 runs 90 us, 1200 .. 1290; its call returns at once, 900 + 10 + the 50 us it
 * spent after its copy = 960; C2's call 1060 .. 1070, C2 max(1080, 1290 + 1) = 1291 .. 1381;
 * the sync call starts 1260, C3 max(1270, 1381 + 1) + 40 = 1422 .. 1522, the call returns
 * 1572. Saving 2000 - 1572 = 428 us: 21.4% of the 2000 us run and >= 100 us: an error. */
static void test_pageable_async_flagged(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, STREAM, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(0), US(1000), 1);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(900), US(1500), 2, "cudaMemcpyAsync", NULL, 0);
    sc_api_call *drv = syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(901), US(1499), 2,
                                "cuMemcpyHtoDAsync_v2", NULL, 0);
    syn_call_flags(&s, drv, SC_API_DRIVER);
    syn_copy(&s, 0, STREAM, US(1200), US(1450), 1u << 20, 2, SC_MEMCPY_ASYNC, SC_MEM_PAGEABLE,
             SC_MEM_DEVICE);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(1600), US(1610), 3, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, STREAM, US(1610), US(1700), 1u << 20, 3, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
             SC_MEM_DEVICE);
    syn_call(&s, SC_CALL_MEMCPY, US(1800), US(2000), 4, "cudaMemcpy", NULL, 0);
    syn_copy(&s, 0, STREAM, US(1850), US(1950), 1u << 20, 4, 0, SC_MEM_PAGEABLE, SC_MEM_DEVICE);
    sc_analysis a;
    syn_analyze(&s, &a);

    const sc_finding *f = syn_finding(&a, "pageable-async");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(500));
    assert_int_equal(f->cost_ns, US(428));
    assert_true(f->share > 0.214 - 1e-9 && f->share < 0.214 + 1e-9);
    assert_int_equal(a.replay.recorded_span_ns, US(2000));
    assert_int_equal(a.replay.replay_span_ns, US(2000));
    const sc_instance *w = &f->worst;
    assert_non_null(w->call);
    assert_string_equal(sc_call_name(&s.t, w->call), "cudaMemcpyAsync");
    assert_true(syn_evidence(w->evidence, w->n_evidence, "bytes") == 1048576.0);
    assert_true(syn_evidence(w->evidence, w->n_evidence, "duration_us") == 250.0);
    assert_true(syn_evidence(w->evidence, w->n_evidence, "host_blocked_us") == 600.0);
    assert_true(syn_evidence(w->evidence, w->n_evidence, "cost_us") == 500.0);
    assert_true(syn_evidence(w->evidence, w->n_evidence, "pinned_estimate_us") == 90.0);
    assert_true(syn_evidence(w->evidence, w->n_evidence, "pinned_rate_measured") == 1.0);
    assert_true(syn_evidence(w->evidence, w->n_evidence, "host_back_us") == 510.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "host_back_us") == 510.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "pinned_rate_measured") == 1.0);
    /* the rate: the pinned copy's 1 MiB in 90 us, 11.65 bytes/ns */
    assert_non_null(strstr(w->text, "; pinned: ~90.0 us (11.7 GB/s measured here)"));
    /* what the fix saves is the replay's cost, said once: the title has no other saving */
    assert_null(strstr(f->title, "save"));
    assert_true(syn_evidence(f->totals, f->n_totals, "bytes") == 1048576.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "host_blocked_us") == 600.0);
    assert_int_equal(f->n_sites, 1);
    assert_int_equal(f->sites[0].cost_ns, US(428));
    assert_non_null(f->fix);
    /* the stream saw three copies */
    assert_int_equal(a.n_streams, 1);
    assert_int_equal(a.streams[0].copy_count, 3);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Pinned async copies and synchronous pageable copies are not this rule's. */
/* The copy finds its call by correlation id, through a direct table when the ids are dense
 * (as writers number them) and by binary search when they are not: both find the runtime
 * call (not the driver call inside it that carries the same id) and give the same numbers. */
static void check_pageable_with_ids(uint32_t stride)
{
    uint32_t id[4];
    for (uint32_t k = 0; k < 4; k++)
        id[k] = 1 + k * stride;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, STREAM, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), id[0], NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(0), US(1000), id[0]);
    static const uint64_t site[] = {0x401234};
    sc_api_call *drv = syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(901), US(1499), id[1],
                                "cuMemcpyHtoDAsync_v2", NULL, 0);
    syn_call_flags(&s, drv, SC_API_DRIVER);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(900), US(1500), id[1], "cudaMemcpyAsync", site, 1);
    syn_copy(&s, 0, STREAM, US(1200), US(1450), 1u << 20, id[1], SC_MEMCPY_ASYNC,
             SC_MEM_PAGEABLE, SC_MEM_DEVICE);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(1600), US(1610), id[2], "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, STREAM, US(1610), US(1700), 1u << 20, id[2], SC_MEMCPY_ASYNC,
             SC_MEM_PINNED, SC_MEM_DEVICE);
    syn_call(&s, SC_CALL_MEMCPY, US(1800), US(2000), id[3], "cudaMemcpy", NULL, 0);
    syn_copy(&s, 0, STREAM, US(1850), US(1950), 1u << 20, id[3], 0, SC_MEM_PAGEABLE,
             SC_MEM_DEVICE);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "pageable-async");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(500));
    assert_int_equal(f->cost_ns, US(428));
    assert_non_null(f->first.call);
    assert_string_equal(sc_call_name(&s.t, f->first.call), "cudaMemcpyAsync");
    sc_analysis_free(&a);
    syn_free(&s);
}

static void test_pageable_async_dense_and_sparse_ids(void **state)
{
    (void)state;
    check_pageable_with_ids(1);             /* 1, 2, 3, 4: the table */
    check_pageable_with_ids(3000000);       /* far apart: the binary search */
}

static void test_pinned_and_sync_not_flagged(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(0), US(10), 1, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, STREAM, US(10), US(90), 4096, 1, SC_MEMCPY_ASYNC, SC_MEM_DEVICE,
             SC_MEM_PINNED);
    syn_call(&s, SC_CALL_MEMCPY, US(100), US(300), 2, "cudaMemcpy", NULL, 0);
    syn_copy(&s, 0, STREAM, US(150), US(250), 4096, 2, 0, SC_MEM_DEVICE, SC_MEM_PAGEABLE);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "pageable-async"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Blocked while the device was busy: kernel 0 .. 10000 us, the pageable device-to-host copy's
 * call 100 .. 200 us, its copy 150 .. 190 us on another stream. Measured: nothing lost.
 * The replay ends with the kernel at 10000 us however fast the copy runs (from pinned
 * memory: 2 us + 4096 B at the default 12 GB/s for a device the trace does not describe,
 * 2.341 us; the call returns at once): saving 0, a note. */
static void test_pageable_while_busy_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(0), US(10000), 1);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(100), US(200), 2, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, STREAM + 1, US(150), US(190), 4096, 2, SC_MEMCPY_ASYNC, SC_MEM_DEVICE,
             SC_MEM_PAGEABLE);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "pageable-async");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->waited_ns, 0);
    assert_false(f->join);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "host_blocked_us") ==
                100.0);
    /* no pinned device-to-host copy in the trace: the replay's default rate, and it says so
     * (2 us + 4096 B at 12 GB/s = 2.341 us; 100 - 2.341 us given back to the host) */
    const sc_instance *w = &f->worst;
    assert_true(fabs(syn_evidence(w->evidence, w->n_evidence, "pinned_estimate_us") - 2.341) <
                1e-9);
    assert_true(syn_evidence(w->evidence, w->n_evidence, "pinned_rate_measured") == 0.0);
    assert_true(fabs(syn_evidence(f->totals, f->n_totals, "host_back_us") - 97.659) < 1e-9);
    assert_non_null(strstr(w->text, "; pinned: ~2.34 us (12 GB/s default, no device record)"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A small loss in a long run: call 9995 .. 10005 us, kernels until 10000 us: 5 us measured
 * lost in a 10005 us run. The replay: the copy (10000 .. 10004 us) follows the kernel on
 * its stream with the measured stream lag, 0 us; the call returns 1 us after it. Pinned,
 * the copy takes 2 us + 4096 B at the default 12 GB/s (no pinned copy to measure, no device
 * record) = 2.341 us and ends at 10002.341 us, the call returns at 9995 + 5 (the default
 * async call) + 1 = 10001 us. Saving 10005 - 10002.341 = 2.659 us: a note. */
static void test_pageable_small_cost_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, STREAM, US(0), US(10000), 1);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(9995), US(10005), 2, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, STREAM, US(10000), US(10004), 4096, 2, SC_MEMCPY_ASYNC, SC_MEM_PAGEABLE,
             SC_MEM_DEVICE);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "pageable-async");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->waited_ns, US(5));
    assert_int_equal(f->cost_ns, 2659);
    assert_false(f->join);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The pinned rate is the median of this direction's pinned async copies of >= 1 MiB:
 *   host-to-device pinned: 1 MiB in 100 us, 2 MiB in 100 us, 4 MiB in 100 us -> median
 *   2 MiB / 100 us; ignored: 512 KiB in 1 us (too small to measure bandwidth), a synchronous
 *   pinned copy of 8 MiB in 1 us (not async), device-to-host pinned 1 MiB in 10 us (the
 *   other direction).
 * Pageable host-to-device copy of 1 MiB, call 1000 .. 1300 us: estimate 1 MiB at 2 MiB per
 * 100 us = 50 us; host time given back 300 - 50 = 250 us. A pageable copy of 8 MiB whose
 * call blocked 200 us (2000 .. 2200), its copy 2010 .. 2190: estimate 400 us, slower than the
 * pageable copy was, so it takes the copy's own 180 us (pinned is never the slower path):
 * 200 - 180 = 20 us given back. */
static void test_pinned_estimate_uses_median_rate_of_direction(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    const uint64_t mib = 1u << 20;
    syn_copy(&s, 0, STREAM, US(0), US(100), mib, 0, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
             SC_MEM_DEVICE);
    syn_copy(&s, 0, STREAM, US(100), US(200), 2 * mib, 0, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
             SC_MEM_DEVICE);
    syn_copy(&s, 0, STREAM, US(200), US(300), 4 * mib, 0, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
             SC_MEM_DEVICE);
    syn_copy(&s, 0, STREAM, US(300), US(301), mib / 2, 0, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
             SC_MEM_DEVICE);
    syn_copy(&s, 0, STREAM, US(400), US(401), 8 * mib, 0, 0, SC_MEM_PINNED, SC_MEM_DEVICE);
    syn_copy(&s, 0, STREAM, US(500), US(510), mib, 0, SC_MEMCPY_ASYNC, SC_MEM_DEVICE,
             SC_MEM_PINNED);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(1000), US(1300), 1, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, STREAM, US(1100), US(1290), mib, 1, SC_MEMCPY_ASYNC, SC_MEM_PAGEABLE,
             SC_MEM_DEVICE);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(2000), US(2200), 2, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, STREAM, US(2010), US(2190), 8 * mib, 2, SC_MEMCPY_ASYNC, SC_MEM_PAGEABLE,
             SC_MEM_DEVICE);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "pageable-async");
    assert_non_null(f);
    assert_int_equal(f->count, 2);
    const sc_instance *first = &f->first;
    assert_int_equal(first->start_ns, US(1100));
    assert_true(syn_evidence(first->evidence, first->n_evidence, "pinned_estimate_us") == 50.0);
    assert_true(syn_evidence(first->evidence, first->n_evidence, "host_back_us") == 250.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "pinned_rate_measured") == 2.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "host_back_us") == 270.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pageable_async_flagged),
        cmocka_unit_test(test_pageable_async_dense_and_sparse_ids),
        cmocka_unit_test(test_pinned_and_sync_not_flagged),
        cmocka_unit_test(test_pageable_while_busy_is_note),
        cmocka_unit_test(test_pageable_small_cost_is_note),
        cmocka_unit_test(test_pinned_estimate_uses_median_rate_of_direction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
