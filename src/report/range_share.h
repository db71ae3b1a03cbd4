/* How much of each finding lies in a set of NVTX ranges (those whose name a test accepts).
 *
 * The analyzer counts a finding's occurrences per range (sc_range_summary.findings): an
 * occurrence belongs to a push/pop range when its call started inside it on the range's
 * thread, to a start/end range when it started inside it on any thread. Nested ranges each
 * count it, so summing over every matching range would count it twice; here a matching range
 * that lies inside another matching one (that counts all it counts) adds nothing. Matching
 * ranges that overlap without nesting (a start/end range across others) can still count an
 * occurrence twice: `overlapping` says so, and a caller that needs exact counts (a
 * suppression) then trusts none. */
#ifndef SC_REPORT_RANGE_SHARE_H
#define SC_REPORT_RANGE_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/analysis.h"

typedef struct sc_range_share {
    uint64_t count;         /* occurrences in the matching ranges */
    uint64_t cost_ns;       /* their share of the finding's saving */
} sc_range_share;

typedef struct sc_range_shares {
    sc_range_share *per_finding;    /* one per a->findings entry, same order */
    size_t n_ranges;                /* matching ranges */
    bool overlapping;               /* matching ranges that overlap without nesting */
    /* Some matching range counts more findings than it keeps (SC_MAX_RANGE_FINDINGS): those
     * it dropped, the cheapest, are missing from the counts. */
    bool truncated;
} sc_range_shares;

typedef bool (*sc_range_test)(const char *name, const void *arg);

/* Fills `out` for the ranges of `a` that `test` accepts. Returns 0, or -1 when out of
 * memory. */
int sc_range_shares_build(const sc_analysis *a, sc_range_test test, const void *arg,
                          sc_range_shares *out);
void sc_range_shares_free(sc_range_shares *s);

/* Tests for sc_range_shares_build: the name matches a glob (fnmatch), or equals a string. */
bool sc_range_name_glob(const char *name, const void *pattern);
bool sc_range_name_equals(const char *name, const void *text);

/* The severity a saving of cost_ns has in this run (analysis.h's thresholds): what a part
 * of a finding would be rated alone. */
sc_severity sc_report_severity_of(uint64_t cost_ns, const sc_analysis *a);

#endif
