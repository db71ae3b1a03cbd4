/* JSON report, schema "streamcheck-report/1" (doc/json-schema.md). */
#ifndef SC_REPORT_JSON_H
#define SC_REPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "report/frame.h"
#include "report/expect.h"
#include "streamcheck/analysis.h"

#define SC_JSON_SCHEMA "streamcheck-report/1"

typedef struct sc_json_error {
    const char *path;           /* a trace that could not be read */
    const char *message;        /* the loader's or analyzer's message */
} sc_json_error;

typedef struct sc_json_options {
    sc_frame_resolver resolve;  /* NULL: frames carry module + module_offset only */
    void *resolve_ctx;
    const char *tool_version;
    const sc_expect_result *expectations;   /* verdicts of --expect; none: no member */
    size_t n_expectations;
    const size_t *suppressed;   /* per process: findings left out by suppressions; NULL: 0 */
    struct json_t *ranks;       /* the "ranks" member (ranks_json.h), taken over; NULL: none */
} sc_json_options;

/* Writes the whole document (processes, errors, merged summary) to out, indented, with a
 * final newline. Returns 0, or -1 when out of memory or the write failed. */
int sc_json_write(FILE *out, const sc_analysis *const *analyses, size_t n,
                  const sc_json_error *errors, size_t n_errors, const sc_json_options *opt);

#endif
