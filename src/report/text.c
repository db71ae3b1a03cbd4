/* Text report. Layout rule: one fact per line, label first, numbers in human units; exact
 * values belong to the JSON output. */
#include "report/text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/demangle.h"
#include "report/merge.h"
#include "report/scope.h"
#include "report/names.h"
#include "report/text_comm.h"
#include "report/text_copies.h"
#include "report/text_ranges.h"
#include "report/units.h"

#define NAME_WIDTH 64       /* kernel names in interval lines */
#define SITE_WIDTH 512

void sc_text_options_init(sc_text_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->max_sites = 3;
    opt->max_intervals = 5;
}

static const char *exe_name(const sc_analysis *a)
{
    const sc_trace *t = a->trace;
    return t->exe && t->exe[0] ? t->exe : "?";
}

static unsigned pid_of(const sc_analysis *a)
{
    return a->trace->has_process ? a->trace->process.pid : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static uint64_t run_span(const sc_analysis *a)
{
    return a->run_end_ns > a->run_start_ns ? a->run_end_ns - a->run_start_ns : 0;
}

/* "+1.23 ms": times are shown relative to the first event of the run. */
static const char *rel(const sc_analysis *a, uint64_t ns, char buf[SC_FMT_SIZE])
{
    char t[SC_FMT_SIZE];
    sc_report_fmt_ns(ns > a->run_start_ns ? ns - a->run_start_ns : 0, t);
    snprintf(buf, SC_FMT_SIZE, "+%.30s", t);
    return buf;
}

static const char *site_text(const sc_analysis *a, const sc_api_call *call,
                             const sc_text_options *opt, char *buf, size_t n)
{
    return sc_frame_site_text(opt->resolve, opt->resolve_ctx, a->trace, call, buf, n);
}

/* ---- header ------------------------------------------------------------------------- */

static void print_header(FILE *out, const sc_analysis *a, const char *symbols)
{
    const sc_trace *t = a->trace;
    char b1[SC_FMT_SIZE];
    fprintf(out, "== %s (pid %u) ==\n", exe_name(a), pid_of(a));
    fprintf(out, "trace:    %s (format %u.%u, %s)\n", t->path ? t->path : "?",
            t->version_major, t->version_minor, sc_report_status_name(t->status));
    fprintf(out, "run:      %s, %zu device%s, %zu kernels, %zu copies, %zu memsets, "
            "%zu API calls\n", sc_report_fmt_ns(run_span(a), b1), a->n_devices,
            a->n_devices == 1 ? "" : "s", t->n_kernels, t->n_copies, t->n_memsets, t->n_calls);
    char scope[600];
    if (sc_report_scope_text(t, scope, sizeof scope))
        fprintf(out, "scope:    %s\n", scope);
    if (symbols)
        fprintf(out, "symbols:  %s\n", symbols);
    if (t->status == SC_TRACE_PARTIAL)
        fprintf(out, "WARNING:  PARTIAL trace: %s\n", t->status_detail[0] ? t->status_detail
                : "no end record: the process did not finish cleanly; the numbers cover "
                  "what was recorded");
    else if (t->status == SC_TRACE_TRUNCATED)
        fprintf(out, "WARNING:  TRUNCATED trace: %s\n", t->status_detail[0] ? t->status_detail
                : "the last record was cut short; the numbers cover what was recorded");
    if (t->has_end && t->end.dropped_records)
        fprintf(out, "WARNING:  CUPTI dropped %" PRIu64 " activity records: kernel and copy "
                "counts and the overlap metrics undercount\n", t->end.dropped_records);
    if (t->has_end && t->end.reason == SC_END_SIGNAL)
        fprintf(out, "ended:    by signal %u (%s); the trace was finished before it took "
                "effect\n", t->end.signal, strsignal((int)t->end.signal));
    if (t->impossible_times)
        fprintf(out, "WARNING:  %" PRIu64 " records with impossible times (ending before they "
                "start, or far outside the run) were left out: the trace is damaged\n",
                t->impossible_times);
    for (size_t i = 0; i < t->n_losses; i++)    /* nothing lost silently (LOSS records) */
        if (t->losses[i].count)
            fprintf(out, "lost:     %" PRIu64 " %s (%s)\n", t->losses[i].count,
                    sc_loss_cause_name(t->losses[i].cause),
                    sc_loss_cause_text(t->losses[i].cause));
    for (size_t i = 0; i < t->n_notes; i++)
        fprintf(out, "note:     %s\n", t->notes[i].text ? t->notes[i].text
                                                        : sc_report_note_name(t->notes[i].code));
}

/* ---- devices ------------------------------------------------------------------------ */

static void print_interval(FILE *out, const sc_analysis *a, const sc_overlap_interval *iv)
{
    const sc_trace *t = a->trace;
    char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], ka[NAME_WIDTH], kb[NAME_WIDTH];
    const char *na = iv->kernel_a < t->n_kernels ? sc_kernel_name(t, &t->kernels[iv->kernel_a]) : "?";
    const char *nb = iv->kernel_b < t->n_kernels ? sc_kernel_name(t, &t->kernels[iv->kernel_b]) : "?";
    fprintf(out, "    at %-10s for %-9s %u kernels: %s | %s\n", rel(a, iv->start_ns, b1),
            sc_report_fmt_ns(iv->end_ns - iv->start_ns, b2), iv->max_kernels,
            sc_demangle_short(na, ka, sizeof ka), sc_demangle_short(nb, kb, sizeof kb));
}

