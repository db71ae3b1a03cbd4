/* See order_by_time.h. */
#include "trace/order_by_time.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sort.h"
#include "trace/sort_keys.h"
#include "trace/sort_u64.h"

static int sc_u64_key_cmp(const void *pa, const void *pb)
{
    uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
    return x < y ? -1 : x > y;
}

/* A node of a run too long for the keys. */
typedef struct sc_timed_node {
    uint64_t t;
    uint64_t position;
} sc_timed_node;

static int sc_timed_node_cmp(const void *pa, const void *pb)
{
    const sc_timed_node *x = pa, *y = pb;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->position < y->position ? -1 : x->position > y->position;
}

/* Writes each 64-bit slot's low half (a position) as the i-th uint32_t of the same memory:
 * slot i is read before the writes of elements 2i and 2i + 1 reach it. Bytes are copied
 * with memcpy, so no access needs the two types to alias. */
static uint32_t *sc_low_halves_in_place(uint64_t *at, size_t n)
{
    char *bytes = (char *)at;
    for (size_t i = 0; i < n; i++) {
        uint64_t key;
        memcpy(&key, bytes + i * sizeof key, sizeof key);
        uint32_t position = (uint32_t)key;
        memcpy(bytes + i * sizeof position, &position, sizeof position);
    }
    uint32_t *order = realloc(at, n * sizeof *order);
    return order ? order : (uint32_t *)at;  /* a failed shrink keeps the larger block */
}

/* The (time, position) pairs of at[] in order, for a run too long for the 64-bit keys (the
 * caller frees them), or NULL without memory. */
static sc_timed_node *sc_sorted_pairs(const uint64_t *at, size_t n)
{
    sc_timed_node *v = malloc(n * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = (sc_timed_node){at[i], i};
    sc_sort(v, n, sizeof *v, sc_timed_node_cmp);
    return v;
}

/* The order of a run too long for the 64-bit keys (a day-long run's 10M nodes take 24 bits,
 * leaving 40 for the time: 18 minutes): the times' piles merged by time and position, as the
 * keys' are, with no keys (sort_keys.h): a byte a time of scratch (and a position more past
 * 8 piles); in more piles than that takes, the (time, position) pairs sorted. 0, or -1
 * without memory. */
static int sc_order_long_in(const uint64_t *at, size_t n, uint32_t *order)
{
    bool many = false;
    int rc = sc_order_times_in(at, n, order, &many);
    if (rc == 0 || !many)
        return rc;      /* ordered, or no memory */
    sc_timed_node *v = sc_sorted_pairs(at, n);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)v[i].position;
    free(v);
    return 0;
}

/* The times of at[] (n >= 1) made keys in place, the time relative to lo above the position
 * (position_bits: as many as n - 1 needs), and their pile order (sort_keys.h): a new array,
 * or NULL with *many set when the keys need more piles than that takes (at then holds the
 * keys, for a sort), or NULL without memory. */
static uint32_t *sc_order_as_keys(uint64_t *at, size_t n, uint64_t lo, unsigned position_bits,
                                  bool *many)
{
    for (size_t i = 0; i < n; i++)
        at[i] = (at[i] - lo) << position_bits | i;
    return sc_order_keys(at, n, many);
}

static unsigned sc_position_bits(size_t n)
{
    unsigned bits = 1;     /* enough for n - 1 (n < 2^32) */
    while (bits < 32 && ((uint64_t)(n - 1) >> bits) != 0)
        bits++;
    return bits;
}

static bool sc_times_in_order(const uint64_t *at, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (at[i - 1] > at[i])
            return false;
    return true;
}

static void sc_time_range(const uint64_t *at, size_t n, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = at[0];
    for (size_t i = 1; i < n; i++) {
        *lo = at[i] < *lo ? at[i] : *lo;
        *hi = at[i] > *hi ? at[i] : *hi;
    }
}

uint32_t *sc_order_by_time(uint64_t *at, size_t n)
{
    if (n == 0)
        return (uint32_t *)at;
    if (sc_times_in_order(at, n)) {    /* the positions as they are: no keys, no scratch */
        for (size_t i = 0; i < n; i++)
            at[i] = i;
        return sc_low_halves_in_place(at, n);
    }
    uint64_t lo, hi;
    sc_time_range(at, n, &lo, &hi);
    unsigned position_bits = sc_position_bits(n);
    if (hi - lo > UINT64_MAX >> position_bits) {
        uint32_t *order = malloc(n * sizeof *order);
        int rc = order ? sc_order_long_in(at, n, order) : -1;
        free(at);
        if (rc != 0) {
            free(order);
            return NULL;
        }
        return order;
    }
    bool many = false;
    uint32_t *order = sc_order_as_keys(at, n, lo, position_bits, &many);
    if (order || !many) {   /* ordered, or no memory for it */
        free(at);
        return order;
    }
    sc_sort(at, n, sizeof *at, sc_u64_key_cmp);
    uint64_t position_mask = ((uint64_t)1 << position_bits) - 1;
    for (size_t i = 0; i < n; i++)
        at[i] &= position_mask;
    return sc_low_halves_in_place(at, n);
}

int sc_order_by_time_in(uint64_t *at, size_t n, uint32_t *order)
{
    if (n == 0 || sc_times_in_order(at, n)) {
        for (size_t i = 0; i < n; i++)
            order[i] = (uint32_t)i;
        return 0;
    }
    uint64_t lo, hi;
    sc_time_range(at, n, &lo, &hi);
    unsigned position_bits = sc_position_bits(n);
    if (hi - lo > UINT64_MAX >> position_bits)
        return sc_order_long_in(at, n, order);
    /* Keys in few piles are ordered by them (sort_keys.h) straight into order[], with a
     * byte a key of scratch; in more, the keys are sorted as values (sort_u64.h), the order
     * then read off their low bits, with 9 bytes a key. */
    for (size_t i = 0; i < n; i++)
        at[i] = (at[i] - lo) << position_bits | i;
    bool many = false;
    int rc = sc_order_keys_in(at, n, order, &many);
    if (rc == 0 || !many)
        return rc;      /* ordered, or no memory */
    sc_sort_u64(at, n);
    uint64_t position_mask = ((uint64_t)1 << position_bits) - 1;
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)(at[i] & position_mask);
    return 0;
}

int sc_order_by_group_time(uint64_t *v, size_t n, const void *ctx,
                           uint64_t (*time_of)(const void *ctx, size_t position),
                           uint32_t *order)
{
    sc_sort_u64(v, n);      /* by group, then position */
    for (size_t k = 0; k < n; k++)
        order[k] = (uint32_t)v[k];
    uint32_t *by_time = malloc((n ? n : 1) * sizeof *by_time);
    if (!by_time)
        return -1;
    int rc = 0;
    for (size_t lo = 0, hi; rc == 0 && lo < n; lo = hi) {
        uint64_t group = v[lo] >> 32;
        for (hi = lo + 1; hi < n && v[hi] >> 32 == group; hi++)
            ;
        /* the group's values are read: its times take their place, in position order,
         * which breaks their ties */
        size_t m = hi - lo;
        for (size_t j = 0; j < m; j++)
            v[lo + j] = time_of(ctx, order[lo + j]);
        rc = sc_order_by_time_in(v + lo, m, by_time);
        for (size_t j = 0; rc == 0 && j < m; j++)
            by_time[j] = order[lo + by_time[j]];
        if (rc == 0)
            memcpy(order + lo, by_time, m * sizeof *order);
    }
    free(by_time);
    return rc;
}
