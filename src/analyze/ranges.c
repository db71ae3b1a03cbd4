/* Per-NVTX-range metrics: see ranges.h. */
#include "analyze/ranges.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/fork_join.h"
#include "analyze/overlap.h"
#include "analyze/range_sweep.h"
#include "analyze/stage_clock.h"
#include "analyze/work.h"
#include "trace/order_by_time.h"

/* The correlation id and the start of a piece of work (a ref is its work.h position). */
static uint32_t sc_range_work_corr(const sc_trace *t, size_t ref, uint64_t *start_ns)
{
    sc_work w = sc_work_at(t, ref);
    *start_ns = w.start_ns;
    return w.correlation_id;
}

/* The device work laid out for the sweep. A piece of work issued by a call is where its call
 * is: at the call's start, on the call's thread; the calls lie in start order, so the work in
 * the order of its calls (a counting sort by call) is in the order the sweep meets it, and a
 * range's work is a slice of it (of its thread's part of it for a push/pop range) from the
 * count of work met before the range's start. Work with no call in the trace has no thread
 * and lies by its own start. 4 bytes a piece of work where the window took 72 (three 24-byte
 * items), and no sort but of the work without a call. */
typedef struct sc_range_work {
    uint32_t *end;              /* per call: where its work ends in by_call */
    uint32_t *by_call;          /* work with a call, by (call, ref) */
    size_t n_by_call;
    uint32_t *by_thread;        /* by_call's work of the ranges' threads, grouped by slot, each
                                   group in by_call's order; by_call itself when one slot
                                   issued it all (built after the sweep, which counts it) */
    size_t *slot_at;            /* per slot: where its group starts in by_thread */
    uint32_t *no_call;          /* work with no call, by (start, ref) */
    size_t n_no_call;
} sc_range_work;

static void sc_range_work_free(sc_range_work *w)
{
    free(w->end);
    if (w->by_thread != w->by_call)
        free(w->by_thread);
    free(w->by_call);
    free(w->slot_at);
    free(w->no_call);
    memset(w, 0, sizeof(*w));
}

/* The slot of a call's thread, through the last thread asked (calls come in runs of one). */
typedef struct sc_slot_cache {
    uint32_t tid, slot;
    bool valid;
} sc_slot_cache;

static inline uint32_t sc_slot_of(const sc_range_sweep *s, sc_slot_cache *c, uint32_t tid)
{
    if (!c->valid || c->tid != tid)
        *c = (sc_slot_cache){tid, sc_range_sweep_slot(s, tid), true};
    return c->slot;
}

/* w->no_call in time order: the three kinds each lie by start, merged by the times' sort. */
static int sc_range_work_loose(const sc_trace *t, sc_range_work *w)
{
    uint64_t *at = malloc((w->n_no_call ? w->n_no_call : 1) * sizeof *at);
    uint32_t *order = malloc((w->n_no_call ? w->n_no_call : 1) * sizeof *order);
    int rc = at && order ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < w->n_no_call; i++)
        sc_range_work_corr(t, w->no_call[i], &at[i]);
    if (rc == 0)
        rc = sc_order_by_time_in(at, w->n_no_call, order);
    for (size_t i = 0; rc == 0 && i < w->n_no_call; i++)
        order[i] = w->no_call[order[i]];
    if (rc == 0) {
        free(w->no_call);
        w->no_call = order;
        order = NULL;
    }
    free(at);
    free(order);
    return rc;
}

/* The position of the call that issued work with this correlation id, or UINT32_MAX: what
 * sc_ctx_call() answers, with the table's test hoisted out of the loops over the work. */
static inline uint32_t sc_range_call_at(const sc_ctx *ctx, uint32_t id)
{
    if (!ctx->corr_first) {
        const sc_api_call *call = id ? sc_ctx_call_sorted(ctx, id) : NULL;
        return call ? (uint32_t)(call - ctx->trace->calls) : UINT32_MAX;
    }
    size_t at = (size_t)id - ctx->corr_min;    /* an id below corr_min (0 too) wraps */
    return at >= ctx->corr_span ? UINT32_MAX : ctx->corr_first[at];
}

/* The call of the work `ref` (with correlation id `id`), as sc_range_call_at answers: read
 * from the context's work_call once the table is gone (internal.h). */
static inline uint32_t sc_range_work_call(const sc_ctx *ctx, size_t ref, uint32_t id)
{
    return ctx->work_call ? ctx->work_call[ref] : sc_range_call_at(ctx, id);
}

