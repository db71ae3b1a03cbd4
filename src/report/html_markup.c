/* The HTML page itself: head and style, a header line per process, the toolbar, the
 * timeline's row labels beside its canvas, the tables (findings, NVTX ranges, range names,
 * devices), the data and the script. */
#include "report/html_markup.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "html_assets.h"     /* html/page.css, toolbar.html, page.js (meson.build) */
#include "report/html_data.h"
#include "report/names.h"
#include "report/units.h"

static void html_header(sc_html_buf *o, const sc_analysis *const *as, size_t n)
{
    char b1[SC_FMT_SIZE];
    sc_hb_puts(o, "<section id=\"processes\">\n");
    if (n == 0)
        sc_hb_puts(o, "<p class=\"proc\">no processes: no trace could be read</p>\n");
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        const sc_trace *t = a->trace;
        sc_hb_puts(o, "<p class=\"proc\"><b>");
        sc_hb_html(o, t->exe ? t->exe : "?");
        sc_hb_printf(o, "</b> (pid %u): %s, %zu device%s, %zu kernels, %zu copies, %zu memsets, "
                  "%zu API calls, %zu NVTX ranges, %zu finding%s &middot; <span class=\"path\">",
                  sc_html_pid_of(t), sc_report_fmt_ns(a->run_end_ns > a->run_start_ns
                                                  ? a->run_end_ns - a->run_start_ns : 0, b1),
                  a->n_devices, a->n_devices == 1 ? "" : "s", t->n_kernels, t->n_copies,
                  t->n_memsets, t->n_calls, t->n_ranges, a->n_findings,
                  a->n_findings == 1 ? "" : "s");
        sc_hb_html(o, t->path ? t->path : "?");
        sc_hb_puts(o, "</span></p>\n");
        if (t->status != SC_TRACE_COMPLETE) {
            sc_hb_printf(o, "<p class=\"warn\">%s trace: ",
                      t->status == SC_TRACE_PARTIAL ? "PARTIAL" : "TRUNCATED");
            sc_hb_html(o, t->status_detail[0] ? t->status_detail
                                           : "the numbers cover what was recorded");
            sc_hb_puts(o, "</p>\n");
        }
        if (t->has_end && t->end.dropped_records)
            sc_hb_printf(o, "<p class=\"warn\">CUPTI dropped %" PRIu64 " activity records: the "
                      "timeline and the metrics undercount</p>\n", t->end.dropped_records);
        for (size_t j = 0; j < t->n_notes; j++) {
            sc_hb_puts(o, "<p class=\"warn\">note: ");
            sc_hb_html(o, t->notes[j].text ? t->notes[j].text
                                        : sc_report_note_name(t->notes[j].code));
            sc_hb_puts(o, "</p>\n");
        }
    }
    sc_hb_puts(o, "</section>\n");
}

static void html_labels(sc_html_buf *o, const sc_html_model *c)
{
    sc_hb_puts(o, "<div class=\"tl-labels\"><div class=\"axis-spacer\"></div>\n");
    for (size_t i = 0; i < c->n_rows; i++) {
        const sc_html_row *r = &c->rows[i];
        sc_hb_printf(o, "<div class=\"row-label %s\" data-row=\"%zu\" title=\"",
                  sc_html_row_type_names[r->type], i);
        sc_hb_html(o, r->title);
        sc_hb_puts(o, "\"><span class=\"l\">");
        sc_hb_html(o, r->label);
        sc_hb_puts(o, "</span> <span class=\"s\">");
        sc_hb_html(o, r->sub);
        sc_hb_puts(o, "</span></div>\n");
    }
    sc_hb_puts(o, "</div>\n");
}

static void td(sc_html_buf *o, const char *cls, const char *text)
{
    if (cls)
        sc_hb_printf(o, "<td class=\"%s\">", cls);
    else
        sc_hb_puts(o, "<td>");
    sc_hb_html(o, text);
    sc_hb_puts(o, "</td>");
}

static void td_count(sc_html_buf *o, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, v);
    td(o, "num", text);
}

