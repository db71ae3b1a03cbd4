/* streamcheck-report's command line. */
#ifndef SC_REPORT_OPTIONS_H
#define SC_REPORT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sc_report_options {
    bool json;                  /* --json given */
    const char *json_path;      /* its FILE; NULL or "-": stdout, replacing the text */
    const char *text_path;      /* -o FILE; NULL: stdout */
    bool symbols;               /* false with --no-symbols */
    size_t sites;               /* --sites N */
    size_t intervals;           /* --intervals N */
    int fail_on;                /* an sc_severity, or -1 for never */
    bool quiet;                 /* -q: only the merged summary */
    bool dump;                  /* --dump: raw records instead of the report */
    char **paths;               /* the PATH operands */
    size_t n_paths;
} sc_report_options;

enum { SC_OPT_RUN = 0, SC_OPT_EXIT = 1, SC_OPT_USAGE = 2 };

/* SC_OPT_RUN to go on; SC_OPT_EXIT after --help/--version (exit 0); SC_OPT_USAGE after a
 * message on stderr (exit 2). */
int sc_report_parse_options(int argc, char **argv, sc_report_options *opt);

/* True when JSON replaces the text on stdout. */
bool sc_report_json_to_stdout(const sc_report_options *opt);

#endif
