/* Ordering unique 64-bit keys by piles (sort_keys.h, piles.h): each index goes on its key's
 * pile, and the piles' index lists are merged pairwise, the keys compared inline: the merged
 * list is the order. */
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

uint32_t *sc_order_keys(const uint64_t *key, size_t n, bool *many)
{
    *many = false;
    uint8_t *pile = malloc(n ? n : 1);
    if (!pile)
        return NULL;
    /* unique keys: a pile's last key is below, never equal to, the next it takes */
    size_t n_piles = sc_piles_deal(key, n, pile);
    if (!n_piles) {
        free(pile);
        *many = true;
        return NULL;
    }
    uint32_t *idx = malloc(n * sizeof *idx), *spare = malloc(n * sizeof *spare);
    if (!idx || !spare) {
        free(pile);
        free(idx);
        free(spare);
        return NULL;
    }
    size_t fill[SC_PILES_MAX], ends[SC_PILES_MAX];
    sc_piles_layout(pile, n, n_piles, fill, ends);
    for (size_t i = 0; i < n; i++)
        idx[fill[pile[i]]++] = (uint32_t)i;
    free(pile);
    uint32_t *order = sc_piles_merge_runs(idx, spare, sizeof *idx, ends, n_piles,
                                          sc_merge_by_key, key);
    free(order == idx ? spare : idx);
    return order;
}
