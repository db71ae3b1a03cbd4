/* Per-NVTX-range metrics: which work and findings a range holds, its overlap metrics and
 * idle gaps, the per-name rows, and the cost with many ranges. Expected values are worked
 * out in the comments from the timings (all in us). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/ranges.h"
#include "synthetic.h"

#define T1 1u
#define T2 2u
#define ANY UINT32_MAX      /* depth of a start/end range */

static sc_api_call *call_on(syn *s, uint32_t tid, uint16_t call_class, uint64_t start,
                            uint32_t corr, const char *name)
{
    sc_api_call *c = syn_call(s, call_class, start, start + US(1), corr, name, NULL, 0);
    syn_call_tid(s, c, tid);
    return c;
}

static sc_kernel *kernel_named(syn *s, uint32_t device, uint32_t stream, uint64_t start,
                               uint64_t end, uint32_t corr, uint32_t name_id)
{
    sc_kernel *k = syn_kernel(s, device, stream, start, end, corr);
    syn_shape(s, k)->name_id = name_id;   /* distinct names: each kernel its own solo history */
    return k;
}

/* The summary of the range with this name and start, or fail. */
static const sc_range_summary *range_at(const sc_analysis *a, const char *name, uint64_t start)
{
    for (size_t i = 0; i < a->n_ranges; i++)
        if (strcmp(a->ranges[i].range->name, name) == 0 &&
            a->ranges[i].range->rec.start_ns == start)
            return &a->ranges[i];
    fail_msg("no range %s at %llu", name, (unsigned long long)start);
    return NULL;
}

static const sc_range_finding *rule_in(const sc_analysis *a, const sc_range_finding *f, size_t n,
                                       const char *rule)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(sc_range_finding_rule(a, &f[i]), rule) == 0)
            return &f[i];
    return NULL;
}

/* Ranges: step (push/pop on T1, 0 .. 1000), fwd inside it (T1, depth 1, 100 .. 400), io
 * (start/end, 500 .. 900).
 *   call T1 @100  -> K5 dev0 120 .. 180          step, fwd (the start is inclusive)
 *   call T1 @150  -> K1 dev0 200 .. 300          step, fwd; a driver call @151 shares its id
 *   call T2 @200  -> K2 dev0 250 .. 350          nowhere: T2 is not step's thread
 *   no call       -> K3 dev0 450 .. 460          step, by its own start (any thread)
 *   call T1 @420  cudaDeviceSynchronize          step (a call, no work)
 *   call T2 @600  -> copy dev0 700 .. 800        io (any thread)
 *   call T1 @950  -> memset 1100 .. 1200         step: issued inside, ran after
 *   call T1 @1000 -> K4 dev1 1150 .. 1250        step (the end is inclusive)
 *   call T1 @1001 -> K6 dev0 1300 .. 1400        nowhere
 * step: kernels K5 K1 K3 K4: 4, sum 60+100+10+100 = 270, no two at once: busy 270,
 *   concurrency 1; kernel span 120 .. 1250. Memset 1100 .. 1200: copy busy 100, 50 of it
 *   with K4 (another device: ranges are one timeline). Work runs 120-180, 200-300, 450-460,
 *   1100-1250: idle 20 + 150 + 640 = 810 in 3 gaps, longest 640. K1 shared device 0 with K2
 *   and has no solo instance: its own 100, unknown; the others ran alone: solo 270, 3 known.
 *   Calls on T1 in 0 .. 1000: @100 @150 @420 @950 @1000 = 5 (the driver call is not counted).
 * fwd: K5, K1: sum 160, busy 160, idle 180 .. 200 = 20, one gap; calls @100 @150 = 2.
 * io: the copy only: no kernels, copy busy 100, no gap; 1 call. */
