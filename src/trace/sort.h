/* A stable sort: equal keys keep their input order, so loading the same file twice always
 * yields the same order, whatever the C library's qsort does with ties. */
#ifndef SC_TRACE_SORT_H
#define SC_TRACE_SORT_H

#include <stddef.h>

/* Returns 0, or -1 when the scratch buffer could not be allocated (input left unchanged). */
int sc_stable_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* sc_stable_sort of elements ordered by the uint64_t at byte key_at of each, ascending: the
 * loader's lists, by start time. cmp must compare that field (x < y ? -1 : x > y); the key is
 * compared inline where the general sort calls cmp, and cmp serves only a list that
 * interleaves too many lists in order. The same order as sc_stable_sort with cmp. A list
 * whose elements lie a few places from where they go (device records in completion order)
 * is sorted in place by insertion, in one pass. */
int sc_stable_sort_by_u64(void *base, size_t n, size_t size, size_t key_at,
                          int (*cmp)(const void *, const void *));

/* qsort, except that an array already in order costs one pass of comparisons and is left as
 * it is. Most of what the analyzer sorts was derived from time-ordered records and is in
 * order already. glibc's qsort is a stable merge sort at any size the report handles, which
 * leaves such an array unchanged too: the result is the same, only the work is skipped. */
void sc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* dst (n elements, not overlapping src) = src in sc_sort's order, src unchanged. A list that
 * interleaves a few lists in order is gathered straight from src: sorting a copy in place
 * would gather into a second new array and copy it back (n * size bytes of fresh pages). */
void sc_sort_copy(void *dst, const void *src, size_t n, size_t size,
                  int (*cmp)(const void *, const void *));

/* sc_sort of an array the caller made, element i by remake(ctx, i, dst) (from what it still
 * holds: remake must not read base): a list that interleaves a few lists in order has its
 * positions put in order and each element made again in its place, instead of gathered into
 * a second new array and copied back (n * size bytes of fresh pages). */
void sc_sort_remake(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
                    void (*remake)(const void *ctx, size_t i, void *dst), const void *ctx);

#endif
