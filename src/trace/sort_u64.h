/* Ascending order of plain 64-bit values (times, correlation keys), compared inline instead of
 * through a comparator. Equal values cannot be told apart, so any correct sort leaves the same
 * bytes as the stable general sort (sort.h) with a 64-bit comparator: callers switch without
 * changing one byte of a report. */
#ifndef SC_TRACE_SORT_U64_H
#define SC_TRACE_SORT_U64_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v[0 .. n - 1] in place. A list in order costs one pass; one of at most 256 values is
 * sorted on the stack (no allocation); a longer one that interleaves a few ascending lists
 * (most of what the analyzer sorts) is dealt onto piles and merged, with a byte and one value
 * of scratch an element; anything else goes to the general sort. Without memory for the
 * scratch, the general sort too (which falls back to qsort). */
void sc_sort_u64(uint64_t *v, size_t n);

#endif
