/* streamcheck-report: load each trace, analyse it, print text and/or JSON, and on request a
 * Chrome/Perfetto trace, an HTML page, SARIF, JUnit XML, a comparison with a baseline run and
 * the verdict of expectations. Suppressions and --range shape what every output shows
 * (view.h); --pid and --from/--to choose what is analysed.
 *
 * Exit status: 0 reported; 1 some path could not be read (the others are still reported),
 * or --pid matched no trace; 2 usage (expectations and suppressions that do not parse
 * included); 3 (--error-exitcode) a finding at or above --fail-on;
 * 4 an expectation failed. A read error outranks the others: a report that is missing a
 * process cannot vouch for it. A failed expectation outranks --fail-on: it is the more
 * specific check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/chrome.h"
#include "report/compare.h"
#include "report/demangle.h"
#include "report/dump.h"
#include "report/expect.h"
#include "report/html.h"
#include "report/inputs.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/options.h"
#include "report/pipeline.h"
#include "report/rank_file.h"
#include "report/ranks.h"
#include "report/ranks_json.h"
#include "report/ranks_text.h"
#include "report/report_main.h"
#include "report/sarif.h"
#include "report/stage_table.h"
#include "report/suppress.h"
#include "report/symbolize.h"
#include "report/text.h"
#include "report/view.h"
#include "report/window.h"
#include "streamcheck/analysis.h"

#ifndef SC_VERSION
#define SC_VERSION "unknown"
#endif

enum { EXIT_READ = 1, EXIT_USAGE = 2, EXIT_EXPECT = 4 };  /* --fail-on: --error-exitcode, 3 */

typedef struct loaded {
    sc_trace trace;             /* as read; owns every record */
    sc_trace cut;               /* what was analysed: the trace, or its --from/--to window
                                   (the same records); the analysis points at it, and
                                   entries never move */
    sc_analysis analysis;
} loaded;

/* Which traces, and which part of them, a run analyses: --pid, --from/--to. */
typedef struct load_filter {
    bool has_pid;
    uint32_t pid;
    const sc_window *window;    /* NULL: the whole run */
    bool load_whole;            /* load every record even for a window (--save-symbols keeps
                                   the frames of every call) */
} load_filter;

typedef struct report_run {
    loaded **procs;
    size_t n_procs;
    sc_json_error *errors;
    size_t n_errors;
    /* Rank summaries (ranks.h) of the summary inputs, then of each process once reported,
     * in input order: what the merged summary and the ranks section are made from. */
    sc_rank_summary **sums;
    size_t n_sums;
    size_t n_summary_inputs;
} report_run;

static void add_error(report_run *r, const char *path, const char *message)
{
    fprintf(stderr, "streamcheck-report: %s\n", message);
    sc_json_error *e = realloc(r->errors, (r->n_errors + 1) * sizeof *e);
    if (!e)
        return;
    r->errors = e;
    e[r->n_errors].path = strdup(path);
    e[r->n_errors++].message = strdup(message);
}

/* Keeps a summary (taken over); false when out of memory (then freed). */
static bool add_sum(report_run *r, sc_rank_summary *sum)
{
    sc_rank_summary **p = realloc(r->sums, (r->n_sums + 1) * sizeof *p);
    if (!p) {
        sc_rank_summary_free(sum);
        free(sum);
        return false;
    }
    r->sums = p;
    r->sums[r->n_sums++] = sum;
    return true;
}

/* What loading one input left: a process, a summary, an error, or nothing (--pid). Filled on
 * a worker thread, taken on the main thread in input order. */
typedef struct load_slot {
    loaded *proc;
    sc_rank_summary *summary;
    sc_stage_rows *stages;      /* STREAMCHECK_REPORT_STAGES: the trace's load and analysis */
    char error[512];
} load_slot;

static void load_summary(load_slot *slot, const char *path, const load_filter *filter)
{
    sc_rank_summary *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(slot->error, sizeof slot->error, "%s: out of memory", path);
        return;
    }
    if (sc_rank_file_read(path, s, slot->error, sizeof slot->error) != 0) {
        free(s);
        return;
    }
    if (filter && filter->has_pid && s->pid != filter->pid) {
        sc_rank_summary_free(s);
        free(s);
        return;
    }
    slot->summary = s;
}

/* The trace at `path`; for a window, only the records the window keeps, when the trace
 * allows it (sc_trace_read_times): a stretch of a long run without holding the rest. */
