/* Per-NVTX-range metrics: sc_range_summary and sc_range_name_summary (analysis.h).
 *
 * Runs after the rules, while the findings still carry their instances' marks: a range's
 * device work and findings are what was issued inside it (range_sweep.h says which), found by
 * one sweep in time order over the calls with their work and one over each finding's marks
 * (range_sweep.h); its overlap metrics come from the same engine as the devices' and
 * streams', and the ranges of one name are summed into one row (range_names.c).
 */
#ifndef SC_ANALYZE_RANGES_H
#define SC_ANALYZE_RANGES_H

#include <stddef.h>

#include "analyze/findings.h"
#include "analyze/internal.h"

/* Fills a->ranges and a->range_names (nothing when the trace has no range). list: the
 * findings, sorted as a->findings, with their marks. Returns 0, or -1 when out of memory. */
int sc_ranges_build(const sc_ctx *ctx, const sc_finding_list *list, sc_analysis *a);

/* ---- shared by ranges.c and range_names.c ---------------------------------------------- */

/* Keeps the SC_MAX_RANGE_FINDINGS largest by cost, then count, then finding index. */
void sc_range_findings_insert(sc_range_finding *top, size_t *n, const sc_range_finding *cand);

/* group[i]: the name group of trace range i, by (domain, name); *n_groups of them. */
int sc_range_names_group(const sc_trace *t, size_t *group, size_t *n_groups);
/* Sums the range summaries into their groups' rows (whose findings are already filled),
 * then sorts the rows by summed wall time, largest first, then first appearance. Returns
 * 0, or -1 when out of memory. */
int sc_range_names_sum(const sc_range_summary *ranges, size_t n_ranges, const size_t *group,
                       sc_range_name_summary *names, size_t n_names);

#endif
