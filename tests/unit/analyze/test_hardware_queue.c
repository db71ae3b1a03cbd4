/* Rule hardware-queue and the replay without shared queues. Device 0; three streams the
 * program created, 20, 21 and 22 in that order (handles 0xA0..0xA2). Expected numbers are
 * worked out in the comments from src/analyze/hw_queues.h and hardware_queue.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

static const char *env_two[] = {"CUDA_DEVICE_MAX_CONNECTIONS=2"};

static void launch(syn *s, uint32_t stream, uint64_t handle, uint64_t at, uint64_t start,
                   uint64_t end, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, at, at + US(5), corr, NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    syn_kernel(s, 0, stream, start, end, corr);
}

/*   K1 on 20   launch 0 .. 5,   runs 10 .. 1010
 *   K2 on 20   launch 5 .. 10,  runs 1010 .. 1110 (behind K1 on its stream)
 *   K3 on 22   launch 10 .. 15, runs 1012 .. 2012
 * With 2 queues, stream 22 (created third) shares stream 20's. K3 was ready at 15 (its call
 * over, nothing before it on 22); K2, issued to the queue before it, started only at 1010
 * (it waited for K1), and K3 2 us after: K2's start released it. Waited 1012 - 15 = 997 us.
 * The replay: issue lag 10 us (K1), stream lag 0 (K2), queue lag 2 us (K3 after K2):
 * unchanged it is the recording, 2012 us. Every stream with a queue of its own, K3 runs
 * 25 .. 1025 and the run ends with K2 at 1110: saving 902 us, 44.8% of the run: error. */
static void build(syn *s, bool two_queues)
{
    syn_init(s);
    if (two_queues) {
        s->t.env = env_two;
        s->t.n_env = 1;
    }
    for (uint32_t k = 0; k < 3; k++) {
        syn_stream(s, 0, 20 + k, SC_STREAM_FLAG_NON_BLOCKING, 100 + k);
        syn_call_aux(s,
                     syn_call(s, SC_CALL_STREAM_CREATE, 0, 0, 100 + k,
                              "cudaStreamCreateWithFlags", NULL, 0),
                     0xA0 + k);
    }
    launch(s, 20, 0xA0, 0, US(10), US(1010), 1);
    launch(s, 20, 0xA0, US(5), US(1010), US(1110), 2);
    launch(s, 22, 0xA2, US(10), US(1012), US(2012), 3);
}

static void done(syn *s, sc_analysis *a)
{
    s->t.env = NULL;    /* static: not the synthetic trace's to free */
    s->t.n_env = 0;
    sc_analysis_free(a);
    syn_free(s);
}

static void test_kernel_queued_behind_another_stream_is_error(void **state)
{
    (void)state;
    syn s;
    build(&s, true);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(2012));
    const sc_finding *f = syn_finding(&a, "hardware-queue");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(997));
    assert_int_equal(f->cost_ns, US(902));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(syn_ev(&f->worst, "stream") == 22.0);
    assert_true(syn_ev(&f->worst, "queued_behind_stream") == 20.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "streams") == 3.0);
    assert_true(syn_evidence(f->totals, f->n_totals, "queues") == 2.0);
    assert_non_null(strstr(f->fix, "CUDA_DEVICE_MAX_CONNECTIONS"));
    done(&s, &a);
}

/* The replay's queue edge (replay.h, "queues"): with 2 queues, K3's start is explained by
 * K2's, issued before it to their shared queue: nothing held, nothing unexplained. With
 * CUDA's 8 each stream has its own queue, and K3 looks held by K1, which ended 2 us before
 * it started. Either way the replay is the recording. */
static void test_queue_explains_the_wait(void **state)
{
    (void)state;
    syn s;
    sc_analysis a;
    build(&s, true);
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, a.replay.recorded_span_ns);
    assert_int_equal(a.replay.held, 0);
    assert_int_equal(a.replay.unexplained, 0);
    done(&s, &a);
    build(&s, false);
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, a.replay.recorded_span_ns);
    assert_int_equal(a.replay.held, 1);
    done(&s, &a);
}

/* The same run with CUDA's 8 queues: three streams, three queues, nothing shared. */
static void test_fewer_streams_than_queues_is_silent(void **state)
{
    (void)state;
    syn s;
    build(&s, false);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "hardware-queue"));
    done(&s, &a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_queued_behind_another_stream_is_error),
        cmocka_unit_test(test_fewer_streams_than_queues_is_silent),
        cmocka_unit_test(test_queue_explains_the_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
