/* no-room's durations with room (no_room_crowd.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "analyze/launches.h"
#include "analyze/no_room_crowd.h"
#include "streamcheck/units.h"
#include "trace/grow.h"
#include "trace/lower_bound.h"
#include "trace/sort.h"
#include "trace/sort_u64.h"

enum { SC_CROWD_WAITED = 1, SC_CROWD_BESIDE = 2 };

#define SC_CROWD_NEAR 64    /* kernels either side (by start) looked at for company */

typedef struct sc_crowd_sample {
    uint64_t key;       /* device << 32 | launch shape (sc_kernel_launch: not by stream) */
    uint64_t ns;
} sc_crowd_sample;

static uint64_t sc_crowd_key(const sc_trace *t, const sc_kernel *k)
{
    return (uint64_t)sc_kernel_device(t, k) << 32 | sc_kernel_launch(t, k);
}

static uint64_t sc_crowd_dur(const sc_kernel *k)
{
    return sc_dur(k->rec.start_ns, k->rec.end_ns);
}

static int sc_crowd_sample_cmp(const void *pa, const void *pb)
{
    const sc_crowd_sample *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->ns < b->ns ? -1 : a->ns > b->ns;
}

/* Marks the full grids of other streams of w's device whose run overlapped w's, among the
 * SC_CROWD_NEAR kernels either side of it by start (a bounded look: a grid further away is
 * left as recorded). */
static void sc_crowd_mark_beside(const sc_ctx *ctx, size_t w, uint8_t *mark)
{
    const sc_kernel *k = ctx->trace->kernels;
    const sc_kernel_rec *kw = &k[w].rec;
    size_t lo = w > SC_CROWD_NEAR ? w - SC_CROWD_NEAR : 0;
    size_t hi = w + SC_CROWD_NEAR < ctx->trace->n_kernels ? w + SC_CROWD_NEAR + 1
                                                            : ctx->trace->n_kernels;
    for (size_t j = lo; j < hi; j++)
        if (j != w && k[j].rec.start_ns < kw->end_ns && k[j].rec.end_ns > kw->start_ns &&
            sc_kernel_device(ctx->trace, &k[j]) == sc_kernel_device(ctx->trace, &k[w]) &&
            ctx->launches[j].slot != ctx->launches[w].slot &&
            sc_ctx_kernel_full(ctx, j, NULL))
            mark[j] |= SC_CROWD_BESIDE;
}

/* A full grid beside a waited kernel is slowed by it only on the few SMs its blocks crowd
 * onto: it counts as crowded when it ran at least a quarter longer than its uncrowded
 * instances. Measured on an H200: a sweep crowded by a spin ran 6.6 times as long (killers
 * nonblocking); the multi-wave grids beside small kernels that waited for room, which those
 * could not slow much, 1.17 times (suspects equal-priority, where the bulk grids bound the
 * run and room cannot shorten them). */
#define SC_CROWD_SLOWER 4

/* Kernel k ran beside work of other streams of its device (the kernels among the
 * SC_CROWD_NEAR either side of it, by start) for at least half its run: its duration is one
 * that sharing the device allows. A kernel that ran alone shows nothing of that: grids that
 * share memory bandwidth run longer side by side, with room or without (arrangements
 * two-grids). */
static bool sc_crowd_in_company(const sc_ctx *ctx, size_t k)
{
    const sc_kernel *ks = ctx->trace->kernels;
    const sc_kernel_rec *a = &ks[k].rec;
    uint32_t device = sc_kernel_device(ctx->trace, &ks[k]);
    size_t lo = k > SC_CROWD_NEAR ? k - SC_CROWD_NEAR : 0;
    size_t hi = k + SC_CROWD_NEAR < ctx->trace->n_kernels ? k + SC_CROWD_NEAR + 1
                                                            : ctx->trace->n_kernels;
    uint64_t covered = 0, reached = a->start_ns;    /* by start order: a union in one walk */
    for (size_t j = lo; j < hi; j++) {
        const sc_kernel_rec *b = &ks[j].rec;
        if (j == k || sc_kernel_device(ctx->trace, &ks[j]) != device ||
            ctx->launches[j].slot == ctx->launches[k].slot)
            continue;
        uint64_t from = b->start_ns > reached ? b->start_ns : reached;
        uint64_t to = b->end_ns < a->end_ns ? b->end_ns : a->end_ns;
        if (to > from) {
            covered += to - from;
            reached = to;
        }
    }
    return covered > 0 && covered >= sc_crowd_dur(&ks[k]) / 2;
}

