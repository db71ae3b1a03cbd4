/* deps.h's stream handles: one handle named by many calls is one entry, and every call finds
 * its stream; a handle that names two streams (reused after a destroy) keeps every entry; so
 * many handles that the set of distinct ones gives up; the stream of a call's correlation id
 * found by table and by list alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/deps.h"
#include "analyze/internal.h"
#include "analyze/work_order.h"
#include "synthetic.h"

/* A launch on `handle` at `start` whose kernel ran on stream id `stream`. */
static void launch(syn *s, uint64_t handle, uint32_t stream, uint64_t start, uint32_t corr)
{
    sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, start, start + US(2), corr, NULL, NULL, 0);
    syn_call_stream(s, c, handle);
    syn_kernel(s, 0, stream, start + US(5), start + US(10), corr);
}

static void test_one_entry_per_handle(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < 50; k++) {
        launch(&s, 0xa000, 7, US(20 * k), 2 * k + 1);
        launch(&s, 0xb000, 9, US(20 * k + 10), 2 * k + 2);
    }
    syn_finish(&s);
    sc_deps d;
    assert_int_equal(sc_deps_build(&s.t, &d), 0);
    assert_int_equal(d.n_handles, 2);
    for (size_t i = 0; i < s.t.n_calls; i++) {
        uint32_t stream = 0;
        assert_true(sc_deps_stream_of(&d, &s.t.calls[i], &stream));
        assert_int_equal(stream, sc_call_stream_handle(&s.t, &s.t.calls[i]) == 0xa000 ? 7 : 9);
    }
    sc_deps_free(&d);
    syn_free(&s);
}

static void test_reused_handle_keeps_all(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < 10; k++)      /* the handle names stream 3, then stream 4 */
        launch(&s, 0xc000, k < 5 ? 3 : 4, US(20 * k), k + 1);
    syn_finish(&s);
    sc_deps d;
    assert_int_equal(sc_deps_build(&s.t, &d), 0);
    assert_int_equal(d.n_handles, 10);
    uint32_t stream = 0;
    assert_true(sc_deps_stream_of(&d, &s.t.calls[0], &stream));
    assert_true(stream == 3 || stream == 4);
    sc_deps_free(&d);
    syn_free(&s);
}

/* The streams of the calls' correlation ids, whichever way they are looked up: a table by id
 * (dense ids, one stream each), or the sorted list (an id whose work ran on two streams, or
 * ids too sparse for a table). */
static void check_streams(uint32_t far_id, bool two_streams)
{
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < 20; k++)
        launch(&s, 0xa000 + (k % 2) * 0x1000, 7 + (k % 2) * 2, US(20 * k), k + 1);
    if (two_streams)    /* a second kernel of launch 1 on another stream */
        syn_kernel(&s, 0, 11, US(500), US(510), 1);
    if (far_id)
        launch(&s, 0xc000, 13, US(600), far_id);
    syn_finish(&s);
    sc_deps d;
    assert_int_equal(sc_deps_build(&s.t, &d), 0);
    for (size_t i = 0; i < s.t.n_calls; i++) {
        const sc_api_call *c = &s.t.calls[i];
        uint32_t stream = 0;
        assert_true(sc_deps_stream_of(&d, c, &stream));
        uint64_t handle = sc_call_stream_handle(&s.t, c);
        uint32_t want = handle == 0xa000 ? 7 : handle == 0xb000 ? 9 : 13;
        if (!(two_streams && c->rec.correlation_id == 1))
            assert_int_equal(stream, want);
    }
    sc_deps_free(&d);
    syn_free(&s);
}

/* A stream per step, each on a handle of its own: more distinct handles than the set of
 * distinct entries keeps (deps.c), so the list is made from every call's entry; every call
 * still finds its stream. */
