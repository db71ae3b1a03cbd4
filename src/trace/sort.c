/* Sorting what the loader and the analyzer sort: lists in order (one pass of comparisons),
 * lists that interleave a few lists in order (sort_piles.c: merged in log2(piles) passes),
 * and anything else by a natural merge sort (runs found, lengthened, merged pairwise), not
 * glibc's qsort, which sorts pointers and then moves every element to a random place.
 *
 * Stable: an element of the left run goes first when the two compare equal, so equal keys keep
 * their input order, the same order any stable sort gives (glibc's qsort is one). */
#include "trace/sort.h"

#include "trace/sort_piles.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Runs shorter than this are lengthened by insertion sort first: a list in random order would
 * otherwise start with runs of one or two elements and need a merge pass for each doubling. */
#define SC_MIN_RUN 16

typedef int (*sc_cmp_fn)(const void *, const void *);

/* Inserts a[n - 1] into the sorted a[0 .. n - 2], after the elements equal to it (stable);
 * tmp holds one element. */
static void sc_insert_last(char *a, size_t n, size_t size, sc_cmp_fn cmp, char *tmp)
{
    size_t j = n - 1;
    if (cmp(a + (j - 1) * size, a + j * size) <= 0)
        return;
    memcpy(tmp, a + j * size, size);
    while (j > 0 && cmp(a + (j - 1) * size, tmp) > 0)
        j--;
    memmove(a + (j + 1) * size, a + j * size, (n - 1 - j) * size);
    memcpy(a + j * size, tmp, size);
}

/* The end of the run in order that starts at lo, lengthened to SC_MIN_RUN (or to n). */
static size_t sc_run_end(char *a, size_t lo, size_t n, size_t size, sc_cmp_fn cmp, char *tmp)
{
    size_t hi = lo + 1;
    while (hi < n && cmp(a + (hi - 1) * size, a + hi * size) <= 0)
        hi++;
    size_t want = n - lo < SC_MIN_RUN ? n : lo + SC_MIN_RUN;
    for (; hi < want; hi++)
        sc_insert_last(a + lo * size, hi - lo + 1, size, cmp, tmp);
    return hi;
}

/* Merges src[lo, mid) and src[mid, hi) into dst[lo, hi). Elements taken from one side in a
 * row are copied together: the runs interleave in stretches, not one element at a time. */
static void sc_merge(const char *src, char *dst, size_t lo, size_t mid, size_t hi, size_t size,
                     sc_cmp_fn cmp)
{
    size_t i = lo, j = mid, k = lo;
    /* Already in order, or the right run entirely first: two copies. */
    if (cmp(src + (mid - 1) * size, src + mid * size) <= 0) {
        memcpy(dst + lo * size, src + lo * size, (hi - lo) * size);
        return;
    }
    while (i < mid && j < hi) {
        size_t from = j;
        while (j < hi && cmp(src + j * size, src + i * size) < 0)
            j++;
        if (j > from) {
            memcpy(dst + k * size, src + from * size, (j - from) * size);
            k += j - from;
            if (j == hi)
                break;
        }
        from = i;
        while (i < mid && cmp(src + j * size, src + i * size) >= 0)
            i++;
        memcpy(dst + k * size, src + from * size, (i - from) * size);
        k += i - from;
    }
    memcpy(dst + k * size, src + i * size, (mid - i) * size);
    k += mid - i;
    memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

/* Whether the list is already in order (most lists are): one pass of comparisons, no memory,
 * nothing moved. */
static bool sc_in_order(const void *base, size_t n, size_t size, sc_cmp_fn cmp)
{
    const char *a = base;
    for (size_t i = 1; i < n; i++)
        if (cmp(a + (i - 1) * size, a + i * size) > 0)
            return false;
    return true;
}

/* Sorts with a scratch buffer of n elements. Returns 0, or -1 without memory (input unchanged:
 * both buffers exist before anything moves). */
static int sc_merge_sort(void *base, size_t n, size_t size, sc_cmp_fn cmp)
{
    char *a = base;
    if (sc_in_order(base, n, size, cmp))
        return 0;
    int piles = sc_sort_piles(base, n, size, cmp);
    if (piles <= 0)
        return piles;
    /* Every run but the last holds at least SC_MIN_RUN elements: that bounds their count. */
    size_t n_runs = 0, *ends = malloc((n / SC_MIN_RUN + 1) * sizeof *ends);
    char *b = malloc(n * size + size);
    if (!b || !ends) {
        free(b);
        free(ends);
        return -1;
    }
    char *tmp = b + n * size;
    for (size_t lo = 0; lo < n; lo = ends[n_runs++])
        ends[n_runs] = sc_run_end(a, lo, n, size, cmp, tmp);
    char *src = a, *dst = b;
    while (n_runs > 1) {
        size_t out = 0;
        for (size_t r = 0; r < n_runs; r += 2) {
            size_t lo = r ? ends[r - 1] : 0;
            if (r + 1 == n_runs) {
                memcpy(dst + lo * size, src + lo * size, (ends[r] - lo) * size);
                ends[out++] = ends[r];
                continue;
            }
            sc_merge(src, dst, lo, ends[r], ends[r + 1], size, cmp);
            ends[out++] = ends[r + 1];
        }
        n_runs = out;
        char *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != a)
        memcpy(a, src, n * size);
    free(b);
    free(ends);
    return 0;
}

void sc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    /* Without memory for the merge, qsort (also stable where glibc finds memory). */
    if (n > 1 && sc_merge_sort(base, n, size, cmp) != 0)
        qsort(base, n, size, cmp);
}

