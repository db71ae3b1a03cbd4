/* JUnit XML for CI test views: a test suite per process, a test case per rule of the
 * catalogue, failed when the process has a finding of that rule at or above a severity,
 * and a test case per NVTX range name starting with "test:", failed when a finding's part
 * inside those ranges is at or above it. */
#ifndef SC_REPORT_JUNIT_H
#define SC_REPORT_JUNIT_H

#include <stddef.h>
#include <stdio.h>

#include "streamcheck/analysis.h"

#define SC_JUNIT_RANGE_PREFIX "test:"

typedef struct sc_junit_options {
    int fail_on;                /* an sc_severity; -1: no test case fails */
} sc_junit_options;

/* Writes the document. Returns 0, or -1 when libxml2 is missing, out of memory or the
 * write failed (with a message in err). */
int sc_junit_write(FILE *out, const sc_analysis *const *analyses, size_t n,
                   const sc_junit_options *opt, char *err, size_t err_size);

#endif