static void test_many_handles(void **state)
{
    (void)state;
    enum { N = 3000 };
    syn s;
    syn_init(&s);
    for (uint32_t k = 0; k < N; k++)   /* handles in descending order: each one inserted first */
        launch(&s, 0x100000 - 0x10 * (uint64_t)k, 100 + k, US(20 * k), k + 1);
    syn_finish(&s);
    sc_deps d;
    assert_int_equal(sc_deps_build(&s.t, &d), 0);
    assert_int_equal(d.n_handles, N);
    for (size_t i = 0; i < s.t.n_calls; i++) {
        uint32_t stream = 0;
        assert_true(sc_deps_stream_of(&d, &s.t.calls[i], &stream));
        assert_int_equal(stream,
                         100 + (0x100000 - sc_call_stream_handle(&s.t, &s.t.calls[i])) / 0x10);
    }
    sc_deps_free(&d);
    syn_free(&s);
}

static void test_streams_by_table(void **state)
{
    (void)state;
    check_streams(0, false);
}

static void test_streams_by_list(void **state)
{
    (void)state;
    check_streams(0, true);         /* id 1 names two streams */
    check_streams(9000000, false);  /* ids too sparse */
}

/* ---- the analysis context's deps (sc_deps_build_ordered) against sc_deps_build ---------- */

static uint64_t rnd(uint64_t *st, uint64_t n)
{
    return syn_rand(st) % n;
}

typedef struct prog {
    bool mixed;         /* a call's work now and then on two streams */
    bool sparse;        /* correlation ids too far apart for a table */
    bool many_events;   /* an event per record, now and then */
    bool reuse;         /* a handle that names another stream halfway */
    bool unsorted;      /* the calls out of start order (no loader sorted them) */
    bool event_each;    /* every record of an event of its own */
    uint16_t swap;      /* a class of call (records or waits) of which two swap places, the
                           rest in start order */
} prog;

/* Handle h's stream at call k of n: six handles on streams 7 to 12, the legacy handle 0 on
 * stream 1 (per-thread: stream 2), handle 0xa000 on stream 30 from halfway when reused. */
static uint32_t stream_of(const prog *p, uint64_t h, bool per_thread, size_t k, size_t n)
{
    if (h == 0)
        return per_thread ? 2 : 1;
    if (p->reuse && h == 0xa000 && 2 * k > n)
        return 30;
    return 7 + (uint32_t)((h - 0xa000) / 0x1000);
}

/* A random program: launches of kernels, copies and memsets (some with a driver call of the
 * same id, some with work of the call before, some with work of no call), event records and
 * waits on random streams, stream syncs and stream creations; times on a coarse grid that
 * ties. */
