/* Solo durations: see solo.h. */
#include "analyze/solo.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "trace/grow.h"
#include "trace/sort.h"

/* "The same kernel": same device, same name (the name id, or the text when neither has an
 * id), same grid and block. Kernels are put in groups of the same kernel through a hash
 * table: a long trace has millions of kernels and a few hundred kernels, and each group only
 * needs the median duration of its instances that ran alone (no order of the kernels). */
typedef struct sc_solo_group {
    uint32_t device, name_id;
    const char *name;           /* compared only when neither has a name id */
    int32_t dims[6];            /* grid x y z, block x y z */
    size_t n_alone;             /* instances that ran alone */
    size_t first;               /* their durations: alone_dur[first .. first + n_alone) */
    uint64_t median;            /* of those durations, 0 when none */
} sc_solo_group;

typedef struct sc_solo_groups {
    sc_solo_group *items;
    size_t n, cap;
    uint32_t *slots;            /* hash table of group index + 1 (0: empty), 2 x cap */
    size_t n_slots;
} sc_solo_groups;

static void sc_solo_group_of(const sc_trace *t, const sc_kernel *k, sc_solo_group *g)
{
    const sc_kernel_shape *r = sc_kernel_shape_of(t, k);
    *g = (sc_solo_group){.device = r->device, .name_id = r->name_id, .name = r->name,
                         .dims = {r->grid_x, r->grid_y, r->grid_z,
                                  r->block_x, r->block_y, r->block_z}};
}

static bool sc_solo_same_kernel(const sc_solo_group *x, const sc_solo_group *y)
{
    if (x->device != y->device || x->name_id != y->name_id)
        return false;
    if (x->name_id == 0 && strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0)
        return false;
    return memcmp(x->dims, y->dims, sizeof x->dims) == 0;
}

static uint64_t sc_solo_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t sc_solo_hash(const sc_solo_group *g)
{
    uint64_t h = sc_solo_mix(g->device, g->name_id);
    if (g->name_id == 0)
        for (const unsigned char *c = (const unsigned char *)(g->name ? g->name : ""); *c; c++)
            h = sc_solo_mix(h, *c);
    for (int i = 0; i < 6; i++)
        h = sc_solo_mix(h, (uint32_t)g->dims[i]);
    return h;
}

static int sc_solo_rehash(sc_solo_groups *gs, size_t n_slots)
{
    uint32_t *slots = calloc(n_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < gs->n; i++) {
        size_t s = sc_solo_hash(&gs->items[i]) & (n_slots - 1);
        while (slots[s])
            s = (s + 1) & (n_slots - 1);
        slots[s] = (uint32_t)i + 1;
    }
    free(gs->slots);
    gs->slots = slots;
    gs->n_slots = n_slots;
    return 0;
}

/* The index of k's group, a new one when it is the first of its kind; -1 without memory. */
static int64_t sc_solo_group_index(sc_solo_groups *gs, const sc_solo_group *key)
{
    if (2 * (gs->n + 1) > gs->n_slots && sc_solo_rehash(gs, gs->n_slots ? 2 * gs->n_slots : 64))
        return -1;
    size_t s = sc_solo_hash(key) & (gs->n_slots - 1);
    for (; gs->slots[s]; s = (s + 1) & (gs->n_slots - 1))
        if (sc_solo_same_kernel(&gs->items[gs->slots[s] - 1], key))
            return gs->slots[s] - 1;
    if (!SC_GROW(gs->items, gs->cap, gs->n + 1, 64))
        return -1;
    gs->items[gs->n] = *key;
    gs->slots[s] = (uint32_t)gs->n + 1;
    return (int64_t)gs->n++;
}

