/* Rule serializing-env: the trace's ENV records ("NAME=value"). */
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

static void test_launch_blocking_is_error(void **state)
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
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_int_equal(f->cost_ns, 0);     /* not measured: the trace has no run without it */
    assert_non_null(strstr(f->title, "CUDA_LAUNCH_BLOCKING=1"));
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "value") == 1.0);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "launches") == 2.0);
    assert_null(f->worst.call);
    assert_non_null(f->fix);
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

/* One hardware queue with kernels on streams 20 and 21: independent work serializes. */
static void test_max_connections_with_two_streams_is_error(void **state)
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
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "kernel_streams") == 2.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Kernels on one stream only: nothing to serialize in this run, but the setting stays. */
static void test_max_connections_with_one_stream_is_warning(void **state)
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
    assert_int_equal(f->severity, SC_SEV_WARNING);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "kernel_streams") == 1.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* No caching allocator (3 cudaMalloc/cudaFree calls) is a warning; LAZY spelled out is a
 * note; each variable is its own finding. */
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
            assert_int_equal(f->severity, SC_SEV_WARNING);
            assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence,
                                     "malloc_free_calls") == 3.0);
        } else if (strstr(f->title, "CUDA_MODULE_LOADING=LAZY")) {
            saw_lazy = true;
            assert_int_equal(f->severity, SC_SEV_NOTE);
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
        cmocka_unit_test(test_launch_blocking_is_error),
        cmocka_unit_test(test_harmless_values_are_quiet),
        cmocka_unit_test(test_max_connections_with_two_streams_is_error),
        cmocka_unit_test(test_max_connections_with_one_stream_is_warning),
        cmocka_unit_test(test_no_caching_and_lazy_are_separate_findings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
