/* Rule managed-faults, its per-kernel measure (src/analyze/unified.h) and the replay's
 * prefetch fix. Device 0 (compute capability 9.0), streams 20 and 21 non-blocking. Every
 * expected number is worked out in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define S20 20
#define S21 21
#define H20 0xA0u
#define H21 0xA1u
#define MIB (1024ull * 1024ull)

static void setup(syn *s)
{
    syn_init(s);
    syn_device(s, 0, 132)->rec.cc_major = 9;
    syn_stream(s, 0, S20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_stream(s, 0, S21, SC_STREAM_FLAG_NON_BLOCKING, 0);
}

static void launch(syn *s, uint32_t stream, uint64_t handle, uint64_t at, uint64_t start,
                   uint64_t end, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, at, at + US(5), corr, NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    syn_kernel(s, 0, stream, start, end, corr);
}

/*   a prefetch the program asked for elsewhere: 2 000 000 bytes in 100 us (20 GB/s: the
 *     trace's own prefetch rate, at least 1 MiB)
 *   K1 on 20   launch 0 .. 5, runs 10 .. 1010
 *     demand migrations to device 0: 100 .. 300 (2 MiB, a fault), 400 .. 900 (2 MiB, the
 *     driver's prefetch around it); one fault group at 100
 *   K2 on 20   launch 5 .. 10, runs 1010 .. 1110
 * K1 migrated 4 MiB on demand for 200 + 500 = 700 us of its 1000 us. Prefetched it would
 * run 1000 - 700 = 300 us, plus 4 MiB at 20 bytes/ns = 209 715 ns: 509 715 ns.
 * The replay: issue lag 10 us (K1), stream lag 0 (K2 after K1): unchanged it is the
 * recording, 1110 us. With the fix K1 runs 10 000 .. 519 715 ns and K2 after it until
 * 619 715 ns: saving 1 110 000 - 619 715 = 490 285 ns, 44% of the run: error. */
static void test_demand_migrations_during_a_kernel_are_error(void **state)
{
    (void)state;
    syn s;
    setup(&s);
    syn_unified(&s, SC_UNIFIED_HTOD, US(1), US(101), 2000000, SC_UNIFIED_CAUSE_USER, 0);
    launch(&s, S20, H20, 0, US(10), US(1010), 1);
    syn_unified(&s, SC_UNIFIED_HTOD, US(100), US(300), 2 * MIB, SC_UNIFIED_CAUSE_COHERENCE, 0);
    syn_unified(&s, SC_UNIFIED_GPU_FAULT, US(100), US(120), 1, 0, 0);
    syn_unified(&s, SC_UNIFIED_HTOD, US(400), US(900), 2 * MIB, SC_UNIFIED_CAUSE_PREFETCH, 0);
    launch(&s, S20, H20, US(5), US(1010), US(1110), 2);
    sc_analysis a;
    syn_analyze(&s, &a);

    assert_int_equal(a.replay.replay_span_ns, US(1110));
    const sc_finding *f = syn_finding(&a, "managed-faults");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(700));
    assert_int_equal(f->cost_ns, 490285);
    assert_int_equal(f->severity, SC_SEV_ERROR);
    const sc_instance *w = &f->worst;
    assert_true(syn_ev(w, "migrating_us") == 700.0);
    assert_true(syn_ev(w, "bytes") == (double)(4 * MIB));
    assert_true(syn_ev(w, "fault_groups") == 1.0);
    assert_true(syn_ev(w, "prefetched_us") == 509.715);
    assert_true(syn_ev(w, "prefetch_rate_measured") == 1.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "prefetch_gb_per_s") == 20.0);
    assert_non_null(strstr(f->fix, "cudaMemPrefetchAsync"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Two kernels on 20 and 21 both running (10 .. 1010 and 20 .. 1020) when a 2 MiB demand
 * migration (100 .. 300) starts: each gets half its bytes (1 MiB) and the whole 200 us of
 * migrating time, as both waited for it. */
static void test_concurrent_kernels_share_a_migration(void **state)
{
    (void)state;
    syn s;
    setup(&s);
    launch(&s, S20, H20, 0, US(10), US(1010), 1);
    launch(&s, S21, H21, US(5), US(20), US(1020), 2);
    syn_unified(&s, SC_UNIFIED_HTOD, US(100), US(300), 2 * MIB, SC_UNIFIED_CAUSE_COHERENCE, 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "managed-faults");
    assert_non_null(f);
    assert_int_equal(f->count, 2);
    assert_int_equal(f->waited_ns, US(400));
    assert_true(syn_evidence(f->totals, f->n_totals, "bytes") == (double)(2 * MIB));
    assert_true(syn_ev(&f->first, "bytes") == (double)MIB);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Migrations the program asked for (cudaMemPrefetchAsync: cause USER), even during a
 * kernel, and a demand migration of 5 us (under the 10 us a kernel must wait): nothing. */
static void test_prefetched_pages_are_silent(void **state)
{
    (void)state;
    syn s;
    setup(&s);
    launch(&s, S20, H20, 0, US(10), US(1010), 1);
    syn_unified(&s, SC_UNIFIED_HTOD, US(100), US(300), 2 * MIB, SC_UNIFIED_CAUSE_USER, 0);
    syn_unified(&s, SC_UNIFIED_HTOD, US(400), US(405), 4096, SC_UNIFIED_CAUSE_COHERENCE, 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "managed-faults"));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demand_migrations_during_a_kernel_are_error),
        cmocka_unit_test(test_concurrent_kernels_share_a_migration),
        cmocka_unit_test(test_prefetched_pages_are_silent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
