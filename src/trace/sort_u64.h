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

/* In ascending v[0 .. n - 1]: the first position whose value is at least x (lower bound), or
 * above x (upper bound); n when there is none. */
static inline size_t sc_u64_lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static inline size_t sc_u64_upper_bound(const uint64_t *v, size_t n, uint64_t x)
{
    return x == UINT64_MAX ? n : sc_u64_lower_bound(v, n, x + 1);
}

#endif
