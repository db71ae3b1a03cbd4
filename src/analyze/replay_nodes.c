/* See replay_nodes.h. */
#include "analyze/replay_nodes.h"

#include <stdlib.h>
#include <string.h>

#include "trace/sort.h"
#include "trace/sort_keys.h"

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

static uint32_t *sc_order_long_run(uint64_t *at, size_t n)
{
    sc_timed_node *v = malloc(n * sizeof *v);
    if (!v) {
        free(at);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (sc_timed_node){at[i], i};
    sc_sort(v, n, sizeof *v, sc_timed_node_cmp);
    for (size_t i = 0; i < n; i++)
        at[i] = v[i].position;
    free(v);
    return sc_low_halves_in_place(at, n);
}

uint32_t *sc_rp_order_nodes(uint64_t *at, size_t n)
{
    if (n == 0)
        return (uint32_t *)at;
    uint64_t lo = at[0], hi = at[0];
    for (size_t i = 1; i < n; i++) {
        lo = at[i] < lo ? at[i] : lo;
        hi = at[i] > hi ? at[i] : hi;
    }
    unsigned position_bits = 1;     /* enough for n - 1 (n < 2^32) */
    while (position_bits < 32 && ((uint64_t)(n - 1) >> position_bits) != 0)
        position_bits++;
    if (hi - lo > UINT64_MAX >> position_bits)
        return sc_order_long_run(at, n);
    for (size_t i = 0; i < n; i++)
        at[i] = (at[i] - lo) << position_bits | i;
    bool many = false;
    uint32_t *order = sc_order_keys(at, n, &many);
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
