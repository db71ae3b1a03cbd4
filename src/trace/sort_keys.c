/* Ordering 64-bit keys by piles (sort_keys.h, piles.h): each index goes on its key's pile,
 * and the piles are merged, the keys compared inline (and where they may tie, the positions):
 * the merged list is the order. A few piles are merged at once off the pile of each index;
 * more, as index lists merged pairwise. */
#include "trace/sort_keys.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/piles.h"

/* Whether element a comes before element b: by key, and where keys may tie (`ties`, a
 * constant in each caller's copy), by position. */
static inline __attribute__((always_inline)) bool sc_before(const uint64_t *key, size_t a,
                                                            size_t b, bool ties)
{
    return key[a] < key[b] || (ties && key[a] == key[b] && a < b);
}

/* Merges the index lists src[lo, mid) and src[mid, hi), each in key order, into dst. */
static inline __attribute__((always_inline)) void
sc_merge_by_key_with(const uint64_t *key, const uint32_t *src, uint32_t *dst, size_t lo,
                     size_t mid, size_t hi, bool ties)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = sc_before(key, src[j], src[i], ties) ? src[j++] : src[i++];
    memcpy(dst + k, src + i, (mid - i) * sizeof *dst);
    k += mid - i;
    memcpy(dst + k, src + j, (hi - j) * sizeof *dst);
}

static void sc_merge_by_key(const void *ctx, const void *src, void *dst, size_t lo,
                            size_t mid, size_t hi)
{
    sc_merge_by_key_with(ctx, src, dst, lo, mid, hi, false);
}

static void sc_merge_by_time(const void *ctx, const void *src, void *dst, size_t lo,
                             size_t mid, size_t hi)
{
    sc_merge_by_key_with(ctx, src, dst, lo, mid, hi, true);
}

/* Piles up to this many are merged at once off pile[] (sc_merge_by_scan); more, pairwise. */
#define SC_SCAN_PILES_MAX 8

/* The order of the n_piles piles' keys merged at once into order[]: each pile's next element
 * found by scanning pile[] past its last one, the piles kept in the order of their next keys,
 * the first's taken while below the second's. The scratch is pile[] alone, where a pairwise
 * merge needs the piles' index lists and a list as long to merge them into (8 bytes an
 * element: for the replay's nodes, the build's peak of memory); a scan passes over the
 * elements once per pile, which few piles afford. */
static inline __attribute__((always_inline)) void
sc_merge_by_scan(const uint64_t *key, uint8_t *pile, size_t n, size_t n_piles, uint32_t *order,
                 bool ties)
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
        for (; at > 0 && sc_before(key, first[p], next[at - 1], ties); at--)
            next[at] = next[at - 1];
        next[at] = first[p];
    }
    for (size_t k = 0, live = n_piles; live > 0;) {
        size_t i = next[0];
        uint8_t p = pile[i];
        pile[n] = p;    /* the scan stops at n without a bound check for each byte */
        if (live == 1) {
            do {
                order[k++] = (uint32_t)i;
                while (pile[++i] != p)
                    ;
            } while (i < n);
        } else {
            size_t bound = next[1];
            uint64_t bound_key = key[bound];
            do {
                order[k++] = (uint32_t)i;
                while (pile[++i] != p)
                    ;
            } while (i < n && (key[i] < bound_key ||
                               (ties && key[i] == bound_key && i < bound)));
        }
        if (i == n) {   /* the pile is done */
            memmove(next, next + 1, --live * sizeof *next);
            continue;
        }
        size_t at = 1;  /* its next element comes after the second pile's */
        for (; at < live && sc_before(key, next[at], i, ties); at++)
            next[at - 1] = next[at];
        next[at - 1] = i;
    }
}

/* sc_order_keys_in, and sc_order_times_in with `ties`. */
static inline __attribute__((always_inline)) int
sc_order_piled_in(const uint64_t *key, size_t n, uint32_t *order, bool *many, bool ties)
{
    *many = false;
    uint8_t *pile = malloc(n + 1);  /* a byte past the piles: sc_merge_by_scan's sentinel */
    if (!pile)
        return -1;
    /* a pile takes a key at least its last: unique keys ascend in it, tied ones ascend by
     * position */
    size_t n_piles = sc_piles_deal(key, n, pile);
    if (!n_piles) {
        free(pile);
        *many = true;
        return -1;
    }
    if (n_piles <= SC_SCAN_PILES_MAX) {
        sc_merge_by_scan(key, pile, n, n_piles, order, ties);
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
                                           ties ? sc_merge_by_time : sc_merge_by_key, key);
    if (merged != order)
        memcpy(order, merged, n * sizeof *order);
    free(spare);
    return 0;
}

int sc_order_keys_in(const uint64_t *key, size_t n, uint32_t *order, bool *many)
{
    return sc_order_piled_in(key, n, order, many, false);
}

int sc_order_times_in(const uint64_t *t, size_t n, uint32_t *order, bool *many)
{
    return sc_order_piled_in(t, n, order, many, true);
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
