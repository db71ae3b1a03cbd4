/* Rule legacy-stream. Stream 7 is the legacy stream, 13 a blocking stream (cudaStreamCreate),
 * 20 a non-blocking one. Every expected number is worked out from the timings in comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define LEGACY 7
#define BLOCKING 13
#define NONBLOCKING 20

static void streams(syn *s)
{
    syn_stream(s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(s, 0, BLOCKING, SC_STREAM_FLAG_BLOCKING, 100);
    syn_stream(s, 0, NONBLOCKING, SC_STREAM_FLAG_NON_BLOCKING, 101);
    syn_call(s, SC_CALL_STREAM_CREATE, 0, US(1), 100, "cudaStreamCreate", NULL, 0);
    syn_call(s, SC_CALL_STREAM_CREATE, US(1), US(2), 101, "cudaStreamCreateWithFlags", NULL, 0);
}

/* The classic trap: a long kernel on a blocking stream, then sweeps on the legacy stream.
 *   K  on 13: issued 10 us, runs 20 .. 10020 us
 *   S1 on  7: issued 30 us, runs 10022 .. 10122 us
 *   S2 on  7: issued 40 us, runs 10123 .. 10223 us
 *   M  on  7: memset issued 50 us, runs 10224 .. 10230 us
 * Measured: S1 waited for K: min(10022, 10020) - max(30, nothing before on 7) = 9990 us.
 * S2 and M were behind S1/S2 on their own stream (10122 > 10020): no wait of their own.
 * The replay's lags, from the trace: K's start was bound by its issue (10 -> 20: 10 us, the
 * only kernel issue sample), S1's by the barrier (10020 -> 10022: cross 2 us), S2's and M's
 * by their stream (1 us each: stream 1 us); memsets have no issue sample (default 5 us).
 * Replayed unchanged it is the recording: span 0 .. 10230 us. With the barrier gone S1
 * starts at its issue, 30 + 10 = 40 us, ends 140; S2 at max(40 + 10, 140 + 1) = 141 .. 241;
 * M at max(50 + 5, 241 + 1) = 242 .. 248; the run then ends with K at 10020 us. Fixing it
 * saves 10230 - 10020 = 210 us: 2.05% of the run, >= 1% and >= 20 us but < 5%: a warning.
 * The blocking kernel dominates the run: moving the sweeps off it gains only their own
 * length. The instances share the 210 us by what they measured: S1 all of it. */
static void test_legacy_trap_costs_what_moving_it_saves(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(10), US(15), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, BLOCKING, US(20), US(10020), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(30), US(35), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(10022), US(10122), 2);
    syn_call(&s, SC_CALL_LAUNCH, US(40), US(45), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(10123), US(10223), 3);
    syn_call(&s, SC_CALL_MEMSET_ASYNC, US(50), US(55), 4, "cudaMemsetAsync", NULL, 0);
    syn_memset(&s, 0, LEGACY, US(10224), US(10230), 4);
    sc_analysis a;
    syn_analyze(&s, &a);

    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_WARNING);
    assert_false(f->join);
    assert_int_equal(f->count, 3);
    assert_int_equal(f->waited_ns, US(9990));
    assert_int_equal(f->cost_ns, US(210));
    assert_int_equal(f->worst.cost_ns, US(210));
    assert_int_equal(f->worst.start_ns, US(10022));
    assert_non_null(f->worst.call);
    assert_int_equal(f->worst.call->rec.correlation_id, 2);
    assert_int_equal(f->first.start_ns, US(10022));
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "wait_us") == 9990.0);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "blocking_stream") ==
                BLOCKING);
    assert_true(syn_evidence(f->totals, f->n_totals, "operations") == 3.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "serialized") == 1.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "wait_us") == 9990.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "worst_wait_us") == 9990.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "blocking_streams") == 1.0);
    assert_non_null(strstr(f->title, "13"));
    /* run span: first call at 0 to the memset's end at 10230 us */
    assert_true(f->share > 210.0 / 10230.0 - 1e-9 && f->share < 210.0 / 10230.0 + 1e-9);
    /* blocking-stream names the same barrier from stream 13's side: one saving, both ways */
    const sc_finding *b = syn_finding(&a, "blocking-stream");
    assert_non_null(b);
    assert_int_equal(b->cost_ns, US(210));
    assert_string_equal(f->same_wait_as, "blocking-stream");
    assert_string_equal(b->same_wait_as, "legacy-stream");
    assert_int_equal(a.replay.replay_span_ns, US(10230));
    assert_int_equal(a.replay.fixed_span_ns, US(10020));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The trap where the legacy work is what runs long: S on 7 is issued at 30 us but runs
 * 10022 .. 20022 us, behind K (20 .. 10020 us) on 13. Measured: S waited
 * min(10022, 10020) - 30 = 9990 us. Lags: K's issue 10 us, S's cross 2 us (as above).
 * Replayed unchanged: K 20 .. 10020, S max(30 + 10, 10020 + 2) = 10022 .. 20022: the
 * recorded span, 20022 us. Without the barrier S runs 40 .. 10040 beside K: the run ends at
 * 10040 us. Saving 20022 - 10040 = 9982 us, 49.9% of the run: an error. */
