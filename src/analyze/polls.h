/* Polling loops: a thread calling cudaStreamQuery or cudaEventQuery on one stream or event
 * over and over until it is done. One definition, shared by the rule host-sync (a loop is
 * one synchronization) and the replay (a loop is one wait).
 *
 * A loop is at least SC_POLL_MIN_QUERIES queries of one class and one handle, consecutive
 * among the thread's calls (any other call of the thread in between ends it), each starting
 * less than SC_POLL_GAP_NS after the previous one returned. A lone query, or two, is a check,
 * not a wait. */
#ifndef SC_ANALYZE_POLLS_H
#define SC_ANALYZE_POLLS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"

#define SC_POLL_MIN_QUERIES 3
#define SC_POLL_GAP_NS 50000u           /* 50 us between queries: still the same loop */

typedef struct sc_poll_loop {
    size_t first, last;                 /* trace->calls indices of its first and last query */
    uint64_t queries;
} sc_poll_loop;

/* The loops of the trace, by their first query's start. Returns 0, or -1 when out of
 * memory. Inner (driver) calls of a runtime query are not counted. The queries are read from
 * the blocking index's calls that may hold the host (ctx->blocking, built before). */
int sc_polls_find(const sc_ctx *ctx, sc_poll_loop **out, size_t *n_out);

#endif
