/* The replay's pass (replay_run.c): the fast steps of the nodes of the common shape
 * (sc_rp_pass_shapes, sc_rp_walk) against the general step of every node. For every trace of
 * the folders named on the command line (the recorded fixtures, the fuzzer's inputs) and a
 * trace of the benchmark's training-like mix (written by the synthetic-trace program named
 * by --synthetic), the graph is built once and replayed with fix lists of every kind (none,
 * random fixes of each kind, all of them at once), as recorded and plain: each pass with the
 * fast steps, then again with every node marked general (sc_rp_pass_shapes_drop, which also
 * drops the walk's order of the kept ends: the reference is the search), must give the same
 * span, the same end of every piece of work, the same start of every item, the same kept
 * end of every item whose end is read after its step and the same wall of every NVTX range.
 * Fails when a fast step leaves out a constraint its node has, when the shapes' walk marks a
 * node fast whose step needs a rare feature, or when the kept ends' order is off. Each graph's
 * side tables, which keep what its 16-byte ops and 16-byte items leave out, are checked
 * against the trace and the items once it is built (check_tables): every op's recorded start,
 * end and duration as read from its record (sc_rp_rec_start, sc_rp_rec_end, sc_rp_rec_dur),
 * its links (its edges, each from other work and the last marked, and its predecessors), the waits' list (one entry
 * per waiting item, by item), each item's thread (sc_rp_thread_of against a count of the
 * threads' first items), the sampled calls' tool times (the flag and the list agree) and
 * every list searched by index sorted. */
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

/* What a pass leaves that the test compares. */
typedef struct pass_out {
    uint64_t span;
    uint64_t *op_end, *item_start, *kept, *walls;
} pass_out;

static void pass_take(const sc_replay *r, pass_out *p, uint64_t span)
{
    size_t n_ranges = r->ctx->trace->n_ranges;
    p->span = span;
    p->op_end = malloc((r->n_ops + 1) * sizeof *p->op_end);
    p->item_start = malloc((r->n_items + 1) * sizeof *p->item_start);
    p->kept = malloc((r->n_item_ends + 1) * sizeof *p->kept);
    p->walls = malloc((n_ranges + 1) * sizeof *p->walls);
    assert_non_null(p->op_end);
    assert_non_null(p->item_start);
    assert_non_null(p->kept);
    assert_non_null(p->walls);
    memcpy(p->op_end, r->op_end, r->n_ops * sizeof *p->op_end);
    memcpy(p->item_start, r->item_start, r->n_items * sizeof *p->item_start);
    for (size_t k = 0; k < r->n_item_ends; k++)
        p->kept[k] = r->item_ends[k].value;
    for (size_t g = 0; g < n_ranges; g++)
        p->walls[g] = sc_replay_range_wall(r, g);
}

static void pass_free(pass_out *p)
{
    free(p->op_end);
    free(p->item_start);
    free(p->kept);
    free(p->walls);
}

static void pass_same(const sc_replay *r, const pass_out *a, const pass_out *b)
{
    assert_true(a->span == b->span);
    for (size_t i = 0; i < r->n_ops; i++)
        assert_true(a->op_end[i] == b->op_end[i]);
    for (size_t i = 0; i < r->n_items; i++)
        assert_true(a->item_start[i] == b->item_start[i]);
    for (size_t k = 0; k < r->n_item_ends; k++)
        assert_true(a->kept[k] == b->kept[k]);
    for (size_t g = 0; g < r->ctx->trace->n_ranges; g++)
        assert_true(a->walls[g] == b->walls[g]);
}

/* One pass of `list` (n fixes) with the fast steps and one with the general steps alone:
 * the same results. The graph's fast marks are back as they were after. */
static void compare_pass(sc_replay *r, const sc_fix *fixes, size_t n, bool plain)
{
    sc_fix_list list = {.items = (sc_fix *)fixes, .n = n, .cap = n};
    pass_out fast, general;
    r->plain = plain;
    r->unfixed_done = false;    /* each pass runs: none is taken from the one before */
    pass_take(r, &fast, sc_replay_run(r, &list, 1));
    sc_rp_pass_shapes_drop(r);
    r->unfixed_done = false;
    pass_take(r, &general, sc_replay_run(r, &list, 1));
    sc_rp_pass_shapes(r);
    pass_same(r, &fast, &general);
    pass_free(&fast);
    pass_free(&general);
}

/* compare_pass of one of rc_fix_lists' lists on graph arg. */
static void compare_list(const sc_fix *fixes, size_t n, bool plain, void *arg)
{
    compare_pass(arg, fixes, n, plain);
}