static int load_trace(const char *path, const load_filter *filter, sc_trace *out, char *err,
                      size_t err_size)
{
    if (!filter || !filter->window || filter->load_whole)
        return sc_trace_load(path, out, err, err_size);
    sc_trace_times times;
    if (sc_trace_read_times(path, &times, err, err_size) != 0)
        return -1;
    if (!times.cuttable)
        return sc_trace_load(path, out, err, err_size);
    uint64_t lo, hi;
    sc_window_bounds(filter->window, times.any ? times.run_start_ns : 0, &lo, &hi);
    return sc_trace_load_between(path, &times, lo, hi, out, err, err_size);
}

static void load_one(load_slot *slot, const char *path, const load_filter *filter,
                     bool two_threads)
{
    char *err = slot->error;
    size_t err_size = sizeof slot->error;
    const char *base = strrchr(path, '/');
    if (sc_report_is_summary_name(base ? base + 1 : path)) {
        load_summary(slot, path, filter);
        return;
    }
    loaded *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, err_size, "out of memory");
        return;
    }
    bool clocked = sc_stage_table_wanted();
    if (clocked)
        sc_stage_clock_begin();
    if (load_trace(path, filter, &l->trace, err, err_size) != 0) {
        if (!err[0])
            snprintf(err, err_size, "%s: cannot read trace", path);
        sc_stage_clock_end(NULL);   /* a trace not reported has no table */
        free(l);
        return;
    }
    if (filter && filter->has_pid &&
        (!l->trace.has_process || l->trace.process.pid != filter->pid)) {
        sc_stage_clock_end(NULL);
        sc_trace_free(&l->trace);
        free(l);
        return;
    }
    sc_stage_mark("load");
    /* No stage of the report reads the SYNC records (the analysis times waits from the calls
     * that synchronized): given back before the analysis, whose replay is the run's peak of
     * memory. */
    free(l->trace.syncs);
    l->trace.syncs = NULL;
    l->trace.n_syncs = 0;
    if (filter && filter->window)
        sc_window_cut(&l->trace, filter->window, &l->cut);
    else
        l->cut = l->trace;
    char aerr[512] = "";
    /* findings name kernels demangled: "sweep_kernel", not "_Z12sweep_kernelP6float4mi" */
    const sc_analyze_options aopt = {.kernel_name = sc_demangle_kernel,
                                     .two_threads = two_threads};
    if (sc_analyze_with(&l->cut, &aopt, &l->analysis, aerr, sizeof aerr) != 0) {
        snprintf(err, err_size, "%s: analysis failed: %.*s", path, 400, aerr[0] ? aerr : "?");
        sc_stage_clock_end(NULL);
        sc_trace_free(&l->trace);
        free(l);
        return;
    }
    if (clocked)
        slot->stages = malloc(sizeof *slot->stages);
    sc_stage_clock_end(slot->stages);   /* without room for the rows: dropped */
    slot->proc = l;
}

/* One run's inputs through the pipeline (pipeline.h): loaded and analyzed on -j threads;
 * `consume`, when given, takes each slot in input order on this thread (the bounded report),
 * otherwise every process is kept in r->procs. */
typedef struct load_job {
    const sc_report_inputs *in;
    const load_filter *filter;
    load_slot *slots;
    report_run *r;
    void (*consume)(void *ctx, report_run *r, loaded *proc);
    void *consume_ctx;
    bool two_threads;           /* each analysis may build on a second thread: a core is free
                                   for each trace analyzed at once */
} load_job;

static void load_work(void *ctx, size_t i)
{
    load_job *j = ctx;
    load_one(&j->slots[i], j->in->files[i], j->filter, j->two_threads);
}

static void load_take(void *ctx, size_t i)
{
    load_job *j = ctx;
    load_slot *slot = &j->slots[i];
    if (slot->stages) {
        sc_stage_table_print(stderr, j->in->files[i], slot->stages);
        free(slot->stages);
        slot->stages = NULL;
    }
    if (slot->error[0])
        add_error(j->r, j->in->files[i], slot->error);
    if (slot->summary) {
        if (add_sum(j->r, slot->summary))
            j->r->n_summary_inputs++;
        slot->summary = NULL;
    }
    if (slot->proc && j->consume)
        j->consume(j->consume_ctx, j->r, slot->proc);
    else if (slot->proc)
        j->r->procs[j->r->n_procs++] = slot->proc;
    slot->proc = NULL;
}

/* Reads every path of one run (the current one, or the --baseline). Returns 0, or EXIT_READ
 * when a path or trace could not be read (the rest is loaded). */
