/* sc_analyze() as a whole: productive overlap, stream and device summaries, ordering of
 * findings, determinism, the empty trace. Expected values come from the timings in comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

static sc_kernel *kernel(syn *s, uint32_t stream, uint64_t start, uint64_t end, uint32_t name,
                         int32_t grid)
{
    sc_kernel *k = syn_kernel(s, 0, stream, start, end, 0);
    syn_shape(s, k)->name_id = name;
    syn_shape(s, k)->grid_x = grid;
    return k;
}

/* big (1024 blocks) alone 0 .. 1000 us, small (1 block) alone 2000 .. 2100 us, then big
 * 3000 .. 4000 us with small 3200 .. 3300 us inside it, each at its solo speed.
 * busy = 1000 + 100 + 1000 = 2100 us, sum = 2200 us, solo sum = 1000+100+1000+100 = 2200 us:
 * speedup 2200/2100 > 1, the same as the concurrency. */
static void test_productive_small_inside_big(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    kernel(&s, 20, US(0), US(1000), 1, 1024);
    kernel(&s, 21, US(2000), US(2100), 2, 1);
    kernel(&s, 20, US(3000), US(4000), 1, 1024);
    kernel(&s, 21, US(3200), US(3300), 2, 1);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.n_devices, 1);
    const sc_overlap *m = &a.devices[0].overlap;
    assert_int_equal(m->busy_ns, US(2100));
    assert_int_equal(m->kernel_sum_ns, US(2200));
    assert_int_equal(m->overlap_ns, US(100));
    assert_int_equal(m->solo_sum_ns, US(2200));
    assert_int_equal(m->solo_known, 4);
    assert_true(m->speedup > 1.0);
    assert_true(m->speedup > 2200.0 / 2100.0 - 1e-9 && m->speedup < 2200.0 / 2100.0 + 1e-9);
    assert_int_equal(a.devices[0].n_intervals, 1);
    assert_int_equal(a.devices[0].intervals[0].start_ns, US(3200));
    assert_int_equal(a.devices[0].intervals[0].end_ns, US(3300));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A alone 0 .. 100 us, B alone 200 .. 300 us; then A and B together 1000 .. 1200 us, each
 * twice its solo time. busy = 100 + 100 + 200 = 400 us, sum = 600 us (concurrency 1.5), solo
 * sum = 4 x 100 = 400 us: speedup 1.0, overlap that saved nothing. */
