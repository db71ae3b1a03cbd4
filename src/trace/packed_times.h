/* 64-bit times kept in 32 bits each, exactly: each value as its distance above the least value
 * of its block of SC_PACKED_BLOCK neighbours (times that lie near each other, as a device's
 * issue times in issue order do, are microseconds to milliseconds apart), and the rare value
 * whose distance does not fit (its block spans more than 4.29 s: a run that idles between
 * steps) in a list beside, in position order, named by its offset: the k-th far value of a
 * block has the offset SC_PACKED_FAR + k, and the block keeps where its far values start in
 * the list. So a far value is two loads away, not a search (a day-long run with a step of
 * seconds makes one a step). 4 bytes and a little over an eighth a value, where a plain array
 * takes 8. */
#ifndef SC_TRACE_PACKED_TIMES_H
#define SC_TRACE_PACKED_TIMES_H

#include <stddef.h>
#include <stdint.h>

#define SC_PACKED_BLOCK 64              /* values that share a base */
/* Offsets from here on name a far value (its block's k-th: SC_PACKED_FAR + k); the distances
 * below it are kept whole. */
#define SC_PACKED_FAR ((uint32_t)(UINT32_MAX - SC_PACKED_BLOCK + 1))

typedef struct sc_packed_times {
    uint32_t *off;              /* per value: it less its block's base, or SC_PACKED_FAR + k */
    uint64_t *base;             /* per block: the least of its values */
    uint32_t *far_first;        /* per block: its first far value's place in far */
    uint64_t *far;              /* the far values, by position */
    size_t n, n_far;
} sc_packed_times;

/* Packs the n values value_of(ctx, 0 .. n - 1). Returns 0, or -1 without memory (*p then holds
 * nothing to free). */
int sc_packed_times_make(sc_packed_times *p, size_t n, const void *ctx,
                         uint64_t (*value_of)(const void *ctx, size_t i));

/* For a maker that has its values a block at a time (the replay's issue times, made as its
 * work is laid out): room for n values, then each block put in turn. sc_packed_times_make
 * goes through the same two, so the layout has one encoder. open returns 0, or -1 without
 * memory (*p then holds nothing to free). put_block packs block b's values v[0 .. n - 1]
 * (SC_PACKED_BLOCK of them but in the last block; the blocks in order): its base, each
 * offset, a far entry for each value whose distance does not fit; *cap_far is the far list's
 * room (0 at first).
 * Returns 0, or -1 without memory (*p is then still the caller's to free). */
int sc_packed_times_open(sc_packed_times *p, size_t n);
int sc_packed_times_put_block(sc_packed_times *p, size_t b, const uint64_t *v, size_t n,
                              size_t *cap_far);
void sc_packed_times_free(sc_packed_times *p);

/* The value at position i: inline, the offset tested, the far list read for a far one. */
static inline uint64_t sc_packed_time(const sc_packed_times *p, size_t i)
{
    uint32_t off = p->off[i];
    size_t b = i / SC_PACKED_BLOCK;
    return off < SC_PACKED_FAR ? p->base[b] + off : p->far[p->far_first[b] + (off - SC_PACKED_FAR)];
}

/* In positions lo .. hi - 1, whose values ascend: the first position whose value is at least
 * x, less lo (hi - lo when there is none). */
static inline size_t sc_packed_lower_bound(const sc_packed_times *p, size_t lo, size_t hi,
                                           uint64_t x)
{
    size_t from = lo;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_packed_time(p, mid) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - from;
}

#endif