static int load_run(report_run *r, const char *const *paths, size_t n_paths,
                    const load_filter *filter, size_t jobs,
                    void (*consume)(void *, report_run *, loaded *), void *consume_ctx)
{
    int status = 0;
    sc_report_inputs in = {0};
    if (sc_report_collect(&in, paths, n_paths) != 0)
        status = EXIT_READ;
    r->procs = calloc(in.n ? in.n : 1, sizeof *r->procs);
    load_slot *slots = calloc(in.n ? in.n : 1, sizeof *slots);
    if (!r->procs || !slots) {
        fprintf(stderr, "streamcheck-report: out of memory\n");
        free(slots);
        sc_report_inputs_free(&in);
        return EXIT_READ;
    }
    size_t at_once = jobs < in.n ? jobs : in.n;
    load_job job = {&in, filter, slots, r, consume, consume_ctx,
                    .two_threads = sc_pipeline_cpus() >= 2 * at_once};
    /* Bounded: at most two traces a thread wait for their report. */
    sc_pipeline p = {in.n, jobs, consume ? 2 * jobs : in.n, load_work, load_take, &job};
    sc_pipeline_run(&p);
    free(slots);
    sc_report_inputs_free(&in);
    return r->n_errors ? EXIT_READ : status;
}

static void free_run(report_run *r)
{
    for (size_t i = 0; i < r->n_procs; i++) {
        sc_analysis_free(&r->procs[i]->analysis);
        sc_trace_free(&r->procs[i]->trace);
        free(r->procs[i]);
    }
    for (size_t i = 0; i < r->n_errors; i++) {
        free((char *)r->errors[i].path);
        free((char *)r->errors[i].message);
    }
    free(r->errors);
    free(r->procs);
    for (size_t i = 0; i < r->n_sums; i++) {
        sc_rank_summary_free(r->sums[i]);
        free(r->sums[i]);
    }
    free(r->sums);
    memset(r, 0, sizeof *r);
}

/* ---- symbolization ------------------------------------------------------------------ */

/* TRACE.syms, beside the trace. */
static void syms_path(const sc_trace *t, char *buf, size_t n)
{
    snprintf(buf, n, "%s.syms", t->path ? t->path : "");
}

/* The symbolizer of --symbol-path, with every input's .syms file loaded (used for the
 * modules whose binaries are gone); with --save-symbols each trace's frames are resolved and
 * stored beside it. A bad or unwritable .syms file costs one line on stderr, never the
 * report. */
static sc_symbolizer *make_symbolizer(const sc_report_options *opt, const report_run *runs,
                                      size_t n_runs)
{
    if (!opt->symbols)
        return NULL;
    sc_symbolizer *sym = sc_sym_new(opt->symbol_paths, opt->n_symbol_paths);
    if (!sym)
        return NULL;
    char path[4096], err[1024];
    for (size_t k = 0; k < n_runs; k++)
        for (size_t i = 0; i < runs[k].n_procs; i++) {
            syms_path(&runs[k].procs[i]->trace, path, sizeof path);
            if (access(path, F_OK) == 0 && sc_sym_load_file(sym, path, err, sizeof err) != 0)
                fprintf(stderr, "streamcheck-report: ignoring %s\n", err);
        }
    for (size_t i = 0; opt->save_symbols && i < runs[0].n_procs; i++) {
        const sc_trace *t = &runs[0].procs[i]->trace;
        syms_path(t, path, sizeof path);
        if (sc_sym_save(sym, t, path, err, sizeof err) != 0)
            fprintf(stderr, "streamcheck-report: symbols not saved: %s\n", err);
    }
    return sym;
}

/* ---- --dump ------------------------------------------------------------------------- */

/* Each input's raw records; no analysis, so a trace the loader refuses still shows what it
 * holds up to the damage. Returns 0, or EXIT_READ when some file could not be dumped whole. */
static int run_dump(const sc_report_options *opt, const sc_report_inputs *in)
{
    FILE *out = stdout;
    if (opt->text_path && !(out = fopen(opt->text_path, "w"))) {
        fprintf(stderr, "streamcheck-report: cannot write %s: %s\n", opt->text_path,
                strerror(errno));
        return EXIT_READ;
    }
    int status = 0;
    for (size_t i = 0; i < in->n; i++) {
        if (i)
            fputc('\n', out);
        if (sc_dump_trace(out, in->files[i]) != 0)
            status = EXIT_READ;
    }
    bool failed = ferror(out) != 0;
    if (out != stdout && fclose(out) != 0)
        failed = true;
    if (failed) {
        fprintf(stderr, "streamcheck-report: writing the dump failed\n");
        status = EXIT_READ;
    }
    return status;
}

/* ---- output ------------------------------------------------------------------------- */

