/* The analyzer on several threads at once, as `streamcheck-report -j N` runs it: each
 * thread analyzes traces of its own, and every analysis must come out as it does alone; and
 * each analysis on two threads itself (sc_analyze_options.two_threads: parts of its context,
 * the rule host-sync and half of the ranges' measures on a second thread, fork_join.h), as
 * the report runs one trace where a core is free, which must come out as on one. The
 * replay once kept its sort comparators' context in file-scope variables (qsort has no
 * context argument): two threads sorting at once read each other's arrays, a wrong result or
 * a read past an array (seen under ASan in 1 of 4 runs of an 8-rank report). Under
 * ThreadSanitizer (CI's tsan run takes the `unit` suite) any such shared state is a report.
 *
 * Each trace has streams whose kernels an event orders, a legacy-stream barrier, pageable
 * copies and host synchronizations, so that the replay's graph, waits, lags and hardware
 * queues all sort, and NVTX ranges (a push/pop range a step, a start/end range over every
 * four), so that the ranges' measures split; the traces differ in size so that the arrays
 * differ. */
#include <pthread.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

enum { THREADS = 4, TRACES = 6, ROUNDS = 12 };

typedef struct outcome {
    uint64_t replay_span_ns, fixed_span_ns, cost_sum_ns;
    uint64_t digest;            /* of each finding in order: its rule, title, count, cost;
                                   then of each range: its calls and its work's measures */
    size_t findings, ranges, ranges_with_work;
    int rc;
} outcome;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

/* Trace `v`: 8 + 6 v steps, each a kernel on two non-blocking streams (0x10, 0x20) ordered
 * by an event, a kernel on the legacy stream, a pageable copy, and every third step a
 * cudaStreamSynchronize; each step a push/pop range "step" of the calling thread, every four
 * steps a start/end range "window" over them. */
