/* The ranges' sweep (range_sweep.h, ranges.c) against the window it replaced (window.h):
 * the same answers on built inputs. Nested push/pop ranges on several threads, start/end
 * ranges across threads, broken and empty ranges, ranges that touch; items on threads with
 * and without ranges and items with no thread; times on a coarse grid, so that items fall
 * exactly on ranges' starts and ends. Two levels: the sweep's sums against the window's hits
 * for plain items, and sc_ranges_build against the window-based build as it was before the
 * sweep (kept below as the reference), every field of every range and name row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/findings.h"
#include "analyze/internal.h"
#include "analyze/overlap.h"
#include "analyze/range_sweep.h"
#include "analyze/ranges.h"
#include "analyze/work.h"
#include "window_model.h"
#include "synthetic.h"

#define ANY SC_RANGE_ANY_THREAD
#define GRID US(10)         /* every time is a multiple: items meet range ends */

/* ---- the reference: ranges.c as it was, through the window ----------------------------- */

/* Work refs in the window: kernels, then copies, then memsets, each in trace order. */
enum { REF_RANGE_KERNEL, REF_RANGE_COPY, REF_RANGE_MEMSET };

static int ref_range_work_kind(const sc_trace *t, size_t ref, size_t *index)
{
    if (ref < t->n_kernels) {
        *index = ref;
        return REF_RANGE_KERNEL;
    }
    ref -= t->n_kernels;
    if (ref < t->n_copies) {
        *index = ref;
        return REF_RANGE_COPY;
    }
    *index = ref - t->n_copies;
    return REF_RANGE_MEMSET;
}

/* Where a piece of work was issued: its call's start and thread, else its own start. */
static sc_window_item ref_range_issue(const sc_ctx *ctx, uint32_t correlation_id,
                                     uint64_t start_ns, size_t ref)
{
    const sc_api_call *call = sc_ctx_call(ctx, correlation_id);
    if (!call)
        return (sc_window_item){.t = start_ns, .ref = ref};
    return (sc_window_item){call->rec.start_ns, sc_call_tid(ctx->trace, call), true, ref};
}

static int ref_range_work_window(const sc_ctx *ctx, sc_window *w)
{
    const sc_trace *t = ctx->trace;
    size_t n = t->n_kernels + t->n_copies + t->n_memsets, k = 0;
    sc_window_item *items = malloc((n ? n : 1) * sizeof(*items));
    if (!items)
        return -1;
    for (size_t i = 0; i < t->n_kernels; i++, k++)
        items[k] = ref_range_issue(ctx, t->kernels[i].rec.correlation_id,
                                  t->kernels[i].rec.start_ns, k);
    for (size_t i = 0; i < t->n_copies; i++, k++)
        items[k] = ref_range_issue(ctx, t->copies[i].correlation_id, t->copies[i].start_ns, k);
    for (size_t i = 0; i < t->n_memsets; i++, k++)
        items[k] = ref_range_issue(ctx, t->memsets[i].correlation_id, t->memsets[i].start_ns, k);
    int rc = sc_window_build(w, items, n);
    free(items);
    return rc;
}

/* Reverses s[0 .. n). */
static void ref_spans_reverse(sc_overlap_span *s, size_t n)
{
    for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
        sc_overlap_span x = s[i];
        s[i] = s[j - 1];
        s[j - 1] = x;
    }
}

/* One range's work as engine spans; counts its copies and memsets and sums its kernels'
 * solo durations. spans: room for all the work (n_spans), one array for both kinds: the
 * kernels fill it from the front, the copies and memsets from the back, then these are put
 * back in the order of the hits, which keeps the engine's points nearly in time order for
 * its sort. */
