/* streamcheck-report's command line. */
#ifndef SC_REPORT_OPTIONS_H
#define SC_REPORT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/window.h"

/* One --expect EXPR or --expect-file FILE. */
typedef struct sc_report_expect_arg {
    bool file;
    const char *text;           /* the expectation, or the file's path */
} sc_report_expect_arg;

typedef struct sc_report_options {
    bool json;                  /* --json given */
    const char *json_path;      /* its FILE; NULL or "-": stdout, replacing the text */
    const char *text_path;      /* -o FILE; NULL: stdout */
    bool symbols;               /* false with --no-symbols */
    const char **symbol_paths;  /* --symbol-path DIR, in the order given */
    size_t n_symbol_paths;
    bool save_symbols;          /* --save-symbols: write TRACE.syms beside each trace */
    size_t sites;               /* --sites N */
    size_t intervals;           /* --intervals N */
    int fail_on;                /* an sc_severity, or -1 for never */
    bool quiet;                 /* -q: only the merged summary */
    bool dump;                  /* --dump: raw records instead of the report */
    const char *chrome_path;    /* --chrome FILE: Chrome/Perfetto trace; "-": stdout */
    const char *html_path;      /* --html FILE: self-contained HTML report; "-": stdout */
    const char *baseline;       /* --baseline PATH: compare against this run */
    sc_report_expect_arg *expects;  /* --expect and --expect-file, in the order given */
    size_t n_expects;
    bool check_expectations;    /* --check-expectations: parse them and exit */
    const char *sarif_path;     /* --sarif FILE: SARIF 2.1.0; "-": stdout */
    const char *junit_path;     /* --junit FILE: JUnit XML; "-": stdout */
    bool fail_on_set;           /* --fail-on was given (JUnit's threshold is error without) */
    int error_exitcode;         /* --error-exitcode N: the status when --fail-on trips */
    sc_report_expect_arg *suppress; /* --suppress (file false) and --suppressions (true) */
    size_t n_suppress;
    bool has_pid;               /* --pid PID: only that process's traces */
    uint32_t pid;
    const char *range;          /* --range NAME: findings and ranges inside such ranges */
    sc_window window;           /* --from T, --to T */
    size_t jobs;                /* -j N: traces loaded and analyzed at once; 0: the CPUs */
    const char *summary_out;    /* --summary-out FILE: the one trace's summary (ranks.h) */
    bool save_summaries;        /* --save-summaries: TRACE.summary.json beside each trace */
    char **paths;               /* the PATH operands */
    size_t n_paths;
} sc_report_options;

enum { SC_OPT_RUN = 0, SC_OPT_EXIT = 1, SC_OPT_USAGE = 2 };

/* SC_OPT_RUN to go on; SC_OPT_EXIT after --help/--version (exit 0); SC_OPT_USAGE after a
 * message on stderr (exit 2). */
int sc_report_parse_options(int argc, char **argv, sc_report_options *opt);

/* True when JSON replaces the text on stdout. */
bool sc_report_json_to_stdout(const sc_report_options *opt);

/* True when some output (JSON, --chrome -, --html -) takes stdout instead of the text. */
bool sc_report_stdout_taken(const sc_report_options *opt);

/* Frees what sc_report_parse_options allocated. */
void sc_report_free_options(sc_report_options *opt);

#endif
