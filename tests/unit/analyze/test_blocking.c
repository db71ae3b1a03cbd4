/* The calls that may hold the host (sc_blocking_index.holding) against the filter of every
 * call; the polling loops read from them (polls.h) against the walk of every call as it was
 * (old_polls, kept below), on random traces of queries, other calls and inner driver calls on
 * a few threads.
 *
 * The own times of the calls that may hold the host against their definition.
 *
 * The blocking measure's walk (blocking.h: sc_blocking_measure_next, each scope's place in the
 * index's orders kept from one call to the next) and its stateless form, both against the
 * measure as it was before the walk (kept below as old_measure: a binary search of the whole
 * order per call, the distinct drained streams in a list), every field, on random built
 * traces: one device and several (each its own context, and calls on a context no work
 * names), calls in start order, overlapping and out of it (the walk searching back), calls
 * with their own copies, stream ids below 64 and far above, and traces that drain more
 * streams than the measure notes (SC_BLOCKING_DISTINCT: a stream past those is counted each
 * time it is met). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/blocking.h"
#include "analyze/internal.h"
#include "analyze/overlap.h"
#include "analyze/polls.h"
#include "analyze/work.h"
#include "analyze/work_order.h"
#include "synthetic.h"

/* ---- the measure as it was (3940716), over the index's public fields ------------------- */

#define OLD_DISTINCT 256

static sc_blocking_work old_entry(const sc_ctx *ctx, uint32_t position)
{
    sc_work w = sc_work_at(ctx->trace, position);
    const sc_api_call *call = sc_ctx_call(ctx, w.correlation_id);
    uint64_t issue = call && call->rec.start_ns < w.start_ns ? call->rec.start_ns : w.start_ns;
    return (sc_blocking_work){issue, w.start_ns, w.end_ns, w.stream_id, w.correlation_id,
                              call ? sc_call_tid(ctx->trace, call) : 0, position};
}

static const sc_blocking_scope *old_scope_of(const sc_blocking_index *ix, uint32_t context_id)
{
    for (size_t i = 0; i < ix->n_contexts; i++) {
        if (ix->contexts[i].context_id != context_id)
            continue;
        for (size_t d = 0; d < ix->ctx->analysis->n_devices; d++)
            if (ix->ctx->analysis->devices[d].device == ix->contexts[i].device)
                return &ix->devices[d];
    }
    return ix->ctx->analysis->n_devices != 1 ? &ix->all : &ix->devices[0];
}

