/* Solo durations: see solo.h. */
#include "analyze/solo.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "trace/sort.h"

/* A kernel reduced to what identifies "the same kernel", plus what the median needs. */
typedef struct sc_solo_key {
    uint32_t device, name_id;
    const char *name;           /* compared only when neither has a name id */
    int32_t dims[6];            /* grid x y z, block x y z */
    uint8_t ran_alone;
    uint64_t dur;
    size_t index;
} sc_solo_key;

static int sc_solo_cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int sc_solo_same_kernel_cmp(const sc_solo_key *x, const sc_solo_key *y)
{
    if (x->device != y->device)
        return sc_solo_cmp_u64(x->device, y->device);
    if (x->name_id != y->name_id)
        return sc_solo_cmp_u64(x->name_id, y->name_id);
    if (x->name_id == 0) {
        int c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
        if (c != 0)
            return c;
    }
    for (int i = 0; i < 6; i++)
        if (x->dims[i] != y->dims[i])
            return x->dims[i] < y->dims[i] ? -1 : 1;
    return 0;
}

/* Same kernel together; inside a group the solo instances first, by duration; then index. */
static int sc_solo_key_cmp(const void *a, const void *b)
{
    const sc_solo_key *x = a, *y = b;
    int c = sc_solo_same_kernel_cmp(x, y);
    if (c != 0)
        return c;
    if (x->ran_alone != y->ran_alone)
        return x->ran_alone ? -1 : 1;
    if (x->dur != y->dur)
        return sc_solo_cmp_u64(x->dur, y->dur);
    return sc_solo_cmp_u64(x->index, y->index);
}

static void sc_solo_key_fill(const sc_kernel *k, size_t index, bool overlapped, sc_solo_key *key)
{
    const sc_rec_kernel *r = &k->rec;
    *key = (sc_solo_key){.device = r->device, .name_id = r->name_id, .name = k->name,
                         .dims = {r->grid_x, r->grid_y, r->grid_z,
                                  r->block_x, r->block_y, r->block_z},
                         .ran_alone = !overlapped, .dur = sc_dur(r->start_ns, r->end_ns),
                         .index = index};
}

#define SC_SOLO_FASTER 0.9      /* sharing never made a kernel faster than this x its solo */
/* nor slower than its fair share by more than this: two full grids sharing an H200 each took
 * up to 2.07 x their solo time, caches thrashing beyond the halving */
#define SC_SOLO_SLACK 1.5

/* keys[lo, hi) is one kernel; its first n_alone entries ran alone, sorted by duration. */
static void sc_solo_assign(const sc_solo_key *keys, size_t lo, size_t hi, const uint32_t *peak,
                           uint64_t *solo_ns, bool *known)
{
    size_t n_alone = 0;
    while (lo + n_alone < hi && keys[lo + n_alone].ran_alone)
        n_alone++;
    uint64_t median = 0;
    if (n_alone % 2 == 1)
        median = keys[lo + n_alone / 2].dur;
    else if (n_alone > 0)
        median = (keys[lo + n_alone / 2 - 1].dur + keys[lo + n_alone / 2].dur) / 2;
    /* A kernel that ran alone took its own time, which is its solo time exactly; only a
     * kernel that shared the device borrows the median of its solo instances. */
    for (size_t i = lo; i < hi; i++) {
        size_t k = keys[i].index;
        double d = (double)keys[i].dur, m = (double)median;
        bool consistent = d >= SC_SOLO_FASTER * m &&
                          d <= SC_SOLO_SLACK * (double)(peak[k] ? peak[k] : 1) * m;
        bool borrow = !keys[i].ran_alone && n_alone > 0 && consistent;
        known[k] = keys[i].ran_alone || borrow;
        solo_ns[k] = borrow ? median : keys[i].dur;
    }
}

int sc_solo_compute(const sc_trace *trace, const bool *overlapped, const uint32_t *peak,
                    uint64_t *solo_ns, bool *known)
{
    size_t n = trace->n_kernels;
    if (n == 0)
        return 0;
    sc_solo_key *keys = malloc(n * sizeof(*keys));
    if (!keys)
        return -1;
    for (size_t i = 0; i < n; i++)
        sc_solo_key_fill(&trace->kernels[i], i, overlapped[i], &keys[i]);
    sc_sort(keys, n, sizeof(*keys), sc_solo_key_cmp);
    size_t lo = 0;
    for (size_t i = 1; i <= n; i++) {
        if (i == n || sc_solo_same_kernel_cmp(&keys[lo], &keys[i]) != 0) {
            sc_solo_assign(keys, lo, i, peak, solo_ns, known);
            lo = i;
        }
    }
    free(keys);
    return 0;
}
