/* Ordering 64-bit keys by piles (sort_keys.h, piles.h): each index goes on its key's pile,
 * and the piles are merged, the keys compared inline (and where they may tie, the positions):
 * the merged list is the order. A few piles are merged at once off the pile of each index;
 * more, as index lists merged at once through a tree of losers. */
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

/* Piles up to this many are merged at once off pile[] (sc_merge_by_scan); more, through a
 * tree (sc_merge_by_tree). */
#define SC_SCAN_PILES_MAX 8

/* The order of the n_piles piles' keys merged at once into order[]: each pile's next element
 * found by scanning pile[] past its last one, the piles kept in the order of their next keys,
 * the first's taken while below the second's. The scratch is pile[] alone, where the tree's
 * merge needs the piles' index lists (4 bytes an element: for the replay's nodes, at the
 * build's peak of memory); a scan passes over the elements once per pile, which few piles
 * afford. */
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

/* Whether pile a's head comes before pile b's: by key, then position (an exhausted pile's
 * head is (UINT64_MAX, UINT64_MAX), after every element's: a position is below 2^32). For
 * unique keys the positions never decide, so one comparison serves both orders. */
static inline __attribute__((always_inline)) bool sc_head_before(const uint64_t *hk,
                                                                 const uint64_t *hp,
                                                                 uint32_t a, uint32_t b)
{
    return hk[a] < hk[b] || (hk[a] == hk[b] && hp[a] < hp[b]);
}

/* More piles than a scan affords: the piles' index lists, laid out one after another in
 * runs[] (pile p's from start[p] to end[p]), merged into order[] at once through a tree of
 * losers. Each element costs one comparison a level of the tree (log2 of the piles), between
 * heads kept beside it in a few cache lines, and one read of its list, where merging the
 * lists pairwise passed over every element once a level and read its key through its
 * position each time. (Nodes that hold their loser's key and position themselves, not its
 * pile, took a quarter more instructions: three values moved at each swap.) */
static void sc_merge_by_tree(const uint64_t *key, const uint32_t *runs, const size_t *start,
                             const size_t *end, size_t n_piles, uint32_t *order, size_t n)
{
    enum { LEAVES = SC_PILES_MAX };
    uint64_t hk[LEAVES], hp[LEAVES];    /* each leaf's head: key and position */
    size_t at[LEAVES], stop[LEAVES];
    uint32_t loser[LEAVES], winner[2 * LEAVES];
    size_t k = 1;
    while (k < n_piles)
        k *= 2;
    for (uint32_t l = 0; l < k; l++) {
        at[l] = l < n_piles ? start[l] : 0;
        stop[l] = l < n_piles ? end[l] : 0;
        bool live = at[l] < stop[l];
        hp[l] = live ? runs[at[l]] : UINT64_MAX;
        hk[l] = live ? key[hp[l]] : UINT64_MAX;
        winner[k + l] = l;
    }
    for (size_t i = k - 1; i >= 1; i--) {
        uint32_t a = winner[2 * i], b = winner[2 * i + 1];
        bool first = sc_head_before(hk, hp, a, b);
        winner[i] = first ? a : b;
        loser[i] = first ? b : a;
    }
    uint32_t win = winner[1];
    for (size_t j = 0; j < n; j++) {
        order[j] = (uint32_t)hp[win];
        size_t next = ++at[win];
        bool live = next < stop[win];
        hp[win] = live ? runs[next] : UINT64_MAX;
        hk[win] = live ? key[hp[win]] : UINT64_MAX;
        for (size_t node = (k + win) / 2; node >= 1; node /= 2) {
            uint32_t other = loser[node];
            bool beaten = sc_head_before(hk, hp, other, win);
            loser[node] = beaten ? win : other;
            win = beaten ? other : win;
        }
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
    uint32_t *runs = malloc(n * sizeof *runs);
    if (!runs) {
        free(pile);
        return -1;
    }
    size_t fill[SC_PILES_MAX], ends[SC_PILES_MAX], start[SC_PILES_MAX];
    sc_piles_layout(pile, n, n_piles, fill, ends);
    memcpy(start, fill, n_piles * sizeof *start);
    for (size_t i = 0; i < n; i++)
        runs[fill[pile[i]]++] = (uint32_t)i;
    free(pile);
    sc_merge_by_tree(key, runs, start, fill, n_piles, order, n);   /* fill: each run's end */
    free(runs);
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