/* How many nodes are marked fast. */
static size_t fast_nodes(const sc_replay *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_ops; i++)
        n += (r->op_fix[i] & SC_RP_OP_FAST) != 0;
    for (size_t i = 0; i < r->n_items; i++)
        n += (r->item_fix[i] & SC_RP_ITEM_FAST) != 0;
    return n;
}

/* A list of values by index (replay_wide.h): strictly ascending. */
static void check_sorted(const sc_rp_wides *w)
{
    for (size_t k = 1; k < w->n; k++)
        assert_true(w->v[k - 1].index < w->v[k].index);
}

/* The graph's side tables against the trace and the items (the header's list). */
static void check_tables(const sc_replay *r, const sc_trace *t)
{
    assert_int_equal(r->n_ops, sc_work_count(t));
    for (size_t i = 0; i < r->n_ops; i++) {
        sc_work w = sc_work_at(t, i);
        assert_true(sc_rp_rec_start(r, (int32_t)i) == w.start_ns);
        assert_true(sc_rp_rec_end(r, (int32_t)i) == w.end_ns);
        assert_true(sc_rp_rec_dur(r, (int32_t)i) == w.end_ns - w.start_ns);
        int32_t e = sc_rp_engine_prev(r, &r->ops[i]), q = sc_rp_queue_prev(r, &r->ops[i]);
        assert_true(e == SC_RP_NONE || (e >= 0 && (size_t)e < r->n_ops && e != (int32_t)i));
        assert_true(q == SC_RP_NONE || (q >= 0 && (size_t)q < r->n_ops && q != (int32_t)i));
        uint32_t n_edges;
        const sc_rp_edge *edges = sc_rp_op_edges(r->edges, r->links, &r->ops[i], &n_edges);
        if (r->ops[i].link != SC_RP_NO_LINK)
            assert_true(r->ops[i].link < r->n_links &&
                        (e != SC_RP_NONE || q != SC_RP_NONE || n_edges > 0));
        for (uint32_t k = 0; k < n_edges; k++) {
            assert_true(edges[k].op >= 0 && (size_t)edges[k].op < r->n_ops &&
                        edges[k].op != (int32_t)i);
            assert_true(edges[k].last == (k + 1 == n_edges));
        }
    }
    size_t waiting = 0, k = 0, thread = 0;
    for (size_t i = 0; i < r->n_items; i++) {
        const sc_rp_item *it = &r->items[i];
        if (it->wait != SC_RP_WAIT_NONE) {
            waiting++;
            while (k < r->n_waits && r->waits[k].item < (int32_t)i)
                k++;
            assert_true(k < r->n_waits && r->waits[k].item == (int32_t)i);
            assert_true(sc_rp_wait_of(r, (int32_t)i) == &r->waits[k]);
        }
        if (it->first && i > 0)
            thread++;
        assert_int_equal(sc_rp_thread_of(r, (int32_t)i), thread);
        assert_true(it->tool == (sc_rp_tool(r, (int32_t)i) != 0));
    }
    assert_int_equal(waiting, r->n_waits);
    for (size_t j = 1; j < r->n_waits; j++)
        assert_true(r->waits[j - 1].item < r->waits[j].item);
    assert_int_equal(r->n_items ? thread + 1 : 0, r->n_threads);
    check_sorted(&r->wide_durs);
    check_sorted(&r->wide_tools);
    check_sorted(&r->wide_tracers);
    check_sorted(&r->wide_posts);
}

/* Builds the graph of trace t (the calls fixes may name: every third, at random), checks its
 * tables and compares its passes; *fast and *nodes count its fast and all its nodes. */
static void check_graph(const sc_trace *t, size_t *fast, size_t *nodes)
{
    uint64_t seed;
    size_t n_fix_calls;
    uint64_t *fix_calls = rc_some_calls(t, &seed, &n_fix_calls);
    rc_graph g;
    rc_graph_build(&g, t, fix_calls, n_fix_calls, true);
    free(fix_calls);
    sc_replay *r = g.r;
    check_tables(r, t);
    *fast += fast_nodes(r);
    *nodes += r->n_nodes;
    rc_fix_lists(r, NULL, 0, &seed, compare_list, r);
    rc_graph_free(&g);
}

/* The fast nodes and all nodes of the graphs checked. */
typedef struct counts {
    size_t fast, nodes;
} counts;

/* check_graph of trace t. */
static void check_trace(const sc_trace *t, void *arg)
{
    counts *c = arg;
    check_graph(t, &c->fast, &c->nodes);
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
    print_message("%zu graphs, %zu of %zu nodes fast\n", graphs, c.fast, c.nodes);
    assert_true(graphs >= 40);      /* the fixtures are there: the test did look */
    assert_true(c.fast > 0);        /* some took the fast steps */
    assert_true(c.fast < c.nodes);  /* and some the general one */
}