static void build_membership(syn *s)
{
    syn_range(s, "step", US(0), US(1000), T1, 0);
    syn_range(s, "fwd", US(100), US(400), T1, 1);
    syn_range(s, "io", US(500), US(900), T2, ANY);
    call_on(s, T1, SC_CALL_LAUNCH, US(100), 6, NULL);
    kernel_named(s, 0, 20, US(120), US(180), 6, 15);
    call_on(s, T1, SC_CALL_LAUNCH, US(150), 1, NULL);
    syn_call_flags(s, call_on(s, T1, SC_CALL_LAUNCH, US(151), 1, "cuLaunchKernel"),
                   SC_API_DRIVER);
    kernel_named(s, 0, 20, US(200), US(300), 1, 11);
    call_on(s, T2, SC_CALL_LAUNCH, US(200), 2, NULL);
    kernel_named(s, 0, 21, US(250), US(350), 2, 12);
    kernel_named(s, 0, 20, US(450), US(460), 0, 13);
    call_on(s, T1, SC_CALL_DEVICE_SYNC, US(420), 8, "cudaDeviceSynchronize");
    call_on(s, T2, SC_CALL_MEMCPY_ASYNC, US(600), 3, "cudaMemcpyAsync");
    syn_copy(s, 0, 21, US(700), US(800), 4096, 3, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
             SC_MEM_DEVICE);
    call_on(s, T1, SC_CALL_MEMSET_ASYNC, US(950), 4, "cudaMemsetAsync");
    syn_memset(s, 0, 20, US(1100), US(1200), 4);
    call_on(s, T1, SC_CALL_LAUNCH, US(1000), 5, NULL);
    kernel_named(s, 1, 30, US(1150), US(1250), 5, 14);
    call_on(s, T1, SC_CALL_LAUNCH, US(1001), 7, NULL);
    kernel_named(s, 0, 20, US(1300), US(1400), 7, 16);
}

static void test_ranges_membership(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    build_membership(&s);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.n_ranges, 3);
    assert_string_equal(a.ranges[0].range->name, "step");   /* trace order: by start */

    const sc_range_summary *step = range_at(&a, "step", 0);
    assert_int_equal(step->wall_ns, US(1000));
    assert_int_equal(step->call_count, 5);
    assert_int_equal(step->overlap.kernel_count, 4);
    assert_int_equal(step->overlap.kernel_sum_ns, US(270));
    assert_int_equal(step->overlap.busy_ns, US(270));
    assert_int_equal(step->overlap.overlap_ns, 0);
    assert_true(step->overlap.concurrency == 1.0);
    assert_int_equal(step->overlap.first_ns, US(120));
    assert_int_equal(step->overlap.last_ns, US(1250));
    assert_int_equal(step->overlap.copy_busy_ns, US(100));
    assert_int_equal(step->overlap.copy_compute_ns, US(50));
    assert_int_equal(step->overlap.idle_ns, US(810));
    assert_int_equal(step->overlap.gap_count, 3);
    assert_int_equal(step->overlap.longest_gap_ns, US(640));
    assert_int_equal(step->overlap.solo_sum_ns, US(270));
    assert_int_equal(step->overlap.solo_known, 3);
    assert_int_equal(step->copy_count, 0);
    assert_int_equal(step->memset_count, 1);

    const sc_range_summary *fwd = range_at(&a, "fwd", US(100));
    assert_int_equal(fwd->call_count, 2);
    assert_int_equal(fwd->overlap.kernel_count, 2);
    assert_int_equal(fwd->overlap.busy_ns, US(160));
    assert_int_equal(fwd->overlap.idle_ns, US(20));
    assert_int_equal(fwd->overlap.gap_count, 1);
    assert_int_equal(fwd->memset_count, 0);

    const sc_range_summary *io = range_at(&a, "io", US(500));
    assert_int_equal(io->call_count, 1);
    assert_int_equal(io->overlap.kernel_count, 0);
    assert_int_equal(io->overlap.busy_ns, 0);
    assert_true(io->overlap.concurrency == 0.0);
    assert_int_equal(io->overlap.copy_busy_ns, US(100));
    assert_int_equal(io->overlap.idle_ns, 0);
    assert_int_equal(io->copy_count, 1);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Three async copies from pageable memory on a device with no kernels: each measured its
 * whole call (the device had nothing to run). Calls last 300, 100 and 50 us; each copy runs
 * 10 .. 20 us into its call.
 *   load (T1, 0 .. 1000):    P1 T1 @100 (300)
 *   load (T1, 2000 .. 3000): P2 T1 @2100 (100); P3 on T2 @2500 is not its thread
 *   all (start/end, 0 .. 5000): P1 P2 P3 = 3, 450
 * What pinning saves, from the replay. Copy issue lag 10 us (all three); each call returns
 * its own time after its copy (280, 80, 30 us); pinned, a call returns after the default
 * 5 us plus that time, 15 us sooner than the 20 us it spent before its copy ended (the
 * copies run no faster: 2 us + 1 MiB at the default 12 GB/s is longer than their 10 us).
 * The run ends with all's end mark on T1, 2000 us after load's second end mark: T1's two
 * calls move it 2 x 15 = 30 us earlier (P3 is on T2, which ends long before). Saving 30 us,
 * 0.6% of the 5000 us run: a note. Shared by what each measured, 30 / 450 = 1/15: P1 20 us,
 * P2 6.667 us, P3 3.333 us (to the nanosecond, rounded).
 * Rows: all (wall 5000) before load (2 ranges, wall 2000, longest 1000): load sums 2 and
 * 20 + 6.667 us. Replayed walls: load 1000 and 1000 as recorded, 985 and 985 fixed (each
 * holds one call); all 5000, fixed 4970. */
