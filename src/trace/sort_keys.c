/* Ordering unique 64-bit keys by piles (sort_keys.h): each index goes on the pile whose last
 * key is the largest below its own (as in sort_piles.c, with the keys compared inline instead
 * of through a comparator), and the piles' index lists are merged pairwise: the merged list
 * is the order. */
#include "trace/sort_keys.h"

#include <stdlib.h>
#include <string.h>

#define SC_KEY_MAX_PILES 64

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

uint32_t *sc_order_keys(const uint64_t *key, size_t n, bool *many)
{
    uint64_t last[SC_KEY_MAX_PILES];   /* each pile's last key, ascending */
    uint8_t id[SC_KEY_MAX_PILES];      /* the pile at each of those places */
    size_t n_piles = 1, ends[SC_KEY_MAX_PILES] = {0}, fill[SC_KEY_MAX_PILES];
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
        if (n_piles == SC_KEY_MAX_PILES) {
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
