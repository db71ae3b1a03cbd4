/* Rule blocking-stream. Stream 7 is the legacy stream, 13 and 14 blocking streams the program
 * created (cudaStreamCreate, correlation ids 100 and 102, each at its own stack), 20 a
 * non-blocking one, 30 a blocking stream CUDA made itself (no creating call). Every expected
 * number is worked out from the timings in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define LEGACY 7
#define BLOCKING 13
#define BLOCKING2 14
#define NONBLOCKING 20
#define INTERNAL 30

static const uint64_t stack_13[] = {0x1300, 0x2000};
static const uint64_t stack_14[] = {0x1400, 0x2000};

static void streams(syn *s)
{
    syn_stream(s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(s, 0, BLOCKING, SC_STREAM_FLAG_BLOCKING, 100);
    syn_stream(s, 0, BLOCKING2, SC_STREAM_FLAG_BLOCKING, 102);
    syn_stream(s, 0, NONBLOCKING, SC_STREAM_FLAG_NON_BLOCKING, 101);
    syn_stream(s, 0, INTERNAL, SC_STREAM_FLAG_BLOCKING, 0);
    syn_call(s, SC_CALL_STREAM_CREATE, 0, US(1), 100, "cudaStreamCreate", stack_13, 2);
    syn_call(s, SC_CALL_STREAM_CREATE, US(1), US(2), 101, "cudaStreamCreateWithFlags", NULL, 0);
    syn_call(s, SC_CALL_STREAM_CREATE, US(2), US(3), 102, "cudaStreamCreate", stack_14, 2);
}

/* The finding of a rule whose title contains `what`, or NULL. */
static const sc_finding *titled(const sc_analysis *a, const char *rule, const char *what)
{
    for (size_t i = 0; i < a->n_findings; i++)
        if (strcmp(a->findings[i].rule, rule) == 0 && strstr(a->findings[i].title, what))
            return &a->findings[i];
    return NULL;
}

static void launch(syn *s, uint32_t stream, uint64_t call_start, uint64_t start, uint64_t end,
                   uint32_t corr)
{
    syn_call(s, SC_CALL_LAUNCH, call_start, call_start + US(5), corr, NULL, NULL, 0);
    syn_kernel(s, 0, stream, start, end, corr);
}

/* The trap of the legacy-stream tests, plus a second blocking stream that merely ran beside
 * the legacy stream and CUDA's own blocking stream with work of its own:
 *   K  on 13: issued 10 us, runs 20 .. 10020 us
 *   S  on  7: issued 30 us, runs 10022 .. 10122 us: waited min(10022, 10020) - 30 = 9990 us
 *             for 13
 *   M  on 14: issued 10150 us, runs 10200 .. 10300 us: S had ended (10122 < 10150), nothing
 *             in flight, no wait; 14 ran work and so did the legacy stream
 *   I  on 30: issued 10400 us, runs 10410 .. 10420 us: no creating call, never reported
 * The rule makes two findings: stream 13, which serialized (9990 us measured, at 13's
 * creation site), and stream 14, which ran beside the legacy stream without waiting.
 * What fixing them saves, from the replay. Lags: kernel issue samples K 10, M 50, I 10 us:
 * median 10 us; S's cross 2 us. M is then 40 us later than its issue allows (10150 + 10 =
 * 10160 against 10200) and no work ended within 30 us before it: its delay is kept as
 * recorded (one unexplained piece). The run replays exactly, 0 .. 10420 us, and ends with I,
 * which the host issued at 10400 us whatever the streams did: with 13's barrier gone S runs
 * at 40 .. 140 us, and nothing after it moves. Both findings save 0: notes. Stream 13
 * waited 9990 us for a saving of nothing: a join. legacy-stream names the same barrier. */