static int ref_range_measure(const sc_ctx *ctx, const sc_window_hits *h, sc_overlap_span *spans,
                            size_t n_spans, sc_overlap_scratch *scratch, sc_range_summary *r)
{
    const sc_trace *t = ctx->trace;
    sc_overlap_span *ks = spans, *cs = spans + n_spans;
    size_t nk = 0, nc = 0;
    uint64_t solo = 0, known = 0;
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < h->n[s]; i++) {
            size_t idx;
            int kind = ref_range_work_kind(t, h->slice[s][i].ref, &idx);
            if (kind == REF_RANGE_KERNEL) {
                const sc_kernel_rec *k = &t->kernels[idx].rec;
                ks[nk++] = (sc_overlap_span){k->start_ns, k->end_ns, idx};
                solo += sc_ctx_kernel_solo_ns(ctx, idx);
                known += sc_ctx_kernel_solo_known(ctx, idx);
            } else if (kind == REF_RANGE_COPY) {
                *--cs = (sc_overlap_span){t->copies[idx].start_ns, t->copies[idx].end_ns, idx};
                nc++;
                r->copy_count++;
            } else {
                *--cs = (sc_overlap_span){t->memsets[idx].start_ns, t->memsets[idx].end_ns,
                                          idx};
                nc++;
                r->memset_count++;
            }
        }
    }
    ref_spans_reverse(cs, nc);
    /* all devices as one timeline: the device field only labels intervals, none kept here */
    sc_overlap_input in = {ks, nk, cs, nc, 0};
    if (sc_overlap_metrics(&in, &r->overlap, scratch) != 0)
        return -1;
    sc_overlap_set_solo(&r->overlap, solo, known);
    return 0;
}

static int ref_ranges_work(const sc_ctx *ctx, sc_analysis *a)
{
    const sc_trace *t = ctx->trace;
    size_t n = t->n_kernels + t->n_copies + t->n_memsets;
    sc_window w;
    if (ref_range_work_window(ctx, &w) != 0)
        return -1;
    sc_overlap_span *spans = malloc((n ? n : 1) * sizeof(*spans));
    sc_overlap_scratch scratch = {0};
    int rc = spans ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < a->n_ranges; i++) {
        sc_window_hits h = sc_window_query(&w, &t->ranges[i].rec);
        rc = ref_range_measure(ctx, &h, spans, n, &scratch, &a->ranges[i]);
    }
    free(scratch.key);
    free(spans);
    sc_window_free(&w);
    return rc;
}

/* The user's calls: a driver call made by a runtime call shares its correlation id, and
 * only the call that sc_ctx_call() names for an id (the runtime one) is counted. */
static int ref_ranges_calls(const sc_ctx *ctx, sc_analysis *a)
{
    const sc_trace *t = ctx->trace;
    sc_window_item *items = malloc((t->n_calls ? t->n_calls : 1) * sizeof(*items));
    if (!items)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_call_rec *r = &t->calls[i].rec;
        if (r->correlation_id == 0 || sc_ctx_call(ctx, r->correlation_id) == &t->calls[i])
            items[n++] = (sc_window_item){r->start_ns, sc_call_tid(t, &t->calls[i]), true, i};
    }
    sc_window w;    /* the calls lie in start order: the window takes them as they are */
    int rc = sc_window_build_owned(&w, items, n);
    for (size_t i = 0; rc == 0 && i < a->n_ranges; i++) {
        sc_window_hits h = sc_window_query(&w, &t->ranges[i].rec);
        a->ranges[i].call_count = sc_window_hits_count(&h);
    }
    sc_window_free(&w);
    return rc;
}

/* ---- findings ------------------------------------------------------------------------- */

/* Per-name sums of one finding, reset after each finding: only touched names are visited. */
typedef struct ref_name_acc {
    uint64_t *count, *cost;
    size_t *touched;
    size_t n_touched;
} ref_name_acc;

static void ref_range_count_finding(const sc_analysis *a, size_t f, const sc_mark_list *marks,
                                   const sc_window *w, const size_t *group, ref_name_acc *acc)
{
    const sc_trace *t = a->trace;
    for (size_t i = 0; i < a->n_ranges; i++) {
        sc_window_hits h = sc_window_query(w, &t->ranges[i].rec);
        sc_range_finding rf = {sc_window_hits_count(&h), 0, (uint32_t)f,
                               a->findings[f].severity};
        if (rf.count == 0)
            continue;
        for (int s = 0; s < 2; s++)
            for (size_t k = 0; k < h.n[s]; k++)
                rf.cost_ns += marks->items[h.slice[s][k].ref].cost_ns;
        sc_range_summary *r = &a->ranges[i];
        sc_range_findings_insert(r->findings, &r->n_findings, &rf);
        size_t g = group[i];
        if (acc->count[g] == 0)
            acc->touched[acc->n_touched++] = g;
        acc->count[g] += rf.count;
        acc->cost[g] += rf.cost_ns;
    }
}