static int write_text(const sc_report_options *opt, const report_run *r,
                      const sc_analysis *const *as, const sc_view *views, size_t n,
                      sc_symbolizer *sym)
{
    FILE *out = stdout;
    if (opt->text_path && !(out = fopen(opt->text_path, "w"))) {
        fprintf(stderr, "streamcheck-report: cannot write %s: %s\n", opt->text_path,
                strerror(errno));
        return -1;
    }
    sc_text_options t;
    sc_text_options_init(&t);
    t.resolve = sym ? sc_sym_resolve : NULL;
    t.resolve_ctx = sym;
    t.max_sites = opt->sites;
    t.max_intervals = opt->intervals;
    t.range_filter = opt->range;
    if (!opt->quiet) {
        for (size_t i = 0; i < n; i++) {
            if (i)
                fputc('\n', out);
            t.suppressed = views[i].suppressed;
            char line[256] = "";
            if (sym) {
                sc_sym_stats st;
                sc_sym_stats_of(sym, as[i]->trace, &st);
                t.symbols = sc_sym_stats_text(&st, line, sizeof line);
            }
            sc_text_process(out, as[i], &t);
        }
    }
    t.suppressed = 0;
    for (size_t i = 0; i < n; i++)
        t.suppressed += views[i].suppressed;
    if (opt->quiet || r->n_sums > 1) {
        if (!opt->quiet && n)
            fputc('\n', out);
        if (r->n_summary_inputs)    /* some processes are known from their summary alone */
            sc_ranks_merged_summary(out, r->sums, r->n_sums, t.suppressed);
        else
            sc_text_merged(out, as, n, &t);
    }
    sc_ranks_text(out, r->sums, r->n_sums);
    int rc = fflush(out) != 0 || ferror(out) ? -1 : 0;
    int why = rc ? errno : 0;
    if (out != stdout && fclose(out) != 0 && !rc) {
        rc = -1;
        why = errno;
    }
    if (rc)
        fprintf(stderr, "streamcheck-report: writing the text report failed: %s\n",
                why ? strerror(why) : "write error");
    return rc;
}

static int write_json(const sc_report_options *opt, const report_run *r,
                      const sc_analysis *const *as, const size_t *suppressed,
                      sc_symbolizer *sym, const sc_expect_result *verdicts, size_t n_verdicts)
{
    bool to_stdout = sc_report_json_to_stdout(opt);
    FILE *out = to_stdout ? stdout : fopen(opt->json_path, "w");
    if (!out) {
        fprintf(stderr, "streamcheck-report: cannot write %s: %s\n", opt->json_path,
                strerror(errno));
        return -1;
    }
    sc_json_options j = {
        .resolve = sym ? sc_sym_resolve : NULL,
        .resolve_ctx = sym,
        .tool_version = SC_VERSION,
        .expectations = verdicts,
        .n_expectations = n_verdicts,
        .suppressed = suppressed,
        .ranks = sc_ranks_json(r->sums, r->n_sums),
    };
    int rc = sc_json_write(out, as, r->n_procs, r->errors, r->n_errors, &j);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = -1;
    int why = rc ? errno : 0;
    if (!to_stdout && fclose(out) != 0 && !rc) {
        rc = -1;
        why = errno;
    }
    if (rc)
        fprintf(stderr, "streamcheck-report: writing the JSON report failed: %s\n",
                why ? strerror(why) : "write error");
    return rc;
}