/* Concurrency and speedup: "1.84x". */
static void td_ratio(sc_html_buf *o, double x)
{
    char text[256];
    snprintf(text, sizeof text, "%.2fx", x);
    td(o, "num", text);
}

/* Copy time that overlapped kernels, of all copy time: "1.20 ms of 3.40 ms". */
static void td_copy_compute(sc_html_buf *o, const sc_overlap *ov)
{
    char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], text[2 * SC_FMT_SIZE + 8];
    snprintf(text, sizeof text, "%s of %s", sc_report_fmt_ns(ov->copy_compute_ns, b1),
             sc_report_fmt_ns(ov->copy_busy_ns, b2));
    td(o, "num", text);
}

/* The device work issued inside NVTX ranges, as both range tables show it: kernels, busy,
 * concurrency, speedup, copy/compute, idle. */
static void td_range_work(sc_html_buf *o, const sc_overlap *ov)
{
    char b1[SC_FMT_SIZE];
    td_count(o, ov->kernel_count);
    td(o, "num", sc_report_fmt_ns(ov->busy_ns, b1));
    td_ratio(o, ov->concurrency);
    td(o, "num", sc_report_fmt_speedup(ov, b1));
    td_copy_compute(o, ov);
    td(o, "num", sc_report_fmt_ns(ov->idle_ns, b1));
}

/* "domain: name" (the default domain unnamed), then a dot per nesting level up to 8. */
static void td_range_name(sc_html_buf *o, const char *domain, const char *name, uint32_t depth)
{
    sc_hb_puts(o, "<td class=\"name\">");
    if (domain) {
        sc_hb_html(o, domain);
        sc_hb_puts(o, ": ");
    }
    sc_hb_html(o, name ? name : "?");
    for (uint32_t d = 0; d < depth && d < 8; d++)
        sc_hb_puts(o, " <span class=\"depth\">&middot;</span>");
    sc_hb_puts(o, "</td>");
}

static void html_findings(sc_html_buf *o, const sc_html_model *c, const sc_analysis *const *as,
                          size_t n)
{
    sc_hb_puts(o, "<h2>Findings</h2>\n<table id=\"findings\">\n<thead><tr><th>process</th>"
               "<th>rule</th><th>severity</th><th>cost</th><th>share</th><th>count</th>"
               "<th>what</th><th>fix</th><th>top call site</th></tr></thead>\n<tbody>\n");
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        char label[256], b1[SC_FMT_SIZE], num[64], site[512];
        sc_html_proc_label(a->trace, label, sizeof label);
        for (size_t j = 0; j < a->n_findings; j++, total++) {
            const sc_finding *f = &a->findings[j];
            sc_hb_printf(o, "<tr class=\"finding %s\" data-p=\"%zu\" data-f=\"%zu\" "
                      "title=\"click: show its worst instance on the timeline\">",
                      sc_severity_name(f->severity), i, j);
            td(o, NULL, label);
            td(o, "rule", f->rule);
            td(o, "sev", sc_severity_name(f->severity));
            td(o, "num", sc_report_fmt_ns(f->cost_ns, b1));
            snprintf(num, sizeof num, "%.1f%%", f->share * 100.0);
            td(o, "num", num);
            td_count(o, f->count);
            td(o, NULL, f->title);
            td(o, NULL, f->fix);
            td(o, "site", f->n_sites ? sc_html_site_text(c->opt, a->trace, f->sites[0].call, site,
                                                 sizeof site) : "-");
            sc_hb_puts(o, "</tr>\n");
        }
    }
    if (total == 0)
        sc_hb_puts(o, "<tr class=\"none\"><td colspan=\"9\">no findings</td></tr>\n");
    sc_hb_puts(o, "</tbody>\n</table>\n");
}