static void build_prog(syn *s, uint64_t seed, size_t n, const prog *p)
{
    uint64_t st = seed;
    syn_init(s);
    syn_device(s, 0, 132);
    uint32_t id = 1, last_launch = 0, last_stream = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t h = rnd(&st, 7) == 0 ? 0 : 0xa000 + 0x1000 * rnd(&st, 6);
        bool pt = h == 0 && rnd(&st, 2);
        uint32_t stream = stream_of(p, h, pt, k, n);
        uint64_t at = US(2 * rnd(&st, 4 * n));
        uint32_t cid = p->sparse ? id * 100000 : id;
        id++;
        uint64_t r = rnd(&st, 20);
        uint16_t cls = r < 9 ? SC_CALL_LAUNCH : r < 13 ? SC_CALL_EVENT_RECORD
                     : r < 17 ? SC_CALL_EVENT_WAIT : r < 19 ? SC_CALL_STREAM_SYNC
                     : SC_CALL_STREAM_CREATE;
        sc_api_call *c = syn_call(s, cls, at, at + US(1), cid, NULL, NULL, 0);
        syn_call_add_flags(s, c, pt ? SC_API_PER_THREAD : 0);
        syn_call_tid(s, c, 1);
        if (cls == SC_CALL_STREAM_CREATE) {
            syn_call_aux(s, c, 0xf0000 + k);           /* a new handle, its stream in a record */
            syn_stream(s, 0, 40 + (uint32_t)k, 0, cid);
            continue;
        }
        syn_call_stream(s, c, h);
        if (cls == SC_CALL_EVENT_RECORD || cls == SC_CALL_EVENT_WAIT)
            syn_call_aux(s, c,
                         p->event_each ? 0x990000 + (cls == SC_CALL_EVENT_RECORD
                                                         ? k
                                                         : k - rnd(&st, k / 4 + 1))
                         : p->many_events && rnd(&st, 3) == 0 ? 0x990000 + rnd(&st, k + 1)
                                                              : 0x7700 + rnd(&st, 4));
        if (cls != SC_CALL_LAUNCH)
            continue;
        if (rnd(&st, 5) == 0) {                 /* the driver call inside it */
            sc_api_call *dc = syn_call(s, SC_CALL_LAUNCH, at, at + US(1), cid,
                                       "cuLaunchKernel", NULL, 0);
            syn_call_add_flags(s, dc, SC_API_DRIVER | (pt ? SC_API_PER_THREAD : 0));
            syn_call_stream(s, dc, h);
            syn_call_tid(s, dc, 1);
        }
        uint64_t ws = at + US(2 * rnd(&st, 5)), we = ws + US(rnd(&st, 6));
        uint64_t kind = rnd(&st, 4);
        if (kind < 2)
            syn_kernel(s, 0, stream, ws, we, cid);
        else if (kind == 2)
            syn_copy(s, 0, stream, ws, we, 4096, cid, 0, SC_MEM_DEVICE, SC_MEM_PINNED);
        else
            syn_memset(s, 0, stream, ws, we, cid);
        uint64_t more = rnd(&st, 8);
        if (more == 0 && last_launch)           /* work of the launch before (a graph's) */
            syn_kernel(s, 0, p->mixed && rnd(&st, 2) ? stream + 1 : last_stream, we,
                       we + US(1), last_launch);
        else if (more == 1)                     /* work of no call */
            syn_kernel(s, 0, stream, we, we + US(2), rnd(&st, 2) ? 0 : 50000000 + (uint32_t)k);
        last_launch = cid;
        last_stream = stream;
    }
    syn_finish(s);
    if (p->swap) {      /* the first and the last of the class, if their starts differ */
        size_t a = SIZE_MAX, b = SIZE_MAX;
        for (size_t i = 0; i < s->t.n_calls; i++)
            if (sc_call_class_id(&s->t, &s->t.calls[i]) == p->swap) {
                a = a == SIZE_MAX ? i : a;
                b = i;
            }
        assert_true(a != b && s->t.calls[a].rec.start_ns < s->t.calls[b].rec.start_ns);
        sc_api_call tmp = s->t.calls[a];
        s->t.calls[a] = s->t.calls[b];
        s->t.calls[b] = tmp;
    }
    if (p->unsorted)    /* the calls reversed: no longer in start order */
        for (size_t i = 0, j = s->t.n_calls; j-- > i + 1; i++) {
            sc_api_call tmp = s->t.calls[i];
            s->t.calls[i] = s->t.calls[j];
            s->t.calls[j] = tmp;
        }
}

/* The last cudaEventRecord of `event` that started before `before`, by its definition: the
 * latest start, and of records of one start the last in call order (the stable sort's). */
static const sc_api_call *last_record(const sc_trace *t, uint64_t event, uint64_t before)
{
    const sc_api_call *best = NULL;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        if (sc_call_class_id(t, c) == SC_CALL_EVENT_RECORD && sc_call_aux(t, c) == event &&
            c->rec.start_ns < before && (!best || c->rec.start_ns >= best->rec.start_ns))
            best = c;
    }
    return best;
}

static int edge_cmp(const sc_dep_edge *a, const sc_dep_edge *b)
{
    if (a->context_id != b->context_id)
        return a->context_id < b->context_id ? -1 : 1;
    if (a->to_stream != b->to_stream)
        return a->to_stream < b->to_stream ? -1 : 1;
    return a->wait_ns < b->wait_ns ? -1 : a->wait_ns > b->wait_ns;
}

/* The edges by their definition: each wait in call order with its last record, both streams
 * named (as d names them), then ordered stably by (context, stream waiting, wait). */