static void print_device(FILE *out, const sc_analysis *a, const sc_device_summary *d,
                         const sc_text_options *opt)
{
    const sc_overlap *o = &d->overlap;
    char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE];
    uint64_t span = o->last_ns > o->first_ns ? o->last_ns - o->first_ns : 0;

    fprintf(out, "\ndevice %u: ", d->device);
    if (d->info)
        fprintf(out, "%s (%u SMs, cc %u.%u)\n", d->info->name ? d->info->name : "?",
                d->info->rec.sm_count, d->info->rec.cc_major, d->info->rec.cc_minor);
    else
        fprintf(out, "(no device record)\n");
    sc_text_comm(out, &d->comm);
    sc_text_copy_rates(out, d);
    if (o->kernel_count == 0) {
        fprintf(out, "  no kernels ran\n");
        return;
    }
    fprintf(out, "  kernels        %" PRIu64 " over a %s span\n", o->kernel_count,
            sc_report_fmt_ns(span, b1));
    fprintf(out, "  busy           %s (%.1f%% of span)\n", sc_report_fmt_ns(o->busy_ns, b1),
            pct(o->busy_ns, span));
    fprintf(out, "  kernel time    %s summed\n", sc_report_fmt_ns(o->kernel_sum_ns, b1));
    fprintf(out, "  concurrency    %.2fx  (2+ kernels running for %s)\n", o->concurrency,
            sc_report_fmt_ns(o->overlap_ns, b1));
    if (o->speedup > 0.0)
        fprintf(out, "  productive     %.2fx speedup vs solo durations (%" PRIu64 " of %" PRIu64
                " kernels timed solo)\n", o->speedup, o->solo_known, o->kernel_count);
    else if (o->kernel_count)
        fprintf(out, "  productive     unknown: %" PRIu64 " of %" PRIu64 " kernels never ran "
                "alone in the same launch shape and a duration consistent with the same work\n",
                o->kernel_count - o->solo_known, o->kernel_count);
    if (o->copy_busy_ns)
        fprintf(out, "  copy/compute   %s of %s copy time overlapped kernels\n",
                sc_report_fmt_ns(o->copy_compute_ns, b1), sc_report_fmt_ns(o->copy_busy_ns, b2));
    else
        fprintf(out, "  copy/compute   no copies\n");

    size_t shown = d->n_intervals < opt->max_intervals ? d->n_intervals : opt->max_intervals;
    if (d->n_intervals_total == 0) {
        fprintf(out, "  no two kernels ever ran at once\n");
    } else if (shown > 0) {
        fprintf(out, "  overlap intervals (%zu of %zu):\n", shown, d->n_intervals_total);
        for (size_t i = 0; i < shown; i++)
            print_interval(out, a, &d->intervals[i]);
    }
}

