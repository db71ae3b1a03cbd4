/* Sorting a list that interleaves a few lists in order (see sort_piles.h).
 *
 * Each element goes on the pile whose last element is the largest one not above it (a new
 * pile when it is below every last): the piles stay in order of their last elements, so the
 * pile is found by one comparison with the top pile, or a binary search. The piles' element
 * indices are then merged pairwise, an equal pair taken by the smaller index (file order), and
 * the elements moved once into their places: in place when none moves far, else gathered
 * through a second array. Nothing moves before the last step: a list that needs more piles is
 * returned untouched. By a 64-bit key (sc_sort_piles_by_u64), the keys are taken out and
 * ordered by sort_keys.h's pile merge, ties by position: the same order. */
#include "trace/sort_piles.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sort_keys.h"

#define SC_MAX_PILES 64

/* How far (in bytes) elements may move for the list to be put in order in place: cycles then
 * stay within what the caches hold. */
#define SC_LOCAL_BYTES (1u << 20)

#define SC_PILES_INLINE static inline __attribute__((always_inline))

typedef struct sc_piles {
    const char *a;
    size_t size;
    sc_sort_cmp cmp;
    uint32_t last[SC_MAX_PILES];     /* index of each pile's last element, by its order */
    uint8_t id[SC_MAX_PILES];        /* the pile at each of those positions */
    size_t n;
} sc_piles;

static const char *sc_at(const sc_piles *p, uint32_t i)
{
    return p->a + (size_t)i * p->size;
}

/* The pile that element i joins, or -1 when it would need one pile too many. */
SC_PILES_INLINE int sc_pile_for(sc_piles *p, uint32_t i)
{
    const char *x = sc_at(p, i);
    size_t top = p->n - 1;
    if (p->cmp(sc_at(p, p->last[top]), x) <= 0) {
        p->last[top] = i;
        return p->id[top];
    }
    /* The largest position whose last element is not above x: last[lo - 1] <= x < last[lo]. */
    size_t lo = 0, hi = top;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->cmp(sc_at(p, p->last[mid]), x) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0) {
        p->last[lo - 1] = i;
        return p->id[lo - 1];
    }
    if (p->n == SC_MAX_PILES)
        return -1;
    memmove(p->last + 1, p->last, p->n * sizeof *p->last);
    memmove(p->id + 1, p->id, p->n * sizeof *p->id);
    p->last[0] = i;
    p->id[0] = (uint8_t)p->n++;
    return p->id[0];
}

/* Whether element i goes after element j (j < i in file order when they compare equal). */
SC_PILES_INLINE bool sc_after(const sc_piles *p, uint32_t i, uint32_t j)
{
    int c = p->cmp(sc_at(p, i), sc_at(p, j));
    return c > 0 || (c == 0 && i > j);
}

SC_PILES_INLINE void sc_merge_indices(const sc_piles *p, const uint32_t *src, uint32_t *dst,
                                      size_t lo, size_t mid, size_t hi)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = sc_after(p, src[i], src[j]) ? src[j++] : src[i++];
    memcpy(dst + k, src + i, (mid - i) * sizeof *dst);
    k += mid - i;
    memcpy(dst + k, src + j, (hi - j) * sizeof *dst);
}

/* Merges the piles (segments of idx ending at ends[]) pairwise until one is left; returns the
 * array holding the result (idx or spare). */
SC_PILES_INLINE uint32_t *sc_merge_piles(const sc_piles *p, uint32_t *idx, uint32_t *spare,
                                         size_t *ends, size_t n_piles)
{
    uint32_t *src = idx, *dst = spare;
    while (n_piles > 1) {
        size_t out = 0;
        for (size_t r = 0; r < n_piles; r += 2) {
            size_t lo = r ? ends[r - 1] : 0;
            if (r + 1 == n_piles) {
                memcpy(dst + lo, src + lo, (ends[r] - lo) * sizeof *dst);
                ends[out++] = ends[r];
                continue;
            }
            sc_merge_indices(p, src, dst, lo, ends[r], ends[r + 1]);
            ends[out++] = ends[r + 1];
        }
        n_piles = out;
        uint32_t *swap = src;
        src = dst;
        dst = swap;
    }
    return src;
}

