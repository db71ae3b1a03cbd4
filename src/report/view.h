/* What the report shows of one analysis: the findings left after --suppress and
 * --suppressions, and with --range only the findings and ranges inside ranges of that name.
 *
 * A view is a shallow copy of the analysis (devices, streams, replay and the trace are the
 * analysis's own) with findings of its own, and ranges and range rows of its own where a
 * filter changed them, so every writer, the --fail-on check and the expectations see the
 * same filtered report. */
#ifndef SC_REPORT_VIEW_H
#define SC_REPORT_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "report/suppress.h"
#include "streamcheck/analysis.h"

typedef struct sc_view_options {
    const sc_suppress_set *suppress;    /* NULL or empty: none */
    sc_suppress_env env;                /* how site patterns name call sites */
    const char *range;                  /* --range NAME (a glob), or NULL */
} sc_view_options;

typedef struct sc_view {
    sc_analysis analysis;               /* what the writers get */
    size_t suppressed;                  /* findings a suppression took out */
    size_t outside_range;               /* findings with no occurrence in the --range */
    bool shares_ranges;                 /* its ranges and range rows are the analysis's:
                                           nothing was filtered out of them */
} sc_view;

/* Builds the view of `a`, which must outlive it. Returns 0, or -1 when out of memory. */
int sc_view_build(const sc_analysis *a, const sc_view_options *opt, sc_view *out);
void sc_view_free(sc_view *v);

#endif