static size_t old_first_end_after(const sc_ctx *ctx, const sc_blocking_scope *s, uint64_t t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_work_end_at(ctx->trace, s->by_end[mid]) <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t old_first_start_from(const sc_ctx *ctx, const sc_blocking_scope *s, uint64_t t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_work_start_at(ctx->trace, s->by_start[mid]) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool old_own_work(const sc_blocking_index *ix, const sc_blocking_scope *s,
                         uint32_t correlation_id, sc_blocking_work *own)
{
    const sc_api_call *call = correlation_id ? sc_ctx_call(ix->ctx, correlation_id) : NULL;
    if (!call)
        return false;
    const sc_trace *t = ix->ctx->trace;
    bool found = false;
    sc_work best = {0};
    uint32_t best_at = 0;
    for (uint32_t p = ix->order->call_first[call - t->calls]; p != SC_WORK_END;
         p = ix->order->call_next[p]) {
        sc_work w = sc_work_at(t, p);
        if (!s->all && w.device != s->device)
            continue;
        if (found && w.start_ns != best.start_ns)
            break;
        if (!found || w.end_ns < best.end_ns) {
            best = w;
            best_at = p;
            found = true;
        }
    }
    if (found)
        *own = old_entry(ix->ctx, best_at);
    return found;
}

static void old_drained_stream(sc_blocking *m, uint32_t *seen, size_t *n_seen, uint32_t stream)
{
    for (size_t i = 0; i < *n_seen; i++)
        if (seen[i] == stream)
            return;
    if (*n_seen < OLD_DISTINCT)
        seen[(*n_seen)++] = stream;
    m->n_streams++;
    size_t keep = m->n_streams < SC_BLOCKING_MAX_STREAMS ? m->n_streams
                                                          : SC_BLOCKING_MAX_STREAMS;
    size_t at = keep - 1;
    if (m->n_streams > SC_BLOCKING_MAX_STREAMS && stream > m->streams[at])
        return;
    while (at > 0 && m->streams[at - 1] > stream) {
        m->streams[at] = m->streams[at - 1];
        at--;
    }
    m->streams[at] = stream;
}

static void old_measure(const sc_blocking_index *ix, const sc_blocking_call *c, sc_blocking *m)
{
    const sc_ctx *ctx = ix->ctx;
    memset(m, 0, sizeof(*m));
    const sc_blocking_scope *s = old_scope_of(ix, c->context_id);
    uint64_t end = c->end_ns > c->start_ns ? c->end_ns : c->start_ns;
    m->blocked_ns = end - c->start_ns;
    m->wait_point_ns = end;
    sc_blocking_work own;
    if (old_own_work(ix, s, c->correlation_id, &own)) {
        m->has_own = true;
        m->own_stream = own.stream_id;
        if (own.start_ns >= c->start_ns && own.start_ns < end)
            m->wait_point_ns = own.start_ns;
    }
    uint32_t seen[OLD_DISTINCT];
    size_t n_seen = 0;
    for (size_t i = old_first_end_after(ctx, s, c->start_ns); i < s->n; i++) {
        sc_blocking_work w = old_entry(ctx, s->by_end[i]);
        if (w.end_ns > m->wait_point_ns)
            break;
        if (w.issue_ns >= c->start_ns)
            continue;
        if (c->correlation_id != 0 && w.correlation_id == c->correlation_id)
            continue;
        if (c->skip_own_stream && m->has_own && w.stream_id == m->own_stream)
            continue;
        m->n_drained++;
        m->drained_end_ns = w.end_ns;
        m->last_stream = w.stream_id;
        m->last_work = w.work;
        m->last_tid = w.tid;
        if (w.tid && c->tid && w.tid != c->tid)
            m->other_thread = true;
        old_drained_stream(m, seen, &n_seen, w.stream_id);
    }
    uint64_t tol = (uint64_t)(SC_BLOCKING_TOL_SHARE * (double)m->blocked_ns);
    if (tol < SC_BLOCKING_TOL_NS)
        tol = SC_BLOCKING_TOL_NS;
    if (c->call_class < SC_CALL_CLASS_COUNT && !m->has_own)
        tol += ix->own_ns[c->call_class];
    m->explained = m->n_drained > 0 && m->wait_point_ns - m->drained_end_ns <= tol;
    m->idle_ns = sc_busy_uncovered(&s->busy, c->start_ns, end);
    const sc_busy_list *b = &s->busy;
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->ivals[mid].end_ns <= end)
            lo = mid + 1;
        else
            hi = mid;
    }
    const sc_ival *after = lo < b->n ? &b->ivals[lo] : NULL;
    m->followed = after != NULL;
    uint64_t lost;
    if (after) {
        if (after->start_ns > end) {
            uint64_t next = after->start_ns;
            m->starve_ns = next - end;
            for (size_t i = old_first_start_from(ctx, s, next);
                 i < s->n && sc_work_start_at(ctx->trace, s->by_start[i]) == next; i++)
                if (old_entry(ctx, s->by_start[i]).issue_ns < end) {
                    m->starve_ns = 0;
                    break;
                }
        }
        lost = m->idle_ns + m->starve_ns;
    } else {
        uint64_t last = b->n ? b->ivals[b->n - 1].end_ns : 0;
        lost = last > c->start_ns ? sc_busy_uncovered(b, c->start_ns, last) : 0;
    }
    m->cost_ns = lost < m->blocked_ns ? lost : m->blocked_ns;
}