/* Opens an output named by an option: "-" is standard output. */
static FILE *open_out(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "streamcheck-report: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, int rc, const char *what, const char *err)
{
    if (f == stdout) {
        if (fflush(f) != 0)
            rc = -1;
    } else if (fclose(f) != 0) {
        rc = -1;
    }
    if (rc)
        fprintf(stderr, "streamcheck-report: writing the %s failed%s%s\n", what,
                err && err[0] ? ": " : "", err ? err : "");
    return rc;
}

static int write_chrome(const sc_report_options *opt, const sc_analysis *const *as, size_t n,
                        sc_symbolizer *sym)
{
    FILE *out = open_out(opt->chrome_path);
    if (!out)
        return -1;
    sc_chrome_options c = {
        .resolve = sym ? sc_sym_resolve : NULL,
        .resolve_ctx = sym,
        .tool_version = SC_VERSION,
    };
    char err[256] = "";
    int rc = sc_chrome_write(out, as, n, &c, err, sizeof err);
    return close_out(out, rc, "Chrome trace", err);
}

static int write_html(const sc_report_options *opt, const sc_analysis *const *as, size_t n,
                      sc_symbolizer *sym)
{
    FILE *out = open_out(opt->html_path);
    if (!out)
        return -1;
    sc_html_options h;
    sc_html_options_init(&h);
    h.resolve = sym ? sc_sym_resolve : NULL;
    h.resolve_ctx = sym;
    h.tool_version = SC_VERSION;
    char err[256] = "";
    int rc = sc_html_write(out, as, n, &h, err, sizeof err);
    return close_out(out, rc, "HTML report", err);
}

static int write_sarif(const sc_report_options *opt, const sc_analysis *const *as, size_t n,
                       sc_symbolizer *sym)
{
    FILE *out = open_out(opt->sarif_path);
    if (!out)
        return -1;
    sc_sarif_options s = {
        .resolve = sym ? sc_sym_resolve : NULL,
        .resolve_ctx = sym,
        .tool_version = SC_VERSION,
    };
    int rc = sc_sarif_write(out, as, n, &s);
    return close_out(out, rc, "SARIF log", rc ? "out of memory or write error" : NULL);
}

static int write_junit(const sc_report_options *opt, const sc_analysis *const *as, size_t n)
{
    FILE *out = open_out(opt->junit_path);
    if (!out)
        return -1;
    /* A CI view fails a test on an error unless told otherwise. */
    sc_junit_options j = {.fail_on = opt->fail_on_set ? opt->fail_on : (int)SC_SEV_ERROR};
    char err[256] = "";
    int rc = sc_junit_write(out, as, n, &j, err, sizeof err);
    return close_out(out, rc, "JUnit report", err);
}

/* Reads --suppress and --suppressions; false after a message on stderr. */
static bool read_suppressions(const sc_report_options *opt, sc_suppress_set *set)
{
    for (size_t i = 0; i < opt->n_suppress; i++) {
        char err[1024];
        const sc_report_expect_arg *s = &opt->suppress[i];
        int rc = s->file ? sc_suppress_add_file(set, s->text, err, sizeof err)
                         : sc_suppress_add(set, s->text, "--suppress", err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "streamcheck-report: %s%s\n", s->file ? "" : "--suppress ", err);
            return false;
        }
    }
    return true;
}

/* The views of a run's analyses (view.h), and `as` pointing at them. Returns 0, or -1 when
 * out of memory. */
static int build_views(const report_run *r, const sc_report_options *opt,
                       const sc_suppress_set *suppress, sc_symbolizer *sym, sc_view *views,
                       const sc_analysis **as)
{
    sc_view_options vo = {
        .suppress = suppress,
        .env = {.resolve = sym ? sc_sym_resolve : NULL, .resolve_ctx = sym},
        .range = opt->range,
    };
    for (size_t i = 0; i < r->n_procs; i++) {
        if (sc_view_build(&r->procs[i]->analysis, &vo, &views[i]) != 0)
            return -1;
        as[i] = &views[i].analysis;
    }
    return 0;
}

static sc_compare_side compare_side(const report_run *r, const sc_analysis *const *as,
                                    const char *const *paths, size_t n_paths)
{
    return (sc_compare_side){as, r->n_procs, paths, n_paths, r->errors, r->n_errors};
}

/* --baseline: the comparison replaces the text and JSON reports. */
static int write_comparison(const sc_report_options *opt, const sc_compare_side *old,
                            const sc_compare_side *cur)
{
    int rc = 0;
    if (!sc_report_stdout_taken(opt) || opt->text_path) {
        FILE *out = opt->text_path ? open_out(opt->text_path) : stdout;
        if (!out)
            return -1;
        rc = close_out(out, sc_compare_text(out, old, cur), "comparison", NULL);
    }
    if (opt->json) {
        FILE *out = open_out(opt->json_path ? opt->json_path : "-");
        if (!out)
            return -1;
        if (close_out(out, sc_compare_json(out, old, cur, SC_VERSION), "JSON comparison",
                      NULL) != 0)
            rc = -1;
    }
    return rc;
}

/* Builds the expectations of the command line; false after a message on stderr. */
static bool read_expectations(const sc_report_options *opt, sc_expect_set *set)
{
    for (size_t i = 0; i < opt->n_expects; i++) {
        char err[1024];
        const sc_report_expect_arg *e = &opt->expects[i];
        int rc = e->file ? sc_expect_add_file(set, e->text, err, sizeof err)
                         : sc_expect_add(set, e->text, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "streamcheck-report: %s%s\n", e->file ? "" : "--expect ", err);
            return false;
        }
    }
    return true;
}

/* A finding at or above threshold in any process, summary inputs included. */
static bool fails(const report_run *r, int threshold)
{
    for (size_t i = 0; threshold >= 0 && i < r->n_sums; i++)
        if (sc_rank_worst(r->sums[i]) >= threshold)
            return true;
    return false;
}

/* ---- rank summaries ----------------------------------------------------------------- */