static void ref_range_names_take(const sc_analysis *a, size_t f, ref_name_acc *acc,
                                sc_range_name_summary *names)
{
    for (size_t i = 0; i < acc->n_touched; i++) {
        size_t g = acc->touched[i];
        sc_range_finding rf = {acc->count[g], acc->cost[g], (uint32_t)f,
                               a->findings[f].severity};
        sc_range_findings_insert(names[g].findings, &names[g].n_findings, &rf);
        acc->count[g] = acc->cost[g] = 0;
    }
    acc->n_touched = 0;
}

static int ref_ranges_findings(const sc_finding_list *list, sc_analysis *a, const size_t *group,
                              sc_range_name_summary *names, size_t n_names)
{
    size_t m = n_names ? n_names : 1;
    ref_name_acc acc = {calloc(m, sizeof(uint64_t)), calloc(m, sizeof(uint64_t)),
                       malloc(m * sizeof(size_t)), 0};
    int rc = acc.count && acc.cost && acc.touched ? 0 : -1;
    sc_window_item *items = NULL;
    for (size_t f = 0; rc == 0 && f < list->n; f++) {
        const sc_mark_list *marks = &list->marks[f];
        sc_window_item *p = realloc(items, (marks->n ? marks->n : 1) * sizeof(*items));
        if (!p) {
            rc = -1;
            break;
        }
        items = p;
        for (size_t k = 0; k < marks->n; k++) {
            const sc_api_call *c = marks->items[k].call;
            items[k] = (sc_window_item){marks->items[k].t, c ? sc_call_tid(a->trace, c) : 0,
                                        c != NULL, k};
        }
        sc_window w;
        if (sc_window_build(&w, items, marks->n) != 0) {
            rc = -1;
            break;
        }
        ref_range_count_finding(a, f, marks, &w, group, &acc);
        ref_range_names_take(a, f, &acc, names);
        sc_window_free(&w);
    }
    free(items);
    free(acc.count);
    free(acc.cost);
    free(acc.touched);
    return rc;
}


static int ref_ranges_build(const sc_ctx *ctx, const sc_finding_list *list, sc_analysis *a)
{
    const sc_trace *t = ctx->trace;
    if (t->n_ranges == 0)
        return 0;
    a->ranges = calloc(t->n_ranges, sizeof(*a->ranges));
    size_t *group = malloc(t->n_ranges * sizeof(*group));
    size_t n_names = 0;
    int rc = -1;
    if (!a->ranges || !group || sc_range_names_group(t, group, &n_names) != 0)
        goto done;
    a->n_ranges = t->n_ranges;
    for (size_t i = 0; i < t->n_ranges; i++) {
        a->ranges[i].range = &t->ranges[i];
        a->ranges[i].wall_ns = sc_dur(t->ranges[i].rec.start_ns, t->ranges[i].rec.end_ns);
    }
    a->range_names = calloc(n_names, sizeof(*a->range_names));
    if (!a->range_names)
        goto done;
    a->n_range_names = n_names;
    if (ref_ranges_calls(ctx, a) == 0 && ref_ranges_work(ctx, a) == 0 &&
        ref_ranges_findings(list, a, group, a->range_names, n_names) == 0 &&
        sc_range_names_sum(a->ranges, a->n_ranges, group, a->range_names, n_names) == 0)
        rc = 0;
done:
    free(group);
    return rc;     /* on failure the caller frees a, ranges included */
}

/* ---- built inputs ---------------------------------------------------------------------- */

static uint64_t pick(uint64_t *rng, uint64_t n)
{
    return syn_rand(rng) % n;
}

/* Ranges on [0, span): for each of threads 1 .. n_threads, push/pop ranges properly nested
 * (a walk that pushes or pops at each grid step; depth as a stack would give it); start/end
 * ranges on any of threads 1 .. 3; a few broken ones (end before start) and empty ones
 * (start == end). With two threads, thread 3 has no push/pop range, thread 4 nothing. */