static inline void sc_range_work_place(const sc_ctx *ctx, sc_range_work *w, size_t *j,
                                       uint32_t id, size_t ref)
{
    uint32_t c = sc_range_work_call(ctx, ref, id);
    if (c != UINT32_MAX)
        w->by_call[w->end[c]++] = (uint32_t)ref;
    else
        w->no_call[(*j)++] = (uint32_t)ref;
}

static inline void sc_range_work_count(const sc_ctx *ctx, sc_range_work *w, uint32_t id,
                                       size_t ref)
{
    uint32_t c = sc_range_work_call(ctx, ref, id);
    if (c != UINT32_MAX)
        w->end[c]++;
    else
        w->n_no_call++;
}

/* w->by_call (a counting sort by call: counts, their sums, then each piece in its place) and
 * w->no_call. */
static int sc_range_work_build(const sc_ctx *ctx, sc_range_work *w)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t);
    memset(w, 0, sizeof(*w));
    if (n >= UINT32_MAX || t->n_calls >= UINT32_MAX)
        return -1;
    w->end = calloc(t->n_calls + 1, sizeof *w->end);
    if (!w->end)
        return -1;
    size_t ref = 0;     /* work.h's positions: the kernels, the copies, the memsets */
    for (size_t i = 0; i < t->n_kernels; i++, ref++)
        sc_range_work_count(ctx, w, t->kernels[i].rec.correlation_id, ref);
    for (size_t i = 0; i < t->n_copies; i++, ref++)
        sc_range_work_count(ctx, w, t->copies[i].correlation_id, ref);
    for (size_t i = 0; i < t->n_memsets; i++, ref++)
        sc_range_work_count(ctx, w, t->memsets[i].correlation_id, ref);
    w->n_by_call = n - w->n_no_call;
    for (size_t c = 0, sum = 0; c < t->n_calls; c++) {
        size_t k = w->end[c];
        w->end[c] = (uint32_t)sum;  /* where its work starts; where it ends once placed */
        sum += k;
    }
    w->by_call = malloc((w->n_by_call ? w->n_by_call : 1) * sizeof *w->by_call);
    w->no_call = malloc((w->n_no_call ? w->n_no_call : 1) * sizeof *w->no_call);
    if (!w->by_call || !w->no_call)
        return -1;
    size_t j = 0;
    ref = 0;
    for (size_t i = 0; i < t->n_kernels; i++, ref++)
        sc_range_work_place(ctx, w, &j, t->kernels[i].rec.correlation_id, ref);
    for (size_t i = 0; i < t->n_copies; i++, ref++)
        sc_range_work_place(ctx, w, &j, t->copies[i].correlation_id, ref);
    for (size_t i = 0; i < t->n_memsets; i++, ref++)
        sc_range_work_place(ctx, w, &j, t->memsets[i].correlation_id, ref);
    return sc_range_work_loose(t, w);
}

/* The sums of the calls' and work's pass. */
enum { SC_Q_CALLS, SC_Q_WORK, SC_Q_LOOSE, SC_Q_N };

/* The ranges' threads' groups, once the sweep has counted each slot's work (its sums of
 * SC_Q_WORK, by_call's counts before each range's start in the order the walk met them, are
 * the ranges' places in their group): by_call itself when one slot issued all of it (the
 * usual trace: one thread launches), else its work walked again and dealt to the groups. */
static int sc_range_work_groups(const sc_ctx *ctx, const sc_sweep_pass *p, sc_range_work *w,
                                uint32_t one_slot)
{
    const sc_range_sweep *s = p->s;
    w->slot_at = calloc(s->n_slots + 1, sizeof *w->slot_at);
    if (!w->slot_at)
        return -1;
    if (one_slot != UINT32_MAX || !s->per_thread) {
        w->by_thread = w->by_call;
        return 0;
    }
    size_t sum = 0;
    for (size_t k = 0; k < s->n_slots; k++) {
        w->slot_at[k] = sum;
        sum += p->sum[k * p->k + SC_Q_WORK];
    }
    w->by_thread = malloc((sum ? sum : 1) * sizeof *w->by_thread);
    size_t *fill = calloc(s->n_slots + 1, sizeof *fill);
    int rc = w->by_thread && fill ? 0 : -1;
    const sc_trace *t = ctx->trace;
    sc_slot_cache cache = {0};
    for (size_t c = 0, from = 0; rc == 0 && c < t->n_calls; from = w->end[c++]) {
        size_t k = w->end[c] - from;
        if (k == 0)
            continue;
        uint32_t slot = sc_slot_of(s, &cache, sc_call_tid(t, &t->calls[c]));
        if (slot == s->n_slots)
            continue;   /* another thread's: no push/pop range reads it */
        memcpy(&w->by_thread[w->slot_at[slot] + fill[slot]], &w->by_call[from],
               k * sizeof *w->by_call);
        fill[slot] += k;
    }
    free(fill);
    return rc;
}

