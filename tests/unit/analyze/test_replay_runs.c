/* The replay's runs of calls (replay_runs.c): a graph whose calls one after another are taken
 * as one item against the graph of the same trace where every call is its own item
 * (sc_replay_build_as). For every trace of the folders named on the command line (the
 * recorded fixtures, the fuzzer's inputs) and two traces of the benchmark's training-like mix
 * (written by the synthetic-trace program named by --synthetic: one thread, and sixteen), both
 * graphs are built with the same calls named by fixes (none; every third, at random) and
 * replayed with the same fix lists of every kind (none, random fixes of each kind, many of
 * every kind at once), as recorded and plain: each pair of passes must give the same span,
 * the same end of every piece of work and the same wall of every NVTX range, and the two
 * graphs the same summary. Fails when a run takes in a call whose step differs from the
 * run's arithmetic (a wait, a load, a fix, a gap clipped to none, a join), when a call's
 * start in its run is off (the time from the run's start, the tracing before it in a plain
 * pass), or when a list that names items is left unrenumbered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/replay_parts.h"
#include "analyze/work.h"
#include "replay_cases.h"
#include "synthetic.h"
#include "streamcheck/analysis.h"
#include "streamcheck/trace.h"

static char **folders;
static int n_folders;
static const char *synthetic;   /* the synthetic-trace program, or NULL */

/* One pass of the fixes on both graphs: the same span, work ends and range walls. */
static void compare_pass(sc_replay *runs, sc_replay *whole, const sc_fix *fixes, size_t n,
                         bool plain)
{
    sc_fix_list list = {.items = (sc_fix *)fixes, .n = n, .cap = n};
    runs->plain = whole->plain = plain;
    runs->unfixed_done = whole->unfixed_done = false;
    uint64_t a = sc_replay_run(runs, &list, 1), b = sc_replay_run(whole, &list, 1);
    assert_true(a == b);
    for (size_t i = 0; i < runs->n_ops; i++)
        assert_true(runs->op_end[i] == whole->op_end[i]);
    for (size_t g = 0; g < runs->ctx->trace->n_ranges; g++)
        assert_true(sc_replay_range_wall(runs, g) == sc_replay_range_wall(whole, g));
}

/* compare_pass of one of rc_fix_lists' lists on the two graphs of arg. */
static void compare_list(const sc_fix *fixes, size_t n, bool plain, void *arg)
{
    sc_replay **both = arg;
    compare_pass(both[0], both[1], fixes, n, plain);
}

static void same_summary(const sc_replay *a, const sc_replay *b)
{
    sc_replay_summary x, y;
    sc_replay_describe(a, &x);
    sc_replay_describe(b, &y);
    assert_true(x.done == y.done && x.trusted == y.trusted);
    assert_true(x.recorded_span_ns == y.recorded_span_ns);
    assert_true(x.replay_span_ns == y.replay_span_ns);
    assert_true(x.plain_span_ns == y.plain_span_ns);
    assert_true(x.tool_ns == y.tool_ns && x.tracer_ns == y.tracer_ns);
    assert_true(x.ops == y.ops && x.calls == y.calls);
}

/* Both graphs of trace t, the calls fixes may name `calls` (n of them); adds to *items and
 * *whole_items the items of each. */
static void check_graphs(const sc_trace *t, uint64_t *calls, size_t n_calls, uint64_t *seed,
                         size_t *items, size_t *whole_items)
{
    rc_graph runs, whole;
    rc_graph_build(&runs, t, calls, n_calls, true);
    rc_graph_build(&whole, t, calls, n_calls, false);
    assert_true(runs.r->n_items <= whole.r->n_items);
    assert_int_equal(runs.r->n_call_items, whole.r->n_items);
    *items += runs.r->n_items;
    *whole_items += whole.r->n_items;
    same_summary(runs.r, whole.r);
    sc_replay *both[2] = {runs.r, whole.r};
    rc_fix_lists(runs.r, calls, n_calls, seed, compare_list, both);
    rc_graph_free(&runs);
    rc_graph_free(&whole);
}

/* The items of the graphs with runs and without, over the traces checked. */
typedef struct counts {
    size_t items, whole_items;
} counts;

/* check_graphs of trace t, with no call named by a fix and with every third. */
static void check_trace(const sc_trace *t, void *arg)
{
    counts *c = arg;
    uint64_t seed;
    size_t n;
    uint64_t *calls = rc_some_calls(t, &seed, &n);
    size_t ignored = 0;
    check_graphs(t, calls, 0, &seed, &c->items, &c->whole_items);
    check_graphs(t, calls, n, &seed, &ignored, &ignored);
    free(calls);
}

/* check_trace of the trace at `path`; whether it loaded. */
static bool check_path(const char *path, void *arg)
{
    return rc_load(path, check_trace, arg);
}