static void make_ranges_on(syn *s, uint64_t *rng, uint64_t span, size_t n_any,
                           uint32_t n_threads)
{
    static const char *const names[] = {"step", "fwd", "bwd", "io"};
    for (uint32_t tid = 1; tid <= n_threads; tid++) {
        uint64_t open_at[16];
        size_t depth = 0;
        for (uint64_t t = 0; t < span; t += GRID) {
            uint64_t r = pick(rng, 4);
            if (r == 0 && depth < 16)
                open_at[depth++] = t;
            else if (r == 1 && depth > 0) {
                depth--;
                syn_range(s, names[depth % 4], open_at[depth], t, tid, (uint32_t)depth);
            } else if (r == 2 && pick(rng, 8) == 0) {
                syn_range(s, "mark", t, t, tid, (uint32_t)depth);   /* empty */
            }
        }
        while (depth > 0) {
            depth--;
            syn_range(s, names[depth % 4], open_at[depth], span, tid, (uint32_t)depth);
        }
    }
    for (size_t i = 0; i < n_any; i++) {
        uint64_t a = pick(rng, span / GRID) * GRID, b = a + pick(rng, span / GRID / 4) * GRID;
        syn_range(s, i % 3 ? "io" : "load", a, b, 1 + (uint32_t)pick(rng, 3), ANY);
    }
    syn_range(s, "broken", US(500), US(400), 1, 0);
    syn_range(s, "broken", US(700), US(300), 2, ANY);
}

static void make_ranges(syn *s, uint64_t *rng, uint64_t span, size_t n_any)
{
    make_ranges_on(s, rng, span, n_any, 2);
}

/* ---- the sweep against the window's hits, plain items ---------------------------------- */

typedef struct plain {
    uint64_t t;
    uint32_t tid;
    bool has_tid;
} plain;

