/* Per-NVTX-range metrics: see ranges.h. */
#include "analyze/ranges.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/overlap.h"
#include "analyze/window.h"

/* Work refs in the window: kernels, then copies, then memsets, each in trace order. */
enum { SC_RANGE_KERNEL, SC_RANGE_COPY, SC_RANGE_MEMSET };

static int sc_range_work_kind(const sc_trace *t, size_t ref, size_t *index)
{
    if (ref < t->n_kernels) {
        *index = ref;
        return SC_RANGE_KERNEL;
    }
    ref -= t->n_kernels;
    if (ref < t->n_copies) {
        *index = ref;
        return SC_RANGE_COPY;
    }
    *index = ref - t->n_copies;
    return SC_RANGE_MEMSET;
}

/* Where a piece of work was issued: its call's start and thread, else its own start. */
static sc_window_item sc_range_issue(const sc_ctx *ctx, uint32_t correlation_id,
                                     uint64_t start_ns, size_t ref)
{
    const sc_api_call *call = sc_ctx_call(ctx, correlation_id);
    if (!call)
        return (sc_window_item){.t = start_ns, .ref = ref};
    return (sc_window_item){call->rec.start_ns, call->rec.tid, true, ref};
}

static int sc_range_work_window(const sc_ctx *ctx, sc_window *w)
{
    const sc_trace *t = ctx->trace;
    size_t n = t->n_kernels + t->n_copies + t->n_memsets, k = 0;
    sc_window_item *items = malloc((n ? n : 1) * sizeof(*items));
    if (!items)
        return -1;
    for (size_t i = 0; i < t->n_kernels; i++, k++)
        items[k] = sc_range_issue(ctx, t->kernels[i].rec.correlation_id,
                                  t->kernels[i].rec.start_ns, k);
    for (size_t i = 0; i < t->n_copies; i++, k++)
        items[k] = sc_range_issue(ctx, t->copies[i].correlation_id, t->copies[i].start_ns, k);
    for (size_t i = 0; i < t->n_memsets; i++, k++)
        items[k] = sc_range_issue(ctx, t->memsets[i].correlation_id, t->memsets[i].start_ns, k);
    int rc = sc_window_build(w, items, n);
    free(items);
    return rc;
}

/* Reverses s[0 .. n). */
static void sc_spans_reverse(sc_overlap_span *s, size_t n)
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
static int sc_range_measure(const sc_ctx *ctx, const sc_window_hits *h, sc_overlap_span *spans,
                            size_t n_spans, sc_overlap_scratch *scratch, sc_range_summary *r)
{
    const sc_trace *t = ctx->trace;
    sc_overlap_span *ks = spans, *cs = spans + n_spans;
    size_t nk = 0, nc = 0;
    uint64_t solo = 0, known = 0;
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < h->n[s]; i++) {
            size_t idx;
            int kind = sc_range_work_kind(t, h->slice[s][i].ref, &idx);
            if (kind == SC_RANGE_KERNEL) {
                const sc_kernel_rec *k = &t->kernels[idx].rec;
                ks[nk++] = (sc_overlap_span){k->start_ns, k->end_ns, idx};
                solo += ctx->kernel_solo_ns[idx];
                known += ctx->kernel_solo_known[idx];
            } else if (kind == SC_RANGE_COPY) {
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
    sc_spans_reverse(cs, nc);
    /* all devices as one timeline: the device field only labels intervals, none kept here */
    sc_overlap_input in = {ks, nk, cs, nc, 0};
    if (sc_overlap_metrics(&in, &r->overlap, scratch) != 0)
        return -1;
    sc_overlap_set_solo(&r->overlap, solo, known);
    return 0;
}

static int sc_ranges_work(const sc_ctx *ctx, sc_analysis *a)
{
    const sc_trace *t = ctx->trace;
    size_t n = t->n_kernels + t->n_copies + t->n_memsets;
    sc_window w;
    if (sc_range_work_window(ctx, &w) != 0)
        return -1;
    sc_overlap_span *spans = malloc((n ? n : 1) * sizeof(*spans));
    sc_overlap_scratch scratch = {0};
    int rc = spans ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < a->n_ranges; i++) {
        sc_window_hits h = sc_window_query(&w, &t->ranges[i].rec);
        rc = sc_range_measure(ctx, &h, spans, n, &scratch, &a->ranges[i]);
    }
    free(scratch.key);
    free(spans);
    sc_window_free(&w);
    return rc;
}

