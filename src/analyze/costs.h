/* Costing the findings with the replay: see costs.c. */
#ifndef SC_ANALYZE_COSTS_H
#define SC_ANALYZE_COSTS_H

#include <stdint.h>

#include "analyze/findings.h"

/* Sets every finding's cost, severity, join and same-wait marks, fills the replay summary,
 * and returns the replayed wall times of the NVTX ranges in *range_walls (two per range in
 * trace->ranges order: as recorded, with every fix; the caller frees it). Returns 0, or -1
 * when out of memory. */
int sc_costs_compute(sc_ctx *ctx, sc_finding_list *list, sc_replay_summary *summary,
                     uint64_t **range_walls);

#endif
