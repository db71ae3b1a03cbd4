#include "analyze/kernel_groups.h"

#include <stdlib.h>
#include <string.h>

static uint32_t sc_group_name(const sc_trace *t, size_t kernel)
{
    return sc_kernel_shape_of(t, &t->kernels[kernel])->name_id;
}

static size_t sc_group_hash(uint32_t device, uint32_t context_id, uint32_t name_id, size_t cap)
{
    uint64_t h = (uint64_t)name_id * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)context_id << 32 | device) * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h >> 32) & (cap - 1);
}

/* The slot that holds the group (device, context_id, name_id), or the empty slot where it
 * would go. */
static uint32_t *sc_group_slot(const sc_kernel_groups *g, uint32_t device, uint32_t context_id,
                               uint32_t name_id)
{
    size_t i = sc_group_hash(device, context_id, name_id, g->cap);
    for (;; i = (i + 1) & (g->cap - 1)) {
        uint32_t at = g->slots[i];
        if (at == 0)
            return &g->slots[i];
        const sc_kernel_group *x = &g->groups[at - 1];
        if (x->name_id == name_id && x->context_id == context_id && x->device == device)
            return &g->slots[i];
    }
}

/* Slots for `cap` (a power of two, at least twice the groups) with every group in them. */
static int sc_groups_rehash(sc_kernel_groups *g, size_t cap)
{
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    free(g->slots);
    g->slots = slots;
    g->cap = cap;
    for (size_t k = 0; k < g->n; k++) {
        const sc_kernel_group *x = &g->groups[k];
        *sc_group_slot(g, x->device, x->context_id, x->name_id) = (uint32_t)k + 1;
    }
    return 0;
}

static int sc_group_cmp(const void *pa, const void *pb)
{
    const sc_kernel_group *a = pa, *b = pb;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->context_id != b->context_id)
        return a->context_id < b->context_id ? -1 : 1;
    return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

/* Kernel k's group, a new one if it has none yet: NULL without memory. */
static sc_kernel_group *sc_group_of(sc_kernel_groups *g, const sc_trace *t, size_t k,
                                    size_t *groups_cap)
{
    const sc_kernel_shape *r = sc_kernel_shape_of(t, &t->kernels[k]);
    uint32_t name_id = sc_group_name(t, k);
    uint32_t *slot = sc_group_slot(g, r->device, r->context_id, name_id);
    if (*slot)
        return &g->groups[*slot - 1];
    if (g->n == *groups_cap) {
        size_t cap = *groups_cap * 2;
        sc_kernel_group *grown = realloc(g->groups, cap * sizeof *grown);
        if (!grown)
            return NULL;
        g->groups = grown;
        *groups_cap = cap;
    }
    g->groups[g->n] = (sc_kernel_group){.device = r->device, .context_id = r->context_id,
                                        .name_id = name_id, .first = k};
    *slot = (uint32_t)++g->n;
    if (2 * g->n > g->cap && sc_groups_rehash(g, 2 * g->cap) != 0)
        return NULL;
    return &g->groups[g->n - 1];
}

/* Per kernel shape, the group of the last kernel of that shape and where it ran: a shape has
 * one name, and a run launches it on one device and context over and over, so a kernel finds
 * its group here without a hash (the few hundred shapes of a trace against 300k kernels at 1M
 * records); one of another device or context looks it up and takes the place. */
typedef struct sc_shape_group {
    uint32_t device, context_id;
    uint32_t group;             /* its position + 1, 0: none yet */
} sc_shape_group;

int sc_kernel_groups_build(const sc_trace *t, const sc_launch *launches, sc_kernel_groups *out)
{
    memset(out, 0, sizeof *out);
    size_t groups_cap = 64;
    out->groups = malloc(groups_cap * sizeof *out->groups);
    sc_shape_group *by_shape = calloc(t->n_kernel_shapes + 1, sizeof *by_shape);
    if (!out->groups || !by_shape || sc_groups_rehash(out, 128) != 0)
        goto fail;
    for (size_t k = 0; k < t->n_kernels; k++) {
        const sc_kernel *kr = &t->kernels[k];
        sc_shape_group *m = kr->rec.shape < t->n_kernel_shapes ? &by_shape[kr->rec.shape] : NULL;
        sc_kernel_group *x;
        if (m && m->group && m->device == sc_kernel_device(t, kr) &&
            m->context_id == sc_kernel_context(t, kr)) {
            x = &out->groups[m->group - 1];
        } else {
            x = sc_group_of(out, t, k, &groups_cap);
            if (!x)
                goto fail;
            if (m)
                *m = (sc_shape_group){sc_kernel_device(t, kr), sc_kernel_context(t, kr),
                                      (uint32_t)(x - out->groups) + 1};
        }
        /* kernels come in index order: a later one is first only by an earlier issue */
        uint64_t issue = sc_launch_issue(t, &launches[k], k);
        if (x->count++ == 0 || issue < x->first_issue) {
            x->first = k;
            x->first_issue = issue;
        }
    }
    free(by_shape);
    by_shape = NULL;
    qsort(out->groups, out->n, sizeof *out->groups, sc_group_cmp);
    if (sc_groups_rehash(out, out->cap) != 0)
        goto fail;
    return 0;
fail:
    free(by_shape);
    sc_kernel_groups_free(out);
    return -1;
}

int sc_kernel_groups_gather(const sc_trace *t, sc_kernel_groups *g)
{
    size_t total = 0;
    for (size_t k = 0; k < g->n; k++)
        if (g->groups[k].gather) {
            g->groups[k].members_at = total;    /* the fill's cursor until the end */
            total += g->groups[k].count;
        }
    free(g->members);
    g->members = malloc((total ? total : 1) * sizeof *g->members);
    if (!g->members)
        return -1;
    for (size_t k = 0; total && k < t->n_kernels; k++) {
        const sc_kernel_shape *r = sc_kernel_shape_of(t, &t->kernels[k]);
        sc_kernel_group *x =
            &g->groups[*sc_group_slot(g, r->device, r->context_id, sc_group_name(t, k)) - 1];
        if (x->gather)
            g->members[x->members_at++] = k;
    }
    for (size_t k = 0; k < g->n; k++)
        if (g->groups[k].gather)
            g->groups[k].members_at -= g->groups[k].count;
    return 0;
}

void sc_kernel_groups_free(sc_kernel_groups *g)
{
    free(g->groups);
    free(g->members);
    free(g->slots);
    memset(g, 0, sizeof *g);
}
