/* The sort's fast path for lists that interleave a few lists in order: device records sorted
 * by start, then sorted again by end, stream or correlation id; kernels followed by copies.
 * Such a list has short runs (a merge sort would need a pass per doubling) but splits into a
 * few piles in order, which merge in log2(piles) passes. Used by sort.c only. */
#ifndef SC_TRACE_SORT_PILES_H
#define SC_TRACE_SORT_PILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*sc_sort_cmp)(const void *, const void *);

/* Sorts base stably (equal elements keep their order). Returns 0 when sorted, 1 when the list
 * needs more piles than the fast path keeps (or has 2^32 elements or more), -1 without memory;
 * on 1 and -1 the list is unchanged. */
int sc_sort_piles(void *base, size_t n, size_t size, sc_sort_cmp cmp);

/* sc_sort_piles of elements ordered by the uint64_t at byte key_at of each (ascending, ties in
 * their input order), compared inline: the same order as with a comparator of that field. */
int sc_sort_piles_by_u64(void *base, size_t n, size_t size, size_t key_at);

/* The same order written to dst (n elements, not overlapping src), src unchanged: no array
 * beside the two. Returns as sc_sort_piles; on 1 and -1 dst is untouched. */
int sc_sort_piles_into(void *dst, const void *src, size_t n, size_t size, sc_sort_cmp cmp);

/* Element i of base made again where it belongs (sort.h: sc_sort_remake). */
typedef void sc_sort_remake_fn(const void *ctx, size_t i, void *dst);

/* The same order, each element written in its place by remake(ctx, its index before, place)
 * instead of moved: the positions are put in order, and the elements are made from what they
 * came from, base's old contents no longer needed. Returns as sc_sort_piles; on 1 and -1 base
 * is unchanged. */
int sc_sort_piles_remake(void *base, size_t n, size_t size, sc_sort_cmp cmp,
                         sc_sort_remake_fn *remake, const void *ctx);

#endif
