/* See packed_times.h. */
#include "trace/packed_times.h"

#include <stdlib.h>

#include "trace/lower_bound.h"

int sc_packed_times_make(sc_packed_times *p, size_t n, const void *ctx,
                         uint64_t (*value_of)(const void *ctx, size_t i))
{
    size_t n_blocks = (n + SC_PACKED_BLOCK - 1) / SC_PACKED_BLOCK;
    *p = (sc_packed_times){.n = n};
    p->off = malloc((n ? n : 1) * sizeof *p->off);
    p->base = malloc((n_blocks ? n_blocks : 1) * sizeof *p->base);
    if (!p->off || !p->base) {
        sc_packed_times_free(p);
        return -1;
    }
    /* the values are asked twice (the base, then the distances) rather than copied: a copy
     * would take the 8 bytes a value that packing saves */
    for (size_t b = 0; b < n_blocks; b++) {
        size_t end = (b + 1) * SC_PACKED_BLOCK < n ? (b + 1) * SC_PACKED_BLOCK : n;
        uint64_t least = UINT64_MAX;
        for (size_t i = b * SC_PACKED_BLOCK; i < end; i++) {
            uint64_t v = value_of(ctx, i);
            least = v < least ? v : least;
        }
        p->base[b] = least;
        for (size_t i = b * SC_PACKED_BLOCK; i < end; i++) {
            uint64_t d = value_of(ctx, i) - least;
            p->off[i] = d < SC_PACKED_FAR ? (uint32_t)d : SC_PACKED_FAR;
            p->n_far += d >= SC_PACKED_FAR;
        }
    }
    if (p->n_far == 0)
        return 0;
    p->far = malloc(p->n_far * sizeof *p->far);
    if (!p->far) {
        sc_packed_times_free(p);
        return -1;
    }
    for (size_t i = 0, k = 0; i < n; i++)
        if (p->off[i] == SC_PACKED_FAR)
            p->far[k++] = (sc_packed_far){.position = i, .value = value_of(ctx, i)};
    return 0;
}

void sc_packed_times_free(sc_packed_times *p)
{
    free(p->off);
    free(p->base);
    free(p->far);
    *p = (sc_packed_times){0};
}

uint64_t sc_packed_far_value(const sc_packed_times *p, size_t i)
{
    return p->far[SC_LOWER_BOUND(p->far, p->n_far, position, i)].value;
}