/* ---- streams ------------------------------------------------------------------------ */

bool sc_text_stream_idle(const sc_stream_summary *s)
{
    return s->overlap.kernel_count == 0 && s->copy_count == 0 && s->memset_count == 0;
}

/* A stream worth a table row of its own: it had work, or the program created it (an unused
 * stream the program made is still its own; CUDA's internal streams come with no creating
 * call). Libraries create streams by the dozen (NCCL, a PyTorch stream pool): past
 * MAX_IDLE_ROWS the idle ones the program created are counted per creating site instead. */
#define MAX_IDLE_ROWS 4

static void print_stream_row(FILE *out, const sc_stream_summary *s, const char *site,
                             bool *heads)
{
    char b1[SC_FMT_SIZE];
    if (!*heads)    /* the first row shown: the column heads go above it */
        fprintf(out, "  %3s %7s  %-12s %4s %8s %10s %6s  %s\n", "dev", "stream", "kind",
                "prio", "kernels", "busy", "conc", "created at");
    *heads = true;
    fprintf(out, "  %3u %7u  %-12s %4d %8" PRIu64 " %10s %5.2fx  %s\n", s->device,
            s->stream_id, s->per_thread ? "per-thread" : sc_report_stream_kind(s->flag),
            s->priority, s->overlap.kernel_count, sc_report_fmt_ns(s->overlap.busy_ns, b1),
            s->overlap.concurrency, site);
}

/* "  124 idle streams created at SITE", one line per site, in the order first seen. */
static void print_idle_by_site(FILE *out, const sc_analysis *a, const sc_text_options *opt)
{
    size_t n = a->n_streams;
    bool *done = calloc(n ? n : 1, sizeof *done);
    char site[SITE_WIDTH], other[SITE_WIDTH];
    for (size_t i = 0; done && i < n; i++) {
        const sc_stream_summary *s = &a->streams[i];
        if (done[i] || !sc_text_stream_idle(s) || !s->created_by)
            continue;
        site_text(a, s->created_by, opt, site, sizeof site);
        size_t count = 0;
        for (size_t j = i; j < n; j++) {
            const sc_stream_summary *t = &a->streams[j];
            if (done[j] || !sc_text_stream_idle(t) || !t->created_by)
                continue;
            if (t->created_by != s->created_by) {
                site_text(a, t->created_by, opt, other, sizeof other);
                if (strcmp(site, other) != 0)
                    continue;
            }
            done[j] = true;
            count++;
        }
        fprintf(out, "  %zu idle stream%s created at %s\n", count, count == 1 ? "" : "s", site);
    }
    free(done);
}

static void print_streams(FILE *out, const sc_analysis *a, const sc_text_options *opt)
{
    if (a->n_streams == 0)
        return;
    char site[SITE_WIDTH];
    size_t internal = 0, idle_created = 0;
    for (size_t i = 0; i < a->n_streams; i++) {
        const sc_stream_summary *s = &a->streams[i];
        if (sc_text_stream_idle(s))
            *(s->created_by ? &idle_created : &internal) += 1;
    }
    bool heads = false, idle_rows = idle_created <= MAX_IDLE_ROWS;
    fprintf(out, "\nstreams:\n");
    for (size_t i = 0; i < a->n_streams; i++) {
        const sc_stream_summary *s = &a->streams[i];
        if (sc_text_stream_idle(s) && (!s->created_by || !idle_rows))
            continue;
        if (s->created_by)
            site_text(a, s->created_by, opt, site, sizeof site);
        else
            snprintf(site, sizeof site, "-");
        print_stream_row(out, s, site, &heads);
    }
    if (!idle_rows)
        print_idle_by_site(out, a, opt);
    if (internal)
        fprintf(out, "  %zu idle stream%s not shown (created by CUDA with the context)\n",
                internal, internal == 1 ? "" : "s");
}

/* ---- findings ----------------------------------------------------------------------- */