/* What the calls' walk learns beside the sums: which slot issued the work, if only one did. */
typedef struct sc_call_walk {
    sc_slot_cache cache;
    uint32_t from;              /* where the next call's work starts in by_call */
    uint32_t one_slot;          /* the slot of all the work so far; UINT32_MAX: more than one */
    bool any_work;
} sc_call_walk;

/* One call in the sweep: counted when it is the call that sc_ctx_call() names for its id
 * (a driver call made by a runtime call shares its id and is not counted again), its work,
 * by_call[from .. end[c]), counted on its thread's slot. */
static inline void sc_range_sweep_call(const sc_ctx *ctx, sc_sweep_pass *p,
                                       const sc_range_work *w, sc_call_walk *cw, size_t c)
{
    const sc_api_call *call = &ctx->trace->calls[c];
    sc_sweep_pass_to(p, call->rec.start_ns);
    uint32_t slot = sc_slot_of(p->s, &cw->cache, sc_call_tid(ctx->trace, call));
    uint32_t id = call->rec.correlation_id;
    /* with the table gone, the calls it names are those it did not pass over: an id of 0 is
     * in no table and passes over no call */
    if (ctx->work_call ? !ctx->corr_loser || !(ctx->corr_loser[c >> 3] & (1u << (c & 7)))
                       : id == 0 || sc_range_call_at(ctx, id) == c)
        sc_sweep_pass_add(p, slot, SC_Q_CALLS, 1);
    uint32_t k = w->end[c] - cw->from;
    if (k == 0)
        return;
    if (!cw->any_work)
        cw->one_slot = slot;
    else if (slot != cw->one_slot)
        cw->one_slot = UINT32_MAX;
    cw->any_work = true;
    sc_sweep_pass_add(p, slot, SC_Q_WORK, k);
    cw->from = w->end[c];
}

/* The calls and the work in one walk: the calls in start order, each with its work, merged
 * with the work without a call by its start. Returns the slot that issued all the work with
 * a call, or UINT32_MAX when more than one did. */
