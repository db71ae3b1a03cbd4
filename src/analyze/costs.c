/* A finding's cost is what its fix would save: the run replayed as recorded minus the run
 * replayed without the killer (replay.h). Set here for every finding, after the rules, so
 * that every rule is costed one way:
 *   cost       max(0, span(replay) - span(replay with the finding's fixes))
 *   instances  share the cost in proportion to what each measured (its wait, its idle time);
 *              so do the sites and the per-range counts
 *   severity   from the cost's share of the run (analysis.h's thresholds): a finding that
 *              saves nothing is a note
 *   join       it waited at least SC_WARNING_MIN_NS, yet its fix saves less than a twentieth
 *              of that and too little to be more than a note: the run, or a later
 *              synchronization, waits for the same work anyway
 *   same wait  two findings whose fixes remove the same edges (legacy-stream and
 *              blocking-stream name one barrier from both sides): both show the saving, the
 *              total counts it once
 * The summary keeps the replay's fidelity and the span with every fix applied; the ranges
 * keep their replayed wall times with and without the fixes. */
#include "analyze/costs.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/replay.h"
#include "trace/sort.h"

#define SC_JOIN_SHARE 0.05

static uint64_t sc_scale(uint64_t v, double factor)
{
    double x = (double)v * factor;
    return x <= 0.0 ? 0 : (uint64_t)(x + 0.5);
}

/* Spreads the finding's saving over what its instances, sites and marks measured. */
static void sc_cost_apportion(sc_finding *f, sc_mark_list *marks, uint64_t saving)
{
    double factor = f->waited_ns ? (double)saving / (double)f->waited_ns : 0.0;
    bool equal = f->waited_ns == 0 && f->count > 0;     /* nothing measured: equal shares */
    uint64_t each = equal ? saving / f->count : 0;
    f->first.cost_ns = equal ? each : sc_scale(f->first.cost_ns, factor);
    f->worst.cost_ns = equal ? each : sc_scale(f->worst.cost_ns, factor);
    for (size_t s = 0; s < f->n_sites; s++)
        f->sites[s].cost_ns = equal ? each * f->sites[s].count
                                    : sc_scale(f->sites[s].cost_ns, factor);
    for (size_t k = 0; marks && k < marks->n; k++)
        marks->items[k].cost_ns = equal ? each : sc_scale(marks->items[k].cost_ns, factor);
    f->cost_ns = saving;
}

static int sc_fix_cmp(const void *pa, const void *pb)
{
    const sc_fix *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Two sorted fix lists that remove an edge in common describe the same wait: one merge pass
 * (fix lists grow with the trace; comparing every pair of entries was quadratic). */
static bool sc_fixes_share(const sc_fix *a, size_t na, const sc_fix *b, size_t nb)
{
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int c = sc_fix_cmp(&a[i], &b[j]);
        if (c == 0)
            return true;
        if (c < 0)
            i++;
        else
            j++;
    }
    return false;
}

static void sc_cost_judge(const sc_ctx *ctx, sc_finding *f, bool replayed)
{
    f->share = ctx->run_span_ns ? (double)f->cost_ns / (double)ctx->run_span_ns : 0.0;
    f->severity = sc_severity_of_saving(f->cost_ns, ctx->run_span_ns);
    f->join = replayed && f->severity == SC_SEV_NOTE && f->waited_ns >= SC_WARNING_MIN_NS &&
              (double)f->cost_ns < SC_JOIN_SHARE * (double)f->waited_ns;
}

/* Each finding's fixes sorted (copies: the replay keeps its own order), then every pair of
 * findings of different rules compared in list order, as the report names the first. */
static int sc_cost_same_waits(sc_finding_list *list)
{
    size_t n_all = 0;
    for (size_t i = 0; i < list->n; i++)
        n_all += list->fixes[i].n;
    sc_fix *sorted = malloc((n_all ? n_all : 1) * sizeof *sorted);
    size_t *first = malloc((list->n + 1) * sizeof *first);
    if (!sorted || !first) {
        free(sorted);
        free(first);
        return -1;
    }
    first[0] = 0;
    for (size_t i = 0; i < list->n; i++) {
        sc_fix *own = sorted + first[i];
        if (list->fixes[i].n)
            memcpy(own, list->fixes[i].items, list->fixes[i].n * sizeof *own);
        sc_sort(own, list->fixes[i].n, sizeof *own, sc_fix_cmp);
        first[i + 1] = first[i] + list->fixes[i].n;
    }
    for (size_t i = 0; i < list->n; i++)
        for (size_t j = 0; j < list->n && !list->items[i].same_wait_as; j++)
            if (i != j && strcmp(list->items[i].rule, list->items[j].rule) != 0 &&
                sc_fixes_share(sorted + first[i], first[i + 1] - first[i],
                               sorted + first[j], first[j + 1] - first[j]))
                list->items[i].same_wait_as = list->items[j].rule;
    free(sorted);
    free(first);
    return 0;
}