static void test_productive_interleaved_saves_nothing(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    kernel(&s, 20, US(0), US(100), 1, 1024);
    kernel(&s, 21, US(200), US(300), 2, 1024);
    kernel(&s, 20, US(1000), US(1200), 1, 1024);
    kernel(&s, 21, US(1000), US(1200), 2, 1024);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_overlap *m = &a.devices[0].overlap;
    assert_int_equal(m->busy_ns, US(400));
    assert_true(m->concurrency > 1.49 && m->concurrency < 1.51);
    assert_int_equal(m->solo_sum_ns, US(400));
    assert_true(m->speedup > 0.99 && m->speedup < 1.01);
    /* per stream: stream 20 ran A twice (solo 100 each) in 100 + 200 us of busy time */
    assert_int_equal(a.n_streams, 2);
    assert_int_equal(a.streams[0].stream_id, 20);
    assert_int_equal(a.streams[0].overlap.busy_ns, US(300));
    assert_int_equal(a.streams[0].overlap.solo_sum_ns, US(200));
    assert_true(a.streams[0].overlap.concurrency == 1.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* X alone for 100, 400, 200 us (median 200), X once more overlapped with Y (Y never alone,
 * 50 us). Another launch shape of X (grid 2) is a different kernel, alone for 70 us. */
static void test_solo_median_and_shape(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    kernel(&s, 20, US(0), US(100), 1, 1);
    kernel(&s, 20, US(1000), US(1400), 1, 1);
    kernel(&s, 20, US(2000), US(2200), 1, 1);
    kernel(&s, 20, US(3000), US(3500), 1, 1);
    kernel(&s, 21, US(3100), US(3150), 2, 1);
    kernel(&s, 20, US(4000), US(4070), 1, 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_overlap *m = &a.devices[0].overlap;
    /* Kernel 20 (1x1) ran alone three times (100, 400, 200 us): those count their own time;
     * the instance that shared the device with kernel 21 borrows their median, 200 us.
     * Kernel 21 has no solo instance: its own 50 us, solo time unknown. 20 (1x2): 70 us.
     * 100 + 400 + 200 + 200 + 50 + 70 = 1020 us; known: 3 + 1 + 1 = 5 of 6. */
    assert_int_equal(m->solo_sum_ns, US(1020));
    assert_int_equal(m->solo_known, 5);
    /* busy: 100 + 400 + 200 + 500 + 70 = 1270 us */
    assert_int_equal(m->busy_ns, US(1270));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The program's first cudaStreamCreate also creates the context and CUDA's internal
 * streams (same correlation id, lower ids): only the last one is the program's. A stream
 * whose correlation id belongs to a call that creates no stream has no creation site. */
static void test_internal_streams_have_no_creator(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, 6, SC_STREAM_FLAG_BLOCKING, 119);
    syn_stream(&s, 0, 7, SC_STREAM_FLAG_LEGACY, 119);
    syn_stream(&s, 0, 13, SC_STREAM_FLAG_NON_BLOCKING, 119);
    syn_stream(&s, 0, 14, SC_STREAM_FLAG_NON_BLOCKING, 120);
    syn_call(&s, SC_CALL_STREAM_CREATE, US(0), US(900), 119, "cudaStreamCreateWithFlags", NULL, 0);
    syn_call(&s, SC_CALL_MALLOC, US(1000), US(1001), 120, "cudaMalloc", NULL, 0);
    for (uint32_t id = 6; id <= 14; id++) syn_kernel(&s, 0, id, US(2000 + id), US(2001 + id), 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_stream_summary *by_id[15] = {0};
    for (size_t i = 0; i < a.n_streams; i++) by_id[a.streams[i].stream_id] = &a.streams[i];
    assert_null(by_id[6]->created_by);
    assert_null(by_id[7]->created_by);
    assert_non_null(by_id[13]->created_by);
    assert_int_equal(by_id[13]->created_by->rec.correlation_id, 119);
    assert_null(by_id[14]->created_by);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Streams: record flags, priorities and creating calls; a stream known only from activity
 * is UNKNOWN. Ordered by device, then stream id. */
static void test_stream_summaries(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_device(&s, 0, 132);
    syn_stream(&s, 0, 13, SC_STREAM_FLAG_BLOCKING, 100)->priority = -1;
    syn_stream(&s, 0, 7, SC_STREAM_FLAG_LEGACY, 0);
    syn_call(&s, SC_CALL_STREAM_CREATE, US(0), US(1), 100, "cudaStreamCreate", NULL, 0);
    syn_kernel(&s, 0, 13, US(10), US(20), 0);
    syn_kernel(&s, 0, 13, US(20), US(30), 0);
    syn_kernel(&s, 1, 99, US(10), US(20), 0);
    syn_memset(&s, 0, 13, US(40), US(50), 0);
    syn_copy(&s, 0, 7, US(40), US(45), 8, 0, 0, SC_MEM_DEVICE, SC_MEM_PINNED);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.n_streams, 3);
    assert_int_equal(a.streams[0].stream_id, 7);
    assert_int_equal(a.streams[0].flag, SC_STREAM_FLAG_LEGACY);
    assert_null(a.streams[0].created_by);
    assert_int_equal(a.streams[0].copy_count, 1);
    assert_int_equal(a.streams[0].overlap.copy_busy_ns, US(5));
    assert_int_equal(a.streams[1].stream_id, 13);
    assert_int_equal(a.streams[1].flag, SC_STREAM_FLAG_BLOCKING);
    assert_int_equal(a.streams[1].priority, -1);
    assert_non_null(a.streams[1].created_by);
    assert_int_equal(a.streams[1].created_by->rec.correlation_id, 100);
    assert_int_equal(a.streams[1].overlap.kernel_count, 2);
    assert_int_equal(a.streams[1].overlap.busy_ns, US(20));
    assert_int_equal(a.streams[1].memset_count, 1);
    assert_int_equal(a.streams[2].device, 1);
    assert_int_equal(a.streams[2].stream_id, 99);
    assert_int_equal(a.streams[2].flag, SC_STREAM_FLAG_UNKNOWN);
    /* devices: 0 has a record, 1 does not */
    assert_int_equal(a.n_devices, 2);
    assert_non_null(a.devices[0].info);
    assert_int_equal(a.devices[0].info->rec.sm_count, 132);
    assert_null(a.devices[1].info);
    /* run span: the create call at 0 to the memset's end at 50 us */
    assert_int_equal(a.run_start_ns, 0);
    assert_int_equal(a.run_end_ns, US(50));
    sc_analysis_free(&a);
    syn_free(&s);
}

static void test_device_interval_cap(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint64_t i = 0; i < SC_MAX_INTERVALS + 5; i++) {
        syn_kernel(&s, 0, 20, US(100 * i), US(100 * i + 50), 0);
        syn_kernel(&s, 0, 21, US(100 * i + 10), US(100 * i + 60), 0);
    }
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.devices[0].n_intervals, SC_MAX_INTERVALS);
    assert_int_equal(a.devices[0].n_intervals_total, SC_MAX_INTERVALS + 5);
    assert_int_equal(a.devices[0].overlap.overlap_ns, US(40) * (SC_MAX_INTERVALS + 5));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The legacy-stream trap (9990 us measured) and a pageable copy (400 us measured) in one
 * run. */
static void build_mixed(syn *s)
{
    syn_init(s);
    syn_stream(s, 0, 7, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(s, 0, 13, SC_STREAM_FLAG_BLOCKING, 0);
    syn_stream(s, 0, 20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_call(s, SC_CALL_LAUNCH, US(10), US(15), 1, NULL, NULL, 0);
    syn_kernel(s, 0, 13, US(20), US(10020), 1);
    syn_call(s, SC_CALL_LAUNCH, US(30), US(35), 2, NULL, NULL, 0);
    syn_kernel(s, 0, 7, US(10022), US(10122), 2);
    syn_call(s, SC_CALL_MEMCPY_ASYNC, US(10200), US(10700), 3, "cudaMemcpyAsync", NULL, 0);
    syn_copy(s, 0, 20, US(10300), US(10400), 1000, 3, SC_MEMCPY_ASYNC, SC_MEM_PAGEABLE,
             SC_MEM_DEVICE);
    syn_kernel(s, 0, 20, US(10500), US(10600), 0);
}

/* Findings come by saving, largest first. Measured: the legacy kernel waited 9990 us; the
 * pageable call 10200 .. 10700 us found the device idle 10200 .. 10500 and 10600 .. 10700 =
 * 400 us (kernels until 10122 us and 10500 .. 10600 us).
 * The replay. Lags: kernel issue 10 us (10 -> 20), cross 2 us (10020 -> 10022), copy issue
 * 100 us (10200 -> 10300), stream 100 us (the copy's end 10400 to the call-less kernel on
 * its stream at 10500, which is never earlier than its recorded start). The pageable call
 * returns 300 us after its copy. Unchanged it is the recording, 10 .. 10700 us (10690 us).
 *   legacy-stream: without the barrier the legacy kernel runs at 40 .. 140 us, but the run
 *   still ends with the pageable call at 10700: saving 0. It waited 9990 us for nothing
 *   the run would gain: a join, a note.
 *   pageable-async: pinned, the 1000 B copy takes 2 us + 1000 B at the default 12 GB/s
 *   (no pinned copy to measure, no device record) = 2.083 us; the call returns after the
 *   default 5 us plus the 300 us it spent after its copy, at 10505; the last kernel stays at
 *   10500 .. 10600 (its recorded start): the run ends at 10600, saving 100 us, 0.94% of the
 *   run: a note. */
static void test_findings_sorted_by_cost(void **state)
{
    (void)state;
    syn s;
    build_mixed(&s);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.n_findings, 2);
    assert_int_equal(a.replay.replay_span_ns, US(10690));
    assert_string_equal(a.findings[0].rule, "pageable-async");
    assert_int_equal(a.findings[0].waited_ns, US(400));
    assert_int_equal(a.findings[0].cost_ns, US(100));
    assert_int_equal(a.findings[0].severity, SC_SEV_NOTE);
    assert_false(a.findings[0].join);
    assert_string_equal(a.findings[1].rule, "legacy-stream");
    assert_int_equal(a.findings[1].waited_ns, US(9990));
    assert_int_equal(a.findings[1].cost_ns, 0);
    assert_int_equal(a.findings[1].severity, SC_SEV_NOTE);
    assert_true(a.findings[1].join);
    sc_analysis_free(&a);
    syn_free(&s);
}

static void assert_same_finding(const sc_finding *x, const sc_finding *y)
{
    assert_string_equal(x->rule, y->rule);
    assert_int_equal(x->severity, y->severity);
    assert_string_equal(x->title, y->title);
    assert_int_equal(x->count, y->count);
    assert_int_equal(x->cost_ns, y->cost_ns);
    assert_true(x->share == y->share);
    /* the instances field by field, their texts (pointers of their own) by content */
    sc_instance xi[2] = {x->first, x->worst}, yi[2] = {y->first, y->worst};
    for (int i = 0; i < 2; i++) {
        assert_string_equal(xi[i].text, yi[i].text);
        xi[i].text = yi[i].text = NULL;
        assert_memory_equal(&xi[i], &yi[i], sizeof(xi[i]));
    }
    assert_int_equal(x->n_sites, y->n_sites);
    assert_memory_equal(x->sites, y->sites, x->n_sites * sizeof(x->sites[0]));
    assert_int_equal(x->n_totals, y->n_totals);
    assert_memory_equal(x->totals, y->totals, x->n_totals * sizeof(x->totals[0]));
}

static void test_deterministic(void **state)
{
    (void)state;
    syn s;
    build_mixed(&s);
    sc_analysis a, b;
    syn_analyze(&s, &a);
    syn_analyze(&s, &b);
    assert_int_equal(a.n_findings, b.n_findings);
    for (size_t i = 0; i < a.n_findings; i++)
        assert_same_finding(&a.findings[i], &b.findings[i]);
    assert_int_equal(a.n_devices, b.n_devices);
    for (size_t d = 0; d < a.n_devices; d++) {
        assert_memory_equal(&a.devices[d].overlap, &b.devices[d].overlap, sizeof(sc_overlap));
        assert_int_equal(a.devices[d].n_intervals, b.devices[d].n_intervals);
        if (a.devices[d].n_intervals)
            assert_memory_equal(a.devices[d].intervals, b.devices[d].intervals,
                                a.devices[d].n_intervals * sizeof(sc_overlap_interval));
    }
    assert_int_equal(a.n_streams, b.n_streams);
    assert_memory_equal(a.streams, b.streams, a.n_streams * sizeof(sc_stream_summary));
    sc_analysis_free(&a);
    sc_analysis_free(&b);
    syn_free(&s);
}

static void test_empty_trace(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_ptr_equal(a.trace, &s.t);
    assert_int_equal(a.n_devices, 0);
    assert_int_equal(a.n_streams, 0);
    assert_int_equal(a.n_findings, 0);
    assert_int_equal(a.run_start_ns, 0);
    assert_int_equal(a.run_end_ns, 0);
    sc_analysis_free(&a);
    sc_analysis_free(&a);   /* freeing twice is harmless: free zeroes it */
    syn_free(&s);
}

static void test_severity_names(void **state)
{
    (void)state;
    assert_string_equal(sc_severity_name(SC_SEV_NOTE), "note");
    assert_string_equal(sc_severity_name(SC_SEV_WARNING), "warning");
    assert_string_equal(sc_severity_name(SC_SEV_ERROR), "error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_productive_small_inside_big),
        cmocka_unit_test(test_productive_interleaved_saves_nothing),
        cmocka_unit_test(test_solo_median_and_shape),
        cmocka_unit_test(test_stream_summaries),
        cmocka_unit_test(test_internal_streams_have_no_creator),
        cmocka_unit_test(test_device_interval_cap),
        cmocka_unit_test(test_findings_sorted_by_cost),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_empty_trace),
        cmocka_unit_test(test_severity_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
