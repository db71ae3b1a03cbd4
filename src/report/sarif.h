/* SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format): the findings of every
 * process as one run, for code-scanning views that show a finding at its source line. */
#ifndef SC_REPORT_SARIF_H
#define SC_REPORT_SARIF_H

#include <stddef.h>
#include <stdio.h>

#include "report/frame.h"
#include "streamcheck/analysis.h"

typedef struct sc_sarif_options {
    sc_frame_resolver resolve;  /* NULL: sites are logical locations (module+0xoffset) */
    void *resolve_ctx;
    const char *tool_version;
} sc_sarif_options;

/* Writes the SARIF log, indented, with a final newline. Returns 0, or -1 when out of memory
 * or the write failed. */
int sc_sarif_write(FILE *out, const sc_analysis *const *analyses, size_t n,
                   const sc_sarif_options *opt);

#endif
