/* Piles of 64-bit values, the part shared by the two inline sorts: sort_keys.c (positions by
 * unique keys) and sort_u64.c (the values themselves). Each value goes on the pile whose last
 * value is the largest not above it (a new pile below all of them otherwise), so the piles
 * stay in order of their last values and one comparison with the top pile (or two, with the
 * one below it) places most values of a list that interleaves a few ascending ones; each pile
 * is then one ascending run, and the runs, laid out one after another, are merged pairwise.
 * (sort_piles.c does the same through a comparator, for elements that are not one value.) */
#ifndef SC_TRACE_PILES_H
#define SC_TRACE_PILES_H

#include <stddef.h>
#include <stdint.h>

#define SC_PILES_MAX 64

/* pile[i] for each of v[0 .. n - 1] (n >= 1); returns the number of piles, or 0 when the
 * values need more than SC_PILES_MAX. The piles are numbered 0, 1, ... as they open, so
 * each pile's first element lies past the first element of the one numbered before it. */
size_t sc_piles_deal(const uint64_t *v, size_t n, uint8_t *pile);

/* Where each pile's run lies when the piles are laid out one after another, the shortest
 * first: fill[k] is pile k's first place, ends[j] one past the last place of the j-th run of
 * the layout. (The callers' keys are unique or plain values, so the runs' order changes
 * nothing in the merged list.) */
void sc_piles_layout(const uint8_t *pile, size_t n, size_t n_piles, size_t *fill,
                     size_t *ends);

/* Merges src's ascending runs [lo, mid) and [mid, hi) into dst[lo, hi); ctx is the caller's. */
typedef void sc_piles_merge_fn(const void *ctx, const void *src, void *dst, size_t lo,
                               size_t mid, size_t hi);

/* Merges the n_piles runs that end at ends[] (sc_piles_layout; rewritten here), the shortest
 * adjacent pair first, from whichever of a (which holds them) and b holds the pair into the
 * other (elements of elem_size bytes), until one run is left; returns a or b, whichever
 * holds it. */
void *sc_piles_merge_runs(void *a, void *b, size_t elem_size, size_t *ends, size_t n_piles,
                          sc_piles_merge_fn *merge, const void *ctx);

#endif