/* Makes a process's summary (after suppressions and --range: the view's analysis), keeps it,
 * and with --save-summaries writes it beside the trace. False when out of memory. */
static bool summarize(const sc_report_options *opt, report_run *r, const sc_analysis *a,
                      size_t suppressed)
{
    sc_rank_summary *s = calloc(1, sizeof *s);
    if (!s || sc_rank_summary_of(a, suppressed, s) != 0) {
        free(s);
        return false;
    }
    if (opt->save_summaries) {
        char path[4096], err[512];
        snprintf(path, sizeof path, "%s" SC_SUMMARY_SUFFIX, s->path);
        if (sc_rank_file_write(path, s, err, sizeof err) != 0)
            fprintf(stderr, "streamcheck-report: summary not saved: %s\n", err);
    }
    return add_sum(r, s);
}

/* --summary-out: the summary of the one trace given. Returns 0, or an exit status. */
static int write_summary_out(const sc_report_options *opt, const report_run *r)
{
    size_t traces = r->n_sums - r->n_summary_inputs;
    if (traces != 1) {
        fprintf(stderr, "streamcheck-report: --summary-out wants exactly one trace; the "
                "inputs held %zu\n", traces);
        return EXIT_USAGE;
    }
    char err[512];
    for (size_t i = 0; i < r->n_sums; i++)   /* summary inputs come first, in input order */
        if (i >= r->n_summary_inputs && sc_rank_file_write(opt->summary_out, r->sums[i], err,
                                                           sizeof err) != 0) {
            fprintf(stderr, "streamcheck-report: %s\n", err);
            return EXIT_READ;
        }
    return 0;
}

/* ---- the bounded report ------------------------------------------------------------- */

/* Outputs made of every process's analysis at once need all of them in memory; the text
 * report, its merged summary and the summaries do not: each process is reported as soon as
 * it is analyzed, in input order, and only its summary is kept. */
static bool needs_all(const sc_report_options *opt)
{
    return opt->json || opt->chrome_path || opt->html_path || opt->sarif_path ||
           opt->junit_path || opt->baseline || opt->n_expects;
}

typedef struct stream_ctx {
    const sc_report_options *opt;
    const sc_suppress_set *suppress;
    sc_symbolizer *sym;
    FILE *out;                  /* the text report */
    size_t reported;
    uint64_t suppressed;
    bool failed;                /* out of memory */
} stream_ctx;

static void free_loaded(loaded *l)
{
    sc_analysis_free(&l->analysis);
    sc_trace_free(&l->trace);
    free(l);
}

/* One process: its symbols, its report, its summary; then the trace is freed. */
static void stream_take(void *ctx, report_run *r, loaded *l)
{
    stream_ctx *c = ctx;
    const sc_report_options *opt = c->opt;
    char path[4096], err[1024], line[256] = "";
    if (c->sym) {
        syms_path(&l->trace, path, sizeof path);
        if (access(path, F_OK) == 0 && sc_sym_load_file(c->sym, path, err, sizeof err) != 0)
            fprintf(stderr, "streamcheck-report: ignoring %s\n", err);
        if (opt->save_symbols && sc_sym_save(c->sym, &l->trace, path, err, sizeof err) != 0)
            fprintf(stderr, "streamcheck-report: symbols not saved: %s\n", err);
    }
    sc_view view;
    sc_view_options vo = {
        .suppress = c->suppress,
        .env = {.resolve = c->sym ? sc_sym_resolve : NULL, .resolve_ctx = c->sym},
        .range = opt->range,
    };
    if (sc_view_build(&l->analysis, &vo, &view) != 0) {
        c->failed = true;
        free_loaded(l);
        return;
    }
    if (c->out && !opt->quiet) {
        sc_text_options t;
        sc_text_options_init(&t);
        t.resolve = c->sym ? sc_sym_resolve : NULL;
        t.resolve_ctx = c->sym;
        t.max_sites = opt->sites;
        t.max_intervals = opt->intervals;
        t.range_filter = opt->range;
        t.suppressed = view.suppressed;
        if (c->sym) {
            sc_sym_stats st;
            sc_sym_stats_of(c->sym, view.analysis.trace, &st);
            t.symbols = sc_sym_stats_text(&st, line, sizeof line);
        }
        if (c->reported)
            fputc('\n', c->out);
        sc_text_process(c->out, &view.analysis, &t);
    }
    c->reported++;
    c->suppressed += view.suppressed;
    if (!summarize(opt, r, &view.analysis, view.suppressed))
        c->failed = true;
    sc_view_free(&view);
    free_loaded(l);
}