/* ---- building a trace ------------------------------------------------------------------ */

static uint64_t rnd(uint64_t *st, uint64_t n)
{
    return syn_rand(st) % n;
}

typedef struct shape {
    size_t n_work;
    uint32_t n_dev;
    uint32_t n_streams;     /* streams per device; ids from `stream_base` up */
    uint32_t stream_base;
    uint32_t n_threads;
    size_t n_calls;         /* calls that block */
} shape;

/* Work on a coarse grid of times (starts, ends and issues tie), some ending before it starts,
 * some sharing a call or having none; then calls that block (synchronizations, allocations,
 * synchronous copies with copies of their own), a third of them on the thread of the call
 * before, overlapping it. */
static void build(syn *s, uint64_t seed, const shape *sh)
{
    uint64_t st = seed;
    syn_init(s);
    for (uint32_t d = 0; d < sh->n_dev; d++)
        syn_device(s, d, 132);
    uint32_t corr = 1;
    for (size_t i = 0; i < sh->n_work; i++) {
        uint32_t dev = (uint32_t)rnd(&st, sh->n_dev);
        uint32_t stream = sh->stream_base + (uint32_t)rnd(&st, sh->n_streams);
        if (sh->stream_base < 64 && rnd(&st, 9) == 0)
            stream = 64 + (uint32_t)rnd(&st, 3) * 1000;   /* far above the word's bits */
        uint64_t start = US(5 * rnd(&st, 200)), dur = US(5 * rnd(&st, 8));
        uint64_t end = rnd(&st, 20) == 0 ? (start ? start - 1 : 0) : start + dur;
        uint64_t r = rnd(&st, 10);
        uint32_t id;
        if (r < 6 || corr == 1) {
            id = ++corr;
            uint64_t issue = rnd(&st, 8) == 0
                                 ? start + US(1)
                                 : start - (start ? US(5) * rnd(&st, start / US(5) + 1) : 0);
            sc_api_call *c = syn_call(s, SC_CALL_LAUNCH, issue, issue + US(2), id, NULL, NULL, 0);
            syn_call_context(s, c, 10 + dev);
            syn_call_tid(s, c, 1 + (uint32_t)rnd(&st, sh->n_threads));
        } else if (r < 8) {
            id = corr;
        } else {
            id = rnd(&st, 2) ? 0 : 100000 + (uint32_t)i;
        }
        uint64_t k = rnd(&st, 10);
        if (k < 6) {
            sc_kernel *kr = syn_kernel(s, dev, stream, start, end, id);
            syn_shape(s, kr)->context_id = 10 + dev;
        } else if (k < 8) {
            sc_copy *c = syn_copy(s, dev, stream, start, end, 4096, id, SC_MEMCPY_ASYNC,
                                        SC_MEM_DEVICE, SC_MEM_PINNED);
            syn_copy_shape(s, c)->context_id = 10 + dev;
        } else {
            sc_memset *m = syn_memset(s, dev, stream, start, end, id);
            syn_memset_shape(s, m)->context_id = 10 + dev;
        }
    }
    static const uint16_t classes[] = {SC_CALL_STREAM_SYNC, SC_CALL_DEVICE_SYNC,
                                       SC_CALL_EVENT_SYNC,  SC_CALL_MALLOC,
                                       SC_CALL_FREE,        SC_CALL_MEMCPY,
                                       SC_CALL_MEMSET};
    uint64_t at = 0;
    for (size_t i = 0; i < sh->n_calls; i++) {
        uint16_t cls = classes[rnd(&st, sizeof classes / sizeof *classes)];
        /* mostly after the call before (a thread's syncs one after another), now and then
         * inside it or far back */
        uint64_t r = rnd(&st, 6);
        uint64_t start = r < 4 ? at + US(5 * rnd(&st, 6)) : r < 5 ? (at > US(20) ? at - US(20) : 0)
                                                                    : US(5 * rnd(&st, 220));
        uint64_t end = start + US(5 * rnd(&st, 12));
        at = end;
        uint32_t dev = (uint32_t)rnd(&st, sh->n_dev);
        sc_api_call *c = syn_call(s, cls, start, end, ++corr, "cudaSomething", NULL, 0);
        syn_call_context(s, c, rnd(&st, 10) == 0 ? 99 : 10 + dev);
        syn_call_tid(s, c, rnd(&st, 8) == 0 ? 0 : 1 + (uint32_t)rnd(&st, sh->n_threads));
        if (rnd(&st, 5) == 0) {     /* its driver call inside it: no call of its own */
            uint32_t context = sc_call_context(&s->t, c), tid = sc_call_tid(&s->t, c);
            sc_api_call *d = syn_call(s, cls, start, start + (end - start) / 2, corr,
                                      "cuSomething", NULL, 0);   /* c may have moved */
            syn_call_add_flags(s, d, SC_API_DRIVER);
            syn_call_context(s, d, context);
            syn_call_tid(s, d, tid);
        }
        if ((cls == SC_CALL_MEMCPY || cls == SC_CALL_MEMSET) && rnd(&st, 3) != 0) {
            uint64_t ws = start + US(5 * rnd(&st, 3));
            uint32_t stream = sh->stream_base + (uint32_t)rnd(&st, sh->n_streams);
            sc_copy *cp = syn_copy(s, dev, stream, ws, ws + US(5), 4096, corr, 0,
                                   SC_MEM_DEVICE, SC_MEM_PAGEABLE);
            syn_copy_shape(s, cp)->context_id = 10 + dev;
        }
    }
    syn_finish(s);
}