/* "fixing this saves ~7.20 ms (29.0% of the run)", or why it saves nothing. */
static void print_finding_head(FILE *out, const sc_finding *f, const char *prefix)
{
    char b1[SC_FMT_SIZE];
    fprintf(out, "%s%-7s %-15s ", prefix, sc_severity_name(f->severity), f->rule);
    if (f->join)
        fprintf(out, "saves nothing: a join the run needs");
    else if (f->cost_ns == 0)
        fprintf(out, "saves nothing in this run");
    else
        fprintf(out, "fixing this saves ~%s (%.1f%% of the run)", sc_report_fmt_ns(f->cost_ns, b1),
                f->share * 100.0);
    if (f->same_wait_as)
        fprintf(out, " [the same wait as %s]", f->same_wait_as);
    fprintf(out, "  — %s\n", f->title);
}

/* The replay behind the costs: how well it reproduces the run, and the run with every
 * finding fixed. */
static void print_replay(FILE *out, const sc_analysis *a)
{
    const sc_replay_summary *r = &a->replay;
    if (!r->done)
        return;
    char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], b3[SC_FMT_SIZE];
    fprintf(out, "\nreplay (what the costs are computed with): the run replayed as recorded "
                 "takes %s against %s recorded (%+.1f%%)%s\n",
            sc_report_fmt_ns(r->replay_span_ns, b1), sc_report_fmt_ns(r->recorded_span_ns, b2),
            r->error * 100.0,
            r->trusted ? "" : "; too far off to trust the savings below: treat them as rough");
    if (r->tool_ns || r->tracer_ns)
        fprintf(out, "  without the tracer's own time on the host (the stacks of %" PRIu64
                     " calls, %s; what tracing adds to %" PRIu64 " calls, %s, at the cost per "
                     "call an H200 measured): %s, the base of the savings\n",
                r->tool_calls, sc_report_fmt_ns(r->tool_ns, b1), r->tracer_calls,
                sc_report_fmt_ns(r->tracer_ns, b3), sc_report_fmt_ns(r->plain_span_ns, b2));
    if (a->n_findings)
        fprintf(out, "  with every finding fixed: %s (saves %s)\n",
                sc_report_fmt_ns(r->fixed_span_ns, b1),
                sc_report_fmt_ns(r->plain_span_ns > r->fixed_span_ns
                                     ? r->plain_span_ns - r->fixed_span_ns : 0, b3));
    if (r->held || r->unexplained)
        fprintf(out, "  %" PRIu64 " operations held by other streams' work for a reason the trace "
                     "does not name; %" PRIu64 " started late after nothing (%s, kept as "
                     "recorded)\n", r->held, r->unexplained,
                sc_report_fmt_ns(r->unexplained_ns, b1));
}

static void print_instance(FILE *out, const sc_analysis *a, const char *label,
                           const sc_instance *in)
{
    char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE];
    fprintf(out, "          %s at %s (cost %s): %s\n", label, rel(a, in->start_ns, b1),
            sc_report_fmt_ns(in->cost_ns, b2), in->text);
}

static bool same_instance(const sc_instance *x, const sc_instance *y)
{
    return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->call == y->call &&
           x->cost_ns == y->cost_ns;
}

static void print_totals(FILE *out, const sc_finding *f)
{
    if (f->n_totals == 0)
        return;
    char b1[SC_FMT_SIZE], label[64];
    fprintf(out, "          totals:");
    for (size_t i = 0; i < f->n_totals; i++)
        fprintf(out, "%s %s %s", i ? "," : "",
                sc_report_evidence_label(&f->totals[i], label, sizeof label),
                sc_report_fmt_evidence(&f->totals[i], b1));
    fputc('\n', out);
}

