/* Rule serializing-env: the trace's ENV records ("NAME=value"). A finding costs what the
 * replay saves without the variable's effect (serializing_env.c names the fix); the numbers
 * are worked out in the comments from the timings (all in us). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

/* Sets the environment (borrowed), adds kernels on the given streams, analyzes. */
static void analyze_env(syn *s, sc_analysis *a, const char **env, size_t n_env,
                        const uint32_t *streams, size_t n_streams)
{
    for (size_t i = 0; i < n_streams; i++) {
        syn_call(s, SC_CALL_LAUNCH, US(10 * i), US(10 * i + 5), (uint32_t)i + 1, NULL, NULL, 0);
        syn_kernel(s, 0, streams[i], US(10 * i + 5), US(10 * i + 8), (uint32_t)i + 1);
    }
    s->t.env = env;
    s->t.n_env = n_env;
    syn_analyze(s, a);
}

/* Two tiny kernels on stream 20: launch calls 0 .. 5 and 10 .. 15 us, kernels 5 .. 8 and
 * 15 .. 18 us. Under CUDA_LAUNCH_BLOCKING=1 each launch waits for its kernel; here each
 * returned 3 us before its kernel's recorded end (nothing after the wait to keep). Issue lag
 * 5 us (both); the replay reproduces 0 .. 18 us. Without the waits the launches take no
 * time: the second is at 0 + 5 (gap) = 5 us and its kernel at max(5 + 5, 8 + 1) = 10 ..
 * 13 us. Saving 18 - 13 = 5 us: under 20 us, a note however large its share. */
static void test_launch_blocking_with_tiny_kernels_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    const char *env[] = {"CUDA_VISIBLE_DEVICES=0", "CUDA_LAUNCH_BLOCKING=1"};
    const uint32_t streams[] = {20, 20};
    sc_analysis a;
    analyze_env(&s, &a, env, 2, streams, 2);
    const sc_finding *f = syn_finding(&a, "serializing-env");
    assert_non_null(f);
    assert_int_equal(syn_finding_count(&a, "serializing-env"), 1);
    assert_int_equal(f->cost_ns, US(5));
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->waited_ns, 0);
    assert_non_null(strstr(f->title, "CUDA_LAUNCH_BLOCKING=1"));
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "value") == 1.0);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "launches") == 2.0);
    assert_null(f->worst.call);
    assert_non_null(f->fix);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* CUDA_LAUNCH_BLOCKING=1 with two 1000 us kernels on streams 20 and 21 that could have run
 * side by side: launch 0 .. 1007 us, kernel 5 .. 1005; launch 1010 .. 2017 us, kernel
 * 1015 .. 2015. Each launch returned 2 us after its kernel. Issue lag 5 us (both); the
 * replay reproduces 0 .. 2017 us. Without the waits each launch takes only those 2 us: the
 * second starts at 2 + 3 (gap) = 5 us and its kernel runs 10 .. 1010 beside the first. The
 * run ends at 1010: saving 2017 - 1010 = 1007 us, 49.9%: an error. */
static void test_launch_blocking_is_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_LAUNCH, 0, US(1007), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, 20, US(5), US(1005), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(1010), US(2017), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, 21, US(1015), US(2015), 2);
    const char *env[] = {"CUDA_LAUNCH_BLOCKING=1"};
    s.t.env = env;
    s.t.n_env = 1;
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "serializing-env");
    assert_non_null(f);
    assert_int_equal(a.replay.replay_span_ns, US(2017));
    assert_int_equal(f->cost_ns, US(1007));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Harmless values and look-alike names are not findings. */