/* ---- the checks ------------------------------------------------------------------------ */

/* threads: the caller asked for other_thread (else it is left false). */
static void expect_same(const sc_blocking *got, const sc_blocking *ref, bool threads)
{
    assert_int_equal(got->blocked_ns, ref->blocked_ns);
    assert_int_equal(got->wait_point_ns, ref->wait_point_ns);
    assert_int_equal(got->has_own, ref->has_own);
    assert_int_equal(got->own_stream, ref->own_stream);
    assert_int_equal(got->n_drained, ref->n_drained);
    assert_int_equal(got->n_streams, ref->n_streams);
    assert_memory_equal(got->streams, ref->streams, sizeof got->streams);
    assert_int_equal(got->last_stream, ref->last_stream);
    assert_int_equal(got->drained_end_ns, ref->drained_end_ns);
    assert_int_equal(got->last_work, ref->last_work);
    assert_int_equal(got->last_tid, ref->last_tid);
    assert_int_equal(got->other_thread, threads ? ref->other_thread : false);
    assert_int_equal(got->explained, ref->explained);
    assert_int_equal(got->followed, ref->followed);
    assert_int_equal(got->idle_ns, ref->idle_ns);
    assert_int_equal(got->starve_ns, ref->starve_ns);
    assert_int_equal(got->cost_ns, ref->cost_ns);
}

static sc_blocking_call query_of(const sc_trace *t, const sc_api_call *call, bool skip)
{
    return (sc_blocking_call){.start_ns = call->rec.start_ns, .end_ns = sc_call_end(t, call),
                              .tid = sc_call_tid(t, call), .call_class = sc_call_class_id(t, call),
                              .context_id = sc_call_context(t, call),
                              .correlation_id = call->rec.correlation_id,
                              .skip_own_stream = skip};
}

/* The own times by their definition (blocking.h): per class of the calls that may hold the
 * host, the lower quartile of the durations of its calls (inner ones left out) during whose
 * start no work of their scope issued before it had ended; 0 for the other classes. */