static void test_every_trace_of_the_folders(void **state)
{
    (void)state;
    counts c = {0};
    size_t graphs = rc_each_trace(folders, n_folders, check_path, &c);
    print_message("%zu graphs, %zu items as runs of %zu\n", graphs, c.items, c.whole_items);
    assert_true(graphs >= 40);              /* the fixtures are there: the test did look */
    assert_true(c.items < c.whole_items);   /* and some calls were taken as runs */
}

/* The benchmark's mix (30k records), on one thread and on sixteen: most calls are runs. */
static void synthetic_mix(unsigned threads)
{
    if (!synthetic)
        skip();
    counts c = {0};
    assert_true(rc_synthetic(synthetic, threads, 30000, check_path, &c));
    print_message("%u threads: %zu items as runs of %zu\n", threads, c.items, c.whole_items);
    assert_true(c.items * 2 <= c.whole_items);
}

static void test_the_synthetic_mix(void **state)
{
    (void)state;
    synthetic_mix(1);
}

static void test_the_synthetic_mix_on_threads(void **state)
{
    (void)state;
    synthetic_mix(16);
}

/* Work whose issue is not its call's start: 40 launches on stream 20, 20 us apart, 5 us each,
 * their kernels 8 .. 12 us after the call's start, where every tenth kernel was recorded
 * inside the call before its own (its issue is then its own start: a clock's step), and
 * every tenth call after the fourth has a launch nested in it (a call inside the one before
 * is that item's: its kernel was issued after the item started). Neither call's item may be
 * a run's later call, whose work is placed from the run's start plus the time to the call,
 * nor the calls whose ends lie after the early kernel's start, nor a call a range mark
 * follows inside its time (the mark's step would find the run not done where the call
 * alone was), nor a call that starts as the one before ends (a step of its work may share
 * that time); the calls around them are runs. Recorded by streamcheck (a PROCESS record): the plain
 * passes take out what tracing added to each call. Ranges of four steps end at launches. */
static void test_work_issued_apart_from_its_call(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    s.t.has_process = true;
    syn_stream(&s, 0, 20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_stream(&s, 0, 21, SC_STREAM_FLAG_NON_BLOCKING, 0);
    uint32_t corr = 0;
    for (uint32_t i = 0; i < 40; i++) {
        uint64_t t = US(20) * i;
        sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, t, t + US(5), ++corr, NULL, NULL, 0);
        syn_call_stream(&s, c, i % 10 == 7 ? 0xA1 : 0xA0);
        if (i % 10 == 7)
            syn_kernel(&s, 0, 21, t - US(16), t - US(12), corr);
        else
            syn_kernel(&s, 0, 20, t + US(8), t + US(12), corr);
        if (i % 10 == 4) {     /* nested: from 1 to 3 us into the call */
            c = syn_call(&s, SC_CALL_LAUNCH, t + US(1), t + US(3), ++corr, NULL, NULL, 0);
            syn_call_stream(&s, c, 0xA1);
            syn_kernel(&s, 0, 21, t + US(9), t + US(11), corr);
        }
    }
    for (uint32_t g = 0; g < 9; g++)
        syn_range(&s, "step", US(20) * 4 * g + US(20), US(20) * 4 * (g + 1) + US(20), 0, 0);
    /* back to back: each call starts as the one before ends, its kernel as it starts (the
     * kernel's step and the call before's end share a time) */
    for (uint32_t i = 0; i < 6; i++) {
        uint64_t t = US(820) + US(5) * i;
        sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, t, t + US(5), ++corr, NULL, NULL, 0);
        syn_call_stream(&s, c, i % 2 ? 0xA1 : 0xA0);
        syn_kernel(&s, 0, i % 2 ? 21 : 20, t, t + US(3), corr);
    }
    sc_api_call *c = syn_call(&s, SC_CALL_STREAM_SYNC, US(900), US(1000), ++corr,
                              "cudaStreamSynchronize", NULL, 0);
    syn_call_stream(&s, c, 0xA0);
    syn_finish(&s);
    size_t items = 0, whole_items = 0;
    uint64_t seed = 42;
    check_graphs(&s.t, NULL, 0, &seed, &items, &whole_items);
    print_message("%zu items as runs of %zu\n", items, whole_items);
    assert_true(items < whole_items);   /* some calls were runs beside them */
    syn_free(&s);
}

int main(int argc, char **argv)
{
    rc_args(argc, argv, &folders, &n_folders, &synthetic);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_trace_of_the_folders),
        cmocka_unit_test(test_the_synthetic_mix),
        cmocka_unit_test(test_the_synthetic_mix_on_threads),
        cmocka_unit_test(test_work_issued_apart_from_its_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