static int plain_cmp(const void *pa, const void *pb)
{
    const plain *x = pa, *y = pb;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void check_plain(uint64_t seed, size_t n_items, size_t n_any, uint32_t n_threads)
{
    uint64_t rng = seed;
    syn s;
    syn_init(&s);
    const uint64_t span = US(3000);
    make_ranges_on(&s, &rng, span, n_any, n_threads);
    syn_finish(&s);
    plain *items = calloc(n_items ? n_items : 1, sizeof *items);
    for (size_t i = 0; i < n_items; i++) {
        items[i].t = pick(&rng, span / GRID + 2) * GRID;
        items[i].has_tid = pick(&rng, 5) != 0;
        items[i].tid = items[i].has_tid ? 1 + (uint32_t)pick(&rng, n_threads + 2) : 0;
    }
    qsort(items, n_items, sizeof *items, plain_cmp);

    sc_range_sweep sw;
    assert_int_equal(sc_range_sweep_init(&sw, s.t.ranges, s.t.n_ranges), 0);
    assert_int_equal(sw.n_slots, n_threads);
    size_t n = s.t.n_ranges;
    uint64_t *share = calloc(n * 3 + 1, sizeof *share), *from = calloc(n * 3 + 1, sizeof *from);
    sc_sweep_pass p;
    assert_int_equal(sc_sweep_pass_begin(&p, &sw, 3, share, from), 0);
    for (size_t i = 0; i < n_items; i++) {
        sc_sweep_pass_to(&p, items[i].t);
        uint32_t slot = items[i].has_tid ? sc_range_sweep_slot(&sw, items[i].tid)
                                         : (uint32_t)sw.n_slots + 1;
        sc_sweep_pass_add(&p, slot, 0, 1);
        sc_sweep_pass_add(&p, slot, 1, i);
        sc_sweep_pass_add(&p, slot, 2, (uint64_t)i * i);
    }
    sc_sweep_pass_end(&p);
    sc_sweep_pass_free(&p);

    sc_window_item *wi = calloc(n_items ? n_items : 1, sizeof *wi);
    for (size_t i = 0; i < n_items; i++)
        wi[i] = (sc_window_item){items[i].t, items[i].tid, items[i].has_tid, i};
    sc_window w;
    assert_int_equal(sc_window_build(&w, wi, n_items), 0);
    size_t held = 0;
    for (size_t r = 0; r < n; r++) {
        sc_window_hits h = sc_window_query(&w, &s.t.ranges[r].rec);
        uint64_t count = 0, sum = 0, sq = 0;
        for (int k = 0; k < 2; k++)
            for (size_t j = 0; j < h.n[k]; j++) {
                count++;
                sum += h.slice[k][j].ref;
                sq += (uint64_t)h.slice[k][j].ref * h.slice[k][j].ref;
            }
        assert_int_equal(share[3 * r], count);
        assert_int_equal(share[3 * r + 1], sum);
        assert_int_equal(share[3 * r + 2], sq);
        held += count;
    }
    assert_true(n_items == 0 || held > 0);  /* the inputs hold something */
    sc_window_free(&w);
    free(wi);
    free(share);
    free(from);
    free(items);
    sc_range_sweep_free(&sw);
    syn_free(&s);
}

/* A hand-made case with its answers: step (T1, 100 .. 200) holds fwd (T1, 100 .. 150); io
 * (any thread, 150 .. 300); a broken range and an empty one at 200.
 *   @100 T1: step, fwd (both start there)      @150 T2: io only
 *   @150 no thread: step, fwd, io              @200 T1: step (its end), io, empty
 *   @300 T3: io (its end)                       @301 T1: nothing */
static void test_sweep_by_hand(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_range(&s, "step", US(100), US(200), 1, 0);
    syn_range(&s, "fwd", US(100), US(150), 1, 1);
    syn_range(&s, "io", US(150), US(300), 2, ANY);
    syn_range(&s, "broken", US(250), US(240), 1, 0);
    syn_range(&s, "empty", US(200), US(200), 1, 0);
    syn_finish(&s);
    sc_range_sweep sw;
    assert_int_equal(sc_range_sweep_init(&sw, s.t.ranges, s.t.n_ranges), 0);
    assert_int_equal(sw.n_slots, 1);
    assert_int_equal(sw.n, 4);
    assert_true(sw.any_thread && sw.per_thread);
    const plain items[] = {{US(100), 1, true}, {US(150), 2, true}, {US(150), 0, false},
                           {US(200), 1, true}, {US(300), 3, true}, {US(301), 1, true}};
    uint64_t share[5], from[5];
    sc_sweep_pass p;
    assert_int_equal(sc_sweep_pass_begin(&p, &sw, 1, share, from), 0);
    for (size_t i = 0; i < 6; i++) {
        sc_sweep_pass_to(&p, items[i].t);
        sc_sweep_pass_add(&p, items[i].has_tid ? sc_range_sweep_slot(&sw, items[i].tid)
                                               : (uint32_t)sw.n_slots + 1, 0, 1);
    }
    sc_sweep_pass_end(&p);
    sc_sweep_pass_free(&p);
    /* by start: step, fwd (100; trace order), io (150), empty (200), broken (250) */
    const char *name[] = {"step", "fwd", "io", "empty", "broken"};
    const uint64_t want[] = {3, 2, 4, 1, 0};
    for (size_t r = 0; r < 5; r++) {
        assert_string_equal(s.t.ranges[r].name, name[r]);
        assert_int_equal(share[r], want[r]);
    }
    assert_int_equal(from[0], 0);   /* step: nothing of T1 or no thread before 100 */
    assert_int_equal(from[2], 1);   /* io: one item before 150 (those at 150 are inside) */
    sc_range_sweep_free(&sw);
    syn_free(&s);
}

static void test_sweep_plain(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; seed++)
        check_plain(seed * 7919, (size_t)(seed * 37 % 400), (size_t)(seed % 7), 2);
    check_plain(99, 0, 3, 2);           /* no items */
    check_plain(101, 3000, 2, 60);      /* threads past the table's first size */
}

/* ---- sc_ranges_build against the reference --------------------------------------------- */

static void same_findings(const sc_range_finding *x, size_t nx, const sc_range_finding *y,
                          size_t ny)
{
    assert_int_equal(nx, ny);
    for (size_t i = 0; i < nx; i++) {
        assert_int_equal(x[i].severity, y[i].severity);
        assert_int_equal(x[i].count, y[i].count);
        assert_int_equal(x[i].cost_ns, y[i].cost_ns);
        assert_int_equal(x[i].finding, y[i].finding);
    }
}

