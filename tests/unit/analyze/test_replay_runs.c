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
#include <dirent.h>
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
#include "synthetic.h"
#include "streamcheck/analysis.h"
#include "streamcheck/trace.h"

static char **folders;
static int n_folders;
static const char *synthetic;   /* the synthetic-trace program, or NULL */

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* n random fixes of `kind` (0: of every kind), their indices in the ranges each kind names
 * (and some past them, which a pass ignores); the fixes that name calls name one of `calls`
 * (the calls the graphs keep apart) or, one in eight, any call. */
static size_t random_fixes(const sc_replay *r, uint32_t kind, const uint64_t *calls,
                           size_t n_calls, sc_fix *out, size_t n, uint64_t *seed)
{
    static const uint32_t kinds[] = {
        SC_FIX_BARRIER, SC_FIX_UNWAIT, SC_FIX_PINNED, SC_FIX_UNHOLD, SC_FIX_ROOM,
        SC_FIX_NO_LOAD, SC_FIX_REMOVE, SC_FIX_ARRIVAL, SC_FIX_QUEUES, SC_FIX_UNEVENT,
        SC_FIX_PREFETCH, SC_FIX_DURATION,
    };
    const sc_trace *t = r->ctx->trace;
    for (size_t k = 0; k < n; k++) {
        uint32_t kd = kind ? kind : kinds[rnd(seed) % (sizeof kinds / sizeof *kinds)];
        size_t span = 1, index;
        switch (kd) {
        case SC_FIX_BARRIER: span = r->n_slots; break;
        case SC_FIX_UNWAIT: case SC_FIX_NO_LOAD: case SC_FIX_REMOVE: case SC_FIX_UNEVENT:
            span = t->n_calls; break;
        case SC_FIX_PINNED: span = t->n_copies; break;
        case SC_FIX_UNHOLD: span = r->n_ops; break;
        default: span = t->n_kernels; break;
        }
        index = (size_t)(rnd(seed) % (span + 2));
        bool names_call = kd == SC_FIX_UNWAIT || kd == SC_FIX_NO_LOAD || kd == SC_FIX_REMOVE;
        if (names_call && n_calls > 0 && rnd(seed) % 8 != 0)
            index = (size_t)calls[rnd(seed) % n_calls];
        if (kd == SC_FIX_UNHOLD && rnd(seed) % 16 == 0)
            index = SC_FIX_ALL;
        out[k] = (sc_fix){.kind = kd, .index = index,
                          .ns = kd == SC_FIX_DURATION ? rnd(seed) % 100000 : 0};
    }
    return n;
}

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
    sc_analysis a;
    memset(&a, 0, sizeof a);
    a.trace = t;
    sc_ctx ctx = {.trace = t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    sc_ctx_free_rule_indexes(&ctx);
    /* the build sorts the list and frees what the context gives it: a copy each, and a
     * context each (the runs' build frees the blocking index the other would read) */
    uint64_t *c1 = malloc((n_calls + 1) * sizeof *c1), *c2 = malloc((n_calls + 1) * sizeof *c2);
    assert_non_null(c1);
    assert_non_null(c2);
    if (n_calls) {
        memcpy(c1, calls, n_calls * sizeof *c1);
        memcpy(c2, calls, n_calls * sizeof *c2);
    }
    sc_replay *runs = NULL, *whole = NULL;
    assert_int_equal(sc_replay_build_as(&ctx, c1, n_calls, true, &runs), 0);
    sc_analysis a2;
    memset(&a2, 0, sizeof a2);
    a2.trace = t;
    sc_ctx ctx2 = {.trace = t, .analysis = &a2};
    assert_int_equal(sc_ctx_build(&ctx2, &a2), 0);
    sc_ctx_free_rule_indexes(&ctx2);
    assert_int_equal(sc_replay_build_as(&ctx2, c2, n_calls, false, &whole), 0);
    free(c1);
    free(c2);
    assert_true(runs->n_items <= whole->n_items);
    assert_int_equal(runs->n_call_items, whole->n_items);
    *items += runs->n_items;
    *whole_items += whole->n_items;
    same_summary(runs, whole);
    enum { N = 64 };
    sc_fix fixes[N];
    for (int plain = 0; plain < 2; plain++) {
        compare_pass(runs, whole, NULL, 0, plain);
        for (uint32_t kind = 0; kind <= SC_FIX_DURATION; kind++)
            compare_pass(runs, whole, fixes,
                         random_fixes(runs, kind, calls, n_calls, fixes, N, seed), plain);
    }
    sc_fix *many = malloc(4096 * sizeof *many);
    assert_non_null(many);
    size_t n_many = random_fixes(runs, 0, calls, n_calls, many, 4096, seed);
    for (size_t k = 0; k < n_many; k++)
        if (many[k].index == SC_FIX_ALL)
            many[k].index = 0;
    compare_pass(runs, whole, many, n_many, true);
    free(many);
    sc_replay_free(runs);
    sc_replay_free(whole);
    sc_ctx_free(&ctx);
    sc_ctx_free(&ctx2);
    sc_analysis_free(&a);
    sc_analysis_free(&a2);
}