static void test_ranges_findings_and_names(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_range(&s, "load", US(0), US(1000), T1, 0);
    syn_range(&s, "load", US(2000), US(3000), T1, 0);
    syn_range(&s, "all", US(0), US(5000), T1, ANY);
    const uint64_t at[] = {US(100), US(2100), US(2500)}, len[] = {US(300), US(100), US(50)};
    const uint32_t tid[] = {T1, T1, T2};
    for (uint32_t i = 0; i < 3; i++) {
        sc_api_call *c = syn_call(&s, SC_CALL_MEMCPY_ASYNC, at[i], at[i] + len[i], i + 1,
                                  "cudaMemcpyAsync", NULL, 0);
        syn_call_tid(&s, c, tid[i]);
        syn_copy(&s, 0, 20, at[i] + US(10), at[i] + US(20), 1 << 20, i + 1, SC_MEMCPY_ASYNC,
                 SC_MEM_PAGEABLE, SC_MEM_DEVICE);
    }
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "pageable-async");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(450));
    assert_int_equal(f->cost_ns, US(30));
    assert_int_equal(f->severity, SC_SEV_NOTE);

    const sc_range_summary *r0 = range_at(&a, "load", 0), *r1 = range_at(&a, "load", US(2000));
    const sc_range_summary *all = range_at(&a, "all", 0);
    const sc_range_finding *p = rule_in(&a, r0->findings, r0->n_findings, "pageable-async");
    assert_non_null(p);
    assert_int_equal(p->count, 1);
    assert_int_equal(p->cost_ns, US(20));
    assert_ptr_equal(&a.findings[p->finding], f);
    assert_int_equal(p->severity, f->severity);
    p = rule_in(&a, r1->findings, r1->n_findings, "pageable-async");
    assert_non_null(p);
    assert_int_equal(p->count, 1);
    assert_int_equal(p->cost_ns, 6667);
    p = rule_in(&a, all->findings, all->n_findings, "pageable-async");
    assert_non_null(p);
    assert_int_equal(p->count, 3);
    assert_int_equal(p->cost_ns, 20000 + 6667 + 3333);
    assert_int_equal(r1->copy_count, 1);
    assert_int_equal(r0->replay_wall_ns, US(1000));
    assert_int_equal(r0->fixed_wall_ns, US(985));
    assert_int_equal(r1->replay_wall_ns, US(1000));
    assert_int_equal(r1->fixed_wall_ns, US(985));
    assert_int_equal(all->replay_wall_ns, US(5000));
    assert_int_equal(all->fixed_wall_ns, US(4970));

    assert_int_equal(a.n_range_names, 2);
    const sc_range_name_summary *n0 = &a.range_names[0], *n1 = &a.range_names[1];
    assert_string_equal(n0->name, "all");
    assert_int_equal(n0->count, 1);
    assert_string_equal(n1->name, "load");
    assert_null(n1->domain);
    assert_int_equal(n1->count, 2);
    assert_int_equal(n1->wall_ns, US(2000));
    assert_int_equal(n1->max_wall_ns, US(1000));
    assert_int_equal(n1->copy_count, 2);
    assert_int_equal(n1->call_count, 2);
    p = rule_in(&a, n1->findings, n1->n_findings, "pageable-async");
    assert_non_null(p);
    assert_int_equal(p->count, 2);
    assert_int_equal(p->cost_ns, 20000 + 6667);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Three "step" ranges on T1 (each 900 long, 1000 apart), each launching A (stream 20) and B
 * (stream 21) early on; a "setup" start/end range of 100 with nothing in it.
 *   step 0: A 100 .. 200, B 300 .. 400: alone, busy 200, sum 200, idle 100 (one gap)
 *   step 1: A and B 1100 .. 1200: busy 100, sum 200, overlap 100
 *   step 2: A 2100 .. 2200, B 2150 .. 2250: busy 150, sum 200, overlap 50
 * Solo: A and B ran alone once, for 100 each, so every instance counts 100: solo 200 per
 * step, all known. step row: 3 ranges, wall 2700, busy 450, sum 600, concurrency and
 * speedup 600/450, overlap 150, idle 100 in 1 gap, kernel span 100 .. 2250, 6 calls. */