/* The user's calls: a driver call made by a runtime call shares its correlation id, and
 * only the call that sc_ctx_call() names for an id (the runtime one) is counted. */
static int sc_ranges_calls(const sc_ctx *ctx, sc_analysis *a)
{
    const sc_trace *t = ctx->trace;
    sc_window_item *items = malloc((t->n_calls ? t->n_calls : 1) * sizeof(*items));
    if (!items)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_call_rec *r = &t->calls[i].rec;
        if (r->correlation_id == 0 || sc_ctx_call(ctx, r->correlation_id) == &t->calls[i])
            items[n++] = (sc_window_item){r->start_ns, r->tid, true, i};
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

static bool sc_range_finding_better(const sc_range_finding *x, const sc_range_finding *y)
{
    if (x->cost_ns != y->cost_ns)
        return x->cost_ns > y->cost_ns;
    if (x->count != y->count)
        return x->count > y->count;
    return x->finding < y->finding;
}

void sc_range_findings_insert(sc_range_finding *top, size_t *n, const sc_range_finding *cand)
{
    size_t at = *n;
    while (at > 0 && sc_range_finding_better(cand, &top[at - 1]))
        at--;
    if (at >= SC_MAX_RANGE_FINDINGS)
        return;
    size_t keep = *n < SC_MAX_RANGE_FINDINGS ? *n : SC_MAX_RANGE_FINDINGS - 1;
    memmove(&top[at + 1], &top[at], (keep - at) * sizeof(*top));
    top[at] = *cand;
    if (*n < SC_MAX_RANGE_FINDINGS)
        (*n)++;
}

/* Per-name sums of one finding, reset after each finding: only touched names are visited. */
typedef struct sc_name_acc {
    uint64_t *count, *cost;
    size_t *touched;
    size_t n_touched;
} sc_name_acc;

static void sc_range_count_finding(const sc_analysis *a, size_t f, const sc_mark_list *marks,
                                   const sc_window *w, const size_t *group, sc_name_acc *acc)
{
    const sc_trace *t = a->trace;
    for (size_t i = 0; i < a->n_ranges; i++) {
        sc_window_hits h = sc_window_query(w, &t->ranges[i].rec);
        sc_range_finding rf = {a->findings[f].rule, a->findings[f].severity,
                               sc_window_hits_count(&h), 0, f};
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

static void sc_range_names_take(const sc_analysis *a, size_t f, sc_name_acc *acc,
                                sc_range_name_summary *names)
{
    for (size_t i = 0; i < acc->n_touched; i++) {
        size_t g = acc->touched[i];
        sc_range_finding rf = {a->findings[f].rule, a->findings[f].severity, acc->count[g],
                               acc->cost[g], f};
        sc_range_findings_insert(names[g].findings, &names[g].n_findings, &rf);
        acc->count[g] = acc->cost[g] = 0;
    }
    acc->n_touched = 0;
}

static int sc_ranges_findings(const sc_finding_list *list, sc_analysis *a, const size_t *group,
                              sc_range_name_summary *names, size_t n_names)
{
    size_t m = n_names ? n_names : 1;
    sc_name_acc acc = {calloc(m, sizeof(uint64_t)), calloc(m, sizeof(uint64_t)),
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
        for (size_t k = 0; k < marks->n; k++)
            items[k] = (sc_window_item){marks->items[k].t, marks->items[k].tid,
                                        marks->items[k].has_tid, k};
        sc_window w;
        if (sc_window_build(&w, items, marks->n) != 0) {
            rc = -1;
            break;
        }
        sc_range_count_finding(a, f, marks, &w, group, &acc);
        sc_range_names_take(a, f, &acc, names);
        sc_window_free(&w);
    }
    free(items);
    free(acc.count);
    free(acc.cost);
    free(acc.touched);
    return rc;
}

/* ---- entry point ---------------------------------------------------------------------- */

int sc_ranges_build(const sc_ctx *ctx, const sc_finding_list *list, sc_analysis *a)
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
    if (sc_ranges_calls(ctx, a) == 0 && sc_ranges_work(ctx, a) == 0 &&
        sc_ranges_findings(list, a, group, a->range_names, n_names) == 0 &&
        sc_range_names_sum(a->ranges, a->n_ranges, group, a->range_names, n_names) == 0)
        rc = 0;
done:
    free(group);
    return rc;     /* on failure the caller frees a, ranges included */
}
