#include "trace/sort.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool sc_in_order(const void *base, size_t n, size_t size,
                        int (*cmp)(const void *, const void *))
{
    const char *p = base;
    for (size_t i = 1; i < n; i++)
        if (cmp(p + (i - 1) * size, p + i * size) > 0) return false;
    return true;
}

void sc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1 && !sc_in_order(base, n, size, cmp)) qsort(base, n, size, cmp);
}

/* Bottom-up merge sort between base and a scratch buffer. Inputs are mostly sorted already
 * (records arrive roughly in time order), and merging a sorted run costs one pass. */
int sc_stable_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2) return 0;
    /* Already in order (a device's records usually are): one pass, no copy at all. */
    size_t first_out = 1;
    while (first_out < n &&
           cmp((char *)base + (first_out - 1) * size, (char *)base + first_out * size) <= 0)
        first_out++;
    if (first_out == n) return 0;
    char *a = base, *b = malloc(n * size);
    if (!b) return -1;
    char *src = a, *dst = b;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            /* Already in order: copy the run in one go. */
            if (mid < hi && cmp(src + (mid - 1) * size, src + mid * size) <= 0) {
                memcpy(dst + lo * size, src + lo * size, (hi - lo) * size);
                continue;
            }
            while (i < mid && j < hi) {
                if (cmp(src + j * size, src + i * size) < 0)
                    memcpy(dst + k++ * size, src + j++ * size, size);
                else
                    memcpy(dst + k++ * size, src + i++ * size, size);
            }
            memcpy(dst + k * size, src + i * size, (mid - i) * size);
            k += mid - i;
            memcpy(dst + k * size, src + j * size, (hi - j) * size);
        }
        char *tmp = src;
        src = dst;
        dst = tmp;
    }
    if (src != a) memcpy(a, src, n * size);
    free(b);
    return 0;
}