static void build(syn *s, int v)
{
    syn_device(s, 0, 132);
    syn_stream(s, 0, 7, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(s, 0, 10, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_stream(s, 0, 20, SC_STREAM_FLAG_BLOCKING, 0);
    uint32_t corr = 1;
    uint64_t t = US(10);
    int steps = 8 + 6 * v;
    for (int i = 0; i < steps; i++) {
        sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, t, t + US(5), corr, NULL, NULL, 0);
        syn_call_stream(s, c, 0x10);
        syn_kernel(s, 0, 10, t + US(8), t + US(108 + 7 * v), corr++);
        sc_api_call *rec = syn_call(s, SC_CALL_EVENT_RECORD, t + US(5), t + US(7), 0,
                                    "cudaEventRecord", NULL, 0);
        syn_call_stream(s, rec, 0x10);
        syn_call_aux(s, rec, 0xE0 + (uint64_t)i);
        sc_api_call *w = syn_call(s, SC_CALL_EVENT_WAIT, t + US(7), t + US(9), 0,
                                  "cudaStreamWaitEvent", NULL, 0);
        syn_call_stream(s, w, 0x20);
        syn_call_aux(s, w, 0xE0 + (uint64_t)i);
        c = syn_call(s, SC_CALL_LAUNCH, t + US(9), t + US(14), corr, NULL, NULL, 0);
        syn_call_stream(s, c, 0x20);
        syn_kernel(s, 0, 20, t + US(110 + 7 * v), t + US(160 + 7 * v), corr++);
        c = syn_call(s, SC_CALL_LAUNCH, t + US(14), t + US(19), corr, NULL, NULL, 0);
        syn_call_stream(s, c, 0);
        syn_kernel(s, 0, 7, t + US(162 + 7 * v), t + US(200 + 7 * v), corr++);
        c = syn_call(s, SC_CALL_MEMCPY_ASYNC, t + US(19), t + US(60), corr, "cudaMemcpyAsync",
                     NULL, 0);
        syn_call_stream(s, c, 0x10);
        syn_call_bytes(s, c, 1 << 20);
        syn_copy(s, 0, 10, t + US(40), t + US(60), 1 << 20, corr++, 0, SC_MEM_PAGEABLE,
                 SC_MEM_DEVICE);
        uint64_t next = t + US(210 + 7 * v);
        syn_range(s, "step", t, next, 0, 0);
        if (i % 4 == 0)
            syn_range(s, "window", t, t + 4 * US(212 + 7 * v), 0, UINT32_MAX);
        if (i % 3 == 2) {
            c = syn_call(s, SC_CALL_STREAM_SYNC, t + US(61), next, corr++,
                         "cudaStreamSynchronize", NULL, 0);
            syn_call_stream(s, c, 0x20);
        }
        t = next + US(2);
    }
    syn_finish(s);
}

static outcome analyze_one(int v, bool two_threads)
{
    syn s;
    syn_init(&s);
    build(&s, v);
    sc_analysis a;
    char err[256];
    outcome o = {.digest = 14695981039346656037u};
    const sc_analyze_options opt = {.two_threads = two_threads};
    o.rc = sc_analyze_with(&s.t, &opt, &a, err, sizeof err);
    if (o.rc == 0) {
        o.replay_span_ns = a.replay.replay_span_ns;
        o.fixed_span_ns = a.replay.fixed_span_ns;
        o.findings = a.n_findings;
        for (size_t k = 0; k < a.n_findings; k++) {
            const sc_finding *f = &a.findings[k];
            o.cost_sum_ns += f->cost_ns;
            o.digest = fnv(o.digest, f->rule, strlen(f->rule) + 1);
            o.digest = fnv(o.digest, f->title, strlen(f->title) + 1);
            o.digest = fnv(o.digest, &f->count, sizeof f->count);
            o.digest = fnv(o.digest, &f->cost_ns, sizeof f->cost_ns);
        }
        o.ranges = a.n_ranges;
        for (size_t k = 0; k < a.n_ranges; k++) {
            const sc_range_summary *r = &a.ranges[k];
            const sc_overlap *m = &r->overlap;
            const uint64_t v8[8] = {r->call_count, r->copy_count, m->busy_ns, m->kernel_count,
                                    m->overlap_ns, m->copy_compute_ns, m->idle_ns,
                                    r->fixed_wall_ns};
            o.digest = fnv(o.digest, v8, sizeof v8);
            o.ranges_with_work += r->call_count > 0 && m->kernel_count > 0;
        }
        sc_analysis_free(&a);
    }
    syn_free(&s);
    return o;
}

static outcome alone[TRACES];

typedef struct worker {
    int first;
    bool two_threads;           /* each of its analyses on two threads itself */
    int mismatches;
} worker;

static bool same(const outcome *o, const outcome *a)
{
    return o->rc == a->rc && o->replay_span_ns == a->replay_span_ns &&
           o->fixed_span_ns == a->fixed_span_ns && o->cost_sum_ns == a->cost_sum_ns &&
           o->digest == a->digest && o->findings == a->findings && o->ranges == a->ranges;
}

static void *work(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < TRACES; k++) {
            int v = (w->first + k + r) % TRACES;
            outcome o = analyze_one(v, w->two_threads);
            if (!same(&o, &alone[v]))
                w->mismatches++;
        }
    return NULL;
}

static void run_workers(bool two_threads)
{
    for (int v = 0; v < TRACES; v++) {
        outcome o = analyze_one(v, false);
        alone[v] = o;
        assert_int_equal(o.rc, 0);
        assert_true(o.findings > 0);    /* the rules ran and priced something */
        assert_true(o.replay_span_ns > 0);
        assert_true(o.ranges_with_work > 2);    /* ranges with calls and kernels to measure */
    }
    pthread_t th[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.first = i, .two_threads = two_threads && i % 2 == 0};
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].mismatches, 0);
    }
}

static void test_analyses_on_several_threads_are_as_alone(void **state)
{
    (void)state;
    run_workers(false);
}

/* Half the workers' analyses each on two threads, beside the others' on one. */
static void test_analyses_on_two_threads_each_are_as_on_one(void **state)
{
    (void)state;
    for (int v = 0; v < TRACES; v++) {
        outcome one = analyze_one(v, false), two = analyze_one(v, true);
        assert_true(same(&two, &one));
    }
    run_workers(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_analyses_on_several_threads_are_as_alone),
        cmocka_unit_test(test_analyses_on_two_threads_each_are_as_on_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