static void test_serialized_stream_that_saves_nothing_is_a_join(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, BLOCKING, US(10), US(20), US(10020), 1);
    launch(&s, LEGACY, US(30), US(10022), US(10122), 2);
    launch(&s, BLOCKING2, US(10150), US(10200), US(10300), 3);
    launch(&s, INTERNAL, US(10400), US(10410), US(10420), 4);
    sc_analysis a;
    syn_analyze(&s, &a);

    assert_int_equal(a.replay.replay_span_ns, US(10420));
    assert_int_equal(a.replay.unexplained, 1);
    assert_int_equal(a.replay.unexplained_ns, US(40));
    const sc_finding *e = titled(&a, "blocking-stream", "serialized");
    assert_non_null(e);
    assert_int_equal(e->severity, SC_SEV_NOTE);
    assert_true(e->join);
    assert_int_equal(e->count, 1);
    assert_int_equal(e->waited_ns, US(9990));
    assert_int_equal(e->cost_ns, 0);
    assert_non_null(e->worst.call);
    assert_int_equal(e->worst.call->rec.correlation_id, 100);
    assert_int_equal(e->n_sites, 1);
    assert_memory_equal(sc_call_frames(&s.t, e->sites[0].call), stack_13, sizeof stack_13);
    assert_true(syn_evidence(e->worst.evidence, e->worst.n_evidence, "stream") == BLOCKING);
    assert_true(syn_evidence(e->worst.evidence, e->worst.n_evidence, "wait_us") == 9990.0);
    assert_true(syn_evidence(e->worst.evidence, e->worst.n_evidence, "serialized") == 1.0);
    assert_true(syn_evidence(e->worst.evidence, e->worst.n_evidence, "operations") == 1.0);
    assert_true(syn_evidence(e->worst.evidence, e->worst.n_evidence, "legacy_operations") ==
                1.0);
    assert_string_equal(e->title, "blocking stream(s) 13 serialized with legacy-stream work: 1 "
                                  "operations waited 9.99 ms");
    assert_string_equal(e->same_wait_as, "legacy-stream");

    const sc_finding *w = titled(&a, "blocking-stream", "ran beside");
    assert_non_null(w);
    assert_int_equal(w->severity, SC_SEV_NOTE);
    assert_false(w->join);
    assert_int_equal(w->count, 1);     /* 14 only: 30 has no creating call */
    assert_int_equal(w->cost_ns, 0);
    assert_int_equal(w->worst.call->rec.correlation_id, 102);
    assert_true(syn_evidence(w->worst.evidence, w->worst.n_evidence, "stream") == BLOCKING2);
    assert_null(w->same_wait_as);
    assert_null(titled(&a, "blocking-stream", "harmless"));
    assert_int_equal(syn_finding_count(&a, "blocking-stream"), 2);
    /* the same wait is legacy-stream's too, charged to the legacy operation */
    const sc_finding *l = syn_finding(&a, "legacy-stream");
    assert_non_null(l);
    assert_int_equal(l->waited_ns, US(9990));
    assert_int_equal(l->cost_ns, 0);
    assert_true(l->join);
    assert_string_equal(l->same_wait_as, "blocking-stream");
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A serialization that holds the run: K on 13 issued 10 us, runs 20 .. 10020 us; S on the
 * legacy stream issued 30 us, runs 10022 .. 20022 us: waited 9990 us for 13. Lags: issue
 * 10 us (K), cross 2 us (S); the replay reproduces 0 .. 20022 us. Making 13 non-blocking
 * lets S run at 40 .. 10040 us beside K: the run ends at 10040, saving 20022 - 10040 =
 * 9982 us, 49.9% of it: an error, at 13's creation site. legacy-stream describes the same
 * barrier and shows the same saving; with every fix applied the run is 10040 us: the saving
 * counted once. Stream 14 was created and ran nothing: a finding of its own that names no
 * edge of the replay, cost 0, a note. */