static size_t ref_edges(const sc_trace *t, const sc_deps *d, sc_dep_edge *e)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *w = &t->calls[i];
        if (sc_call_class_id(t, w) != SC_CALL_EVENT_WAIT)
            continue;
        const sc_api_call *r = last_record(t, sc_call_aux(t, w), w->rec.start_ns);
        uint32_t from, to;
        if (!r || !sc_deps_stream_of(d, r, &from) || !sc_deps_stream_of(d, w, &to))
            continue;
        sc_dep_edge x = {.context_id = sc_call_context(t, w), .from_context = sc_call_context(t, r),
                         .from_stream = from, .to_stream = to, .record_ns = r->rec.start_ns,
                         .wait_ns = w->rec.start_ns, .wait_call = (uint32_t)i};
        size_t at = n++;
        for (; at > 0 && edge_cmp(&e[at - 1], &x) > 0; at--)
            e[at] = e[at - 1];
        e[at] = x;
    }
    return n;
}

/* The stream of the handle a call names, by its definition: the calls that name the same
 * handle (context, handle, and for handle 0 the per-thread flag) name the streams their
 * correlation ids' work ran on, or a stream they created. Returns how many streams: 0, 1 (in
 * *stream), or 2 for more (a reused handle, whichever a lookup gives). */
static int ref_stream(const sc_trace *t, const sc_api_call *c, const uint32_t *work_stream,
                      uint32_t *stream)
{
    uint64_t handle = sc_call_stream_handle(t, c);
    if (handle == SC_STREAM_NONE)
        return 0;
    bool pt = handle == 0 && (sc_call_flags(t, c) & SC_API_PER_THREAD);
    int n = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *d = &t->calls[i];
        uint32_t sid = work_stream[i];
        uint64_t d_handle = sc_call_stream_handle(t, d);
        if (sc_call_class_id(t, d) == SC_CALL_STREAM_CREATE || sid == UINT32_MAX ||
            d_handle != handle || sc_call_context(t, d) != sc_call_context(t, c) ||
            (d_handle == 0 && (sc_call_flags(t, d) & SC_API_PER_THREAD) != 0) != pt)
            continue;
        if (sid == UINT32_MAX - 1 || (n == 1 && sid != *stream))
            return 2;
        *stream = sid;
        n = 1;
    }
    return n;
}

/* Per call, the stream of its correlation id's work: UINT32_MAX none, UINT32_MAX - 1 several. */
static uint32_t *work_streams(const sc_trace *t)
{
    uint32_t *ws = malloc((t->n_calls ? t->n_calls : 1) * sizeof *ws);
    assert_non_null(ws);
    for (size_t i = 0; i < t->n_calls; i++) {
        uint32_t corr = t->calls[i].rec.correlation_id, sid = UINT32_MAX;
        for (size_t w = 0; corr && w < t->n_kernels + t->n_copies + t->n_memsets; w++) {
            uint32_t wc, st;
            if (w < t->n_kernels)
                wc = t->kernels[w].rec.correlation_id, st = sc_kernel_stream(t, &t->kernels[w]);
            else if (w - t->n_kernels < t->n_copies)
                wc = t->copies[w - t->n_kernels].correlation_id,
                st = sc_copy_stream(t, &t->copies[w - t->n_kernels]);
            else
                wc = t->memsets[w - t->n_kernels - t->n_copies].correlation_id,
                st = sc_memset_stream(t, &t->memsets[w - t->n_kernels - t->n_copies]);
            if (wc == corr)
                sid = sid == UINT32_MAX || sid == st ? st : UINT32_MAX - 1;
        }
        ws[i] = sid;
    }
    return ws;
}

/* Every answer of the two: each call's stream, each call's event's last record before its
 * start and just after (against its definition too), every edge (against theirs). */