/* A call to memcpy per element costs more than most copies: the analyzer's sizes, inlined. */
static void sc_copy_one(char *dst, const char *src, size_t size)
{
    switch (size) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 12: memcpy(dst, src, 12); break;
    case 16: memcpy(dst, src, 16); break;
    case 24: memcpy(dst, src, 24); break;
    case 32: memcpy(dst, src, 32); break;
    case 40: memcpy(dst, src, 40); break;
    case 48: memcpy(dst, src, 48); break;
    case 64: memcpy(dst, src, 64); break;
    default: memcpy(dst, src, size); break;
    }
}

/* Puts each element where the order says (order[k]: the index of the element that goes to k)
 * by following the permutation's cycles, one element held aside in tmp; order[k] is set to k
 * as place k is filled. Needs no second array, but each step waits for the last one's read:
 * fast only when the elements move a short way (sc_sort_piles decides). */
static void sc_permute(char *base, uint32_t *order, size_t n, size_t size, char *tmp)
{
    for (size_t k = 0; k < n; k++) {
        if (order[k] == k)
            continue;
        sc_copy_one(tmp, base + k * size, size);
        size_t j = k;
        for (;;) {
            size_t from = order[j];
            order[j] = (uint32_t)j;
            if (from == k)
                break;
            sc_copy_one(base + j * size, base + from * size, size);
            j = from;
        }
        sc_copy_one(base + j * size, tmp, size);
    }
}

/* The farthest any element moves, in elements. */
static size_t sc_reach(const uint32_t *order, size_t n)
{
    size_t far = 0;
    for (size_t k = 0; k < n; k++) {
        size_t d = order[k] > k ? order[k] - k : k - order[k];
        far = d > far ? d : far;
    }
    return far;
}

/* The order of src's elements (order[k]: the index of the k-th), in *order, with *idx and
 * *spare to free after (one of them is *order). Returns 0, 1 when the list needs more piles
 * than kept (or has 2^32 elements or more), -1 without memory; nothing to free then. */