void sc_sort_copy(void *dst, const void *src, size_t n, size_t size,
                  int (*cmp)(const void *, const void *))
{
    if (!sc_in_order(src, n, size, cmp) && sc_sort_piles_into(dst, src, n, size, cmp) == 0)
        return;
    if (n > 0)
        memcpy(dst, src, n * size);
    sc_sort(dst, n, size, cmp);
}

void sc_sort_remake(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
                    void (*remake)(const void *ctx, size_t i, void *dst), const void *ctx)
{
    if (!sc_in_order(base, n, size, cmp) &&
        sc_sort_piles_remake(base, n, size, cmp, remake, ctx) != 0)
        sc_sort(base, n, size, cmp);
}

int sc_stable_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    return n > 1 ? sc_merge_sort(base, n, size, cmp) : 0;
}

/* The element moves an insertion sort may make before a list is given to the piles: a few
 * per hundred elements and some. Device records in completion order sit a few places after
 * their place in start order (a kernel that started earlier on one stream ended after the
 * kernels of another), which insertion puts right in one pass; records a long way from their
 * place (another thread's buffer written later) soon spend the budget. */
#define SC_SETTLE_BUDGET(n) ((n) / 8 + 64)
#define SC_SETTLE_MAX_SIZE 128      /* the largest element settled (the loader's are 24-56) */

static uint64_t sc_key_of(const char *a, size_t i, size_t size, size_t key_at)
{
    uint64_t v;
    memcpy(&v, a + i * size + key_at, sizeof v);
    return v;
}

/* Sorts base by the key at key_at by insertion (stable: an element goes after the ones equal
 * to it), while the moves stay within SC_SETTLE_BUDGET; true when it is sorted. false: the
 * budget would be spent, and the list is left partly sorted, every element moved only past
 * larger ones, so that equal keys keep their input order and a stable sort of it gives the
 * order of the list as it was. A list in order costs one comparison an element, as a check. */
static bool sc_settle_by_u64(void *base, size_t n, size_t size, size_t key_at)
{
    char *a = base, tmp[SC_SETTLE_MAX_SIZE];
    size_t budget = size <= sizeof tmp ? SC_SETTLE_BUDGET(n) : 0;
    uint64_t last = sc_key_of(a, 0, size, key_at);
    for (size_t i = 1; i < n; i++) {
        uint64_t v = sc_key_of(a, i, size, key_at);
        if (v >= last) {
            last = v;
            continue;
        }
        /* its place: after the last element not above it; a[i - 1] (key last) is above */
        size_t j = i - 1;
        while (j > 0 && sc_key_of(a, j - 1, size, key_at) > v)
            if (i - --j > budget)
                return false;
        if (i - j > budget)
            return false;
        budget -= i - j;
        memcpy(tmp, a + i * size, size);
        memmove(a + (j + 1) * size, a + j * size, (i - j) * size);
        memcpy(a + j * size, tmp, size);
        /* a[i] is now the one that was at i - 1: the largest so far is still `last` */
    }
    return true;
}

int sc_stable_sort_by_u64(void *base, size_t n, size_t size, size_t key_at,
                          int (*cmp)(const void *, const void *))
{
    if (n < 2 || sc_settle_by_u64(base, n, size, key_at))
        return 0;
    int piles = sc_sort_piles_by_u64(base, n, size, key_at);
    /* too many piles: the general sort, which finds the same order */
    return piles <= 0 ? piles : sc_merge_sort(base, n, size, cmp);
}
