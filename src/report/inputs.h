/* Turning PATH operands into the list of trace files to report. */
#ifndef SC_REPORT_INPUTS_H
#define SC_REPORT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sc_report_inputs {
    char **files;
    size_t n, cap;
} sc_report_inputs;

/* True for "*.sctrace" and "*.sctrace.partial". */
bool sc_report_is_trace_name(const char *name);

/* A rank summary (ranks.h): TRACE.summary.json, beside the trace it was made from. */
#define SC_SUMMARY_SUFFIX ".summary.json"

/* True for "*.summary.json". */
bool sc_report_is_summary_name(const char *name);

/* The symbols stored beside a trace (TRACE.syms), read with it, never on their own. */
#define SC_SYMS_SUFFIX ".syms"

/* Adds `path`: a file as it is (whatever its name: the user chose it) but a trace's .syms
 * file, a folder's trace files and the summaries whose trace is not there, sorted by name
 * (not recursive). Returns 0, or -1 after a message on stderr (the path does not exist, the
 * folder cannot be read or holds no traces). */
int sc_report_add_path(sc_report_inputs *in, const char *path);

/* Every path through sc_report_add_path, then a summary given beside its own trace dropped
 * (a glob over a run folder names both; the trace says more). Returns 0, or -1 when a
 * path could not be added (the others are in `in`). */
int sc_report_collect(sc_report_inputs *in, const char *const *paths, size_t n);

void sc_report_inputs_free(sc_report_inputs *in);

#endif
