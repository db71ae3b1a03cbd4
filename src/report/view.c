#include "report/view.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/range_share.h"

#define NONE ((size_t)-1)

/* Copies a range's finding list, keeping the findings that stayed, under their new index. */
static size_t remap(const sc_range_finding *in, size_t n, const size_t *new_index,
                    size_t n_old, sc_range_finding *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i].finding >= n_old || new_index[in[i].finding] == NONE)
            continue;
        out[k] = in[i];
        out[k++].finding = (uint32_t)new_index[in[i].finding];
    }
    return k;
}

/* A finding that stays, and its index in the analysis. */
typedef struct kept_finding {
    sc_finding f;
    size_t old;
} kept_finding;

/* The analyzer's order (findings.c): cost, then severity, then rule id, then title; then
 * the analysis's own order, so equal findings keep it. */
static int by_cost(const void *pa, const void *pb)
{
    const kept_finding *kx = pa, *ky = pb;
    const sc_finding *x = &kx->f, *y = &ky->f;
    if (x->cost_ns != y->cost_ns)
        return x->cost_ns > y->cost_ns ? -1 : 1;
    if (x->severity != y->severity)
        return x->severity > y->severity ? -1 : 1;
    int c = strcmp(x->rule ? x->rule : "", y->rule ? y->rule : "");
    if (c)
        return c;
    c = strcmp(x->title, y->title);
    return c ? c : (kx->old > ky->old) - (kx->old < ky->old);
}

/* Which findings stay, and with --range their share inside the ranges. Fills `kept` (in
 * the analysis's order) and returns their number, or NONE when out of memory. */
static size_t keep_findings(const sc_analysis *a, const sc_view_options *opt, sc_view *v,
                            kept_finding *kept)
{
    sc_range_shares shares = {0};
    if (opt->range && sc_range_shares_build(a, sc_range_name_glob, opt->range, &shares) != 0)
        return NONE;
    size_t n = 0;
    for (size_t f = 0; f < a->n_findings; f++) {
        if (opt->suppress && sc_suppress_matches(opt->suppress, a, f, &opt->env)) {
            v->suppressed++;
            continue;
        }
        sc_finding copy = a->findings[f];
        if (opt->range) {
            const sc_range_share *s = &shares.per_finding[f];
            if (s->count == 0) {
                v->outside_range++;
                continue;
            }
            /* The ranges' part of the finding, rated as a saving of its own. First, worst,
             * sites and totals stay the whole finding's (the analyzer keeps no more). */
            uint64_t span = a->run_end_ns > a->run_start_ns ? a->run_end_ns - a->run_start_ns
                                                            : 0;
            copy.count = s->count < copy.count ? s->count : copy.count;
            copy.cost_ns = s->cost_ns;
            copy.share = span ? (double)s->cost_ns / (double)span : 0.0;
            copy.severity = sc_report_severity_of(s->cost_ns, a);
        }
        kept[n++] = (kept_finding){copy, f};
    }
    sc_range_shares_free(&shares);
    return n;
}

/* The view's ranges and range rows: those of the names --range keeps, their finding lists
 * remapped to the findings that stayed. Returns 0, or -1 when out of memory. */
static int keep_ranges(const sc_analysis *a, const sc_view_options *opt, const size_t *new_index,
                       sc_view *out)
{
    out->analysis.ranges = calloc(a->n_ranges ? a->n_ranges : 1, sizeof *a->ranges);
    out->analysis.range_names = calloc(a->n_range_names ? a->n_range_names : 1,
                                       sizeof *a->range_names);
    if (!out->analysis.ranges || !out->analysis.range_names)
        return -1;
    size_t nr = 0;
    for (size_t i = 0; i < a->n_ranges; i++) {
        const sc_range_summary *rs = &a->ranges[i];
        if (opt->range && !sc_range_name_glob(rs->range && rs->range->name ? rs->range->name
                                                                           : "", opt->range))
            continue;
        sc_range_summary *r = &out->analysis.ranges[nr++];
        *r = *rs;
        r->n_findings = remap(rs->findings, rs->n_findings, new_index, a->n_findings,
                              r->findings);
    }
    out->analysis.n_ranges = nr;
    size_t nn = 0;
    for (size_t i = 0; i < a->n_range_names; i++) {
        const sc_range_name_summary *rs = &a->range_names[i];
        if (opt->range && !sc_range_name_glob(rs->name ? rs->name : "", opt->range))
            continue;
        sc_range_name_summary *r = &out->analysis.range_names[nn++];
        *r = *rs;
        r->n_findings = remap(rs->findings, rs->n_findings, new_index, a->n_findings,
                              r->findings);
    }
    out->analysis.n_range_names = nn;
    return 0;
}

int sc_view_build(const sc_analysis *a, const sc_view_options *opt, sc_view *out)
{
    memset(out, 0, sizeof *out);
    out->analysis = *a;
    out->analysis.findings = NULL;
    out->analysis.ranges = NULL;
    out->analysis.range_names = NULL;
    size_t nf = a->n_findings ? a->n_findings : 1;
    kept_finding *kept = calloc(nf, sizeof *kept);
    size_t *new_index = calloc(nf, sizeof *new_index);
    out->analysis.findings = calloc(nf, sizeof *out->analysis.findings);
    size_t n = NONE;
    if (kept && new_index && out->analysis.findings)
        n = keep_findings(a, opt, out, kept);
    if (n == NONE) {
        free(kept);
        free(new_index);
        sc_view_free(out);
        return -1;
    }
    /* Shares change the costs: sort again, as the analyzer orders its findings. */
    if (opt->range)
        qsort(kept, n, sizeof *kept, by_cost);
    for (size_t f = 0; f < a->n_findings; f++)
        new_index[f] = NONE;
    for (size_t i = 0; i < n; i++) {
        new_index[kept[i].old] = i;
        out->analysis.findings[i] = kept[i].f;
    }
    out->analysis.n_findings = n;
    free(kept);
    /* Every finding stayed, in its place, and every range: the copies would be the
     * analysis's ranges byte for byte (each range names findings of this analysis, by
     * index), so the view reads those, as it reads the devices and streams (the 10M-record
     * synthetic trace has 192,250 ranges: 72 MB of copies). */
    if (!opt->range && n == a->n_findings) {
        out->analysis.ranges = a->ranges;
        out->analysis.range_names = a->range_names;
        out->shares_ranges = true;
        free(new_index);
        return 0;
    }
    int rc = keep_ranges(a, opt, new_index, out);
    free(new_index);
    if (rc != 0)
        sc_view_free(out);
    return rc;
}

void sc_view_free(sc_view *v)
{
    free(v->analysis.findings);
    if (!v->shares_ranges) {
        free(v->analysis.ranges);
        free(v->analysis.range_names);
    }
    memset(v, 0, sizeof *v);
}
