/* The HTML page's data, embedded as JSON for the canvas timeline its script draws.
 *
 * The page must stay small and responsive for a million kernels, so the data is columnar
 * and delta-coded, with every repeated string in a table:
 *
 *   <script type="application/json" id="sc-data">
 *   { "v": 1,
 *     "axis": "shared" | "per-process",  one time 0 for all processes (the earliest start),
 *                                   or each its own (its start) when they ran far apart
 *     "span": N,                    ns from time 0 to the latest end
 *     "min_call_ns": N,             threshold of the host-thread rows
 *     "names": [[short, full], ..], kernel names (demangled short and long form), API call
 *                                   names, range names, "memcpy HtoD", ...
 *     "descs": [[kind, name, detail, sub], ..]
 *                                   what an event is: kind 0 kernel, 1 copy, 2 memset,
 *                                   3 host call, 4 NVTX range; name indexes "names"; detail
 *                                   is one line ("grid 8x1x1, block 128x1x1, 16 regs, ...");
 *                                   sub is the copy kind for copies, the call class for calls
 *     "procs": [{"label", "exe", "pid", "t0", "start", "end", "findings", "rm"}, ..]
 *         t0 = absolute ns (CUPTI clock, a string: it exceeds a double's integers) of the
 *         process's time 0; every other time of the process and its rows is relative to it
 *         findings[i] = {"rule", "sev", "title", "fix", "cost", "share", "count", "site",
 *                        "inst": [[start, duration, cost, text, "first"|"worst"], ..]}
 *         rm[i] = metrics of the range events whose "r" is i+1: [wall, kernels, busy,
 *                 concurrency, speedup, copy_busy, copy_compute, idle, findings text]
 *     "rows": [{"p": proc, "ty": "process"|"findings"|"device"|"stream"|"nvtx"|"thread",
 *               "t": [..], "d": [..], "e": [..], "r": [..]}, ..] }
 *         one entry per row of the timeline, in the order of the .row-label elements;
 *         events sorted by start: t = start minus the previous event's start (the first:
 *         minus time 0), d = duration, e = index into descs, r (NVTX rows only) = 1 + index
 *         into the process's rm, 0 when the range has no metrics. All times in ns.
 *   </script>
 *
 * Per event that is 12 to 16 bytes for typical kernels (12 for a million of them). Strings
 * are escaped for JSON inside a <script> element ('<', '>' and '&' as \u00XX) and for HTML
 * in the markup; bytes that are not UTF-8 become '?'. */
#include "report/html_data.h"

#include "streamcheck/analysis.h"

static void json_instance(sc_html_buf *o, const sc_html_model *c, size_t proc,
                          const sc_instance *in, const char *which)
{
    sc_hb_putc(o, '[');
    sc_hb_u64(o, sc_html_rel(c, proc, in->start_ns));
    sc_hb_putc(o, ',');
    sc_hb_u64(o, in->end_ns > in->start_ns ? in->end_ns - in->start_ns : 0);
    sc_hb_putc(o, ',');
    sc_hb_u64(o, in->cost_ns);
    sc_hb_putc(o, ',');
    sc_hb_jstr(o, in->text);
    sc_hb_putc(o, ',');
    sc_hb_jstr(o, which);
    sc_hb_putc(o, ']');
}

static void json_finding(sc_html_buf *o, const sc_html_model *c, size_t proc, const sc_analysis *a,
                         const sc_finding *f)
{
    char site[512];
    sc_hb_puts(o, "{\"rule\":");
    sc_hb_jstr(o, f->rule);
    sc_hb_puts(o, ",\"sev\":");
    sc_hb_jstr(o, sc_severity_name(f->severity));
    sc_hb_puts(o, ",\"title\":");
    sc_hb_jstr(o, f->title);
    sc_hb_puts(o, ",\"fix\":");
    sc_hb_jstr(o, f->fix);
    sc_hb_puts(o, ",\"cost\":");
    sc_hb_u64(o, f->cost_ns);
    sc_hb_puts(o, ",\"share\":");
    sc_hb_real(o, f->share);
    sc_hb_puts(o, ",\"count\":");
    sc_hb_u64(o, f->count);
    sc_hb_puts(o, ",\"site\":");
    sc_hb_jstr(o, f->n_sites
                      ? sc_html_site_text(c->opt, a->trace, f->sites[0].call, site, sizeof site)
                      : "-");
    sc_hb_puts(o, ",\"inst\":[");
    json_instance(o, c, proc, &f->first, "first");
    if (f->worst.start_ns != f->first.start_ns || f->worst.end_ns != f->first.end_ns) {
        sc_hb_putc(o, ',');
        json_instance(o, c, proc, &f->worst, "worst");
    }
    sc_hb_puts(o, "]}");
}

