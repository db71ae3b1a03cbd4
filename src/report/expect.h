/* Expectations: checks on the measured numbers that make the report fail (`--expect`,
 * `--expect-file`; exit status 4).
 *
 * Grammar (one expectation per --expect or per line of an expectation file):
 *
 *   expectation := expr CMP expr
 *                | "no" (RULE | SEVERITY) [ "in" "range=" NAME ]
 *   CMP         := ">=" | "<=" | ">" | "<" | "=="
 *   expr        := term { ("+" | "-") term }
 *   term        := factor { ("*" | "/") factor }
 *   factor      := NUMBER [UNIT] | [scope] METRIC | "(" expr ")" | "-" factor
 *   scope       := "range=" NAME | "device=" N
 *   UNIT        := "ns" | "us" | "ms" | "s" (a time, in ms) | "%" (/100) | "x" (none)
 *
 * NAME runs to the next blank, or is quoted ("..." or '...') when it holds blanks.
 * METRIC is one of
 *   concurrency   kernel time / busy time
 *   speedup       productive speedup: the kernels' solo time / busy time
 *   copy-overlap  time a copy or memset ran beside a kernel / copy busy time (0..1)
 *   busy, kernel-time, overlap, idle      device times, in ms
 *   wall, time    the host duration of the range (without a range: the process run span,
 *                 with device=N: the device span), in ms
 *   kernels, copies, instances            counts (instances: how often the range ran)
 * Scope: range=NAME is every instance of every NVTX range so named, in every process; no
 * scope is every device of every process; device=N is device N of every process. Instances
 * are summed before the ratios are taken: concurrency = sum(kernel time) / sum(busy).
 * A ratio over nothing (no kernels, no copies), a range name no range has and a division by
 * zero make the expectation fail with the reason: an expectation never passes by default.
 *
 * "no RULE" fails when any process has a finding of RULE (any severity); "no RULE in
 * range=NAME" when one of the range's instances has. RULE is a rule id of the catalogue
 * (legacy-stream, blocking-stream, pageable-async, implicit-sync, host-sync, lazy-loading,
 * no-room, serializing-env), or a severity: "no warning" is no finding of severity warning
 * or error, whatever its rule. */
#ifndef SC_REPORT_EXPECT_H
#define SC_REPORT_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "streamcheck/analysis.h"

typedef struct sc_expect_set sc_expect_set;

sc_expect_set *sc_expect_new(void);
void sc_expect_free(sc_expect_set *set);

/* Parses one expectation. Returns 0, or -1 with a message in err (syntax, unknown metric or
 * rule, out of memory) that quotes the text. */
int sc_expect_add(sc_expect_set *set, const char *text, char *err, size_t err_size);

/* Adds every expectation of a file ("-": standard input): one per line, blank lines and
 * text after an unquoted '#' ignored. Returns 0, or -1 with "FILE:LINE: message" in err. */
int sc_expect_add_file(sc_expect_set *set, const char *path, char *err, size_t err_size);

size_t sc_expect_count(const sc_expect_set *set);

/* One expectation's verdict. */
typedef struct sc_expect_result {
    const char *text;           /* the expectation as given (owned by the set) */
    bool pass;
    char detail[1024];          /* what was measured, or why it could not be */
} sc_expect_result;

/* Checks every expectation; results has sc_expect_count(set) entries. Returns the number
 * that failed. */
size_t sc_expect_evaluate(const sc_expect_set *set, const sc_analysis *const *analyses,
                          size_t n, sc_expect_result *results);
/* Prints one line per verdict:
 *   expect: PASS range=nonblocking concurrency>=1.3 (measured 1.61)
 *   expect: FAIL range=x busy > 1ms (no range named "x") */
void sc_expect_print(const sc_expect_result *results, size_t n, FILE *out);

#endif