static void test_legacy_trap_that_holds_long_work_is_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(10), US(15), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, BLOCKING, US(20), US(10020), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(30), US(35), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(10022), US(20022), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_false(f->join);
    assert_int_equal(f->waited_ns, US(9990));
    assert_int_equal(f->cost_ns, US(9982));
    assert_int_equal(f->worst.cost_ns, US(9982));
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "wait_us") == 9990.0);
    assert_true(f->share > 9982.0 / 20022.0 - 1e-9 && f->share < 9982.0 / 20022.0 + 1e-9);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* PyTorch-style: legacy default stream plus a non-blocking side stream. The same timings as
 * the trap, but the side stream does not synchronize with the legacy one, so nothing waited
 * and there is no blocking stream at all: a note, cost 0. */
static void test_legacy_with_nonblocking_is_not_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(10), US(15), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, NONBLOCKING, US(20), US(10020), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(30), US(35), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(40), US(140), 2);
    syn_call(&s, SC_CALL_LAUNCH, US(50), US(55), 3, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(10022), US(10122), 3);   /* late, but not serialized */
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->count, 2);
    for (size_t i = 0; i < a.n_findings; i++)
        assert_int_not_equal(a.findings[i].severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

static void test_legacy_alone_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(10), US(20), 1);
    syn_call(&s, SC_CALL_MEMCPY, US(6), US(40), 2, "cudaMemcpy", NULL, 0);
    syn_copy(&s, 0, LEGACY, US(25), US(35), 4096, 2, 0, SC_MEM_DEVICE, SC_MEM_PINNED);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.n_findings, 1);
    const sc_finding *f = &a.findings[0];
    assert_string_equal(f->rule, "legacy-stream");
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->count, 2);
    assert_int_equal(f->cost_ns, 0);
    assert_string_equal(f->title, "2 operations on the legacy stream; nothing serialized");
    assert_true(syn_evidence(f->totals, f->n_totals, "serialized") == 0.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Blocking work that did not overlap the legacy work in time: a risk, not a cost. Nothing
 * waited, so the finding names no fix: it saves nothing and is a note, whose title still
 * says blocking streams ran beside it. */
static void test_legacy_beside_idle_blocking_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(10), US(15), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, BLOCKING, US(20), US(120), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(200), US(205), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(210), US(310), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->waited_ns, 0);
    assert_false(f->join);
    assert_int_equal(f->count, 1);
    assert_non_null(strstr(f->title, "beside blocking streams"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Reverse direction: legacy L issued 0 us, runs 10 .. 5010 us; blocking B issued 20 us,
 * starts 5012 us. Measured: B waited min(5012, 5010) - max(20, 0) = 4990 us, charged to L.
 * Lags: L's issue 10 us (0 -> 10), B's cross 2 us (5010 -> 5012). The launch of L at 0 us
 * overlaps the stream creations (0 .. 1 and 1 .. 2 us) on the same thread: the replay runs a
 * thread's calls one after the other, so the launch starts at 1 us, when the first creation
 * ended (the second one lies inside the launch and is part of it), and all that follows on
 * the host moves 1 us: L 11 .. 5011, B's call at 21, B at max(21 + 10, 5011 + 2) = 5013 ..
 * 5113. Without the barrier B runs at 31 .. 131 and the run ends with L at 5011. Saving
 * 5113 - 5011 = 102 us of the 5112 us recorded: 2.0%, a warning. */
static void test_blocking_waits_behind_legacy(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(10), US(5010), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(20), US(25), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, BLOCKING, US(5012), US(5112), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_WARNING);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(4990));
    assert_int_equal(f->cost_ns, US(102));
    assert_int_equal(a.replay.replay_span_ns, US(5113));
    assert_int_equal(a.replay.recorded_span_ns, US(5112));
    assert_int_equal(f->worst.call->rec.correlation_id, 1);
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "caused_wait_us") ==
                4990.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "serialized") == 1.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "blocking_streams") == 1.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Blocking B started while L still ran (3000 < 5010 - 1 us): it did not wait for L.
 * Nothing waited, so no fix: cost 0, a note. */
