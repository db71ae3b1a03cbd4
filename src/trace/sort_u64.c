/* See sort_u64.h. The piles of piles.h: the values themselves, not their indices, are dealt
 * pile after pile into the scratch and merged pairwise between it and the input. */
#include "trace/sort_u64.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/piles.h"
#include "trace/sort.h"

static int sc_u64_value_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Merges the ascending src[lo, mid) and src[mid, hi) into dst[lo, hi). */
static void sc_u64_merge(const void *ctx, const void *src_v, void *dst_v, size_t lo, size_t mid,
                         size_t hi)
{
    (void)ctx;
    const uint64_t *src = src_v;
    uint64_t *dst = dst_v;
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        /* as many steps as neither run can run out in: no bounds check per element, and the
         * choice a select rather than a branch, which sorted data mispredicts half the time */
        for (size_t steps = mid - i < hi - j ? mid - i : hi - j; steps > 0; steps--) {
            uint64_t x = src[i], y = src[j];
            bool right = y < x;
            dst[k++] = right ? y : x;
            j += right;
            i += !right;
        }
    }
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
    size_t n_piles = sc_piles_deal(v, n, pile);
    uint64_t *buf = n_piles ? malloc(n * sizeof *buf) : NULL;
    if (!buf) {
        free(pile);
        return false;
    }
    size_t fill[SC_PILES_MAX], ends[SC_PILES_MAX];
    sc_piles_layout(pile, n, n_piles, fill, ends);
    for (size_t i = 0; i < n; i++)
        buf[fill[pile[i]]++] = v[i];
    free(pile);
    uint64_t *sorted = sc_piles_merge_runs(buf, v, sizeof *v, ends, n_piles, sc_u64_merge, NULL);
    if (sorted != v)
        memcpy(v, sorted, n * sizeof *v);
    free(buf);
    return true;
}

/* Up to this many values are sorted on the stack: the many small lists (an NVTX range's
 * points) would pay two allocations and a pass over the piles' table each. */
#define SC_U64_SMALL 256
#define SC_U64_SMALL_RUN 16     /* runs first sorted by insertion, then merged */

static void sc_u64_insertion_sort(uint64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Sorts v[0 .. n), n at most SC_U64_SMALL: runs by insertion, then merged pairwise between v
 * and room on the stack. */
static void sc_u64_sort_small(uint64_t *v, size_t n)
{
    uint64_t room[SC_U64_SMALL];
    for (size_t lo = 0; lo < n; lo += SC_U64_SMALL_RUN)
        sc_u64_insertion_sort(v + lo, n - lo < SC_U64_SMALL_RUN ? n - lo : SC_U64_SMALL_RUN);
    uint64_t *src = v, *dst = room;
    for (size_t width = SC_U64_SMALL_RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            sc_u64_merge(NULL, src, dst, lo, mid, hi);
        }
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

/* Sorts v when its values after the first run, v[mid .. n), are one ascending run too (an
 * overlap's points: each stream's kernels, then its copies): one merge, no piles. False when
 * they are not, or there is no memory (v is then unchanged). */
static bool sc_u64_sort_two_runs(uint64_t *v, size_t mid, size_t n)
{
    for (size_t i = mid + 1; i < n; i++)
        if (v[i - 1] > v[i])
            return false;
    uint64_t *buf = malloc(n * sizeof *buf);
    if (!buf)
        return false;
    memcpy(buf, v, n * sizeof *buf);
    sc_u64_merge(NULL, buf, v, 0, mid, n);
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
    if (n > SC_U64_SMALL && sc_u64_sort_two_runs(v, in_order, n))
        return;
    if (n <= SC_U64_SMALL) {
        sc_u64_sort_small(v, n);
        return;
    }
    if (!sc_u64_sort_piles(v, n))
        sc_sort(v, n, sizeof *v, sc_u64_value_cmp);
}