static void print_finding(FILE *out, const sc_analysis *a, const sc_finding *f,
                          const sc_text_options *opt)
{
    char b1[SC_FMT_SIZE], site[SITE_WIDTH];
    print_finding_head(out, f, "  ");
    fprintf(out, "          %" PRIu64 " occurrence%s\n", f->count, f->count == 1 ? "" : "s");
    print_instance(out, a, "first", &f->first);
    if (f->count > 1 && !same_instance(&f->worst, &f->first))
        print_instance(out, a, "worst", &f->worst);
    if (f->waited_ns && f->waited_ns != f->cost_ns)
        fprintf(out, "          measured: %s waited or idle (what it costs is what the fix saves)\n",
                sc_report_fmt_ns(f->waited_ns, b1));
    print_totals(out, f);
    size_t n = f->n_sites < opt->max_sites ? f->n_sites : opt->max_sites;
    if (n > 0) {
        fprintf(out, "          sites:\n");
        for (size_t i = 0; i < n; i++)
            fprintf(out, "            %6" PRIu64 "x %10s  %s\n", f->sites[i].count,
                    sc_report_fmt_ns(f->sites[i].cost_ns, b1),
                    site_text(a, f->sites[i].call, opt, site, sizeof site));
        if (f->n_sites > n)
            fprintf(out, "            (%zu more sites in the JSON report)\n", f->n_sites - n);
    }
    if (f->fix)
        fprintf(out, "          fix: %s\n", f->fix);
}

static void print_findings(FILE *out, const sc_analysis *a, const sc_text_options *opt)
{
    char left_out[64] = "";
    if (opt->suppressed)
        snprintf(left_out, sizeof left_out, " (%zu suppressed)", opt->suppressed);
    if (a->n_findings == 0) {
        fprintf(out, "\nfindings: none%s\n", left_out);
        return;
    }
    fprintf(out, "\nfindings (%zu, by what fixing them saves)%s:\n", a->n_findings, left_out);
    if (opt->range_filter)
        fprintf(out, "  inside ranges '%s' only: count, saving and severity are the ranges' "
                "part;\n  first, worst, measured, totals and sites are the whole run's\n",
                opt->range_filter);
    for (size_t i = 0; i < a->n_findings; i++) {
        if (i)
            fputc('\n', out);
        print_finding(out, a, &a->findings[i], opt);
    }
    print_replay(out, a);
}

/* ---- brief (exit summary) ----------------------------------------------------------- */

static void print_brief(FILE *out, const sc_analysis *a, const sc_text_options *opt)
{
    const sc_trace *t = a->trace;
    char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], site[SITE_WIDTH];
    const char *p = "streamcheck: ";

    if (t->status != SC_TRACE_COMPLETE)
        fprintf(out, "%sWARNING: %s trace (%s)\n", p,
                t->status == SC_TRACE_PARTIAL ? "PARTIAL" : "TRUNCATED", t->status_detail);
    if (t->has_end && t->end.dropped_records)
        fprintf(out, "%sWARNING: CUPTI dropped %" PRIu64 " activity records\n", p,
                t->end.dropped_records);
    for (size_t i = 0; i < t->n_notes; i++)
        if (t->notes[i].code != SC_NOTE_INFO && t->notes[i].code != SC_NOTE_FORKED)
            fprintf(out, "%snote: %s\n", p, t->notes[i].text ? t->notes[i].text : "");
    for (size_t i = 0; i < a->n_devices; i++) {
        const sc_overlap *o = &a->devices[i].overlap;
        uint64_t span = o->last_ns > o->first_ns ? o->last_ns - o->first_ns : 0;
        char b3[SC_FMT_SIZE];
        fprintf(out, "%s%s (pid %u): device %u: %" PRIu64 " kernels, concurrency %.2fx "
                "(busy %s of %s), productive %s\n", p, sc_frame_basename(exe_name(a)),
                pid_of(a), a->devices[i].device, o->kernel_count, o->concurrency,
                sc_report_fmt_ns(o->busy_ns, b1), sc_report_fmt_ns(span, b2),
                sc_report_fmt_speedup(o, b3));
    }
    for (size_t i = 0; i < a->n_findings; i++) {
        const sc_finding *f = &a->findings[i];
        print_finding_head(out, f, p);
        const sc_api_call *call = f->n_sites ? f->sites[0].call : f->first.call;
        if (call)
            fprintf(out, "%s    at %s\n", p, site_text(a, call, opt, site, sizeof site));
    }
    if (a->n_findings == 0 && a->n_devices)
        fprintf(out, "%sno findings\n", p);
    const char *path = opt->trace_path ? opt->trace_path : t->path;
    if (path)
        fprintf(out, "%sdetails: streamcheck-report %s\n", p, path);
}