static void check_own_times(const sc_ctx *ctx)
{
    const sc_trace *t = ctx->trace;
    const sc_blocking_index *ix = ctx->blocking;
    for (uint16_t cls = 0; cls < SC_CALL_CLASS_COUNT; cls++) {
        uint64_t *d = malloc((t->n_calls + 1) * sizeof *d);
        size_t k = 0;
        for (size_t i = 0; sc_blocking_holding_class(cls) && i < t->n_calls; i++) {
            const sc_api_call *c = &t->calls[i];
            if (sc_call_class_id(t, c) != cls || sc_blocking_is_inner(ctx, c))
                continue;
            const sc_blocking_scope *s = old_scope_of(ix, sc_call_context(t, c));
            bool busy = false;
            for (size_t j = 0; j < s->n && !busy; j++) {
                sc_blocking_work w = old_entry(ctx, s->by_end[j]);
                busy = w.end_ns > c->rec.start_ns && w.issue_ns < c->rec.start_ns;
            }
            uint64_t end = sc_call_end(t, c);
            if (!busy)
                d[k++] = end > c->rec.start_ns ? end - c->rec.start_ns : 0;
        }
        for (size_t a = 1; a < k; a++)
            for (size_t b = a; b > 0 && d[b - 1] > d[b]; b--) {
                uint64_t x = d[b];
                d[b] = d[b - 1];
                d[b - 1] = x;
            }
        assert_int_equal(ix->own_ns[cls], k ? d[(k - 1) / 4] : 0);
        free(d);
    }
}

static size_t most_streams;     /* the most drained streams a measure counted */

/* Every call measured three ways: alone, by a walk in call order (start order), by a walk in
 * a random order; with and without its own stream, as a call with no own work, and without
 * the threads (skip_threads). */
static size_t check_trace(syn *s, uint64_t seed)
{
    sc_analysis a = {0};
    a.trace = &s->t;
    sc_ctx ctx = {.trace = &s->t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    const sc_blocking_index *ix = ctx.blocking;
    const sc_trace *t = &s->t;
    check_own_times(&ctx);
    size_t n = t->n_calls, drained = 0;
    size_t *order = malloc((n + 1) * sizeof *order);
    uint64_t st = seed;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rnd(&st, i), x = order[i - 1];
        order[i - 1] = order[j];
        order[j] = x;
    }
    for (int variant = 0; variant < 5; variant++) {
        sc_blocking_walk in_order, shuffled;
        assert_int_equal(sc_blocking_walk_begin(ix, &in_order), 0);
        assert_int_equal(sc_blocking_walk_begin(ix, &shuffled), 0);
        for (size_t i = 0; i < n; i++) {
            for (int way = 0; way < 2; way++) {
                const sc_api_call *call = &t->calls[way ? order[i] : i];
                sc_blocking_call q = query_of(t, call, variant == 1 || variant == 4);
                if (variant == 2)
                    q.correlation_id = 0;
                q.skip_threads = variant >= 3;     /* as host-sync asks */
                sc_blocking ref, alone, walked;
                old_measure(ix, &q, &ref);
                sc_blocking_measure(ix, &q, &alone);
                sc_blocking_measure_next(way ? &shuffled : &in_order, &q, &walked);
                expect_same(&alone, &ref, !q.skip_threads);
                expect_same(&walked, &ref, !q.skip_threads);
                drained += ref.n_drained;
                most_streams = ref.n_streams > most_streams ? ref.n_streams : most_streams;
            }
        }
        sc_blocking_walk_end(&in_order);
        sc_blocking_walk_end(&shuffled);
    }
    free(order);
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
    return drained;
}

static void test_one_device(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 16; seed++) {
        syn s;
        shape sh = {40 + 20 * seed, 1, 3 + (uint32_t)(seed % 4), 7, 1 + (uint32_t)(seed % 3),
                    (40 + 20 * seed) / 3};
        build(&s, seed, &sh);
        assert_true(check_trace(&s, seed) > 0);
        syn_free(&s);
    }
}

static void test_devices(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 110; seed++) {
        syn s;
        shape sh = {240, 2 + (uint32_t)(seed % 2), 5, 1, 3, 80};
        build(&s, seed, &sh);
        assert_true(check_trace(&s, seed) > 0);
        syn_free(&s);
    }
}

