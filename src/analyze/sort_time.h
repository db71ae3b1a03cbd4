/* A stable sort by time for the analyzer's largest lists (points of the overlap sweep, the
 * replay's nodes): elements that begin with a uint64_t key, sorted by that key alone, equal
 * keys in their input order. A caller that needs ties broken by more fields fills the list in
 * the order of those fields first: a stable sort by time then yields the full order.
 *
 * An LSD radix sort over the span of the keys (largest minus smallest: a run's span in
 * nanoseconds fits 40-odd bits, 4 passes of 11 bits), with no comparison function to call:
 * these lists hold two entries per piece of work, tens of millions in a long trace. */
#ifndef SC_ANALYZE_SORT_TIME_H
#define SC_ANALYZE_SORT_TIME_H

#include <stddef.h>

/* Sorts base (n elements of size bytes, each starting with its uint64_t key). Returns 0, or
 * -1 when out of memory (base unchanged). */
int sc_sort_by_time(void *base, size_t n, size_t size);

#endif
