/* The stable sort by a leading uint64_t key (sort_time.h). */
#include "analyze/sort_time.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC_RADIX_BITS 11
#define SC_RADIX_BUCKETS (1u << SC_RADIX_BITS)
#define SC_RADIX_PASSES ((64 + SC_RADIX_BITS - 1) / SC_RADIX_BITS)

static uint64_t sc_key_at(const char *a, size_t i, size_t size)
{
    uint64_t k;
    memcpy(&k, a + i * size, sizeof k);
    return k;
}

/* A call to memcpy per element costs more than the copy: the callers' sizes, inlined. */
static void sc_move_one(char *dst, const char *src, size_t size)
{
    switch (size) {
    case 16: memcpy(dst, src, 16); break;
    case 24: memcpy(dst, src, 24); break;
    default: memcpy(dst, src, size); break;
    }
}

int sc_sort_by_time(void *base, size_t n, size_t size)
{
    char *a = base;
    if (n < 2)
        return 0;
    uint64_t lo = sc_key_at(a, 0, size), hi = lo;
    size_t in_order = 1;
    for (size_t i = 1; i < n; i++) {
        uint64_t k = sc_key_at(a, i, size);
        in_order += k >= sc_key_at(a, i - 1, size);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    if (in_order == n)
        return 0;   /* already in order: nothing moves, as with any stable sort */
    uint64_t span = hi - lo;
    size_t passes = 0;
    while (passes < SC_RADIX_PASSES && (span >> (passes * SC_RADIX_BITS)))
        passes++;
    size_t *count = calloc((size_t)passes * SC_RADIX_BUCKETS, sizeof *count);
    char *spare = malloc(n * size);
    if (!count || !spare) {
        free(count);
        free(spare);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t k = sc_key_at(a, i, size) - lo;
        for (size_t p = 0; p < passes; p++)
            count[p * SC_RADIX_BUCKETS + ((k >> (p * SC_RADIX_BITS)) & (SC_RADIX_BUCKETS - 1))]++;
    }
    char *src = a, *dst = spare;
    for (size_t p = 0; p < passes; p++) {
        size_t *c = count + p * SC_RADIX_BUCKETS;
        /* a digit all keys share sorts nothing: the pass is skipped */
        uint64_t first = ((sc_key_at(src, 0, size) - lo) >> (p * SC_RADIX_BITS)) &
                         (SC_RADIX_BUCKETS - 1);
        if (c[first] == n)
            continue;
        for (size_t b = 0, sum = 0; b < SC_RADIX_BUCKETS; b++) {
            size_t here = c[b];
            c[b] = sum;
            sum += here;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t d = ((sc_key_at(src, i, size) - lo) >> (p * SC_RADIX_BITS)) &
                         (SC_RADIX_BUCKETS - 1);
            sc_move_one(dst + c[d]++ * size, src + i * size, size);
        }
        char *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != a)
        memcpy(a, src, n * size);
    free(count);
    free(spare);
    return 0;
}
