/* The order of unique 64-bit keys, for lists that come as a few lists nearly in order (the
 * replay's nodes: each kind of work and each thread's items in recorded time): keys compared
 * inline, not through a comparator, and no copy of the elements moved: the caller encodes
 * what orders its elements in one key each (the time relative to the earliest above a few
 * tie-breaking bits) and reads the order as positions. */
#ifndef SC_TRACE_SORT_KEYS_H
#define SC_TRACE_SORT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The positions 0 .. n - 1 (n >= 1, below 2^32) by ascending key[position], as a new array
 * the caller frees. The keys must be unique. Scratch: a byte an element for up to 8 piles
 * (merged off the piles' bytes), a byte and a position an element for more (the piles'
 * index lists, merged through a tree).
 * NULL with *many set when the keys need more than 64 piles (a list in no order: sort it
 * otherwise); NULL with *many clear without memory. */
uint32_t *sc_order_keys(const uint64_t *key, size_t n, bool *many);

/* The same order written to order[] (n elements): 0, or -1 (with *many as above). */
int sc_order_keys_in(const uint64_t *key, size_t n, uint32_t *order, bool *many);

/* The positions 0 .. n - 1 (n >= 1, below 2^32) by (t[position], position) into order[], as
 * sc_order_keys_in orders unique keys: for times that may tie and span more than a key holds
 * beside a position (order_by_time.h), at a second comparison a tie. 0, or -1 (with *many
 * as above). */
int sc_order_times_in(const uint64_t *t, size_t n, uint32_t *order, bool *many);

#endif