static void json_process(sc_html_buf *o, const sc_html_model *c, size_t proc, const sc_analysis *a)
{
    const sc_trace *t = a->trace;
    char label[256];
    sc_html_proc_label(t, label, sizeof label);
    sc_hb_puts(o, "{\"label\":");
    sc_hb_jstr(o, label);
    sc_hb_puts(o, ",\"exe\":");
    sc_hb_jstr(o, t->exe);
    sc_hb_puts(o, ",\"pid\":");
    sc_hb_u64(o, sc_html_pid_of(t));
    sc_hb_puts(o, ",\"t0\":\"");
    sc_hb_u64(o, c->t0[proc]);
    sc_hb_puts(o, "\",\"start\":");
    sc_hb_u64(o, sc_html_rel(c, proc, a->run_start_ns));
    sc_hb_puts(o, ",\"end\":");
    sc_hb_u64(o, sc_html_rel(c, proc, a->run_end_ns));
    sc_hb_puts(o, ",\"findings\":[");
    for (size_t i = 0; i < a->n_findings; i++) {
        if (i)
            sc_hb_putc(o, ',');
        json_finding(o, c, proc, a, &a->findings[i]);
    }
    sc_hb_puts(o, "],\"rm\":[");
    for (size_t i = 0; i < a->n_ranges; i++) {
        const sc_range_summary *rs = &a->ranges[i];
        const sc_overlap *ov = &rs->overlap;
        char text[512];
        sc_html_range_findings_text(a, rs, text, sizeof text);
        sc_hb_puts(o, i ? ",[" : "[");
        sc_hb_u64(o, rs->wall_ns);
        sc_hb_putc(o, ',');
        sc_hb_u64(o, ov->kernel_count);
        sc_hb_putc(o, ',');
        sc_hb_u64(o, ov->busy_ns);
        sc_hb_putc(o, ',');
        sc_hb_real(o, ov->concurrency);
        sc_hb_putc(o, ',');
        sc_hb_real(o, ov->speedup);
        sc_hb_putc(o, ',');
        sc_hb_u64(o, ov->copy_busy_ns);
        sc_hb_putc(o, ',');
        sc_hb_u64(o, ov->copy_compute_ns);
        sc_hb_putc(o, ',');
        sc_hb_u64(o, ov->idle_ns);
        sc_hb_putc(o, ',');
        sc_hb_jstr(o, text);
        sc_hb_putc(o, ']');
    }
    sc_hb_puts(o, "]}");
}

static void json_row(sc_html_buf *o, const sc_html_model *c, const sc_html_row *r)
{
    sc_hb_puts(o, "{\"p\":");
    sc_hb_u64(o, r->proc);
    sc_hb_puts(o, ",\"ty\":\"");
    sc_hb_puts(o, sc_html_row_type_names[r->type]);
    sc_hb_puts(o, "\",\"t\":[");
    uint64_t prev = c->t0[r->proc];
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            sc_hb_putc(o, ',');
        sc_hb_i64(o, (int64_t)(r->ev[i].start - prev));
        prev = r->ev[i].start;
    }
    sc_hb_puts(o, "],\"d\":[");
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            sc_hb_putc(o, ',');
        sc_hb_u64(o, r->ev[i].end - r->ev[i].start);
    }
    sc_hb_puts(o, "],\"e\":[");
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            sc_hb_putc(o, ',');
        sc_hb_u64(o, r->ev[i].desc);
    }
    sc_hb_putc(o, ']');
    if (r->type == SC_HTML_ROW_NVTX) {
        sc_hb_puts(o, ",\"r\":[");
        for (size_t i = 0; i < r->n; i++) {
            if (i)
                sc_hb_putc(o, ',');
            sc_hb_u64(o, r->ev[i].range);
        }
        sc_hb_putc(o, ']');
    }
    sc_hb_putc(o, '}');
}

void sc_html_data_write(sc_html_buf *o, const sc_html_model *c, const sc_analysis *const *as,
                        size_t n)
{
    sc_hb_puts(o, "{\"v\":1,\"axis\":");
    sc_hb_puts(o, c->shared ? "\"shared\"" : "\"per-process\"");
    sc_hb_puts(o, ",\"span\":");
    sc_hb_u64(o, c->span);
    sc_hb_puts(o, ",\"min_call_ns\":");
    sc_hb_u64(o, c->opt->min_call_ns);
    sc_hb_puts(o, ",\n\"names\":[");
    for (size_t i = 0; i < c->names_tab.n; i++) {
        sc_hb_puts(o, i ? ",[" : "[");
        sc_hb_jstr(o, c->names[i].shortn);
        sc_hb_putc(o, ',');
        sc_hb_jstr(o, c->names[i].full);
        sc_hb_putc(o, ']');
    }
    sc_hb_puts(o, "],\n\"descs\":[");
    for (size_t i = 0; i < c->descs_tab.n; i++) {
        const sc_html_desc *d = &c->descs[i];
        sc_hb_puts(o, i ? ",[" : "[");
        sc_hb_u64(o, d->kind);
        sc_hb_putc(o, ',');
        sc_hb_u64(o, d->name);
        sc_hb_putc(o, ',');
        sc_hb_jstr(o, d->detail);
        sc_hb_putc(o, ',');
        sc_hb_u64(o, d->sub);
        sc_hb_putc(o, ']');
    }
    sc_hb_puts(o, "],\n\"procs\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            sc_hb_putc(o, ',');
        json_process(o, c, i, as[i]);
    }
    sc_hb_puts(o, "],\n\"rows\":[");
    for (size_t i = 0; i < c->n_rows; i++) {
        if (i)
            sc_hb_puts(o, ",\n");
        json_row(o, c, &c->rows[i]);
    }
    sc_hb_puts(o, "]}");
}