/* The first finding before i whose fixes are finding i's, in the same order (a pass is a
 * function of its fixes: the same span); i when none. */
static size_t sc_cost_same_fixes(const sc_finding_list *list, size_t i)
{
    const sc_fix_list *b = &list->fixes[i];
    for (size_t j = 0; j < i; j++) {
        const sc_fix_list *a = &list->fixes[j];
        if (a->n != b->n)
            continue;
        size_t k = 0;
        while (k < a->n && a->items[k].kind == b->items[k].kind &&
               a->items[k].index == b->items[k].index && a->items[k].ns == b->items[k].ns)
            k++;
        if (k == a->n)
            return j;
    }
    return i;
}

/* The calls the findings' fixes name (sc_replay_build keeps their items alone): *n of them,
 * with repeats, or NULL without memory. */
static uint64_t *sc_cost_fix_calls(const sc_finding_list *list, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < list->n; i++)
        for (size_t k = 0; k < list->fixes[i].n; k++)
            *n += sc_fix_names_item(list->fixes[i].items[k].kind);
    uint64_t *calls = malloc((*n ? *n : 1) * sizeof *calls);
    for (size_t i = 0, j = 0; calls && i < list->n; i++)
        for (size_t k = 0; k < list->fixes[i].n; k++)
            if (sc_fix_names_item(list->fixes[i].items[k].kind))
                calls[j++] = list->fixes[i].items[k].index;
    return calls;
}

int sc_costs_compute(sc_ctx *ctx, sc_finding_list *list, sc_replay_summary *summary,
                     uint64_t **range_walls)
{
    const sc_trace *t = ctx->trace;
    sc_replay *r = NULL;
    size_t n_calls;
    uint64_t *calls = sc_cost_fix_calls(list, &n_calls);
    int built = calls ? sc_replay_build(ctx, calls, n_calls, &r) : -1;
    free(calls);
    if (built != 0) {
        sc_replay_free(r);
        return -1;
    }
    sc_replay_describe(r, summary);
    uint64_t base = summary->plain_span_ns;
    uint64_t *walls = calloc(2 * t->n_ranges + 1, sizeof *walls);
    if (!walls) {
        sc_replay_free(r);
        return -1;
    }
    sc_replay_run(r, NULL, 0);
    for (size_t g = 0; g < t->n_ranges; g++)
        walls[2 * g] = sc_replay_range_wall(r, g);
    size_t n_fixed = 0;         /* findings with fixes, each run as a pass of its own */
    uint64_t fixed_span = base;
    /* each finding's span, for a later finding with the same fixes (without memory: each
     * runs its own pass) */
    uint64_t *spans = malloc((list->n ? list->n : 1) * sizeof *spans);
    for (size_t i = 0; i < list->n; i++) {
        sc_finding *f = &list->items[i];
        uint64_t span = base;
        if (list->fixes[i].n) {
            size_t same = spans ? sc_cost_same_fixes(list, i) : i;
            span = same < i ? spans[same] : sc_replay_run(r, &list->fixes[i], 1);
            n_fixed++;
            fixed_span = span;
        }
        if (spans)
            spans[i] = span;
        sc_cost_apportion(f, list->marks ? &list->marks[i] : NULL, base > span ? base - span : 0);
        sc_cost_judge(ctx, f, summary->done);
    }
    /* The run with every finding's fixes, taken from their lists as they are. When one
     * finding alone has fixes, that is the pass just run, whose times the pass arrays still
     * hold (a pass is a function of its fixes alone): not walked again. */
    summary->fixed_span_ns = n_fixed == 1 ? fixed_span : sc_replay_run(r, list->fixes, list->n);
    free(spans);
    for (size_t g = 0; g < t->n_ranges; g++)
        walls[2 * g + 1] = sc_replay_range_wall(r, g);
    sc_replay_free(r);
    /* after the replay is gone: the copy it sorts of every fix is not held beside the
     * passes' arrays, the peak of memory */
    if (sc_cost_same_waits(list) != 0) {
        free(walls);
        return -1;
    }
    *range_walls = walls;
    return 0;
}