static void same_overlap(const sc_overlap *x, const sc_overlap *y)
{
    assert_int_equal(x->kernel_count, y->kernel_count);
    assert_int_equal(x->busy_ns, y->busy_ns);
    assert_int_equal(x->overlap_ns, y->overlap_ns);
    assert_int_equal(x->copy_busy_ns, y->copy_busy_ns);
    assert_int_equal(x->idle_ns, y->idle_ns);
    assert_int_equal(x->solo_sum_ns, y->solo_sum_ns);
    assert_int_equal(x->solo_known, y->solo_known);
    assert_memory_equal(x, y, sizeof(*x));     /* every field, the doubles bit for bit */
}

/* The work of one call: kind 0 a launch (one to three kernels: a graph launch shares the id),
 * 1 a copy, 2 a memset. */
static void add_work(syn *s, uint64_t *rng, uint32_t kind, uint64_t t, uint32_t corr)
{
    uint64_t at = t + pick(rng, 50) * US(1), len = 1 + pick(rng, 40) * US(1);
    uint32_t stream = 20 + (uint32_t)pick(rng, 3);
    if (kind == 0) {
        for (uint64_t k = 0, n = 1 + pick(rng, 3); k < n; k++) {
            sc_kernel *kr = syn_kernel(s, 0, stream, at, at + len, corr);
            syn_shape(s, kr)->name_id = 1 + (uint32_t)pick(rng, 3);
            at += len / 2;
        }
    } else if (kind == 1) {
        syn_copy(s, 0, stream, at, at + len, 4096, corr, SC_MEMCPY_ASYNC, SC_MEM_PINNED,
                 SC_MEM_DEVICE);
    } else {
        syn_memset(s, 0, stream, at, at + len, corr);
    }
}

/* Calls on threads 1 .. n_tids (a driver call now and then under a runtime call's id, a call
 * with id 0), their work, work with no call (id 0, or an id no call has); ids dense or spread
 * too far for the context's table. quiet: two calls in three issue no work (as syncs and
 * event records do), so that the work is fewer than the ids. */
