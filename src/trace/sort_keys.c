/* Ordering unique 64-bit keys by piles (sort_keys.h, piles.h): each index goes on its key's
 * pile, and the piles are merged, the keys compared inline: the merged list is the order. A
 * few piles are merged at once off the pile of each index; more, as index lists merged
 * pairwise. */
#include "trace/sort_keys.h"

#include <stdlib.h>
#include <string.h>

#include "trace/piles.h"

/* Merges the index lists src[lo, mid) and src[mid, hi), each in key order, into dst. */
static void sc_merge_by_key(const void *ctx, const void *src_v, void *dst_v, size_t lo,
                            size_t mid, size_t hi)
{
    const uint64_t *key = ctx;
    const uint32_t *src = src_v;
    uint32_t *dst = dst_v;
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = key[src[j]] < key[src[i]] ? src[j++] : src[i++];
    memcpy(dst + k, src + i, (mid - i) * sizeof *dst);
    k += mid - i;
    memcpy(dst + k, src + j, (hi - j) * sizeof *dst);
}

/* Piles up to this many are merged at once off pile[] (sc_merge_by_scan); more, pairwise. */
#define SC_SCAN_PILES_MAX 8

/* The order of the n_piles piles' keys merged at once into order[]: each pile's next element
 * found by scanning pile[] past its last one, the piles kept in the order of their next keys,
 * the first's taken while below the second's. The scratch is pile[] alone, where a pairwise
 * merge needs the piles' index lists and a list as long to merge them into (8 bytes an
 * element: for the replay's nodes, the build's peak of memory); a scan passes over the
 * elements once per pile, which few piles afford. */
static void sc_merge_by_scan(const uint64_t *key, uint8_t *pile, size_t n, size_t n_piles,
                             uint32_t *order)
{
    size_t first[SC_SCAN_PILES_MAX], next[SC_SCAN_PILES_MAX];
    /* sc_piles_deal numbers the piles as it opens them: each pile's first element lies past
     * the one before's, and the scan stops at the last pile's, often near the start */
    for (size_t p = 0, i = 0; p < n_piles; p++) {
        while (pile[i] != p)
            i++;
        first[p] = i;
    }
    for (size_t p = 0; p < n_piles; p++) {  /* every pile has an element */
        size_t at = p;
        for (; at > 0 && key[next[at - 1]] > key[first[p]]; at--)
            next[at] = next[at - 1];
        next[at] = first[p];
    }
    for (size_t k = 0, live = n_piles; live > 0;) {
        size_t i = next[0];
        uint8_t p = pile[i];
        uint64_t bound = live > 1 ? key[next[1]] : UINT64_MAX;
        pile[n] = p;    /* the scan stops at n without a bound check for each byte */
        do {
            order[k++] = (uint32_t)i;
            while (pile[++i] != p)
                ;
        } while (i < n && key[i] < bound);
        if (i == n) {   /* the pile is done */
            memmove(next, next + 1, --live * sizeof *next);
            continue;
        }
        size_t at = 1;  /* its next key is above the second pile's (the keys are unique) */
        for (; at < live && key[next[at]] < key[i]; at++)
            next[at - 1] = next[at];
        next[at - 1] = i;
    }
}

int sc_order_keys_in(const uint64_t *key, size_t n, uint32_t *order, bool *many)
{
    *many = false;
    uint8_t *pile = malloc(n + 1);  /* a byte past the piles: sc_merge_by_scan's sentinel */
    if (!pile)
        return -1;
    /* unique keys: a pile's last key is below, never equal to, the next it takes */
    size_t n_piles = sc_piles_deal(key, n, pile);
    if (!n_piles) {
        free(pile);
        *many = true;
        return -1;
    }
    if (n_piles <= SC_SCAN_PILES_MAX) {
        sc_merge_by_scan(key, pile, n, n_piles, order);
        free(pile);
        return 0;
    }
    uint32_t *spare = malloc(n * sizeof *spare);
    if (!spare) {
        free(pile);
        return -1;
    }
    size_t fill[SC_PILES_MAX], ends[SC_PILES_MAX];
    sc_piles_layout(pile, n, n_piles, fill, ends);
    for (size_t i = 0; i < n; i++)
        order[fill[pile[i]]++] = (uint32_t)i;
    free(pile);
    uint32_t *merged = sc_piles_merge_runs(order, spare, sizeof *order, ends, n_piles,
                                           sc_merge_by_key, key);
    if (merged != order)
        memcpy(order, merged, n * sizeof *order);
    free(spare);
    return 0;
}

uint32_t *sc_order_keys(const uint64_t *key, size_t n, bool *many)
{
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) {
        *many = false;
        return NULL;
    }
    if (sc_order_keys_in(key, n, order, many) != 0) {
        free(order);
        return NULL;
    }
    return order;
}