static void test_ranges_name_row_sums(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    const uint64_t a_at[] = {100, 1100, 2100}, b_at[] = {300, 1100, 2150};
    for (uint32_t i = 0; i < 3; i++) {
        syn_range(&s, "step", US(1000 * i), US(1000 * i + 900), T1, 0);
        call_on(&s, T1, SC_CALL_LAUNCH, US(1000 * i + 10), 10 + 2 * i, NULL);
        call_on(&s, T1, SC_CALL_LAUNCH, US(1000 * i + 20), 11 + 2 * i, NULL);
        kernel_named(&s, 0, 20, US(a_at[i]), US(a_at[i] + 100), 10 + 2 * i, 1);
        kernel_named(&s, 0, 21, US(b_at[i]), US(b_at[i] + 100), 11 + 2 * i, 2);
    }
    syn_range(&s, "setup", US(5000), US(5100), T2, ANY);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_range_summary *s1 = range_at(&a, "step", US(1000));
    assert_true(s1->overlap.concurrency == 2.0);
    assert_true(s1->overlap.speedup == 2.0);

    assert_int_equal(a.n_range_names, 2);
    const sc_range_name_summary *row = &a.range_names[0];
    assert_string_equal(row->name, "step");
    assert_int_equal(row->count, 3);
    assert_int_equal(row->wall_ns, US(2700));
    assert_int_equal(row->max_wall_ns, US(900));
    assert_int_equal(row->call_count, 6);
    assert_int_equal(row->overlap.kernel_count, 6);
    assert_int_equal(row->overlap.busy_ns, US(450));
    assert_int_equal(row->overlap.kernel_sum_ns, US(600));
    assert_int_equal(row->overlap.overlap_ns, US(150));
    assert_int_equal(row->overlap.solo_sum_ns, US(600));
    assert_int_equal(row->overlap.solo_known, 6);
    assert_true(row->overlap.concurrency > 600.0 / 450 - 1e-9 &&
                row->overlap.concurrency < 600.0 / 450 + 1e-9);
    assert_true(row->overlap.speedup > 600.0 / 450 - 1e-9 &&
                row->overlap.speedup < 600.0 / 450 + 1e-9);
    assert_int_equal(row->overlap.idle_ns, US(100));
    assert_int_equal(row->overlap.gap_count, 1);
    assert_int_equal(row->overlap.longest_gap_ns, US(100));
    assert_int_equal(row->overlap.first_ns, US(100));
    assert_int_equal(row->overlap.last_ns, US(2250));
    assert_string_equal(a.range_names[1].name, "setup");
    assert_int_equal(a.range_names[1].wall_ns, US(100));
    assert_int_equal(a.range_names[1].overlap.kernel_count, 0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Twelve candidates with costs 1..12 (count = cost % 3): the 8 costliest survive, largest
 * first; at equal cost the larger count, then the lower finding index wins. */
static void test_ranges_top_findings(void **state)
{
    (void)state;
    sc_range_finding top[SC_MAX_RANGE_FINDINGS];
    size_t n = 0;
    const uint64_t order[] = {5, 12, 1, 9, 7, 3, 11, 2, 8, 4, 10, 6};
    for (size_t i = 0; i < 12; i++) {
        sc_range_finding c = {order[i] % 3, order[i], (uint32_t)i, SC_SEV_NOTE};
        sc_range_findings_insert(top, &n, &c);
    }
    assert_int_equal(n, SC_MAX_RANGE_FINDINGS);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(top[i].cost_ns, 12 - i);
    /* ties: equal cost 20; counts 1, 2, 2 at indices 0, 1, 2 */
    sc_range_finding tie[SC_MAX_RANGE_FINDINGS];
    size_t nt = 0;
    sc_range_finding c0 = {1, 20, 0, SC_SEV_NOTE}, c1 = {2, 20, 1, SC_SEV_NOTE},
                     c2 = {2, 20, 2, SC_SEV_NOTE};
    sc_range_findings_insert(tie, &nt, &c2);
    sc_range_findings_insert(tie, &nt, &c0);
    sc_range_findings_insert(tie, &nt, &c1);
    assert_int_equal(nt, 3);
    assert_int_equal(tie[0].finding, 1);
    assert_int_equal(tie[1].finding, 2);
    assert_int_equal(tie[2].finding, 0);
}

static void test_ranges_none(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_kernel(&s, 0, 20, US(0), US(10), 0);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.n_ranges, 0);
    assert_null(a.ranges);
    assert_int_equal(a.n_range_names, 0);
    assert_null(a.range_names);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A training loop: 100k "step" ranges of 8 us, 10 us apart on T1, each launching one 5 us
 * kernel from inside, plus a "loop" range around them all. Each step holds exactly its own
 * kernel and call; loop holds them all, with 5 us of idle between kernels. Quadratic
 * membership (ranges x work) would take minutes here. */
static void test_ranges_many(void **state)
{
    (void)state;
    enum { N = 100000 };
    syn s;
    syn_init(&s);
    syn_range(&s, "loop", 0, US(10) * N, T1, 0);
    for (uint32_t i = 0; i < N; i++) {
        uint64_t t0 = US(10) * i;
        syn_range(&s, "step", t0, t0 + US(8), T1, 1);
        call_on(&s, T1, SC_CALL_LAUNCH, t0 + US(1), i + 1, NULL);
        syn_kernel(&s, 0, 20, t0 + US(2), t0 + US(7), i + 1);
    }
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.n_ranges, N + 1);
    for (size_t i = 1; i < a.n_ranges; i++) {
        assert_int_equal(a.ranges[i].overlap.kernel_count, 1);
        assert_int_equal(a.ranges[i].call_count, 1);
        assert_int_equal(a.ranges[i].overlap.busy_ns, US(5));
    }
    const sc_range_summary *loop = range_at(&a, "loop", 0);
    assert_int_equal(loop->overlap.kernel_count, N);
    assert_int_equal(loop->overlap.idle_ns, US(5) * (N - 1));
    assert_int_equal(loop->overlap.gap_count, N - 1);
    /* rows by summed wall: loop 1 000 000 us, then the steps' 100k x 8 = 800 000 us */
    assert_int_equal(a.n_range_names, 2);
    assert_string_equal(a.range_names[0].name, "loop");
    assert_string_equal(a.range_names[1].name, "step");
    assert_int_equal(a.range_names[1].count, N);
    assert_int_equal(a.range_names[1].wall_ns, US(8) * N);
    assert_int_equal(a.range_names[1].overlap.busy_ns, US(5) * N);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_membership),
        cmocka_unit_test(test_ranges_findings_and_names),
        cmocka_unit_test(test_ranges_name_row_sums),
        cmocka_unit_test(test_ranges_top_findings),
        cmocka_unit_test(test_ranges_none),
        cmocka_unit_test(test_ranges_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