/* Streams far above 64 only (every id in the list), and more distinct streams than the
 * measure notes: 400 streams, long calls that drain most of them. */
static void test_many_streams(void **state)
{
    (void)state;
    most_streams = 0;
    for (uint64_t seed = 300; seed < 304; seed++) {
        syn s;
        shape sh = {6000, 1, 400, seed % 2 ? 1 : 5000, 2, 40};
        build(&s, seed, &sh);
        /* calls over the whole run: each drains nearly every piece of work */
        for (uint32_t k = 0; k < 6; k++) {
            sc_api_call *c = syn_call(&s, SC_CALL_DEVICE_SYNC, US(400 + 5 * k), US(1100), 900000 + k,
                                      "cudaDeviceSynchronize", NULL, 0);
            syn_call_context(&s, c, 10);
            syn_call_tid(&s, c, 1);
        }
        syn_finish(&s);
        assert_true(check_trace(&s, seed) > 0);
        syn_free(&s);
    }
    /* past the noted ones, streams were counted again: more than the trace has */
    assert_true(most_streams > 400);
}

/* ---- the calls that may hold the host and the polling loops -------------------------- */

/* The polling loops as sc_polls_find found them before (3940716): a walk of every call. */
static bool old_is_query(uint16_t c)
{
    return c == SC_CALL_STREAM_QUERY || c == SC_CALL_EVENT_QUERY;
}

static uint64_t old_handle(const sc_trace *t, const sc_api_call *c)
{
    return sc_call_class_id(t, c) == SC_CALL_STREAM_QUERY ? sc_call_stream_handle(t, c)
                                                          : sc_call_aux(t, c);
}

typedef struct old_run {
    uint32_t tid;
    size_t first, last;
    uint64_t queries;
} old_run;

static void old_close(old_run *run, sc_poll_loop *loops, size_t *n)
{
    if (run->queries >= SC_POLL_MIN_QUERIES)
        loops[(*n)++] = (sc_poll_loop){run->first, run->last, run->queries};
    run->queries = 0;
}

static size_t old_polls(const sc_ctx *ctx, sc_poll_loop *loops)
{
    const sc_trace *t = ctx->trace;
    old_run runs[16];
    size_t n_runs = 0, n = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *call = &t->calls[i];
        if (sc_blocking_is_inner(ctx, call))
            continue;
        size_t k = 0;
        while (k < n_runs && runs[k].tid != sc_call_tid(t, call))
            k++;
        if (k == n_runs)
            runs[n_runs++] = (old_run){.tid = sc_call_tid(t, call)};
        old_run *run = &runs[k];
        const sc_api_call *prev = run->queries ? &t->calls[run->last] : NULL;
        bool goes_on = prev && old_is_query(sc_call_class_id(t, call)) &&
                       sc_call_class_id(t, call) == sc_call_class_id(t, prev) &&
                       old_handle(t, call) == old_handle(t, prev) &&
                       call->rec.start_ns < sc_call_end(t, prev) + SC_POLL_GAP_NS;
        if (goes_on) {
            run->last = i;
            run->queries++;
            continue;
        }
        if (run->queries)
            old_close(run, loops, &n);
        if (old_is_query(sc_call_class_id(t, call)))
            *run = (old_run){sc_call_tid(t, call), i, i, 1};
    }
    for (size_t k = 0; k < n_runs; k++)
        old_close(&runs[k], loops, &n);
    for (size_t a = 1; a < n; a++)   /* by first query: insertion sort, tests are small */
        for (size_t b = a; b > 0 && loops[b - 1].first > loops[b].first; b--) {
            sc_poll_loop x = loops[b];
            loops[b] = loops[b - 1];
            loops[b - 1] = x;
        }
    return n;
}

/* Calls on 1-3 threads, 2 us apart or (now and then) 80 us, past a loop's gap: queries of a
 * stream or an event (two of each), launches, synchronizations, allocations, pinning, driver
 * calls inside runtime calls (a query's own driver query among them). */