/* The report without --json and the other whole-run outputs. Returns the exit status. */
static int run_bounded(const sc_report_options *opt, const sc_suppress_set *suppress,
                       const load_filter *filter, size_t jobs)
{
    report_run r = {0};
    stream_ctx c = {.opt = opt, .suppress = suppress, .out = stdout};
    if (opt->symbols)
        c.sym = sc_sym_new(opt->symbol_paths, opt->n_symbol_paths);
    if (opt->text_path && !(c.out = fopen(opt->text_path, "w"))) {
        fprintf(stderr, "streamcheck-report: cannot write %s: %s\n", opt->text_path,
                strerror(errno));
        sc_sym_free(c.sym);
        return EXIT_READ;
    }
    int status = load_run(&r, (const char *const *)opt->paths, opt->n_paths, filter, jobs,
                          stream_take, &c);
    if (opt->has_pid && r.n_sums == 0 && status == 0) {
        fprintf(stderr, "streamcheck-report: no trace of process %u in the inputs\n", opt->pid);
        status = EXIT_READ;
    }
    if (c.failed) {
        fprintf(stderr, "streamcheck-report: out of memory\n");
        status = EXIT_READ;
    }
    if (opt->quiet || r.n_sums > 1) {
        if (!opt->quiet && c.reported)
            fputc('\n', c.out);
        if (r.n_sums > 0 || r.n_errors == 0)
            sc_ranks_merged_summary(c.out, r.sums, r.n_sums, c.suppressed);
    }
    sc_ranks_text(c.out, r.sums, r.n_sums);
    int wrc = fflush(c.out) != 0 || ferror(c.out) ? -1 : 0;
    int why = wrc ? errno : 0;
    if (c.out != stdout && fclose(c.out) != 0 && !wrc) {
        wrc = -1;
        why = errno;
    }
    if (wrc) {
        fprintf(stderr, "streamcheck-report: writing the text report failed: %s\n",
                why ? strerror(why) : "write error");
        status = EXIT_READ;
    }
    if (opt->summary_out) {
        int src = write_summary_out(opt, &r);
        if (src)
            status = src;
    }
    if (status == 0 && fails(&r, opt->fail_on))
        status = opt->error_exitcode;
    sc_sym_free(c.sym);
    free_run(&r);
    return status;
}

