/* The NVTX range table of the text report: one row per range name (sc_range_name_summary),
 * since a training loop has thousands of ranges of one name. Part of sc_report_text. */
#ifndef SC_REPORT_TEXT_RANGES_H
#define SC_REPORT_TEXT_RANGES_H

#include <stdio.h>

#include "streamcheck/analysis.h"

#define SC_TEXT_MAX_RANGE_ROWS 20   /* names shown; the JSON report has all of them */

/* Prints nothing when the trace has no range. */
void sc_text_ranges(FILE *out, const sc_analysis *a);

#endif