void sc_text_process(FILE *out, const sc_analysis *a, const sc_text_options *opt)
{
    sc_text_options defaults;
    if (!opt) {
        sc_text_options_init(&defaults);
        opt = &defaults;
    }
    if (opt->brief) {
        print_brief(out, a, opt);
        return;
    }
    print_header(out, a, opt->symbols);
    for (size_t i = 0; i < a->n_devices; i++)
        print_device(out, a, &a->devices[i], opt);
    print_streams(out, a, opt);
    sc_text_ranges(out, a);
    print_findings(out, a, opt);
}

/* ---- one line per process, merged summary ------------------------------------------- */

void sc_text_summary_line(FILE *out, const sc_analysis *a)
{
    char b1[SC_FMT_SIZE];
    uint64_t kernels = 0;
    for (size_t i = 0; i < a->n_devices; i++)
        kernels += a->devices[i].overlap.kernel_count;
    fprintf(out, "%s (pid %u): %" PRIu64 " kernel%s", sc_frame_basename(exe_name(a)),
            pid_of(a), kernels, kernels == 1 ? "" : "s");
    for (size_t i = 0; i < a->n_devices; i++) {
        const sc_overlap *o = &a->devices[i].overlap;
        if (o->kernel_count == 0)
            continue;
        if (a->n_devices > 1)
            fprintf(out, ", device %u", a->devices[i].device);
        char b1[SC_FMT_SIZE];
        fprintf(out, ", concurrency %.2fx, productive %s", o->concurrency,
                sc_report_fmt_speedup(o, b1));
    }
    if (a->n_findings == 0) {
        fprintf(out, "; no findings");
    } else {
        const sc_finding *f = &a->findings[0];   /* ranked by cost: the first is the worst */
        fprintf(out, "; %zu finding%s, top: %s %s cost %s (%.1f%%)", a->n_findings,
                a->n_findings == 1 ? "" : "s", sc_severity_name(f->severity), f->rule,
                sc_report_fmt_ns(f->cost_ns, b1), f->share * 100.0);
    }
    if (a->trace->status != SC_TRACE_COMPLETE)
        fprintf(out, " [%s]", a->trace->status == SC_TRACE_PARTIAL ? "PARTIAL" : "TRUNCATED");
    fputc('\n', out);
}

void sc_text_rule_totals(FILE *out, const sc_rule_total *rules, size_t nr,
                         size_t with_findings, size_t n, uint64_t suppressed)
{
    char b1[SC_FMT_SIZE];
    if (nr == 0) {
        fprintf(out, "findings: none\n");
    } else {
        fprintf(out, "findings by rule (%zu of %zu process%s):\n", with_findings, n,
                n == 1 ? "" : "es");
        for (size_t k = 0; k < nr; k++)
            fprintf(out, "  %-7s %-15s cost %-9s %6" PRIu64 " occurrence%s in %" PRIu64
                    " process%s\n", sc_severity_name(rules[k].severity), rules[k].rule,
                    sc_report_fmt_ns(rules[k].cost_ns, b1), rules[k].count,
                    rules[k].count == 1 ? " " : "s", rules[k].processes,
                    rules[k].processes == 1 ? "" : "es");
    }
    if (suppressed)
        fprintf(out, "suppressed: %" PRIu64 " finding%s\n", suppressed,
                suppressed == 1 ? "" : "s");
}

void sc_text_merged(FILE *out, const sc_analysis *const *as, size_t n,
                    const sc_text_options *opt)
{
    /* the merged summary has no sites or intervals today; it says what was suppressed */
    size_t nr = 0, with_findings = 0;
    sc_rule_total *rules = sc_report_merge_rules(as, n, &nr);

    fprintf(out, "== streamcheck summary: %zu process%s ==\n", n, n == 1 ? "" : "es");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "  ");
        sc_text_summary_line(out, as[i]);
        if (as[i]->n_findings)
            with_findings++;
    }
    sc_text_rule_totals(out, rules, nr, with_findings, n, opt ? opt->suppressed : 0);
    free(rules);
}
