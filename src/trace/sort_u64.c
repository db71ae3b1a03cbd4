/* See sort_u64.h. The piles as in sort_keys.c: each value goes on the pile whose last value is
 * the largest not above it (a new pile below all of them otherwise), so the piles stay in
 * order of their last values and one comparison with the top pile places most values. The
 * values themselves, not their indices, are then dealt pile after pile into the scratch and
 * merged pairwise between it and the input. */
#include "trace/sort_u64.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sort.h"

#define SC_U64_MAX_PILES 64

static int sc_u64_value_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Deals each value's pile into pile[]; returns the number of piles, or 0 when the values need
 * more than SC_U64_MAX_PILES. */
static size_t sc_u64_deal(const uint64_t *v, size_t n, uint8_t *pile)
{
    uint64_t last[SC_U64_MAX_PILES];   /* each pile's last value, ascending */
    uint8_t id[SC_U64_MAX_PILES];      /* the pile at each of those places */
    size_t n_piles = 1;
    last[0] = v[0];
    id[0] = 0;
    pile[0] = 0;
    for (size_t i = 1; i < n; i++) {
        size_t top = n_piles - 1;
        if (last[top] <= v[i]) {
            last[top] = v[i];
            pile[i] = id[top];
            continue;
        }
        size_t lo = 0, hi = top;    /* last[lo - 1] <= v[i] < last[lo] */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (last[mid] <= v[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > 0) {
            last[lo - 1] = v[i];
            pile[i] = id[lo - 1];
            continue;
        }
        if (n_piles == SC_U64_MAX_PILES)
            return 0;
        memmove(last + 1, last, n_piles * sizeof *last);
        memmove(id + 1, id, n_piles * sizeof *id);
        last[0] = v[i];
        id[0] = (uint8_t)n_piles++;
        pile[i] = id[0];
    }
    return n_piles;
}

/* Merges the ascending src[lo, mid) and src[mid, hi) into dst[lo, hi). */
static void sc_u64_merge(const uint64_t *src, uint64_t *dst, size_t lo, size_t mid, size_t hi)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = src[j] < src[i] ? src[j++] : src[i++];
    memcpy(dst + k, src + i, (mid - i) * sizeof *dst);
    k += mid - i;
    memcpy(dst + k, src + j, (hi - j) * sizeof *dst);
}

/* Sorts by piles; false when the values need too many piles or there is no memory (v is
 * then unchanged). */
static bool sc_u64_sort_piles(uint64_t *v, size_t n)
{
    uint8_t *pile = malloc(n);
    if (!pile)
        return false;
    size_t n_piles = sc_u64_deal(v, n, pile);
    uint64_t *buf = n_piles ? malloc(n * sizeof *buf) : NULL;
    if (!buf) {
        free(pile);
        return false;
    }
    size_t ends[SC_U64_MAX_PILES] = {0}, fill[SC_U64_MAX_PILES];
    for (size_t i = 0; i < n; i++)
        ends[pile[i]]++;
    for (size_t k = 0, sum = 0; k < n_piles; k++) {
        fill[k] = sum;
        sum += ends[k];
        ends[k] = sum;
    }
    for (size_t i = 0; i < n; i++)
        buf[fill[pile[i]]++] = v[i];
    free(pile);
    uint64_t *src = buf, *dst = v;
    while (n_piles > 1) {
        size_t out = 0;
        for (size_t r = 0; r < n_piles; r += 2) {
            size_t lo = r ? ends[r - 1] : 0;
            if (r + 1 == n_piles)
                memcpy(dst + lo, src + lo, (ends[r] - lo) * sizeof *dst);
            else
                sc_u64_merge(src, dst, lo, ends[r], ends[r + 1]);
            ends[out++] = ends[r + 1 == n_piles ? r : r + 1];
        }
        n_piles = out;
        uint64_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    free(buf);
    return true;
}

void sc_sort_u64(uint64_t *v, size_t n)
{
    size_t in_order = 1;
    while (in_order < n && v[in_order - 1] <= v[in_order])
        in_order++;
    if (in_order >= n)
        return;
    if (!sc_u64_sort_piles(v, n))
        sc_sort(v, n, sizeof *v, sc_u64_value_cmp);
}
