/* See piles.h. */
#include "trace/piles.h"

#include <string.h>

size_t sc_piles_deal(const uint64_t *v, size_t n, uint8_t *pile)
{
    uint64_t last[SC_PILES_MAX];   /* each pile's last value, ascending */
    uint8_t id[SC_PILES_MAX];      /* the pile at each of those places */
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
        /* In a list interleaving a few ascending ones, many values that miss the top pile
         * fit the one below it: one comparison before the search. */
        if (top > 0 && last[top - 1] <= v[i]) {
            last[top - 1] = v[i];
            pile[i] = id[top - 1];
            continue;
        }
        size_t lo = 0, hi = top > 0 ? top - 1 : 0;  /* last[lo - 1] <= v[i] < last[lo] */
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
        if (n_piles == SC_PILES_MAX)
            return 0;
        memmove(last + 1, last, n_piles * sizeof *last);
        memmove(id + 1, id, n_piles * sizeof *id);
        last[0] = v[i];
        id[0] = (uint8_t)n_piles++;
        pile[i] = id[0];
    }
    return n_piles;
}

void sc_piles_layout(const uint8_t *pile, size_t n, size_t n_piles, size_t *fill,
                     size_t *ends)
{
    memset(ends, 0, n_piles * sizeof *ends);
    for (size_t i = 0; i < n; i++)
        ends[pile[i]]++;
    for (size_t k = 0, sum = 0; k < n_piles; k++) {
        fill[k] = sum;
        sum += ends[k];
        ends[k] = sum;
    }
}

void *sc_piles_merge_runs(void *a, void *b, size_t elem_size, size_t *ends, size_t n_piles,
                          sc_piles_merge_fn *merge, const void *ctx)
{
    unsigned char *src = a, *dst = b;
    while (n_piles > 1) {
        size_t out = 0;
        for (size_t r = 0; r < n_piles; r += 2) {
            size_t lo = r ? ends[r - 1] : 0;
            if (r + 1 == n_piles)
                memcpy(dst + lo * elem_size, src + lo * elem_size, (ends[r] - lo) * elem_size);
            else
                merge(ctx, src, dst, lo, ends[r], ends[r + 1]);
            ends[out++] = ends[r + 1 == n_piles ? r : r + 1];
        }
        n_piles = out;
        unsigned char *swap = src;
        src = dst;
        dst = swap;
    }
    return src;
}
