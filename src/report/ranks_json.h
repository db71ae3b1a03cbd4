/* The ranks section of the JSON report ("ranks": streamcheck-json(5)). */
#ifndef SC_REPORT_RANKS_JSON_H
#define SC_REPORT_RANKS_JSON_H

#include <jansson.h>

#include "report/ranks.h"

/* A new object (ranks in rank order, the slowest rank, findings across ranks), or NULL when
 * fewer than two processes have a rank or memory ran out. */
json_t *sc_ranks_json(sc_rank_summary *const *s, size_t n);

#endif
