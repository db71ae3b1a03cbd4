/* Findings of several processes summed per rule: the merged summary of text and JSON. */
#ifndef SC_REPORT_MERGE_H
#define SC_REPORT_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/analysis.h"

typedef struct sc_rule_total {
    const char *rule;
    sc_severity severity;       /* the highest any process reported */
    uint64_t count, cost_ns;    /* summed over processes */
    uint64_t processes;         /* how many processes reported the rule */
} sc_rule_total;

/* A malloc'd array ranked by cost (then severity, then rule id), its length in *n_out;
 * NULL with *n_out = 0 when no process has findings or memory ran out. */
/* qsort order of rule totals: by cost, then severity (worst first), then rule id. */
int sc_rule_total_cmp(const void *a, const void *b);

sc_rule_total *sc_report_merge_rules(const sc_analysis *const *analyses, size_t n,
                                     size_t *n_out);

#endif