static void html_ranges(sc_html_buf *o, const sc_html_model *c, const sc_analysis *const *as,
                        size_t n)
{
    sc_hb_puts(o, "<h2>NVTX ranges</h2>\n<table id=\"ranges\">\n<thead><tr><th>process</th>"
               "<th>range</th><th>thread</th><th>start</th><th>wall</th><th>kernels</th>"
               "<th>busy</th><th>concurrency</th><th>speedup</th><th>copy/compute</th>"
               "<th>idle</th><th>findings</th></tr></thead>\n<tbody>\n");
    size_t shown = 0, total = 0, recorded = 0;
    size_t limit = c->opt->max_range_rows ? c->opt->max_range_rows : SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        char label[256], b1[SC_FMT_SIZE], text[512];
        sc_html_proc_label(a->trace, label, sizeof label);
        recorded += a->trace->n_ranges;
        total += a->n_ranges;
        for (size_t j = 0; j < a->n_ranges && shown < limit; j++, shown++) {
            const sc_range_summary *rs = &a->ranges[j];
            const sc_range *rg = rs->range;
            sc_hb_puts(o, "<tr class=\"range\">");
            td(o, NULL, label);
            td_range_name(o, rg ? rg->domain : NULL, rg ? rg->name : NULL,
                          rg ? rg->rec.depth : 0);
            snprintf(text, sizeof text, "%u", rg ? rg->rec.tid : 0);
            td(o, "num", text);
            snprintf(text, sizeof text, "+%s",
                     sc_report_fmt_ns(rg ? sc_html_rel(c, i, rg->rec.start_ns) : 0, b1));
            td(o, "num", text);
            td(o, "num", sc_report_fmt_ns(rs->wall_ns, b1));
            td_range_work(o, &rs->overlap);
            sc_html_range_findings_text(a, rs, text, sizeof text);
            td(o, NULL, text[0] ? text : "-");
            sc_hb_puts(o, "</tr>\n");
        }
    }
    if (total == 0 && recorded == 0)
        sc_hb_puts(o, "<tr class=\"none\"><td colspan=\"12\">no NVTX ranges recorded</td></tr>\n");
    else if (total == 0)
        sc_hb_printf(o, "<tr class=\"none\"><td colspan=\"12\">%zu NVTX ranges recorded; the "
                  "analysis has no per-range metrics for them</td></tr>\n", recorded);
    else if (shown < total)
        sc_hb_printf(o, "<tr class=\"none\"><td colspan=\"12\">%zu more ranges not shown (the "
                  "JSON report has them all)</td></tr>\n", total - shown);
    sc_hb_puts(o, "</tbody>\n</table>\n");
}

/* The ranges of each name together: a loop's thousands of "step" ranges in one line. */
static void html_range_names(sc_html_buf *o, const sc_html_model *c, const sc_analysis *const *as,
                             size_t n)
{
    size_t total = 0, shown = 0;
    size_t limit = c->opt->max_range_rows ? c->opt->max_range_rows : SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        total += as[i]->n_range_names;
    if (total == 0)
        return;
    sc_hb_puts(o, "<h2>NVTX ranges by name</h2>\n<table id=\"range-names\">\n<thead><tr>"
               "<th>process</th><th>range</th><th>count</th><th>wall</th><th>longest</th>"
               "<th>kernels</th><th>busy</th><th>concurrency</th><th>speedup</th>"
               "<th>copy/compute</th><th>idle</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        char label[256], b1[SC_FMT_SIZE];
        sc_html_proc_label(a->trace, label, sizeof label);
        for (size_t j = 0; j < a->n_range_names && shown < limit; j++, shown++) {
            const sc_range_name_summary *rn = &a->range_names[j];
            sc_hb_puts(o, "<tr class=\"range-name\">");
            td(o, NULL, label);
            td_range_name(o, rn->domain, rn->name, 0);
            td_count(o, rn->count);
            td(o, "num", sc_report_fmt_ns(rn->wall_ns, b1));
            td(o, "num", sc_report_fmt_ns(rn->max_wall_ns, b1));
            td_range_work(o, &rn->overlap);
            sc_hb_puts(o, "</tr>\n");
        }
    }
    if (shown < total)
        sc_hb_printf(o, "<tr class=\"none\"><td colspan=\"11\">%zu more names not shown</td>"
                  "</tr>\n", total - shown);
    sc_hb_puts(o, "</tbody>\n</table>\n");
}

