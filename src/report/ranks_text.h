/* The merged report over processes made from their rank summaries (ranks.h): the summary
 * every report ends with, and, when the inputs hold several ranks of a job, the table of
 * ranks, the slowest rank and the findings merged across ranks. Text here, JSON in
 * ranks_json.c. */
#ifndef SC_REPORT_RANKS_TEXT_H
#define SC_REPORT_RANKS_TEXT_H

#include <stdio.h>

#include "report/merge.h"
#include "report/ranks.h"

/* What sc_text_merged prints of analyses, printed from summaries (the same lines). */
void sc_ranks_merged_summary(FILE *out, sc_rank_summary *const *s, size_t n,
                             uint64_t suppressed);

/* The ranks section; nothing when fewer than two processes have a rank. */
void sc_ranks_text(FILE *out, sc_rank_summary *const *s, size_t n);

/* Shared with ranks_json.c. The processes that have a rank, sorted by rank (then pid): a
 * malloc'd array, its length in *n_out (NULL and 0 when out of memory or none). */
sc_rank_summary **sc_ranks_sorted(sc_rank_summary *const *s, size_t n, size_t *n_out);
/* The slowest rank: the most compute busy time, the others waiting for it at their
 * collectives; ties go to the longer wall time, then the lower rank. Index into r. */
size_t sc_ranks_slowest(sc_rank_summary *const *r, size_t n);
/* The median of the ranks' busy times (the lower one of an even count). */
uint64_t sc_ranks_median_busy(sc_rank_summary *const *r, size_t n);
/* The ranks' median exposed communication, the slowest rank left out. */
uint64_t sc_ranks_median_exposed(sc_rank_summary *const *r, size_t n, size_t slowest);

/* Findings per rule over summaries, as sc_report_merge_rules over analyses; with ranks
 * non-NULL, also each rule's ranks: ranks[k] is a malloc'd list of rank numbers (of r, in
 * rank order), n_ranks[k] its length. */
sc_rule_total *sc_ranks_merge_rules(sc_rank_summary *const *s, size_t n, size_t *n_out,
                                    int64_t ***ranks, size_t **n_ranks);

#endif