static int sc_piles_order(const void *src, size_t n, size_t size, sc_sort_cmp cmp,
                          uint32_t **order, uint32_t **idx_out, uint32_t **spare_out)
{
    if (n < 2 || n > UINT32_MAX)
        return 1;
    sc_piles p = {.a = src, .size = size, .cmp = cmp, .n = 1};
    uint8_t *pile = malloc(n);
    if (!pile)
        return -1;
    pile[0] = 0;
    for (uint32_t i = 1; i < n; i++) {
        int k = sc_pile_for(&p, i);
        if (k < 0) {
            free(pile);
            return 1;
        }
        pile[i] = (uint8_t)k;
    }
    /* Each pile's indices in file order, the piles one after another in idx. */
    size_t ends[SC_MAX_PILES] = {0}, fill[SC_MAX_PILES];
    for (size_t i = 0; i < n; i++)
        ends[pile[i]]++;
    for (size_t k = 0, sum = 0; k < p.n; k++) {
        fill[k] = sum;
        sum += ends[k];
        ends[k] = sum;
    }
    uint32_t *idx = malloc(n * sizeof *idx), *spare = malloc(n * sizeof *spare);
    if (!idx || !spare) {
        free(pile);
        free(idx);
        free(spare);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        idx[fill[pile[i]]++] = i;
    free(pile);
    *order = sc_merge_piles(&p, idx, spare, ends, p.n);
    *idx_out = idx;
    *spare_out = spare;
    return 0;
}

static void sc_gather(char *dst, const char *src, const uint32_t *order, size_t n, size_t size)
{
    for (size_t k = 0; k < n; k++)
        sc_copy_one(dst + k * size, src + (size_t)order[k] * size, size);
}

/* The order of base's elements by the key at key_at (ties by position) in *order: the keys
 * taken out into an array of their own (8 bytes an element, read in order) and ordered by
 * their piles merged at once (sort_keys.h), where the comparator's path reads each key
 * through its element at every comparison of each pairwise merge (a trace of four threads'
 * interleaved calls: 150M instructions at 1M records). Returns as sc_piles_order. */
static int sc_piles_order_keys(const char *base, size_t n, size_t size, size_t key_at,
                               uint32_t **order)
{
    if (n < 2 || n > UINT32_MAX)
        return 1;
    uint64_t *key = malloc(n * sizeof *key);
    *order = malloc(n * sizeof **order);
    if (!key || !*order) {
        free(key);
        free(*order);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(&key[i], base + i * size + key_at, sizeof *key);
    bool many = false;
    int rc = sc_order_times_in(key, n, *order, &many);
    free(key);
    if (rc != 0) {
        free(*order);
        return many ? 1 : -1;
    }
    return 0;
}

/* sc_sort_piles, by the comparator or (cmp NULL) by the key at key_at. */
SC_PILES_INLINE int sc_sort_piles_with(void *base, size_t n, size_t size, sc_sort_cmp cmp,
                                       size_t key_at)
{
    uint32_t *order, *idx = NULL, *spare = NULL;
    char *tmp = n < 2 ? NULL : malloc(size);
    int rc = !tmp  ? (n < 2 ? 1 : -1)
             : cmp ? sc_piles_order(base, n, size, cmp, &order, &idx, &spare)
                   : sc_piles_order_keys(base, n, size, key_at, &order);
    if (rc != 0) {
        free(tmp);
        return rc;
    }
    /* Gathering into a second array touches n * size fresh bytes, each page a fault (123 MB
     * for the 3.1M kernels of a 10M-record trace); a list that was nearly in order is put
     * right in place instead. The others (sorted again by stream or end: elements move
     * across the whole list) are gathered: following their cycles in place took 3 s more
     * user time on that trace, one cache miss at a time. No memory for the gather: in place. */
    char *out = sc_reach(order, n) * size <= SC_LOCAL_BYTES ? NULL : malloc(n * size);
    if (out) {
        sc_gather(out, base, order, n, size);
        memcpy(base, out, n * size);
        free(out);
    } else {
        sc_permute(base, order, n, size, tmp);
    }
    if (!cmp)
        free(order);    /* the key path's own; the comparator's is idx or spare */
    free(idx);
    free(spare);
    free(tmp);
    return 0;
}

int sc_sort_piles(void *base, size_t n, size_t size, sc_sort_cmp cmp)
{
    return sc_sort_piles_with(base, n, size, cmp, 0);
}

int sc_sort_piles_by_u64(void *base, size_t n, size_t size, size_t key_at)
{
    return sc_sort_piles_with(base, n, size, NULL, key_at);
}

int sc_sort_piles_into(void *dst, const void *src, size_t n, size_t size, sc_sort_cmp cmp)
{
    uint32_t *order, *idx, *spare;
    int rc = sc_piles_order(src, n, size, cmp, &order, &idx, &spare);
    if (rc != 0)
        return rc;
    sc_gather(dst, src, order, n, size);
    free(idx);
    free(spare);
    return 0;
}

int sc_sort_piles_remake(void *base, size_t n, size_t size, sc_sort_cmp cmp,
                         sc_sort_remake_fn *remake, const void *ctx)
{
    uint32_t *order, *idx, *spare;
    int rc = sc_piles_order(base, n, size, cmp, &order, &idx, &spare);
    if (rc != 0)
        return rc;
    for (size_t k = 0; k < n; k++)
        remake(ctx, order[k], (char *)base + k * size);
    free(idx);
    free(spare);
    return 0;
}
