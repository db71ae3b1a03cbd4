/* Comparing two runs (`streamcheck-report --baseline OLD NEW...`): per process, per NVTX
 * range name, how wall time, busy time and concurrency changed, and which findings are new,
 * gone or changed in cost.
 *
 * Processes are matched by executable basename, then by order: the k-th process named "app"
 * in the baseline goes with the k-th one named "app" in the current run; the rest are
 * reported as only in one run. Within a process, a range name stands for all its instances,
 * summed (wall = summed host durations, busy and kernel time summed, concurrency = summed
 * kernel time / summed busy), as for --expect. The "(whole run)" row is the process: its
 * run span, and every device's busy and kernel time. Findings are matched by rule id (a
 * rule's findings summed per process). */
#ifndef SC_REPORT_COMPARE_H
#define SC_REPORT_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "report/json.h"
#include "streamcheck/analysis.h"

#define SC_COMPARE_SCHEMA "streamcheck-compare/1"

typedef struct sc_compare_side {
    const sc_analysis *const *analyses;
    size_t n;
    const char *const *paths;   /* the operands as given, for the header */
    size_t n_paths;
    const sc_json_error *errors;    /* traces of this side that could not be read */
    size_t n_errors;
} sc_compare_side;

/* The text comparison. Returns 0, or -1 when out of memory or the write failed. */
int sc_compare_text(FILE *out, const sc_compare_side *baseline, const sc_compare_side *current);

/* The JSON comparison (schema SC_COMPARE_SCHEMA, streamcheck-json(5)), indented, with a
 * final newline. Returns 0, or -1 when out of memory or the write failed. */
int sc_compare_json(FILE *out, const sc_compare_side *baseline, const sc_compare_side *current,
                    const char *tool_version);

#endif
