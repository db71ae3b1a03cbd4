/* Per-thread default streams (nvcc --default-stream per-thread) in the stream summaries and
 * the legacy-stream rule. Stream 7 is the legacy stream; 9 is a thread's per-thread default
 * stream: CUDA made it (no creating call) and its STREAM record says "blocking" (flag 1). Its
 * work is issued with stream handle 0 by a _ptsz call (SC_API_PER_THREAD), or with the handle
 * cudaStreamPerThread (0x2); work naming cudaStreamLegacy (0x1) lands on stream 7. Every
 * expected number is worked out from the timings in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define LEGACY 7
#define PER_THREAD 9
#define HANDLE_LEGACY 0x1u
#define HANDLE_PER_THREAD 0x2u

/* A launch call with the given stream handle and flags, and its kernel. */
static void launch(syn *s, uint32_t stream, uint64_t handle, uint32_t flags,
                   uint64_t call_start, uint64_t start, uint64_t end, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, call_start, call_start + US(5), corr,
                              flags ? "cudaLaunchKernel_ptsz" : NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    syn_call_flags(s, c, flags);
    syn_kernel(s, 0, stream, start, end, corr);
}

static const sc_stream_summary *stream(const sc_analysis *a, uint32_t id)
{
    for (size_t i = 0; i < a->n_streams; i++)
        if (a->streams[i].stream_id == id)
            return &a->streams[i];
    return NULL;
}

/* (a) and (c): work sent to the per-thread stream, by handle 0 in a _ptsz call and by the
 * handle 0x2 in a plain call, is not legacy-stream work; the stream is labelled per-thread;
 * the blocking-stream rule leaves it alone (CUDA made it). */
static void test_per_thread_work_is_not_legacy(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(&s, 0, PER_THREAD, SC_STREAM_FLAG_BLOCKING, 0);
    launch(&s, PER_THREAD, 0, SC_API_PER_THREAD, US(0), US(10), US(20), 1);
    launch(&s, PER_THREAD, HANDLE_PER_THREAD, 0, US(30), US(40), US(50), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "legacy-stream"));
    assert_null(syn_finding(&a, "blocking-stream"));
    const sc_stream_summary *pt = stream(&a, PER_THREAD);
    assert_non_null(pt);
    assert_true(pt->per_thread);
    assert_int_equal(pt->overlap.kernel_count, 2);
    assert_false(stream(&a, LEGACY)->per_thread);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Should CUPTI flag a per-thread stream LEGACY, what the calls say still wins: no
 * legacy-stream finding for its work. */
static void test_per_thread_wins_over_a_legacy_flag(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, PER_THREAD, SC_STREAM_FLAG_LEGACY, 0);
    launch(&s, PER_THREAD, 0, SC_API_PER_THREAD, US(0), US(10), US(20), 1);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_true(stream(&a, PER_THREAD)->per_thread);
    assert_null(syn_finding(&a, "legacy-stream"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* (b): a _ptsz call that names cudaStreamLegacy (0x1) runs on the legacy stream, which stays
 * the legacy stream and is reported: one operation, nothing beside it, a note. */
static void test_named_legacy_stream_is_still_reported(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    launch(&s, LEGACY, HANDLE_LEGACY, SC_API_PER_THREAD, US(0), US(10), US(20), 1);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_false(stream(&a, LEGACY)->per_thread);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* (d): the per-thread stream synchronizes with the legacy stream like a blocking stream.
 *   K on 9: issued 10 us (_ptsz, handle 0), runs 20 .. 10020 us
 *   S on 7: issued 30 us (handle 0x1), starts 10022 us: waited min(10022, 10020) - 30 =
 *           9990 us for stream 9
 * legacy-stream measures 9990 us, names stream 9, and its fix is the barrier between 9 and
 * the legacy stream. The replay's lags: K's issue 10 us (10 -> 20), S's cross 2 us
 * (10020 -> 10022); replayed unchanged it is the recording, 10 .. 10122 us (10112 us).
 * Without the barrier S runs at 30 + 10 = 40 .. 140 us and the run ends with K at 10020:
 * saving 10122 - 10020 = 102 us, 1.009% of the run: a warning. */
static void test_per_thread_serializes_with_legacy(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(&s, 0, PER_THREAD, SC_STREAM_FLAG_BLOCKING, 0);
    launch(&s, PER_THREAD, 0, SC_API_PER_THREAD, US(10), US(20), US(10020), 1);
    launch(&s, LEGACY, HANDLE_LEGACY, SC_API_PER_THREAD, US(30), US(10022), US(10122), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(9990));
    assert_int_equal(f->cost_ns, US(102));
    assert_int_equal(f->severity, SC_SEV_WARNING);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "blocking_stream") ==
                PER_THREAD);
    assert_null(syn_finding(&a, "blocking-stream"));    /* CUDA made stream 9 */
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Which calls mark a stream. A synchronous cudaMemcpy_ptds (no stream argument, per-thread
 * variant) goes to the per-thread stream: marks 9. A launch whose stream handle was not
 * recorded (SC_STREAM_NONE) says nothing: 21 stays unmarked. A stream named both ways (12:
 * handle 0x2 once, plain handle 0 once, which would be a misread handle) keeps its flag. */
static void test_which_calls_mark_a_stream(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, PER_THREAD, SC_STREAM_FLAG_BLOCKING, 0);
    syn_stream(&s, 0, 21, SC_STREAM_FLAG_BLOCKING, 0);
    syn_stream(&s, 0, 12, SC_STREAM_FLAG_BLOCKING, 0);
    sc_api_call *c = syn_call(&s, SC_CALL_MEMCPY, US(0), US(30), 1, "cudaMemcpy_ptds", NULL, 0);
    syn_call_flags(&s, c, SC_API_PER_THREAD);
    syn_copy(&s, 0, PER_THREAD, US(10), US(20), 4096, 1, 0, SC_MEM_PINNED, SC_MEM_DEVICE);
    launch(&s, 21, SC_STREAM_NONE, SC_API_PER_THREAD, US(40), US(50), US(60), 2);
    launch(&s, 12, HANDLE_PER_THREAD, 0, US(70), US(80), US(90), 3);
    launch(&s, 12, 0, 0, US(100), US(110), US(120), 4);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_true(stream(&a, PER_THREAD)->per_thread);
    assert_false(stream(&a, 21)->per_thread);
    assert_false(stream(&a, 12)->per_thread);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_thread_work_is_not_legacy),
        cmocka_unit_test(test_per_thread_wins_over_a_legacy_flag),
        cmocka_unit_test(test_named_legacy_stream_is_still_reported),
        cmocka_unit_test(test_per_thread_serializes_with_legacy),
        cmocka_unit_test(test_which_calls_mark_a_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