/* The lower median of key's samples (sorted by key, then duration), or 0 when it has none. */
static uint64_t sc_crowd_median(const sc_crowd_sample *s, size_t n, uint64_t key)
{
    size_t lo = SC_LOWER_BOUND(s, n, key, key), end = lo;
    while (end < n && s[end].key == key)
        end++;
    return end > lo ? s[lo + (end - lo - 1) / 2].ns : 0;
}

static int sc_crowd_emit(const sc_ctx *ctx, const uint8_t *mark, uint64_t *keys, size_t n_keys,
                         sc_finding_builder *b, size_t *n_crowded, uint64_t *extra_ns)
{
    const sc_trace *t = ctx->trace;
    sc_sort_u64(keys, n_keys);
    size_t u = 0;
    for (size_t i = 0; i < n_keys; i++)
        if (u == 0 || keys[u - 1] != keys[i])
            keys[u++] = keys[i];
    sc_crowd_sample *s = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < t->n_kernels; k++) {
        uint64_t key = sc_crowd_key(t, &t->kernels[k]);
        size_t at = sc_u64_lower_bound(keys, u, key);
        if (mark[k] || at == u || keys[at] != key || !sc_crowd_in_company(ctx, k))
            continue;
        if (!SC_GROW(s, cap, n + 1, 64)) {
            free(s);
            return -1;
        }
        s[n++] = (sc_crowd_sample){key, sc_crowd_dur(&t->kernels[k])};
    }
    sc_sort(s, n, sizeof *s, sc_crowd_sample_cmp);
    int rc = 0;
    for (size_t k = 0; k < t->n_kernels && rc == 0; k++) {
        if (!mark[k])
            continue;
        uint64_t typical = sc_crowd_median(s, n, sc_crowd_key(t, &t->kernels[k]));
        uint64_t ns = sc_crowd_dur(&t->kernels[k]);
        bool crowded = (mark[k] & SC_CROWD_WAITED) ? ns > typical
                                                   : ns >= typical + typical / SC_CROWD_SLOWER;
        if (typical > 0 && crowded) {
            rc = sc_finding_fix_ns(b, SC_FIX_DURATION, k, typical);
            *n_crowded += 1;
            *extra_ns += ns - typical;
        }
    }
    free(s);
    return rc;
}

int sc_noroom_crowd_fixes(const sc_ctx *ctx, const uint8_t *waited, sc_finding_builder *b,
                          size_t *n_crowded, uint64_t *extra_ns)
{
    const sc_trace *t = ctx->trace;
    *n_crowded = 0;
    *extra_ns = 0;
    size_t n_waited = 0;
    for (size_t k = 0; k < t->n_kernels; k++)
        n_waited += waited[k] != 0;
    if (n_waited == 0)
        return 0;
    uint8_t *mark = calloc(t->n_kernels, 1);
    if (!mark)
        return -1;
    for (size_t k = 0; k < t->n_kernels; k++)
        if (waited[k]) {
            mark[k] |= SC_CROWD_WAITED;
            sc_crowd_mark_beside(ctx, k, mark);
        }
    size_t n_keys = 0;
    for (size_t k = 0; k < t->n_kernels; k++)
        n_keys += mark[k] != 0;
    uint64_t *keys = malloc(n_keys * sizeof *keys);
    int rc = -1;
    if (keys) {
        n_keys = 0;
        for (size_t k = 0; k < t->n_kernels; k++)
            if (mark[k])
                keys[n_keys++] = sc_crowd_key(t, &t->kernels[k]);
        rc = sc_crowd_emit(ctx, mark, keys, n_keys, b, n_crowded, extra_ns);
    }
    free(keys);
    free(mark);
    return rc;
}