static uint32_t sc_range_sweep_calls(const sc_ctx *ctx, sc_sweep_pass *p,
                                     const sc_range_work *w)
{
    const sc_trace *t = ctx->trace;
    sc_call_walk cw = {{0}, 0, UINT32_MAX, false};
    uint32_t none = (uint32_t)p->s->n_slots + 1;
    size_t c = 0;
    for (size_t j = 0; j < w->n_no_call; j++) {
        uint64_t loose_t;
        sc_range_work_corr(t, w->no_call[j], &loose_t);
        for (; c < t->n_calls && t->calls[c].rec.start_ns <= loose_t; c++)
            sc_range_sweep_call(ctx, p, w, &cw, c);
        sc_sweep_pass_to(p, loose_t);
        sc_sweep_pass_add(p, none, SC_Q_LOOSE, 1);
    }
    for (; c < t->n_calls; c++)
        sc_range_sweep_call(ctx, p, w, &cw, c);
    sc_sweep_pass_end(p);
    return cw.any_work ? cw.one_slot : 0;
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
 * solo durations. The work is two slices of refs; spans has room for both. Kernels and
 * copies each keep the slices' order, which keeps the engine's points nearly in time order
 * for its sort (the metrics do not depend on it). */
static int sc_range_measure(const sc_ctx *ctx, const uint32_t *const slice[2],
                            const size_t n_slice[2], sc_overlap_span *spans, size_t n_spans,
                            sc_overlap_scratch *scratch, sc_range_summary *r)
{
    const sc_trace *t = ctx->trace;
    sc_overlap_span *ks = spans, *cs = spans + n_spans;
    size_t nk = 0, nc = 0;
    uint64_t solo = 0, known = 0;
    const sc_work_records v = sc_work_records_of(t);
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < n_slice[s]; i++) {
            sc_work_ref w = sc_work_ref_in(&v, slice[s][i]);
            size_t idx = w.index;
            if (w.kind == SC_WORK_KERNEL) {
                const sc_kernel_rec *k = &t->kernels[idx].rec;
                ks[nk++] = (sc_overlap_span){k->start_ns, k->end_ns, idx};
                solo += sc_ctx_kernel_solo_ns(ctx, idx);
                known += sc_ctx_kernel_solo_known(ctx, idx);
            } else if (w.kind == SC_WORK_MEMCPY) {
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

/* Ranges first .. end - 1 measured: their calls, their work's counts and overlap metrics,
 * from the pass's shares (at SC_Q_N a range), each range's spans at most `most`. Each part
 * writes its own ranges alone and has its own spans and scratch (fork_join.h). */
typedef struct sc_measure_part {
    const sc_ctx *ctx;
    const sc_range_sweep *s;
    const sc_range_work *w;
    const uint64_t *share, *from;
    sc_analysis *a;
    size_t first, end, most;
    const char *stage;
} sc_measure_part;

static int sc_ranges_measure_part(void *arg)
{
    const sc_measure_part *p = arg;
    sc_overlap_span *spans = malloc((p->most ? p->most : 1) * sizeof(*spans));
    sc_overlap_scratch scratch = {0};
    int rc = spans ? 0 : -1;
    for (size_t i = p->first; rc == 0 && i < p->end; i++) {
        const uint64_t *q = &p->share[i * SC_Q_N], *at = &p->from[i * SC_Q_N];
        uint32_t slot = p->s->slot[i];
        const uint32_t *group = slot == SC_SWEEP_ANY ? p->w->by_call
                                                     : p->w->by_thread + p->w->slot_at[slot];
        const uint32_t *slice[2] = {group + at[SC_Q_WORK], p->w->no_call + at[SC_Q_LOOSE]};
        const size_t n_slice[2] = {q[SC_Q_WORK], q[SC_Q_LOOSE]};
        p->a->ranges[i].call_count = q[SC_Q_CALLS];
        rc = sc_range_measure(p->ctx, slice, n_slice, spans, p->most, &scratch,
                              &p->a->ranges[i]);
    }
    free(scratch.key);
    free(spans);
    sc_stage_mark(p->stage);
    return rc;
}

/* How many pieces of work range i was dealt by the pass (share: SC_Q_N a range). */
static inline size_t sc_range_work_n(const uint64_t *share, size_t i)
{
    return share[i * SC_Q_N + SC_Q_WORK] + share[i * SC_Q_N + SC_Q_LOOSE];
}

/* Every range measured, in two parts of about as much work each: the second beside the first
 * where a core is free (sc_ctx.two_threads). */
static int sc_ranges_measure_all(const sc_ctx *ctx, const sc_range_sweep *s,
                                 const sc_range_work *w, const uint64_t *share,
                                 const uint64_t *from, sc_analysis *a)
{
    size_t most = 0, total = 0;
    for (size_t i = 0; i < a->n_ranges; i++) {
        size_t n = sc_range_work_n(share, i);
        most = n > most ? n : most;
        total += n;
    }
    size_t half = 0;
    for (size_t sum = 0; half < a->n_ranges && 2 * sum < total; half++)
        sum += sc_range_work_n(share, half);
    sc_measure_part parts[2] = {
        {ctx, s, w, share, from, a, 0, half, most, "ranges: measures"},
        {ctx, s, w, share, from, a, half, a->n_ranges, most, "ranges: later measures"},
    };
    return sc_fork_join(ctx->two_threads, (sc_part){sc_ranges_measure_part, &parts[0]},
                        (sc_part){sc_ranges_measure_part, &parts[1]});
}

/* The calls' and the work's part of every range: one sweep, then each range measured. */
static int sc_ranges_calls_work(const sc_ctx *ctx, const sc_range_sweep *s, sc_analysis *a)
{
    size_t m = (a->n_ranges ? a->n_ranges : 1) * SC_Q_N;
    uint64_t *share = malloc(m * sizeof *share), *from = malloc(m * sizeof *from);
    sc_range_work w = {0};
    sc_sweep_pass p = {0};
    int rc = share && from ? 0 : -1;
    if (rc == 0)
        rc = sc_range_work_build(ctx, &w);
    if (rc == 0)
        rc = sc_sweep_pass_begin(&p, s, SC_Q_N, share, from);
    if (rc == 0)
        rc = sc_range_work_groups(ctx, &p, &w, sc_range_sweep_calls(ctx, &p, &w));
    if (rc == 0) {
        free(w.end);
        w.end = NULL;
        if (!s->any_thread && w.by_thread != w.by_call) {
            free(w.by_call);    /* only start/end ranges read it past the groups */
            w.by_call = NULL;
        }
        sc_stage_mark("ranges: calls and work");
        rc = sc_ranges_measure_all(ctx, s, &w, share, from, a);
    }
    sc_sweep_pass_free(&p);
    sc_range_work_free(&w);
    free(share);
    free(from);
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

/* The marks of one finding in time order: as they lie when they do (*order NULL: most rules
 * add their instances as they meet them), else through *order, a sort of their times (its
 * buffers are kept from one finding to the next). Returns 0, or -1 when out of memory. */
typedef struct sc_mark_order {
    uint64_t *at;
    uint32_t *order;
    size_t cap;
} sc_mark_order;

static int sc_marks_order(const sc_mark_list *marks, sc_mark_order *o, const uint32_t **order)
{
    *order = NULL;
    size_t i = 1;
    while (i < marks->n && marks->items[i].t >= marks->items[i - 1].t)
        i++;
    if (i >= marks->n)
        return 0;
    if (marks->n >= UINT32_MAX)
        return -1;
    if (marks->n > o->cap) {
        free(o->at);
        free(o->order);
        o->at = malloc(marks->n * sizeof *o->at);
        o->order = malloc(marks->n * sizeof *o->order);
        o->cap = o->at && o->order ? marks->n : 0;
        if (!o->cap)
            return -1;
    }
    for (size_t k = 0; k < marks->n; k++)
        o->at[k] = marks->items[k].t;
    if (sc_order_by_time_in(o->at, marks->n, o->order) != 0)
        return -1;
    *order = o->order;
    return 0;
}

/* One finding's count and cost in every range: a sweep over its marks. share: 2 a range. */
static int sc_range_count_finding(const sc_analysis *a, const sc_range_sweep *s, size_t f,
                                  const sc_mark_list *marks, sc_mark_order *o, uint64_t *share,
                                  const size_t *group, sc_name_acc *acc)
{
    const uint32_t *order;
    sc_sweep_pass p;
    if (sc_marks_order(marks, o, &order) != 0 || sc_sweep_pass_begin(&p, s, 2, share, NULL) != 0)
        return -1;
    sc_slot_cache cache = {0};
    uint32_t none = (uint32_t)s->n_slots + 1;
    for (size_t k = 0; k < marks->n; k++) {
        const sc_instance_mark *m = &marks->items[order ? order[k] : k];
        sc_sweep_pass_to(&p, m->t);
        uint32_t slot = m->call ? sc_slot_of(s, &cache, sc_call_tid(a->trace, m->call)) : none;
        sc_sweep_pass_add(&p, slot, 0, 1);
        sc_sweep_pass_add(&p, slot, 1, m->cost_ns);
    }
    sc_sweep_pass_end(&p);
    sc_sweep_pass_free(&p);
    for (size_t j = 0; j < s->n; j++) {
        size_t i = s->by_start[j];
        sc_range_finding rf = {share[2 * i], share[2 * i + 1], (uint32_t)f,
                               a->findings[f].severity};
        if (rf.count == 0)
            continue;
        sc_range_summary *r = &a->ranges[i];
        sc_range_findings_insert(r->findings, &r->n_findings, &rf);
        size_t g = group[i];
        if (acc->count[g] == 0)
            acc->touched[acc->n_touched++] = g;
        acc->count[g] += rf.count;
        acc->cost[g] += rf.cost_ns;
    }
    return 0;
}

static void sc_range_names_take(const sc_analysis *a, size_t f, sc_name_acc *acc,
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

static int sc_ranges_findings(const sc_range_sweep *s, const sc_finding_list *list,
                              sc_analysis *a, const size_t *group, sc_range_name_summary *names,
                              size_t n_names)
{
    size_t m = n_names ? n_names : 1;
    sc_name_acc acc = {calloc(m, sizeof(uint64_t)), calloc(m, sizeof(uint64_t)),
                       malloc(m * sizeof(size_t)), 0};
    uint64_t *share = malloc((a->n_ranges ? a->n_ranges : 1) * 2 * sizeof *share);
    sc_mark_order o = {0};
    int rc = acc.count && acc.cost && acc.touched && share ? 0 : -1;
    for (size_t f = 0; rc == 0 && f < list->n; f++) {
        if (list->marks[f].n == 0)
            continue;
        rc = sc_range_count_finding(a, s, f, &list->marks[f], &o, share, group, &acc);
        sc_range_names_take(a, f, &acc, names);
    }
    free(o.at);
    free(o.order);
    free(share);
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
    sc_range_sweep s;
    if (sc_range_sweep_init(&s, t->ranges, t->n_ranges) != 0)
        goto done;
    if (sc_ranges_calls_work(ctx, &s, a) == 0 &&
        sc_ranges_findings(&s, list, a, group, a->range_names, n_names) == 0 &&
        sc_range_names_sum(a->ranges, a->n_ranges, group, a->range_names, n_names) == 0)
        rc = 0;
    sc_range_sweep_free(&s);
done:
    free(group);
    return rc;     /* on failure the caller frees a, ranges included */
}
