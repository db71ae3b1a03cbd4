/* The order in which a replay pass takes its nodes (replay.h): by recorded time, and at a tie
 * by position (all device work before the host items, each in index order). */
#ifndef SC_ANALYZE_REPLAY_NODES_H
#define SC_ANALYZE_REPLAY_NODES_H

#include <stddef.h>
#include <stdint.h>

/* Sorts the positions 0 .. n - 1 by (at[position], position) and returns them as an array
 * of n uint32_t (the caller frees it; at is taken: freed, or the array's own memory), or
 * NULL without memory (at is then freed). n must be below 2^32.
 *
 * The sort runs on one 64-bit key per node, in at[] itself: the time relative to the
 * earliest, above as many bits as the positions need (for 10M nodes 24, leaving the times
 * 40 bits: 18 minutes; for 1M, 5 hours). Compared as one integer, half the bytes of a
 * (time, position) pair, and no second array. A run too long for its keys sorts (time,
 * position) pairs instead (the order is the same). Keys that make few piles (the pass's
 * nodes: the work of each kind and each thread's items, each nearly in recorded time order)
 * are ordered as index lists, which are the positions: no sort's scratch of 17 bytes a node,
 * which was the replay's peak of memory. */
uint32_t *sc_rp_order_nodes(uint64_t *at, size_t n);

#endif
