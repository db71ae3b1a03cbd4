/* Positions ordered by a time each, at a tie by position: the order in which a replay pass
 * takes its nodes (replay.h: all device work before the host items, each in index order), the
 * blocking index's work by start and the replay's ops by recorded end. */
#ifndef SC_TRACE_ORDER_BY_TIME_H
#define SC_TRACE_ORDER_BY_TIME_H

#include <stddef.h>
#include <stdint.h>

/* Sorts the positions 0 .. n - 1 by (at[position], position) and returns them as an array
 * of n uint32_t (the caller frees it; at is taken: freed, or the array's own memory), or
 * NULL without memory (at is then freed). n must be below 2^32.
 *
 * The sort runs on one 64-bit key per position, in at[] itself: the time relative to the
 * earliest, above as many bits as the positions need (for 10M nodes 24, leaving the times
 * 40 bits: 18 minutes; for 1M, 5 hours). Compared as one integer, half the bytes of a
 * (time, position) pair, and no second array. A run too long for its keys (a day-long run)
 * has its times ordered by their piles with the positions breaking ties (sort_keys.h's
 * sc_order_times_in; the order is the same), and in more piles than that takes, its (time,
 * position) pairs sorted. Keys that make few piles (the pass's
 * nodes: the work of each kind and each thread's items, each nearly in recorded time order)
 * are ordered by their piles (sort_keys.h): up to 8 piles take a byte a node beside the key
 * and the order, where a sort's scratch took 17 bytes a node with the key, which was the
 * replay's peak of memory. */
uint32_t *sc_order_by_time(uint64_t *at, size_t n);

/* The same order written to order[] (n elements), at left to the caller with its contents
 * overwritten (the keys are made in it): for a caller that holds the order's array and an
 * array of n 64-bit values it has not filled yet, so that sorting costs neither an array of
 * keys nor a long-lived array allocated late (where the heap would keep its place). Returns
 * 0, or -1 without memory. */
int sc_order_by_time_in(uint64_t *at, size_t n, uint32_t *order);

/* The positions 0 .. n - 1 (n below 2^32) by (group, time, position) into order[] (n
 * elements): v[i] holds position i's group above it (group << 32 | i) and is left with its
 * contents overwritten; time_of(ctx, position) gives its time. The values sorted group the
 * positions in their order (sort_u64.h), then each group is ordered by time as above: no
 * comparator for what a general sort compares three fields through. Returns 0, or -1
 * without memory. */
int sc_order_by_group_time(uint64_t *v, size_t n, const void *ctx,
                           uint64_t (*time_of)(const void *ctx, size_t position),
                           uint32_t *order);

#endif