static void check_same_deps(const sc_trace *t, const sc_deps *want, const sc_deps *got)
{
    assert_int_equal(got->n_handles, want->n_handles);
    assert_int_equal(got->n_records, want->n_records);
    assert_int_equal(got->n_edges, want->n_edges);
    if (want->n_edges)
        assert_memory_equal(got->edges, want->edges, want->n_edges * sizeof *want->edges);
    uint32_t *ws = t->n_calls <= 1000 ? work_streams(t) : NULL;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        uint32_t a = 0, b = 0, r = 0;
        bool ha = sc_deps_stream_of(want, c, &a), hb = sc_deps_stream_of(got, c, &b);
        assert_int_equal(ha, hb);
        assert_int_equal(a, b);
        int n_ref = ws ? ref_stream(t, c, ws, &r) : 2;
        if (n_ref < 2) {
            assert_int_equal(ha, n_ref == 1);
            if (ha)
                assert_int_equal(a, r);
        }
        for (uint64_t d = 0; d < 2; d++) {
            uint64_t event = sc_call_aux(t, c);
            const sc_api_call *r = last_record(t, event, c->rec.start_ns + d);
            assert_ptr_equal(sc_deps_last_record(got, event, c->rec.start_ns + d), r);
            assert_ptr_equal(sc_deps_last_record(want, event, c->rec.start_ns + d), r);
        }
    }
    free(ws);
    sc_dep_edge *e = malloc((t->n_calls ? t->n_calls : 1) * sizeof *e);
    assert_non_null(e);
    assert_int_equal(ref_edges(t, want, e), want->n_edges);
    if (want->n_edges)
        assert_memory_equal(e, want->edges, want->n_edges * sizeof *e);
    free(e);
}

static size_t n_scanned;     /* how many of the deps checked looked their handles up by a scan */

/* Returns whether the context's deps took the shared order's chains. */
static bool check_prog(uint64_t seed, size_t n, const prog *p)
{
    syn s;
    build_prog(&s, seed, n, p);
    sc_analysis a = {0};
    a.trace = &s.t;
    sc_ctx ctx = {.trace = &s.t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    bool chains = ctx.order->calls_one_stream;
    sc_deps want;
    assert_int_equal(sc_deps_build(&s.t, &want), 0);
    assert_true(want.n_edges > 0);
    check_same_deps(&s.t, &want, &ctx.deps);
    n_scanned += want.handles_scan;
    sc_deps_free(&want);
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
    syn_free(&s);
    return chains;
}

static void test_ordered_same_as_own_index(void **state)
{
    (void)state;
    size_t chains = 0, fallback = 0;
    for (uint64_t seed = 1; seed <= 64; seed++) {
        prog p = {.mixed = seed % 4 == 0, .sparse = seed % 3 == 0,
                  .many_events = seed % 5 == 0, .reuse = seed % 7 == 0,
                  .unsorted = seed % 6 == 0};
        bool took = check_prog(seed * 0x9E3779B97F4A7C15ull, 100 + 25 * (seed % 9), &p);
        chains += took;
        fallback += !took;
        if (!p.mixed)
            assert_true(took);
    }
    assert_true(chains > 30 && fallback > 5);
    assert_true(n_scanned > 5 && n_scanned < 60);
}

/* More events than the deps group their records by (1024): an event per record, the records
 * sorted and searched instead; and a few events over many records and waits. */
static void test_records_many_events(void **state)
{
    (void)state;
    prog each = {.event_each = true}, few = {0};
    check_prog(0xD1B54A32D192ED03ull, 6000, &each);
    check_prog(0x9E3779B97F4A7C15ull, 6000, &few);
}

/* The calls in start order but for two records, or two waits, that swapped places: the
 * records are sorted and the waits' records searched. */
static void test_records_out_of_order(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        prog p = {.swap = seed % 2 ? SC_CALL_EVENT_RECORD : SC_CALL_EVENT_WAIT};
        check_prog(seed * 0xD1B54A32D192ED03ull, 300, &p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_entry_per_handle),
        cmocka_unit_test(test_reused_handle_keeps_all),
        cmocka_unit_test(test_many_handles),
        cmocka_unit_test(test_streams_by_table),
        cmocka_unit_test(test_streams_by_list),
        cmocka_unit_test(test_ordered_same_as_own_index),
        cmocka_unit_test(test_records_many_events),
        cmocka_unit_test(test_records_out_of_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
