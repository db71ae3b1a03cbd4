#include "report/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"

#ifndef SC_VERSION
#define SC_VERSION "unknown"
#endif

static void usage(FILE *out)
{
    fputs("Usage: streamcheck-report [OPTION]... PATH...\n"
          "   or: streamcheck-report --baseline OLD [OPTION]... PATH...\n"
          "Report what kept a CUDA program's kernels from running concurrently.\n"
          "PATH is a trace (*.sctrace, *.sctrace.partial), a summary (*.summary.json)\n"
          "or a folder of them.\n"
          "\n"
          "  --json[=FILE]       write the JSON report to FILE; without FILE (or with -),\n"
          "                      to standard output instead of the text report\n"
          "  -o, --output FILE   write the text report to FILE\n"
          "      --no-symbols    do not read binaries: frames print as module+offset\n"
          "      --symbol-path DIR  also look for binaries and debug files in DIR (by\n"
          "                      name, and DIR/.build-id/); repeatable\n"
          "      --save-symbols  write each trace's resolved frames to TRACE.syms beside\n"
          "                      it, read when the binaries are gone\n"
          "      --sites N       call sites shown per finding (default 3)\n"
          "      --intervals N   overlap intervals shown per device (default 5)\n"
          "      --fail-on SEV   exit 3 when a finding of severity SEV or higher exists:\n"
          "                      error, warning, note or never (default never)\n"
          "      --error-exitcode N  exit N instead of 3 when --fail-on trips\n"
          "  -q, --quiet         print only the merged summary\n"
          "      --chrome FILE   write a Chrome/Perfetto trace (Trace Event Format) to\n"
          "                      FILE; open it in ui.perfetto.dev or chrome://tracing\n"
          "      --html FILE     write a self-contained HTML report with a timeline\n"
          "      --expect EXPR   check the measured numbers, e.g. 'no legacy-stream',\n"
          "                      'range=step concurrency >= 1.3',\n"
          "                      'range=a time / range=b time >= 1.3'; repeatable;\n"
          "                      one line each, exit 4 when one fails\n"
          "      --expect-file FILE  expectations, one per line ('#' comments)\n"
          "      --check-expectations  only check the syntax of expectations and\n"
          "                      suppressions (no PATH)\n"
          "      --baseline OLD  compare PATH (this run) with OLD (a trace or a folder):\n"
          "                      per range wall, busy and concurrency, and the findings\n"
          "                      that are new, gone or changed (text, or --json)\n"
          "      --sarif FILE    write the findings as SARIF 2.1.0 (code scanning)\n"
          "      --junit FILE    write JUnit XML: a test case per rule and per process,\n"
          "                      failed at --fail-on's severity (default error)\n"
          "      --suppress RULE[:kernel=PAT|:site=PAT|:range=PAT]  leave out the findings\n"
          "                      of RULE (all of whose kernels, sites or ranges match the\n"
          "                      glob PAT); repeatable\n"
          "      --suppressions FILE  suppressions, one per line ('#' comments)\n"
          "      --pid PID       report only the traces of process PID\n"
          "      --range NAME    only the findings and ranges inside NVTX ranges NAME (a glob)\n"
          "      --from T, --to T  report only what started between T and T from the run's\n"
          "                      start: 2.5s, 300ms, 40us (seconds without a unit)\n"
          "  -j, --jobs N        load and analyze N traces at once (default: the CPUs)\n"
          "      --summary-out FILE  write the summary of the one trace given to FILE\n"
          "                      (JSON; a merged report reads it instead of the trace)\n"
          "      --save-summaries  write each trace's summary beside it\n"
          "                      (TRACE.summary.json)\n"
          "      --dump          print each trace's raw records in file order instead\n"
          "                      of the report (with -o FILE, to FILE)\n"
          "  -h, --help          show this help and exit\n"
          "  -V, --version       show the version and exit\n"
          "\n"
          "Exit status: 0 reported; 1 a path could not be read; 2 usage error;\n"
          "3 (or --error-exitcode) findings at or above --fail-on; 4 an expectation failed.\n"
          "See streamcheck-report(1).\n", out);
}