static void test_harmless_values_are_quiet(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    const char *env[] = {"CUDA_LAUNCH_BLOCKING=0", "CUDA_LAUNCH_BLOCKING_X=1",
                         "CUDA_DEVICE_MAX_CONNECTIONS=8", "CUDA_MODULE_LOADING=EAGER",
                         "PYTORCH_NO_CUDA_MEMORY_CACHING=0"};
    const uint32_t streams[] = {20, 21};
    sc_analysis a;
    analyze_env(&s, &a, env, 5, streams, 2);
    assert_int_equal(syn_finding_count(&a, "serializing-env"), 0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* One hardware queue with kernels on streams 20 and 21 (launches 0 .. 5 and 10 .. 15 us,
 * kernels 5 .. 8 and 15 .. 18 us): each started 5 us after its launch (the issue lag), none
 * was held behind another stream's work: nothing to unhold, saving 0, a note. */
static void test_max_connections_that_held_nothing_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    const char *env[] = {"CUDA_DEVICE_MAX_CONNECTIONS=1"};
    const uint32_t streams[] = {20, 21};
    sc_analysis a;
    analyze_env(&s, &a, env, 1, streams, 2);
    const sc_finding *f = syn_finding(&a, "serializing-env");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(a.replay.held, 0);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "kernel_streams") == 2.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* One hardware queue holding independent work: on stream 20, Ka 10 .. 20, Kb 40 .. 50 and
 * K0 70 .. 1070 us (launches at 0, 30, 60 us); K1 on stream 21, launched at 80 us, starts
 * only at 1072 us, 2 us after K0 ended. Issue lags 10, 10, 10 and 992 us: median 10 us. K1
 * is then 982 us later than its issue allows; K0, of another stream of the device, ended
 * 2 us before it started and had started before K1 was ready: K1 was held by K0 (kept with
 * its 2 us lag). The replay reproduces 0 .. 2072 us. Without the single queue nothing is
 * held: K1 runs 90 .. 1090 beside K0, the run ends at 1090: saving 982 us, 47%: an error. */
static void test_max_connections_with_two_streams_is_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    const uint64_t call[] = {0, 30, 60, 80}, start[] = {10, 40, 70, 1072};
    const uint64_t end[] = {20, 50, 1070, 2072};
    const uint32_t stream[] = {20, 20, 20, 21};
    for (uint32_t i = 0; i < 4; i++) {
        syn_call(&s, SC_CALL_LAUNCH, US(call[i]), US(call[i] + 5), i + 1, NULL, NULL, 0);
        syn_kernel(&s, 0, stream[i], US(start[i]), US(end[i]), i + 1);
    }
    const char *env[] = {"CUDA_DEVICE_MAX_CONNECTIONS=1"};
    s.t.env = env;
    s.t.n_env = 1;
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.held, 1);
    assert_int_equal(a.replay.replay_span_ns, US(2072));
    const sc_finding *f = syn_finding(&a, "serializing-env");
    assert_non_null(f);
    assert_int_equal(f->cost_ns, US(982));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "kernel_streams") == 2.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Kernels on one stream only: nothing to serialize in this run, but the setting stays: a
 * note that saves nothing. */
static void test_max_connections_with_one_stream_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    const char *env[] = {"CUDA_DEVICE_MAX_CONNECTIONS=1"};
    const uint32_t streams[] = {20, 20};
    sc_analysis a;
    analyze_env(&s, &a, env, 1, streams, 2);
    const sc_finding *f = syn_finding(&a, "serializing-env");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->cost_ns, 0);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "kernel_streams") == 1.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* No caching allocator (3 cudaMalloc/cudaFree calls) and LAZY spelled out: each variable is
 * its own finding. The allocations ran long after the one kernel (5 .. 8 us) ended: they
 * waited for nothing, and unwaiting them saves nothing: a note; LAZY names no fix (the
 * lazy-loading rule costs its effects): a note. */
static void test_no_caching_and_lazy_are_separate_findings(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_call(&s, SC_CALL_MALLOC, US(100), US(110), 0, "cudaMalloc", NULL, 0);
    syn_call(&s, SC_CALL_FREE, US(120), US(130), 0, "cudaFree", NULL, 0);
    syn_call(&s, SC_CALL_MALLOC, US(140), US(150), 0, "cudaMalloc", NULL, 0);
    const char *env[] = {"PYTORCH_NO_CUDA_MEMORY_CACHING=1", "CUDA_MODULE_LOADING=LAZY"};
    const uint32_t streams[] = {20};
    sc_analysis a;
    analyze_env(&s, &a, env, 2, streams, 1);
    assert_int_equal(syn_finding_count(&a, "serializing-env"), 2);
    bool saw_caching = false, saw_lazy = false;
    for (size_t i = 0; i < a.n_findings; i++) {
        const sc_finding *f = &a.findings[i];
        if (strcmp(f->rule, "serializing-env") != 0)
            continue;
        if (strstr(f->title, "PYTORCH_NO_CUDA_MEMORY_CACHING")) {
            saw_caching = true;
            assert_int_equal(f->severity, SC_SEV_NOTE);
            assert_int_equal(f->cost_ns, 0);
            assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence,
                                     "malloc_free_calls") == 3.0);
        } else if (strstr(f->title, "CUDA_MODULE_LOADING=LAZY")) {
            saw_lazy = true;
            assert_int_equal(f->severity, SC_SEV_NOTE);
            assert_int_equal(f->cost_ns, 0);
            /* LAZY is not a number: no value evidence */
            assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "value") == -1);
        }
    }
    assert_true(saw_caching);
    assert_true(saw_lazy);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_blocking_with_tiny_kernels_is_note),
        cmocka_unit_test(test_launch_blocking_is_error),
        cmocka_unit_test(test_harmless_values_are_quiet),
        cmocka_unit_test(test_max_connections_that_held_nothing_is_note),
        cmocka_unit_test(test_max_connections_with_two_streams_is_error),
        cmocka_unit_test(test_max_connections_with_one_stream_is_note),
        cmocka_unit_test(test_no_caching_and_lazy_are_separate_findings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