int sc_report_main(int argc, char **argv)
{
    sc_report_options opt;
    int prc = sc_report_parse_options(argc, argv, &opt);
    if (prc == SC_OPT_EXIT || prc == SC_OPT_USAGE) {
        sc_report_free_options(&opt);
        return prc == SC_OPT_EXIT ? 0 : EXIT_USAGE;
    }

    /* Expectations are parsed before any trace is read: a typo costs nothing. */
    sc_expect_set *expect = sc_expect_new();
    if (!expect || !read_expectations(&opt, expect)) {
        sc_expect_free(expect);
        sc_report_free_options(&opt);
        return EXIT_USAGE;
    }
    /* So are suppressions. */
    sc_suppress_set suppress = {0};
    if (!read_suppressions(&opt, &suppress)) {
        sc_suppress_free(&suppress);
        sc_expect_free(expect);
        sc_report_free_options(&opt);
        return EXIT_USAGE;
    }
    if (opt.check_expectations) {
        printf("streamcheck-report: %zu expectation%s parsed", sc_expect_count(expect),
               sc_expect_count(expect) == 1 ? "" : "s");
        if (opt.n_suppress)
            printf(", and %zu suppression argument%s", opt.n_suppress,
                   opt.n_suppress == 1 ? "" : "s");
        putchar('\n');
        sc_suppress_free(&suppress);
        sc_expect_free(expect);
        sc_report_free_options(&opt);
        return 0;
    }

    if (opt.dump) {
        int status = 0;
        sc_report_inputs in = {0};
        if (sc_report_collect(&in, (const char *const *)opt.paths, opt.n_paths) != 0)
            status = EXIT_READ;
        int drc = run_dump(&opt, &in);
        sc_report_inputs_free(&in);
        sc_suppress_free(&suppress);
        sc_expect_free(expect);
        sc_report_free_options(&opt);
        return drc ? drc : status;
    }

    report_run r = {0}, old = {0};
    bool windowed = opt.window.has_from || opt.window.has_to;
    load_filter filter = {opt.has_pid, opt.pid, windowed ? &opt.window : NULL,
                          opt.save_symbols};
    size_t jobs = opt.jobs ? opt.jobs : sc_pipeline_cpus();
    if (!needs_all(&opt)) {
        int brc = run_bounded(&opt, &suppress, &filter, jobs);
        sc_suppress_free(&suppress);
        sc_expect_free(expect);
        sc_report_free_options(&opt);
        return brc;
    }
    int status = load_run(&r, (const char *const *)opt.paths, opt.n_paths, &filter, jobs,
                          NULL, NULL);
    if (opt.has_pid && r.n_procs == 0 && r.n_sums == 0 && status == 0) {
        fprintf(stderr, "streamcheck-report: no trace of process %u in the inputs\n", opt.pid);
        status = EXIT_READ;
    }
    if (opt.baseline && load_run(&old, &opt.baseline, 1, NULL, jobs, NULL, NULL) != 0)
        status = EXIT_READ;
    const sc_analysis **as = calloc(r.n_procs ? r.n_procs : 1, sizeof *as);
    const sc_analysis **old_as = calloc(old.n_procs ? old.n_procs : 1, sizeof *old_as);
    sc_view *views = calloc(r.n_procs ? r.n_procs : 1, sizeof *views);
    sc_view *old_views = calloc(old.n_procs ? old.n_procs : 1, sizeof *old_views);
    size_t *suppressed = calloc(r.n_procs ? r.n_procs : 1, sizeof *suppressed);
    const report_run both[2] = {r, old};
    sc_symbolizer *sym = make_symbolizer(&opt, both, 2);
    /* Suppressions and --range apply to the baseline too, so that both sides compare the
     * same findings. */
    if (!r.procs || !as || !old_as || !views || !old_views || !suppressed ||
        build_views(&r, &opt, &suppress, sym, views, as) != 0 ||
        build_views(&old, &opt, &suppress, sym, old_views, old_as) != 0) {
        fprintf(stderr, "streamcheck-report: out of memory\n");
        return EXIT_READ;
    }
    for (size_t i = 0; i < r.n_procs; i++) {
        suppressed[i] = views[i].suppressed;
        if (!summarize(&opt, &r, as[i], suppressed[i])) {
            fprintf(stderr, "streamcheck-report: out of memory\n");
            return EXIT_READ;
        }
    }
    if (opt.summary_out) {
        int src = write_summary_out(&opt, &r);
        if (src)
            status = src;
    }

    if (opt.baseline) {
        sc_compare_side o = compare_side(&old, old_as, &opt.baseline, 1);
        sc_compare_side c = compare_side(&r, as, (const char *const *)opt.paths, opt.n_paths);
        if (write_comparison(&opt, &o, &c) != 0)
            status = EXIT_READ;
    }
    /* Verdicts first: the JSON report carries them too. */
    size_t n_verdicts = sc_expect_count(expect), failed = 0;
    sc_expect_result *verdicts = calloc(n_verdicts ? n_verdicts : 1, sizeof *verdicts);
    if (!verdicts) {
        fprintf(stderr, "streamcheck-report: out of memory\n");
        status = EXIT_READ;
        n_verdicts = 0;
    } else {
        failed = sc_expect_evaluate(expect, as, r.n_procs, verdicts);
    }
    if (!opt.baseline) {
        bool text = !sc_report_stdout_taken(&opt) || opt.text_path;
        if (text && (r.n_procs > 0 || r.n_errors == 0) &&
            write_text(&opt, &r, as, views, r.n_procs, sym) != 0)
            status = EXIT_READ;
        if (opt.json && write_json(&opt, &r, as, suppressed, sym, verdicts, n_verdicts) != 0)
            status = EXIT_READ;
    }
    if (opt.chrome_path && write_chrome(&opt, as, r.n_procs, sym) != 0)
        status = EXIT_READ;
    if (opt.html_path && write_html(&opt, as, r.n_procs, sym) != 0)
        status = EXIT_READ;
    if (opt.sarif_path && write_sarif(&opt, as, r.n_procs, sym) != 0)
        status = EXIT_READ;
    if (opt.junit_path && write_junit(&opt, as, r.n_procs) != 0)
        status = EXIT_READ;

    /* The verdicts go where the text report would, or to stderr when stdout carries a
     * document. */
    sc_expect_print(verdicts, n_verdicts, sc_report_stdout_taken(&opt) ? stderr : stdout);
    free(verdicts);
    if (status == 0 && failed)
        status = EXIT_EXPECT;
    if (status == 0 && fails(&r, opt.fail_on))
        status = opt.error_exitcode;

    for (size_t i = 0; i < r.n_procs; i++)
        sc_view_free(&views[i]);
    for (size_t i = 0; i < old.n_procs; i++)
        sc_view_free(&old_views[i]);
    free(views);
    free(old_views);
    free(suppressed);
    sc_sym_free(sym);
    free_run(&r);
    free_run(&old);
    free(as);
    free(old_as);
    sc_suppress_free(&suppress);
    sc_expect_free(expect);
    sc_report_free_options(&opt);
    return status;
}
