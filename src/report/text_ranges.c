/* The NVTX range table: see text_ranges.h. Same layout rule as text.c: human units here,
 * exact values and every single range in the JSON output. */
#include "report/text_ranges.h"

#include <inttypes.h>

#include "report/units.h"

#define RANGE_NAME_WIDTH 24

static const char *range_label(const sc_range_name_summary *r, char *buf, size_t n)
{
    if (r->domain)
        snprintf(buf, n, "%s:%s", r->domain, r->name ? r->name : "?");
    else
        snprintf(buf, n, "%s", r->name ? r->name : "?");
    return buf;
}

/* "legacy-stream 3x 1.20 ms": the costliest finding issued inside the ranges. */
static const char *top_finding(const sc_analysis *a, const sc_range_name_summary *r, char *buf,
                               size_t n)
{
    char b1[SC_FMT_SIZE];
    if (r->n_findings == 0) {
        snprintf(buf, n, "-");
        return buf;
    }
    const sc_range_finding *f = &r->findings[0];
    snprintf(buf, n, "%s %" PRIu64 "x %s", sc_range_finding_rule(a, f), f->count,
             sc_report_fmt_ns(f->cost_ns, b1));
    return buf;
}

static void print_row(FILE *out, const sc_analysis *a, const sc_range_name_summary *r)
{
    char name[RANGE_NAME_WIDTH + 1], label[256], top[128];
    char wall[SC_FMT_SIZE], mean[SC_FMT_SIZE], busy[SC_FMT_SIZE], cc[SC_FMT_SIZE],
        idle[SC_FMT_SIZE], conc[16] = "-", prod[16] = "-";
    const sc_overlap *o = &r->overlap;
    snprintf(name, sizeof name, "%.*s", RANGE_NAME_WIDTH, range_label(r, label, sizeof label));
    sc_report_fmt_ns(r->wall_ns, wall);
    sc_report_fmt_ns(r->count ? r->wall_ns / r->count : 0, mean);
    sc_report_fmt_ns(o->busy_ns, busy);
    if (o->copy_busy_ns)
        sc_report_fmt_ns(o->copy_compute_ns, cc);
    else
        snprintf(cc, sizeof cc, "-");   /* no copies: nothing that could overlap */
    sc_report_fmt_ns(o->idle_ns, idle);
    if (o->kernel_count) {  /* ratios of nothing would read as "0.00x", a slowdown */
        snprintf(conc, sizeof conc, "%.2fx", o->concurrency);
        char b[SC_FMT_SIZE];
        snprintf(prod, sizeof prod, "%s", sc_report_fmt_speedup(o, b));
    }
    fprintf(out, "  %-*s %6" PRIu64 " %7" PRIu64 " %9s %9s %9s %6s %6s %9s %9s  %s\n",
            RANGE_NAME_WIDTH, name, r->count, r->call_count, wall, mean, busy, conc, prod, cc,
            idle, top_finding(a, r, top, sizeof top));
}

void sc_text_ranges(FILE *out, const sc_analysis *a)
{
    if (a->n_ranges == 0)
        return;
    fprintf(out, "\nranges (NVTX): %zu range%s under %zu name%s; one row per name, times summed "
            "over its ranges\n", a->n_ranges, a->n_ranges == 1 ? "" : "s", a->n_range_names,
            a->n_range_names == 1 ? "" : "s");
    fprintf(out, "  (calls and work issued inside a range: on its thread for push/pop, on any "
            "for start/end)\n");
    fprintf(out, "  %-*s %6s %7s %9s %9s %9s %6s %6s %9s %9s  %s\n", RANGE_NAME_WIDTH, "name",
            "count", "calls", "wall", "mean", "busy", "conc", "prod", "copy/comp", "idle",
            "top finding");
    size_t shown = a->n_range_names < SC_TEXT_MAX_RANGE_ROWS ? a->n_range_names
                                                             : SC_TEXT_MAX_RANGE_ROWS;
    for (size_t i = 0; i < shown; i++)
        print_row(out, a, &a->range_names[i]);
    if (a->n_range_names > shown)
        fprintf(out, "  (%zu more names in the JSON report)\n", a->n_range_names - shown);
}