/* The benchmark's mix (30k records): nearly every node is of the common shape. */
static void test_the_synthetic_mix(void **state)
{
    (void)state;
    if (!synthetic)
        skip();
    counts c = {0};
    assert_true(rc_synthetic(synthetic, 1, 30000, check_path, &c));
    print_message("%zu of %zu nodes fast\n", c.fast, c.nodes);
    assert_true(c.fast * 10 >= c.nodes * 9);
}

/* Marks that read their thread's shift: a range that ends where a launch call starts has
 * its end mark after the call among the thread's items (by start) but before it among the
 * nodes (by end), so its step finds the item before it not done yet and takes its start
 * from the shift the thread's last done item left, a fast launch's. Streamcheck recorded
 * the run (a PROCESS record): a plain pass takes what tracing adds out of each launch call
 * and of its kernel's issue lag, and streamcheck's stacks out of the gaps after four of the
 * calls, so that each launch moves its thread's shift. 40 launches on stream 20, 20 us
 * apart, 5 us each, their kernels 8 .. 12 us after the call's start; ranges of four steps
 * each, from one launch call's start to another's. Every tenth kernel, on stream 21, was
 * recorded inside the call before its own: its step too finds its item not started. Two
 * stream syncs after them take the fast step of waiting items where they can. */
static void test_marks_after_fast_items(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    s.t.has_process = true;
    syn_stream(&s, 0, 20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_stream(&s, 0, 21, SC_STREAM_FLAG_NON_BLOCKING, 0);
    for (uint32_t i = 0; i < 40; i++) {
        uint64_t t = US(20) * i;
        sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, t, t + US(5), i + 1, NULL, NULL, 0);
        syn_call_stream(&s, c, i % 10 == 7 ? 0xA1 : 0xA0);
        if (i % 10 == 7)    /* recorded inside the call before its own (a clock's step) */
            syn_kernel(&s, 0, 21, t - US(16), t - US(12), i + 1);
        else
            syn_kernel(&s, 0, 20, t + US(8), t + US(12), i + 1);
        if (i % 10 == 3)
            syn_overhead(&s, SC_OVERHEAD_STREAMCHECK_STACK, t + US(5), t + US(9), i + 1);
    }
    for (uint32_t g = 0; g < 9; g++)
        syn_range(&s, "step", US(20) * 4 * g + US(20), US(20) * 4 * (g + 1) + US(20), 0, 0);
    /* a stream sync that returned 3.5 s after its kernel ended (its return after the wait is
     * kept beside the items, replay_wide.h), then one recorded to return before its kernel
     * started (a clock's step: its item comes before the kernel among the nodes) */
    uint64_t t = US(1000), t2 = t + 3600000 * US(1);
    uint32_t corr = 100;
    const uint64_t syncs[2][4] = {
        {t, t + US(8), t + US(12), t + US(5) + 3500000 * US(1)},
        {t2, t2 + US(50), t2 + US(60), t2 + US(10)},
    };
    for (int k = 0; k < 2; k++) {
        uint64_t at = syncs[k][0];
        sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, at, at + US(5), ++corr, NULL, NULL, 0);
        syn_call_stream(&s, c, 0xA0);
        syn_kernel(&s, 0, 20, syncs[k][1], syncs[k][2], corr);
        c = syn_call(&s, SC_CALL_STREAM_SYNC, at + US(5), syncs[k][3], ++corr,
                     "cudaStreamSynchronize", NULL, 0);
        syn_call_stream(&s, c, 0xA0);
    }
    sc_api_call *c = syn_call(&s, SC_CALL_LAUNCH, t2 + US(100), t2 + US(105), ++corr, NULL,
                              NULL, 0);
    syn_call_stream(&s, c, 0xA0);
    syn_kernel(&s, 0, 20, t2 + US(108), t2 + US(112), corr);
    syn_finish(&s);
    size_t fast = 0, nodes = 0;
    check_graph(&s.t, &fast, &nodes);
    print_message("%zu of %zu nodes fast\n", fast, nodes);
    assert_true(fast * 2 >= nodes);
    syn_free(&s);
}

int main(int argc, char **argv)
{
    rc_args(argc, argv, &folders, &n_folders, &synthetic);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_trace_of_the_folders),
        cmocka_unit_test(test_the_synthetic_mix),
        cmocka_unit_test(test_marks_after_fast_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