/* check_graphs of the trace at `path`, with no call named by a fix and with every third;
 * whether it loaded. */
static bool check_trace(const char *path, size_t *items, size_t *whole_items)
{
    sc_trace t;
    char err[512];
    if (sc_trace_load(path, &t, err, sizeof err) != 0)
        return false;
    uint64_t seed = 0x9E3779B97F4A7C15ull ^ t.n_calls;
    uint64_t *calls = malloc((t.n_calls + 1) * sizeof *calls);
    assert_non_null(calls);
    size_t n = 0;
    for (size_t c = 0; c < t.n_calls; c++)
        if (rnd(&seed) % 3 == 0)
            calls[n++] = c;
    size_t ignored = 0;
    check_graphs(&t, calls, 0, &seed, items, whole_items);
    check_graphs(&t, calls, n, &seed, &ignored, &ignored);
    free(calls);
    sc_trace_free(&t);
    return true;
}

static int is_trace(const char *name)
{
    size_t n = strlen(name);
    return n > 8 && strcmp(name + n - 8, ".sctrace") == 0;
}

static void test_every_trace_of_the_folders(void **state)
{
    (void)state;
    size_t graphs = 0, items = 0, whole_items = 0;
    for (int f = 0; f < n_folders; f++) {
        DIR *dir = opendir(folders[f]);
        assert_non_null(dir);
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            if (!is_trace(e->d_name))
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", folders[f], e->d_name);
            graphs += check_trace(path, &items, &whole_items);
        }
        closedir(dir);
    }
    print_message("%zu graphs, %zu items as runs of %zu\n", graphs, items, whole_items);
    assert_true(graphs >= 40);          /* the fixtures are there: the test did look */
    assert_true(items < whole_items);   /* and some calls were taken as runs */
}

/* The benchmark's mix (30k records), on one thread and on sixteen: most calls are runs. */
static void synthetic_mix(const char *threads)
{
    if (!synthetic)
        skip();
    char dir[] = "/tmp/sc-replay-runs-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[8192], path[4096];
    snprintf(cmd, sizeof cmd, "'%s' --threads %s '%s' 30000 >/dev/null", synthetic, threads,
             dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/synthetic-4242.sctrace", dir);
    size_t items = 0, whole_items = 0;
    bool built = check_trace(path, &items, &whole_items);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_true(built);
    print_message("%s threads: %zu items as runs of %zu\n", threads, items, whole_items);
    assert_true(items * 2 <= whole_items);
}

static void test_the_synthetic_mix(void **state)
{
    (void)state;
    synthetic_mix("1");
}

static void test_the_synthetic_mix_on_threads(void **state)
{
    (void)state;
    synthetic_mix("16");
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
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--synthetic") == 0 && k + 1 < argc) {
            synthetic = argv[++k];
            continue;
        }
        argv[1 + n_folders++] = argv[k];
    }
    folders = argv + 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_trace_of_the_folders),
        cmocka_unit_test(test_the_synthetic_mix),
        cmocka_unit_test(test_the_synthetic_mix_on_threads),
        cmocka_unit_test(test_work_issued_apart_from_its_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