static void build_calls(syn *s, uint64_t seed, uint32_t n_threads, size_t n)
{
    uint64_t st = seed;
    syn_init(s);
    syn_device(s, 0, 132);
    static const uint16_t classes[] = {
        SC_CALL_STREAM_QUERY, SC_CALL_STREAM_QUERY, SC_CALL_STREAM_QUERY, SC_CALL_EVENT_QUERY,
        SC_CALL_EVENT_QUERY,  SC_CALL_LAUNCH,       SC_CALL_STREAM_SYNC,  SC_CALL_MALLOC,
        SC_CALL_HOST_REGISTER, SC_CALL_EVENT_RECORD};
    uint64_t at = 0;
    uint16_t cls = SC_CALL_STREAM_QUERY;
    for (size_t i = 0; i < n; i++) {
        if (rnd(&st, 3) == 0)    /* else the class before: runs of queries */
            cls = classes[rnd(&st, sizeof classes / sizeof *classes)];
        at += rnd(&st, 12) == 0 ? US(80) : US(2);
        uint64_t dur = US(1 + rnd(&st, 3));
        uint32_t corr = 1 + (uint32_t)i;
        sc_api_call *c = syn_call(s, cls, at, at + dur, corr, "cudaSomething", NULL, 0);
        syn_call_tid(s, c, 1 + (uint32_t)rnd(&st, n_threads));
        syn_call_stream(s, c, 0x100 + (rnd(&st, 6) == 0));
        syn_call_aux(s, c, 0x200 + (rnd(&st, 6) == 0));
        if (rnd(&st, 5) == 0) {     /* its driver call, inside it */
            uint64_t stream = sc_call_stream_handle(&s->t, c), aux = sc_call_aux(&s->t, c);
            uint32_t tid = sc_call_tid(&s->t, c);
            sc_api_call *d = syn_call(s, cls, at, at + dur / 2, corr, "cuSomething", NULL, 0);
            /* c may have moved: its fields from the copies */
            syn_call_add_flags(s, d, SC_API_DRIVER);
            syn_call_tid(s, d, tid);
            syn_call_stream(s, d, stream);
            syn_call_aux(s, d, aux);
        }
    }
    syn_finish(s);
}

static size_t check_polls(syn *s)
{
    sc_analysis a = {0};
    a.trace = &s->t;
    sc_ctx ctx = {.trace = &s->t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    const sc_trace *t = &s->t;
    const sc_blocking_index *ix = ctx.blocking;
    size_t k = 0;
    for (size_t i = 0; i < t->n_calls; i++)
        if (sc_blocking_holding_class(sc_call_class_id(t, &t->calls[i]))) {
            assert_true(k < ix->n_holding);
            assert_int_equal(ix->holding[k], i);
            k++;
        }
    assert_int_equal(k, ix->n_holding);
    /* every loop family (loop_calls.h) is among them */
    for (uint16_t cls = 0; cls < SC_CALL_CLASS_COUNT; cls++)
        if (sc_blocking_implicit_class(cls))
            assert_true(sc_blocking_holding_class(cls));
    sc_poll_loop *want = malloc((t->n_calls + 1) * sizeof *want);
    size_t n_want = old_polls(&ctx, want);
    assert_int_equal(ctx.n_polls, n_want);
    for (size_t i = 0; i < n_want; i++) {
        assert_int_equal(ctx.polls[i].first, want[i].first);
        assert_int_equal(ctx.polls[i].last, want[i].last);
        assert_int_equal(ctx.polls[i].queries, want[i].queries);
    }
    free(want);
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
    return n_want;
}

static void test_polls(void **state)
{
    (void)state;
    size_t loops = 0;
    for (uint64_t seed = 500; seed < 530; seed++) {
        syn s;
        build_calls(&s, seed, 1 + (uint32_t)(seed % 3), 60 + 10 * (seed % 7));
        loops += check_polls(&s);
        syn_free(&s);
    }
    assert_true(loops > 30);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_device),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_many_streams),
        cmocka_unit_test(test_polls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
