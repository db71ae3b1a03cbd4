/* Kernel names as findings write them: see kernel_names.h. An open-addressing table keyed by
 * the name's text (records of one kernel usually share one string, but a cut or a synthetic
 * trace may not), filled as rules ask. */
#include "analyze/kernel_names.h"

#include <stdlib.h>
#include <string.h>

typedef struct sc_name_slot {
    const char *recorded;       /* NULL: empty slot */
    char *shown;                /* the hook's malloc'd name, NULL when it declined */
} sc_name_slot;

struct sc_kernel_names {
    sc_kernel_name_fn fn;
    sc_name_slot *slots;
    size_t n, cap;              /* cap: 0 or a power of two, never more than half full */
};

sc_kernel_names *sc_kernel_names_new(sc_kernel_name_fn fn)
{
    sc_kernel_names *names = calloc(1, sizeof *names);
    if (names)
        names->fn = fn;
    return names;
}

void sc_kernel_names_free(sc_kernel_names *names)
{
    if (!names)
        return;
    for (size_t i = 0; i < names->cap; i++)
        free(names->slots[i].shown);
    free(names->slots);
    free(names);
}

static size_t sc_name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;    /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return (size_t)h;
}

static sc_name_slot *sc_name_find(sc_name_slot *slots, size_t cap, const char *recorded)
{
    size_t i = sc_name_hash(recorded) & (cap - 1);
    while (slots[i].recorded && strcmp(slots[i].recorded, recorded) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int sc_names_grow(sc_kernel_names *names)
{
    size_t cap = names->cap ? names->cap * 2 : 64;
    sc_name_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < names->cap; i++)
        if (names->slots[i].recorded)
            *sc_name_find(slots, cap, names->slots[i].recorded) = names->slots[i];
    free(names->slots);
    names->slots = slots;
    names->cap = cap;
    return 0;
}

const char *sc_ctx_kernel_name(const sc_ctx *ctx, const sc_kernel *k)
{
    const char *name = sc_kernel_name(ctx->trace, k), *recorded = name ? name : "?";
    sc_kernel_names *names = ctx->kernel_names;
    if (!names || !names->fn)
        return recorded;
    if (2 * (names->n + 1) > names->cap && sc_names_grow(names) != 0)
        return recorded;    /* out of memory: the name as recorded is still the name */
    sc_name_slot *slot = sc_name_find(names->slots, names->cap, recorded);
    if (!slot->recorded) {
        slot->recorded = recorded;  /* the trace's string: lives as long as the analysis */
        slot->shown = names->fn(recorded);
        names->n++;
    }
    return slot->shown ? slot->shown : recorded;
}
