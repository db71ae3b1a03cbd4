/* See piles.h. */
#include "trace/piles.h"

#include <stdbool.h>
#include <string.h>

size_t sc_piles_deal(const uint64_t *v, size_t n, uint8_t *pile)
{
    /* each pile's last value, ascending; a new pile opens below all the others, so the pile
     * at place k is the (n_piles - 1 - k)-th opened: the top one is pile 0, the one below
     * it pile 1 */
    uint64_t last[SC_PILES_MAX];
    size_t n_piles = 1;
    size_t prev = 0;    /* the place the value before went to */
    last[0] = v[0];
    pile[0] = 0;
    for (size_t i = 1; i < n; i++) {
        size_t top = n_piles - 1;
        if (last[top] <= v[i]) {
            last[top] = v[i];
            pile[i] = 0;
            prev = top;
            continue;
        }
        /* A list that comes as batches of ascending runs (each thread's buffers, one after
         * another) puts a batch's values on one pile, not always the top one: the place the
         * value before went to, when it is still the largest last not above this one. */
        if (prev < top && last[prev] <= v[i] && v[i] < last[prev + 1]) {
            last[prev] = v[i];
            pile[i] = (uint8_t)(top - prev);
            continue;
        }
        /* In a list interleaving a few ascending ones, many values that miss the top pile
         * fit the one below it: one comparison before the search. */
        if (top > 0 && last[top - 1] <= v[i]) {
            last[top - 1] = v[i];
            pile[i] = 1;
            prev = top - 1;
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
            pile[i] = (uint8_t)(top - (lo - 1));
            prev = lo - 1;
            continue;
        }
        if (n_piles == SC_PILES_MAX)
            return 0;
        memmove(last + 1, last, n_piles * sizeof *last);
        last[0] = v[i];
        pile[i] = (uint8_t)n_piles++;
        prev = 0;
    }
    return n_piles;
}

void sc_piles_layout(const uint8_t *pile, size_t n, size_t n_piles, size_t *fill,
                     size_t *ends)
{
    size_t count[SC_PILES_MAX] = {0};
    for (size_t i = 0; i < n; i++)
        count[pile[i]]++;
    /* smallest pile first: the merges (sc_piles_merge_runs) then take the small runs
     * together before a large one, and the largest moves once */
    uint8_t by_size[SC_PILES_MAX];
    for (size_t k = 0; k < n_piles; k++) {
        size_t at = k;
        for (; at > 0 && count[by_size[at - 1]] > count[k]; at--)
            by_size[at] = by_size[at - 1];
        by_size[at] = (uint8_t)k;
    }
    for (size_t k = 0, sum = 0; k < n_piles; k++) {
        fill[by_size[k]] = sum;
        sum += count[by_size[k]];
        ends[k] = sum;
    }
}

/* The adjacent pair of runs (ending at ends[]) that is shortest together: r and r + 1. */
static size_t sc_piles_cheapest_pair(const size_t *ends, size_t n_runs)
{
    size_t best = 0, best_len = SIZE_MAX;
    for (size_t r = 0; r + 1 < n_runs; r++) {
        size_t len = ends[r + 1] - (r ? ends[r - 1] : 0);
        if (len < best_len) {
            best = r;
            best_len = len;
        }
    }
    return best;
}

void *sc_piles_merge_runs(void *a, void *b, size_t elem_size, size_t *ends, size_t n_piles,
                          sc_piles_merge_fn *merge, const void *ctx)
{
    /* Runs of very unequal lengths (a list that is mostly one run): the shortest adjacent
     * pair is merged first, so an element moves about as often as its run is short, where
     * merging every pair each round moved all of them every round. Each run lies in a or in
     * b; a pair split between them has its shorter run copied over to the other's first. */
    unsigned char *buf[2] = {a, b};
    uint8_t in[SC_PILES_MAX] = {0};     /* which of buf holds each run */
    while (n_piles > 1) {
        size_t r = sc_piles_cheapest_pair(ends, n_piles);
        size_t lo = r ? ends[r - 1] : 0, mid = ends[r], hi = ends[r + 1];
        if (in[r] != in[r + 1]) {
            bool left = mid - lo <= hi - mid;   /* move the shorter */
            size_t from = left ? lo : mid, to = left ? mid : hi;
            uint8_t dst = left ? in[r + 1] : in[r];
            memcpy(buf[dst] + from * elem_size, buf[!dst] + from * elem_size,
                   (to - from) * elem_size);
            in[r] = in[r + 1] = dst;
        }
        merge(ctx, buf[in[r]], buf[!in[r]], lo, mid, hi);
        in[r] = (uint8_t)!in[r];
        memmove(ends + r + 1, ends + r + 2, (n_piles - r - 2) * sizeof *ends);
        memmove(in + r + 1, in + r + 2, (n_piles - r - 2) * sizeof *in);
        ends[r] = hi;
        n_piles--;
    }
    return buf[in[0]];
}