static int parse_count(const char *arg, const char *name, size_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (errno || end == arg || *end || v < 0) {
        fprintf(stderr, "streamcheck-report: %s wants a count, not '%s'\n", name, arg);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

enum {
    OPT_JSON = 256, OPT_NO_SYMBOLS, OPT_SYMBOL_PATH, OPT_SAVE_SYMBOLS, OPT_SITES, OPT_INTERVALS, OPT_FAIL_ON, OPT_DUMP,
    OPT_CHROME, OPT_HTML, OPT_EXPECT, OPT_EXPECT_FILE, OPT_CHECK_EXPECT, OPT_BASELINE,
    OPT_SARIF, OPT_JUNIT, OPT_SUPPRESS, OPT_SUPPRESSIONS, OPT_ERROR_EXITCODE, OPT_PID,
    OPT_RANGE, OPT_FROM, OPT_TO, OPT_SUMMARY_OUT, OPT_SAVE_SUMMARIES,
};

/* An integer in [lo, hi]; -1 after a message naming the option. */
static int parse_int(const char *arg, const char *name, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < lo || v > hi) {
        fprintf(stderr, "streamcheck-report: %s wants a number from %ld to %ld, not '%s'\n",
                name, lo, hi, arg);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_time(const char *arg, const char *name, bool *has, uint64_t *out)
{
    if (sc_window_parse_time(arg, out) != 0) {
        fprintf(stderr, "streamcheck-report: %s wants a time from the run's start such as "
                "2.5s, 300ms or 40us, not '%s'\n", name, arg);
        return -1;
    }
    *has = true;
    return 0;
}

static bool is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int sc_report_parse_options(int argc, char **argv, sc_report_options *opt)
{
    static const struct option longopts[] = {
        {"json", optional_argument, NULL, OPT_JSON},
        {"output", required_argument, NULL, 'o'},
        {"no-symbols", no_argument, NULL, OPT_NO_SYMBOLS},
        {"symbol-path", required_argument, NULL, OPT_SYMBOL_PATH},
        {"save-symbols", no_argument, NULL, OPT_SAVE_SYMBOLS},
        {"sites", required_argument, NULL, OPT_SITES},
        {"intervals", required_argument, NULL, OPT_INTERVALS},
        {"fail-on", required_argument, NULL, OPT_FAIL_ON},
        {"quiet", no_argument, NULL, 'q'},
        {"dump", no_argument, NULL, OPT_DUMP},
        {"chrome", required_argument, NULL, OPT_CHROME},
        {"html", required_argument, NULL, OPT_HTML},
        {"expect", required_argument, NULL, OPT_EXPECT},
        {"expect-file", required_argument, NULL, OPT_EXPECT_FILE},
        {"check-expectations", no_argument, NULL, OPT_CHECK_EXPECT},
        {"baseline", required_argument, NULL, OPT_BASELINE},
        {"sarif", required_argument, NULL, OPT_SARIF},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"suppress", required_argument, NULL, OPT_SUPPRESS},
        {"suppressions", required_argument, NULL, OPT_SUPPRESSIONS},
        {"error-exitcode", required_argument, NULL, OPT_ERROR_EXITCODE},
        {"pid", required_argument, NULL, OPT_PID},
        {"range", required_argument, NULL, OPT_RANGE},
        {"from", required_argument, NULL, OPT_FROM},
        {"to", required_argument, NULL, OPT_TO},
        {"jobs", required_argument, NULL, 'j'},
        {"summary-out", required_argument, NULL, OPT_SUMMARY_OUT},
        {"save-summaries", no_argument, NULL, OPT_SAVE_SUMMARIES},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(opt, 0, sizeof *opt);
    opt->symbols = true;
    opt->sites = 3;
    opt->intervals = 5;
    opt->fail_on = -1;
    opt->error_exitcode = 3;
    /* Every --expect/--expect-file (--suppress, --suppressions) is one argument or two: argc
     * bounds them. */
    opt->expects = calloc((size_t)argc + 1, sizeof *opt->expects);
    opt->suppress = calloc((size_t)argc + 1, sizeof *opt->suppress);
    opt->symbol_paths = calloc((size_t)argc + 1, sizeof *opt->symbol_paths);
    if (!opt->expects || !opt->suppress || !opt->symbol_paths) {
        fputs("streamcheck-report: out of memory\n", stderr);
        return SC_OPT_USAGE;
    }

    int c;
    while ((c = getopt_long(argc, argv, "o:qj:hV", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            opt->json = true;
            opt->json_path = optarg;
            break;
        case 'o':
            opt->text_path = optarg;
            break;
        case OPT_NO_SYMBOLS:
            opt->symbols = false;
            break;
        case OPT_SYMBOL_PATH:
            if (!optarg[0]) {
                fputs("streamcheck-report: --symbol-path wants a folder\n", stderr);
                return SC_OPT_USAGE;
            }
            opt->symbol_paths[opt->n_symbol_paths++] = optarg;
            break;
        case OPT_SAVE_SYMBOLS:
            opt->save_symbols = true;
            break;
        case OPT_SITES:
            if (parse_count(optarg, "--sites", &opt->sites) != 0)
                return SC_OPT_USAGE;
            break;
        case OPT_INTERVALS:
            if (parse_count(optarg, "--intervals", &opt->intervals) != 0)
                return SC_OPT_USAGE;
            break;
        case OPT_FAIL_ON:
            opt->fail_on_set = true;
            if (strcmp(optarg, "never") == 0) {
                opt->fail_on = -1;
            } else if ((opt->fail_on = sc_report_parse_severity(optarg)) < 0) {
                fprintf(stderr, "streamcheck-report: --fail-on wants error, warning, note or "
                        "never, not '%s'\n", optarg);
                return SC_OPT_USAGE;
            }
            break;
        case 'q':
            opt->quiet = true;
            break;
        case OPT_DUMP:
            opt->dump = true;
            break;
        case OPT_CHROME:
            opt->chrome_path = optarg;
            break;
        case OPT_HTML:
            opt->html_path = optarg;
            break;
        case OPT_EXPECT:
        case OPT_EXPECT_FILE:
            opt->expects[opt->n_expects++] = (sc_report_expect_arg){c == OPT_EXPECT_FILE,
                                                                    optarg};
            break;
        case OPT_CHECK_EXPECT:
            opt->check_expectations = true;
            break;
        case OPT_BASELINE:
            opt->baseline = optarg;
            break;
        case OPT_SARIF:
            opt->sarif_path = optarg;
            break;
        case OPT_JUNIT:
            opt->junit_path = optarg;
            break;
        case OPT_SUPPRESS:
        case OPT_SUPPRESSIONS:
            opt->suppress[opt->n_suppress++] = (sc_report_expect_arg){c == OPT_SUPPRESSIONS,
                                                                      optarg};
            break;
        case OPT_ERROR_EXITCODE: {
            long v;
            if (parse_int(optarg, "--error-exitcode", 1, 255, &v) != 0)
                return SC_OPT_USAGE;
            opt->error_exitcode = (int)v;
            break;
        }
        case OPT_PID: {
            long v;
            if (parse_int(optarg, "--pid", 0, UINT32_MAX, &v) != 0)
                return SC_OPT_USAGE;
            opt->has_pid = true;
            opt->pid = (uint32_t)v;
            break;
        }
        case OPT_RANGE:
            if (!optarg[0]) {
                fputs("streamcheck-report: --range wants a range name\n", stderr);
                return SC_OPT_USAGE;
            }
            opt->range = optarg;
            break;
        case OPT_FROM:
            if (parse_time(optarg, "--from", &opt->window.has_from, &opt->window.from_ns) != 0)
                return SC_OPT_USAGE;
            break;
        case OPT_TO:
            if (parse_time(optarg, "--to", &opt->window.has_to, &opt->window.to_ns) != 0)
                return SC_OPT_USAGE;
            break;
        case 'j':
            if (parse_count(optarg, "--jobs", &opt->jobs) != 0 || opt->jobs == 0) {
                if (opt->jobs == 0)
                    fputs("streamcheck-report: --jobs wants 1 or more\n", stderr);
                return SC_OPT_USAGE;
            }
            break;
        case OPT_SUMMARY_OUT:
            opt->summary_out = optarg;
            break;
        case OPT_SAVE_SUMMARIES:
            opt->save_summaries = true;
            break;
        case 'h':
            usage(stdout);
            return SC_OPT_EXIT;
        case 'V':
            printf("streamcheck-report %s\n", SC_VERSION);
            return SC_OPT_EXIT;
        default:
            fputs("Try 'streamcheck-report --help'.\n", stderr);
            return SC_OPT_USAGE;
        }
    }
    if (opt->check_expectations) {
        if (opt->n_expects == 0 && opt->n_suppress == 0) {
            fputs("streamcheck-report: --check-expectations wants --expect, --expect-file, "
                  "--suppress or --suppressions\n",
                  stderr);
            return SC_OPT_USAGE;
        }
        opt->paths = argv + optind;
        opt->n_paths = (size_t)(argc - optind);
        return SC_OPT_RUN;
    }
    if (optind >= argc) {
        fputs("streamcheck-report: no trace file or folder given\n"
              "Try 'streamcheck-report --help'.\n", stderr);
        return SC_OPT_USAGE;
    }
    /* A dump replaces the report, so options that shape the report would be silently
     * ignored; --json is the one whose absence a script would not notice. */
    if (opt->dump && opt->json) {
        fputs("streamcheck-report: --dump and --json exclude each other\n"
              "Try 'streamcheck-report --help'.\n", stderr);
        return SC_OPT_USAGE;
    }
    if (opt->window.has_from && opt->window.has_to && opt->window.to_ns <= opt->window.from_ns) {
        fputs("streamcheck-report: --to must lie after --from\n", stderr);
        return SC_OPT_USAGE;
    }
    if (opt->dump && (opt->chrome_path || opt->html_path || opt->baseline || opt->n_expects ||
                      opt->sarif_path || opt->junit_path || opt->n_suppress || opt->has_pid ||
                      opt->range || opt->window.has_from || opt->window.has_to)) {
        fputs("streamcheck-report: --dump shows raw records: it excludes the other outputs, "
              "--baseline, --expect, suppressions and filters\n"
              "Try 'streamcheck-report --help'.\n", stderr);
        return SC_OPT_USAGE;
    }
    int to_stdout = sc_report_json_to_stdout(opt) + is_stdout(opt->chrome_path) +
                    is_stdout(opt->html_path) + is_stdout(opt->sarif_path) +
                    is_stdout(opt->junit_path);
    if (to_stdout > 1) {
        fputs("streamcheck-report: only one of --json, --chrome, --html, --sarif and --junit "
              "can write to "
              "standard output\n"
              "Try 'streamcheck-report --help'.\n", stderr);
        return SC_OPT_USAGE;
    }
    if (opt->baseline && opt->html_path) {
        fputs("streamcheck-report: --html shows one run; run it without --baseline\n"
              "Try 'streamcheck-report --help'.\n", stderr);
        return SC_OPT_USAGE;
    }
    opt->paths = argv + optind;
    opt->n_paths = (size_t)(argc - optind);
    return SC_OPT_RUN;
}

bool sc_report_json_to_stdout(const sc_report_options *opt)
{
    return opt->json && (!opt->json_path || strcmp(opt->json_path, "-") == 0);
}

bool sc_report_stdout_taken(const sc_report_options *opt)
{
    return sc_report_json_to_stdout(opt) || is_stdout(opt->chrome_path) ||
           is_stdout(opt->html_path) || is_stdout(opt->sarif_path) ||
           is_stdout(opt->junit_path);
}

void sc_report_free_options(sc_report_options *opt)
{
    free(opt->expects);
    free(opt->suppress);
    free(opt->symbol_paths);
    opt->symbol_paths = NULL;
    opt->n_symbol_paths = 0;
    opt->suppress = NULL;
    opt->n_suppress = 0;
    opt->expects = NULL;
    opt->n_expects = 0;
}