static void make_calls(syn *s, uint64_t *rng, uint64_t span, size_t n_calls, uint32_t id_step,
                       uint32_t n_tids, bool quiet)
{
    static const uint16_t cls[] = {SC_CALL_LAUNCH, SC_CALL_MEMCPY_ASYNC, SC_CALL_MEMSET_ASYNC};
    static const char *const nm[] = {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync"};
    for (size_t i = 0; i < n_calls; i++) {
        uint64_t t = pick(rng, span / GRID + 2) * GRID;
        uint32_t tid = 1 + (uint32_t)pick(rng, n_tids), kind = (uint32_t)pick(rng, 3);
        uint32_t corr = pick(rng, 12) == 0 ? 0 : (uint32_t)(i + 1) * id_step;
        sc_api_call *c = syn_call(s, cls[kind], t, t + US(2), corr, nm[kind], NULL, 0);
        syn_call_tid(s, c, tid);
        if (corr && pick(rng, 6) == 0) {
            sc_api_call *d = syn_call(s, cls[kind], t + GRID * pick(rng, 2), t + US(1), corr,
                                      "cuLaunchKernel", NULL, 0);
            syn_call_flags(s, d, SC_API_DRIVER);
            syn_call_tid(s, d, tid);
        }
        if (corr && (!quiet || pick(rng, 3) == 0))
            add_work(s, rng, kind, t, corr);
    }
    for (size_t i = 0; i < n_calls / 8; i++) {
        uint64_t t = pick(rng, span / GRID + 2) * GRID;
        add_work(s, rng, (uint32_t)pick(rng, 3), t,
                 pick(rng, 2) ? 0 : (uint32_t)(n_calls + 5 + i) * id_step);
    }
}

/* Findings with marks: some in time order, some not, one with none; marks on threads with
 * ranges, without, and with no thread. */
static void make_findings(sc_finding_list *list, uint64_t *rng, uint64_t span, size_t n,
                          const sc_trace *t)
{
    static const char *const rules[] = {"host-sync", "legacy-stream", "pageable-async"};
    list->n = n;
    list->items = calloc(n ? n : 1, sizeof *list->items);
    list->marks = calloc(n ? n : 1, sizeof *list->marks);
    for (size_t f = 0; f < n; f++) {
        list->items[f].rule = rules[f % 3];
        list->items[f].severity = (sc_severity)(f % 3);
        size_t m = f == 1 ? 0 : pick(rng, 60);
        sc_mark_list *ml = &list->marks[f];
        ml->items = calloc(m ? m : 1, sizeof *ml->items);
        ml->n = ml->cap = m;
        for (size_t k = 0; k < m; k++) {
            bool has = pick(rng, 4) != 0 && t->n_calls > 0;     /* a call: its thread */
            ml->items[k] = (sc_instance_mark){pick(rng, span / GRID + 2) * GRID,
                                              1 + pick(rng, 1000),
                                              has ? &t->calls[pick(rng, t->n_calls)] : NULL};
            if (f % 2 == 0 && k > 0 && ml->items[k].t < ml->items[k - 1].t)
                ml->items[k].t = ml->items[k - 1].t;   /* these lie in time order */
        }
    }
}

/* got and want name the same ranges with the same counts, times and findings. */
static void same_ranges(const sc_analysis *got_, const sc_analysis *want_)
{
    const sc_analysis got = *got_, want = *want_;
    assert_int_equal(got.n_ranges, want.n_ranges);
    uint64_t calls = 0, work = 0, marks = 0;
    for (size_t i = 0; i < got.n_ranges; i++) {
        const sc_range_summary *x = &got.ranges[i], *y = &want.ranges[i];
        assert_ptr_equal(x->range, y->range);
        assert_int_equal(x->wall_ns, y->wall_ns);
        assert_int_equal(x->call_count, y->call_count);
        assert_int_equal(x->copy_count, y->copy_count);
        assert_int_equal(x->memset_count, y->memset_count);
        same_overlap(&x->overlap, &y->overlap);
        same_findings(x->findings, x->n_findings, y->findings, y->n_findings);
        calls += x->call_count;
        work += x->overlap.kernel_count + x->copy_count + x->memset_count;
        marks += x->n_findings;
    }
    assert_true(calls > 0 && work > 0 && marks > 0);   /* the inputs reach every part */
    assert_int_equal(got.n_range_names, want.n_range_names);
    for (size_t g = 0; g < got.n_range_names; g++) {
        const sc_range_name_summary *x = &got.range_names[g], *y = &want.range_names[g];
        assert_ptr_equal(x->name, y->name);
        assert_ptr_equal(x->domain, y->domain);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->wall_ns, y->wall_ns);
        assert_int_equal(x->max_wall_ns, y->max_wall_ns);
        assert_int_equal(x->call_count, y->call_count);
        assert_int_equal(x->copy_count, y->copy_count);
        assert_int_equal(x->memset_count, y->memset_count);
        same_overlap(&x->overlap, &y->overlap);
        same_findings(x->findings, x->n_findings, y->findings, y->n_findings);
    }
}