static void html_devices(sc_html_buf *o, const sc_analysis *const *as, size_t n)
{
    sc_hb_puts(o, "<h2>Devices</h2>\n<table id=\"devices\">\n<thead><tr><th>process</th>"
               "<th>device</th><th>kernels</th><th>span</th><th>busy</th><th>concurrency</th>"
               "<th>2+ kernels</th><th>speedup</th><th>copy/compute</th><th>idle gaps</th>"
               "</tr></thead>\n<tbody>\n");
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        char label[256], b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], text[256];
        sc_html_proc_label(a->trace, label, sizeof label);
        for (size_t j = 0; j < a->n_devices; j++, total++) {
            const sc_device_summary *d = &a->devices[j];
            const sc_overlap *ov = &d->overlap;
            uint64_t span = sc_html_span_of(ov);
            sc_hb_puts(o, "<tr class=\"device\">");
            td(o, NULL, label);
            snprintf(text, sizeof text, "%u %s", d->device,
                     d->info && d->info->name ? d->info->name : "");
            td(o, NULL, text);
            td_count(o, ov->kernel_count);
            td(o, "num", sc_report_fmt_ns(span, b1));
            snprintf(text, sizeof text, "%s (%.1f%%)", sc_report_fmt_ns(ov->busy_ns, b1),
                     span ? 100.0 * (double)ov->busy_ns / (double)span : 0.0);
            td(o, "num", text);
            td_ratio(o, ov->concurrency);
            td(o, "num", sc_report_fmt_ns(ov->overlap_ns, b1));
            snprintf(text, sizeof text, "%s (%" PRIu64 " of %" PRIu64 " timed solo)",
                     sc_report_fmt_speedup(ov, b1), ov->solo_known, ov->kernel_count);
            td(o, "num", text);
            td_copy_compute(o, ov);
            snprintf(text, sizeof text, "%s in %" PRIu64 ", longest %s",
                     sc_report_fmt_ns(ov->idle_ns, b1), ov->gap_count,
                     sc_report_fmt_ns(ov->longest_gap_ns, b2));
            td(o, "num", text);
            sc_hb_puts(o, "</tr>\n");
        }
    }
    if (total == 0)
        sc_hb_puts(o, "<tr class=\"none\"><td colspan=\"10\">no devices</td></tr>\n");
    sc_hb_puts(o, "</tbody>\n</table>\n");
}

void sc_html_page_write(sc_html_buf *o, const sc_html_model *c, const sc_analysis *const *as,
                        size_t n)
{
    const char *title = c->opt->title ? c->opt->title : "streamcheck report";
    sc_hb_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>");
    sc_hb_html(o, title);
    sc_hb_puts(o, "</title>\n<style>\n");
    sc_hb_puts(o, sc_html_css);
    sc_hb_puts(o, "</style>\n</head>\n<body>\n<header><h1>");
    sc_hb_html(o, title);
    sc_hb_puts(o, "</h1></header>\n");
    html_header(o, as, n);
    sc_hb_puts(o, sc_html_toolbar);
    sc_hb_puts(o, "<div id=\"timeline\" tabindex=\"0\">\n");
    html_labels(o, c);
    sc_hb_puts(o, "<div class=\"tl-canvas\"><canvas></canvas></div>\n</div>\n"
               "<div id=\"tooltip\" hidden></div>\n<section id=\"tables\">\n");
    html_findings(o, c, as, n);
    html_ranges(o, c, as, n);
    html_range_names(o, c, as, n);
    html_devices(o, as, n);
    sc_hb_puts(o, "</section>\n<footer>streamcheck-report");
    if (c->opt->tool_version) {
        sc_hb_putc(o, ' ');
        sc_hb_html(o, c->opt->tool_version);
    }
    sc_hb_puts(o, c->shared ? "; times are relative to the earliest start of the processes shown"
                         : "; the processes ran far apart in time (different runs or clocks): "
                           "each one's times are relative to its own start");
    sc_hb_puts(o, "</footer>\n<script type=\"application/json\" id=\"sc-data\">");
    sc_html_data_write(o, c, as, n);
    sc_hb_puts(o, "</script>\n<script>\n");
    sc_hb_puts(o, sc_html_js);
    sc_hb_puts(o, "</script>\n</body>\n</html>\n");
}