static void test_serialized_stream_is_error_with_cost(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, BLOCKING, US(10), US(20), US(10020), 1);
    launch(&s, LEGACY, US(30), US(10022), US(20022), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *e = titled(&a, "blocking-stream", "serialized");
    assert_non_null(e);
    assert_int_equal(syn_finding_count(&a, "blocking-stream"), 2);
    assert_int_equal(e->severity, SC_SEV_ERROR);
    assert_false(e->join);
    assert_int_equal(e->waited_ns, US(9990));
    assert_int_equal(e->cost_ns, US(9982));
    assert_int_equal(e->worst.cost_ns, US(9982));
    assert_int_equal(e->worst.call->rec.correlation_id, 100);
    assert_int_equal(e->sites[0].cost_ns, US(9982));
    const sc_finding *n = titled(&a, "blocking-stream", "harmless");
    assert_non_null(n);
    assert_int_equal(n->severity, SC_SEV_NOTE);
    assert_int_equal(n->cost_ns, 0);
    assert_null(n->same_wait_as);
    const sc_finding *l = syn_finding(&a, "legacy-stream");
    assert_non_null(l);
    assert_int_equal(l->cost_ns, US(9982));
    assert_string_equal(e->same_wait_as, "legacy-stream");
    assert_string_equal(l->same_wait_as, "blocking-stream");
    assert_int_equal(a.replay.replay_span_ns, US(20022));
    assert_int_equal(a.replay.fixed_span_ns, US(10040));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Both directions count, and two streams share one finding:
 *   L1 on  7: issued 0 us, runs 10 .. 5010 us
 *   B  on 13: issued 20 us, starts 5012 us: waited min(5012, 5010) - 20 = 4990 us for L1
 *   K  on 14: issued 6000 us, runs 6010 .. 8010 us
 *   L2 on  7: issued 6020 us, starts 8011 us: waited min(8011, 8010) - max(6020, 5010) =
 *             1990 us for 14
 * Measured: 2 streams, 4990 + 1990 = 6980 us; the worst and the first site are 13's, then
 * 14's.
 * The replay. Lags (lower quartiles): issue L1 10 us, K 10 us: 10 us; cross B 2 us (5010 ->
 * 5012) and L2 1 us (8010 -> 8011): 1 us; stream: none measured, 1 us. The launch of L1 at
 * 0 us overlaps the stream creations (0 .. 3 us) on its thread: the replay starts it when
 * the first creation ended, at 1 us, and every later call 1 us late. Unchanged:
 *   L1 1 + 10 = 11 .. 5011; B max(21 + 10, 5011 + 1) = 5012 .. 5112;
 *   K max(6001 + 10, 5011 + 1) = 6011 .. 8011; L2 max(6021 + 10, 5011 + 1, 5112 + 1,
 *   8011 + 1) = 8012 .. 8112: span 8112 us (recorded 8111).
 * Both streams non-blocking: B 31 .. 131, K 6011 .. 8011, L2 max(6031, 5011 + 1) = 6031 ..
 * 6131: the run ends with K at 8011. Saving 8112 - 8011 = 101 us, 1.25% of 8111 us: a
 * warning. Shared by what each measured: 13 101 x 4990 / 6980 = 72.205 us, 14 101 x
 * 1990 / 6980 = 28.795 us (to the nanosecond, rounded). */
static void test_both_directions_and_two_streams(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, LEGACY, 0, US(10), US(5010), 1);
    launch(&s, BLOCKING, US(20), US(5012), US(5112), 2);
    launch(&s, BLOCKING2, US(6000), US(6010), US(8010), 3);
    launch(&s, LEGACY, US(6020), US(8011), US(8111), 4);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(8112));
    const sc_finding *e = syn_finding(&a, "blocking-stream");
    assert_non_null(e);
    assert_int_equal(e->severity, SC_SEV_WARNING);
    assert_int_equal(e->count, 2);
    assert_int_equal(e->waited_ns, US(6980));
    assert_int_equal(e->cost_ns, US(101));
    assert_int_equal(e->worst.cost_ns, 72205);
    assert_int_equal(e->worst.call->rec.correlation_id, 100);
    assert_int_equal(e->n_sites, 2);
    assert_memory_equal(sc_call_frames(&s.t, e->sites[0].call), stack_13, sizeof stack_13);
    assert_int_equal(e->sites[0].cost_ns, 72205);
    assert_memory_equal(sc_call_frames(&s.t, e->sites[1].call), stack_14, sizeof stack_14);
    assert_int_equal(e->sites[1].cost_ns, 28795);
    assert_true(syn_evidence(e->totals, e->n_totals, "streams") == 2.0);
    assert_true(syn_evidence(e->totals, e->n_totals, "serialized") == 2.0);
    assert_true(syn_evidence(e->totals, e->n_totals, "wait_us") == 6980.0);
    assert_non_null(strstr(e->title, "13, 14"));
    assert_int_equal(syn_finding_count(&a, "blocking-stream"), 1);
    /* legacy-stream's fixes are the same two barriers: the same saving */
    assert_int_equal(syn_finding(&a, "legacy-stream")->cost_ns, US(101));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* No legacy-stream work at all: a blocking stream is harmless, a note with cost 0 whose fix
 * still names cudaStreamNonBlocking. 13 ran a kernel, 14 ran nothing: both notes. */
static void test_without_legacy_work_is_note(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    streams(&s);
    launch(&s, BLOCKING, US(10), US(20), US(120), 1);
    launch(&s, NONBLOCKING, US(30), US(40), US(140), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(syn_finding_count(&a, "blocking-stream"), 1);
    const sc_finding *n = syn_finding_sev(&a, "blocking-stream", SC_SEV_NOTE);
    assert_non_null(n);
    assert_int_equal(n->count, 2);
    assert_int_equal(n->cost_ns, 0);
    assert_non_null(strstr(n->fix, "cudaStreamNonBlocking"));
    assert_non_null(strstr(n->title, "13, 14"));
    assert_non_null(strstr(n->title, "harmless"));
    assert_null(syn_finding(&a, "legacy-stream"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Only non-blocking streams and CUDA's own blocking stream beside the legacy stream: the
 * program created no blocking stream, so the rule says nothing. */
static void test_nonblocking_and_internal_streams_are_not_reported(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(&s, 0, NONBLOCKING, SC_STREAM_FLAG_NON_BLOCKING, 101);
    syn_stream(&s, 0, INTERNAL, SC_STREAM_FLAG_BLOCKING, 0);
    syn_call(&s, SC_CALL_STREAM_CREATE, US(1), US(2), 101, "cudaStreamCreateWithFlags", NULL,
             0);
    launch(&s, NONBLOCKING, US(10), US(20), US(10020), 1);
    launch(&s, LEGACY, US(30), US(40), US(140), 2);
    launch(&s, INTERNAL, US(200), US(210), US(220), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(syn_finding_count(&a, "blocking-stream"), 0);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serialized_stream_that_saves_nothing_is_a_join),
        cmocka_unit_test(test_serialized_stream_is_error_with_cost),
        cmocka_unit_test(test_both_directions_and_two_streams),
        cmocka_unit_test(test_without_legacy_work_is_note),
        cmocka_unit_test(test_nonblocking_and_internal_streams_are_not_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
