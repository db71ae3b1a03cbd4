/* See replay_nodes.h. */
#include "analyze/replay_nodes.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sort.h"

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

/* Piles beyond which the merge below gives way to the general sort. */
#define SC_NODE_MAX_PILES 64

/* Merges the index lists src[lo, mid) and src[mid, hi), each in key order, into dst. */
static void sc_merge_by_key(const uint64_t *key, const uint32_t *src, uint32_t *dst, size_t lo,
                            size_t mid, size_t hi)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = key[src[j]] < key[src[i]] ? src[j++] : src[i++];
    memcpy(dst + k, src + i, (mid - i) * sizeof *dst);
    k += mid - i;
    memcpy(dst + k, src + j, (hi - j) * sizeof *dst);
}

/* The keys are unique, and the nodes come as a few lists nearly in time order (the work of
 * each kind, each thread's items: a range mark or a module load's end a little before the
 * item before it): each index goes on the pile whose last key is the largest below its own
 * (sort_piles.c, for 64-bit keys compared inline), the piles' index lists are merged
 * pairwise, and the merged list is the order: a key's position is its index. Scratch: a
 * pile number and two indices a node, not a sort's 17 bytes (they were the replay's peak of
 * memory at 10M records). NULL with *many set when the keys need more than
 * SC_NODE_MAX_PILES piles; NULL without memory. */
static uint32_t *sc_order_by_piles(const uint64_t *key, size_t n, bool *many)
{
    uint64_t last[SC_NODE_MAX_PILES];   /* each pile's last key, ascending */
    uint8_t id[SC_NODE_MAX_PILES];      /* the pile at each of those places */
    size_t n_piles = 1, ends[SC_NODE_MAX_PILES] = {0}, fill[SC_NODE_MAX_PILES];
    uint8_t *pile = malloc(n ? n : 1);
    *many = false;
    if (!pile)
        return NULL;
    last[0] = key[0];
    id[0] = 0;
    pile[0] = 0;
    for (size_t i = 1; i < n; i++) {
        size_t top = n_piles - 1;
        if (last[top] < key[i]) {
            last[top] = key[i];
            pile[i] = id[top];
            continue;
        }
        size_t lo = 0, hi = top;    /* last[lo - 1] < key[i] < last[lo] */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (last[mid] < key[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > 0) {
            last[lo - 1] = key[i];
            pile[i] = id[lo - 1];
            continue;
        }
        if (n_piles == SC_NODE_MAX_PILES) {
            free(pile);
            *many = true;
            return NULL;
        }
        memmove(last + 1, last, n_piles * sizeof *last);
        memmove(id + 1, id, n_piles * sizeof *id);
        last[0] = key[i];
        id[0] = (uint8_t)n_piles++;
        pile[i] = id[0];
    }
    uint32_t *idx = malloc(n * sizeof *idx), *spare = malloc(n * sizeof *spare);
    if (!idx || !spare) {
        free(pile);
        free(idx);
        free(spare);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        ends[pile[i]]++;
    for (size_t k = 0, sum = 0; k < n_piles; k++) {
        fill[k] = sum;
        sum += ends[k];
        ends[k] = sum;
    }
    for (size_t i = 0; i < n; i++)
        idx[fill[pile[i]]++] = (uint32_t)i;
    free(pile);
    uint32_t *src = idx, *dst = spare;
    while (n_piles > 1) {
        size_t out = 0;
        for (size_t r = 0; r < n_piles; r += 2) {
            size_t lo = r ? ends[r - 1] : 0;
            if (r + 1 == n_piles)
                memcpy(dst + lo, src + lo, (ends[r] - lo) * sizeof *dst);
            else
                sc_merge_by_key(key, src, dst, lo, ends[r], ends[r + 1]);
            ends[out++] = ends[r + 1 == n_piles ? r : r + 1];
        }
        n_piles = out;
        uint32_t *swap = src;
        src = dst;
        dst = swap;
    }
    free(dst);
    return src;
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
    uint32_t *order = sc_order_by_piles(at, n, &many);
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