static void test_blocking_that_did_not_wait_costs_nothing(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    syn_call(&s, SC_CALL_LAUNCH, 0, US(5), 1, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(10), US(5010), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(20), US(25), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, BLOCKING, US(3000), US(3100), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->waited_ns, 0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Work on another device does not serialize with the legacy stream of device 0. */
static void test_legacy_other_device_is_independent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(&s, 1, BLOCKING, SC_STREAM_FLAG_BLOCKING, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(10), US(15), 1, NULL, NULL, 0);
    syn_kernel(&s, 1, BLOCKING, US(20), US(10020), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(30), US(35), 2, NULL, NULL, 0);
    syn_kernel(&s, 0, LEGACY, US(10022), US(10122), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->cost_ns, 0);
    assert_int_not_equal(f->severity, SC_SEV_ERROR);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Sites: three legacy launches from two stacks; the stack with two launches comes first
 * (same cost 0, larger count) and counts 2. */
static void test_legacy_sites_dedup_by_stack(void **state)
{
    (void)state;
    static const uint64_t stack_a[] = {0x1000, 0x2000};
    static const uint64_t stack_b[] = {0x1100, 0x2000};
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(1), 1, NULL, stack_b, 2);
    syn_kernel(&s, 0, LEGACY, US(2), US(3), 1);
    syn_call(&s, SC_CALL_LAUNCH, US(4), US(5), 2, NULL, stack_a, 2);
    syn_kernel(&s, 0, LEGACY, US(6), US(7), 2);
    syn_call(&s, SC_CALL_LAUNCH, US(8), US(9), 3, NULL, stack_a, 2);
    syn_kernel(&s, 0, LEGACY, US(10), US(11), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->n_sites, 2);
    assert_int_equal(f->sites[0].count, 2);
    assert_memory_equal(sc_call_frames(&s.t, f->sites[0].call), stack_a, sizeof stack_a);
    assert_int_equal(f->sites[0].call->rec.correlation_id, 2);   /* the earliest of them */
    assert_int_equal(f->sites[1].count, 1);
    assert_memory_equal(sc_call_frames(&s.t, f->sites[1].call), stack_b, sizeof stack_b);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Launch stacks are sampled: a launch flagged SC_API_STACK_SHARED has no frames and names
 * the sampled launch (by correlation id in aux) whose site it is counted at. */
static void test_shared_stack_counts_at_sampled_site(void **state)
{
    (void)state;
    static const uint64_t stack_a[] = {0x1000, 0x2000};
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_call(&s, SC_CALL_LAUNCH, US(0), US(1), 1, NULL, stack_a, 2);
    syn_kernel(&s, 0, LEGACY, US(2), US(3), 1);
    for (uint32_t i = 2; i <= 4; i++) {
        sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, US(4 * i), US(4 * i + 1), i, NULL, NULL, 0);
        syn_call_add_flags(&s, c, SC_API_STACK_SHARED);
        syn_call_aux(&s, c, 1);
        syn_kernel(&s, 0, LEGACY, US(4 * i + 2), US(4 * i + 3), i);
    }
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "legacy-stream");
    assert_non_null(f);
    assert_int_equal(f->count, 4);
    assert_int_equal(f->n_sites, 1);
    assert_int_equal(f->sites[0].count, 4);
    assert_memory_equal(sc_call_frames(&s.t, f->sites[0].call), stack_a, sizeof stack_a);
    /* the instances keep their own calls; only the site is shared */
    assert_int_equal(f->first.call->rec.correlation_id, 1);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_trap_costs_what_moving_it_saves),
        cmocka_unit_test(test_legacy_trap_that_holds_long_work_is_error),
        cmocka_unit_test(test_legacy_with_nonblocking_is_not_error),
        cmocka_unit_test(test_legacy_alone_is_note),
        cmocka_unit_test(test_legacy_beside_idle_blocking_is_note),
        cmocka_unit_test(test_blocking_waits_behind_legacy),
        cmocka_unit_test(test_blocking_that_did_not_wait_costs_nothing),
        cmocka_unit_test(test_legacy_other_device_is_independent),
        cmocka_unit_test(test_legacy_sites_dedup_by_stack),
        cmocka_unit_test(test_shared_stack_counts_at_sampled_site),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