static int sc_solo_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0, n) (the mean of the middle two for an even n), reordering v. */
static uint64_t sc_solo_median(uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    sc_sort(v, n, sizeof *v, sc_solo_u64_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define SC_SOLO_FASTER 0.9      /* sharing never made a kernel faster than this x its solo */
/* nor slower than its fair share by more than this: two full grids sharing an H200 each took
 * up to 2.07 x their solo time, caches thrashing beyond the halving */
#define SC_SOLO_SLACK 1.5

/* A kernel that ran alone took its own time, which is its solo time exactly; only a kernel
 * that shared the device borrows the median of its solo instances. */
static uint8_t sc_solo_assign(const sc_solo_group *g, uint64_t dur, bool ran_alone,
                              uint32_t peak)
{
    double d = (double)dur, m = (double)g->median;
    bool consistent = d >= SC_SOLO_FASTER * m &&
                      d <= SC_SOLO_SLACK * (double)(peak ? peak : 1) * m;
    bool borrow = !ran_alone && g->n_alone > 0 && consistent;
    return borrow ? SC_SOLO_KNOWN | SC_SOLO_BORROWED : ran_alone ? SC_SOLO_KNOWN : 0;
}

int sc_solo_compute(const sc_trace *trace, const bool *overlapped, const uint32_t *peak,
                    uint8_t *solo, uint64_t *solo_ns, uint64_t *shape_median)
{
    size_t n = trace->n_kernels;
    if (n == 0)
        return 0;
    if (n > UINT32_MAX)
        return -1;
    sc_solo_groups gs = {0};
    uint64_t *alone_dur = malloc(n * sizeof *alone_dur);
    /* A kernel's shape (the loader's, trace.h) holds its name, grid and block and the device
     * it ran on, so the kernels of one shape are one group: the table is asked once per shape,
     * not once per kernel, and a kernel's group is read through its shape (no array of them). */
    size_t n_shapes = trace->n_kernel_shapes;
    uint32_t *shape_group = malloc((n_shapes ? n_shapes : 1) * sizeof *shape_group);
    int rc = alone_dur && shape_group ? 0 : -1;
    if (rc == 0)
        memset(shape_group, 0xff, n_shapes * sizeof *shape_group);  /* UINT32_MAX: none yet */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const sc_kernel *k = &trace->kernels[i];
        int64_t g = shape_group[k->rec.shape];
        if (g == UINT32_MAX) {
            sc_solo_group key;
            sc_solo_group_of(trace, k, &key);
            g = sc_solo_group_index(&gs, &key);
            if (g < 0) {
                rc = -1;
                break;
            }
            shape_group[k->rec.shape] = (uint32_t)g;
        }
        if (!overlapped[i])
            gs.items[g].n_alone++;
    }
    /* each group's alone durations side by side, then their medians */
    for (size_t g = 0, sum = 0; rc == 0 && g < gs.n; g++) {
        gs.items[g].first = sum;
        sum += gs.items[g].n_alone;
        gs.items[g].n_alone = 0;    /* counted again while filled */
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (overlapped[i])
            continue;
        const sc_kernel_rec *r = &trace->kernels[i].rec;
        sc_solo_group *g = &gs.items[shape_group[r->shape]];
        alone_dur[g->first + g->n_alone++] = sc_dur(r->start_ns, r->end_ns);
    }
    for (size_t g = 0; rc == 0 && g < gs.n; g++)
        gs.items[g].median = sc_solo_median(alone_dur + gs.items[g].first, gs.items[g].n_alone);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const sc_kernel_rec *r = &trace->kernels[i].rec;
        const sc_solo_group *g = &gs.items[shape_group[r->shape]];
        uint64_t dur = sc_dur(r->start_ns, r->end_ns);
        solo[i] = sc_solo_assign(g, dur, !overlapped[i], peak[i]);
        solo_ns[i] = (solo[i] & SC_SOLO_BORROWED) ? g->median : dur;
    }
    for (size_t s = 0; rc == 0 && s < n_shapes; s++)
        shape_median[s] = shape_group[s] == UINT32_MAX ? 0 : gs.items[shape_group[s]].median;
    free(shape_group);
    free(alone_dur);
    free(gs.items);
    free(gs.slots);
    return rc;
}