static void check_build(uint64_t seed, size_t n_calls, size_t n_any, uint32_t id_step,
                        uint32_t n_tids, bool quiet)
{
    uint64_t rng = seed;
    syn s;
    syn_init(&s);
    const uint64_t span = US(4000);
    make_ranges(&s, &rng, span, n_any);
    make_calls(&s, &rng, span, n_calls, id_step, n_tids, quiet);
    syn_finish(&s);
    sc_analysis a = {0};
    a.trace = &s.t;
    sc_ctx ctx = {.trace = &s.t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    assert_int_equal(ctx.corr_first == NULL, id_step > 1);
    sc_finding_list list = {0};
    make_findings(&list, &rng, span, 6, &s.t);
    sc_analysis got = {.trace = &s.t, .findings = list.items, .n_findings = list.n};
    sc_analysis want = got;
    assert_int_equal(sc_ranges_build(&ctx, &list, &got), 0);
    assert_int_equal(ref_ranges_build(&ctx, &list, &want), 0);

    same_ranges(&got, &want);
    /* the table gone as the replay leaves it (sc_ctx_work_calls_instead, then
     * sc_ctx_free_work_calls_unread once its work has read them; dense ids): the ranges read
     * each piece of work's call and the calls the table passed over instead */
    bool table = ctx.corr_first != NULL;
    size_t n_work = sc_work_count(&s.t);
    bool swap = table && n_work <= ctx.corr_span;
    sc_ctx_work_calls_instead(&ctx);
    assert_int_equal(ctx.work_call != NULL, swap);
    assert_int_equal(ctx.corr_first != NULL, table && !swap);
    sc_ctx_free_work_calls_unread(&ctx);
    /* both go where no range reads them after; the table stays where the pieces outnumber
     * its ids */
    assert_int_equal(ctx.work_call != NULL, swap && s.t.n_ranges > 0);
    assert_int_equal(ctx.corr_first != NULL, table && !swap && s.t.n_ranges > 0);
    sc_analysis late = {.trace = &s.t, .findings = list.items, .n_findings = list.n};
    assert_int_equal(sc_ranges_build(&ctx, &list, &late), 0);
    same_ranges(&late, &want);
    free(late.ranges);
    free(late.range_names);
    free(got.ranges);
    free(got.range_names);
    free(want.ranges);
    free(want.range_names);
    for (size_t f = 0; f < list.n; f++)
        free(list.marks[f].items);
    free(list.marks);
    free(list.items);
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
    syn_free(&s);
}

static void test_build_dense_ids(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 25; seed++)
        check_build(seed * 104729, 50 + (size_t)(seed * 53 % 300), (size_t)(seed % 6), 1,
                    seed % 3 ? 4 : 1,   /* threads 1 .. 4, or all the calls on thread 1 */
                    seed % 2 == 0);     /* fewer pieces of work than ids, or more */
}

static void test_build_sparse_ids(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 10; seed++)
        check_build(seed * 15485863, 50 + (size_t)(seed * 31 % 200), (size_t)(seed % 4),
                    100003, 4, seed % 2 == 0);
}

/* Only start/end ranges, then only push/pop ones: the sweep keeps one layout of the work. */
static void test_build_one_kind(void **state)
{
    (void)state;
    for (int only_any = 0; only_any < 2; only_any++) {
        uint64_t rng = 77 + (uint64_t)only_any;
        syn s;
        syn_init(&s);
        const uint64_t span = US(2000);
        if (only_any) {
            for (int i = 0; i < 12; i++) {
                uint64_t a = pick(&rng, span / GRID) * GRID;
                syn_range(&s, "io", a, a + pick(&rng, 40) * GRID, 1 + (uint32_t)pick(&rng, 3),
                          ANY);
            }
        } else {
            make_ranges(&s, &rng, span, 0);
        }
        make_calls(&s, &rng, span, 200, 1, 4, false);
        syn_finish(&s);
        sc_analysis a = {0};
        a.trace = &s.t;
        sc_ctx ctx = {.trace = &s.t, .analysis = &a};
        assert_int_equal(sc_ctx_build(&ctx, &a), 0);
        sc_finding_list list = {0};
        make_findings(&list, &rng, span, 3, &s.t);
        sc_analysis got = {.trace = &s.t, .findings = list.items, .n_findings = list.n};
        sc_analysis want = got;
        assert_int_equal(sc_ranges_build(&ctx, &list, &got), 0);
        assert_int_equal(ref_ranges_build(&ctx, &list, &want), 0);
        for (size_t i = 0; i < got.n_ranges; i++) {
            assert_int_equal(got.ranges[i].call_count, want.ranges[i].call_count);
            assert_int_equal(got.ranges[i].copy_count, want.ranges[i].copy_count);
            same_overlap(&got.ranges[i].overlap, &want.ranges[i].overlap);
            same_findings(got.ranges[i].findings, got.ranges[i].n_findings,
                          want.ranges[i].findings, want.ranges[i].n_findings);
        }
        free(got.ranges);
        free(got.range_names);
        free(want.ranges);
        free(want.range_names);
        for (size_t f = 0; f < list.n; f++)
            free(list.marks[f].items);
        free(list.marks);
        free(list.items);
        sc_ctx_free(&ctx);
        sc_analysis_free(&a);
        syn_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_by_hand),
        cmocka_unit_test(test_sweep_plain),
        cmocka_unit_test(test_build_dense_ids),
        cmocka_unit_test(test_build_sparse_ids),
        cmocka_unit_test(test_build_one_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
