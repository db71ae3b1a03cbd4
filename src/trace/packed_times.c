/* See packed_times.h. */
#include "trace/packed_times.h"

#include <stdlib.h>

#include "trace/grow.h"

int sc_packed_times_open(sc_packed_times *p, size_t n)
{
    size_t n_blocks = (n + SC_PACKED_BLOCK - 1) / SC_PACKED_BLOCK;
    *p = (sc_packed_times){.n = n};
    p->off = malloc((n ? n : 1) * sizeof *p->off);
    p->base = malloc((n_blocks ? n_blocks : 1) * sizeof *p->base);
    p->far_first = malloc((n_blocks ? n_blocks : 1) * sizeof *p->far_first);
    if (!p->off || !p->base || !p->far_first) {
        sc_packed_times_free(p);
        return -1;
    }
    return 0;
}

int sc_packed_times_put_block(sc_packed_times *p, size_t b, const uint64_t *v, size_t n,
                              size_t *cap_far)
{
    uint64_t least = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        least = v[i] < least ? v[i] : least;
    p->base[b] = least;
    if (p->n_far > UINT32_MAX - SC_PACKED_BLOCK)
        return -1;              /* past far_first's 32 bits: only a list of 2^32 values */
    p->far_first[b] = (uint32_t)p->n_far;
    uint32_t *off = p->off + b * SC_PACKED_BLOCK;
    uint32_t k = 0;             /* the block's far values so far */
    for (size_t i = 0; i < n; i++) {
        uint64_t d = v[i] - least;
        off[i] = d < SC_PACKED_FAR ? (uint32_t)d : SC_PACKED_FAR + k;
        if (d < SC_PACKED_FAR)
            continue;
        if (!SC_GROW(p->far, *cap_far, p->n_far + 1, 16))
            return -1;
        p->far[p->n_far++] = v[i];
        k++;
    }
    return 0;
}

int sc_packed_times_make(sc_packed_times *p, size_t n, const void *ctx,
                         uint64_t (*value_of)(const void *ctx, size_t i))
{
    if (sc_packed_times_open(p, n) != 0)
        return -1;
    size_t cap_far = 0;
    uint64_t v[SC_PACKED_BLOCK];   /* a block's values on the stack, not 8 bytes a value */
    for (size_t b = 0; b * SC_PACKED_BLOCK < n; b++) {
        size_t from = b * SC_PACKED_BLOCK;
        size_t k = n - from < SC_PACKED_BLOCK ? n - from : SC_PACKED_BLOCK;
        for (size_t i = 0; i < k; i++)
            v[i] = value_of(ctx, from + i);
        if (sc_packed_times_put_block(p, b, v, k, &cap_far) != 0) {
            sc_packed_times_free(p);
            return -1;
        }
    }
    return 0;
}

void sc_packed_times_free(sc_packed_times *p)
{
    free(p->off);
    free(p->base);
    free(p->far_first);
    free(p->far);
    *p = (sc_packed_times){0};
}

