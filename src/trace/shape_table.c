#include "trace/shape_table.h"

#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"

/* FNV-1a over the shape's bytes, 4 at a time. */
static uint64_t sc_shape_table_hash(const void *shape, size_t size)
{
    const unsigned char *p = shape;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, sizeof w);
        h = (h ^ w) * 1099511628211ull;
    }
    return h ^ h >> 29;
}

static const void *sc_shape_at(const void *shapes, size_t i, size_t size)
{
    return (const char *)shapes + i * size;
}

/* Doubles the index and fills it again from the n shapes. */
static int sc_shape_table_grow(sc_shape_table *tab, const void *shapes, size_t n, size_t size)
{
    size_t n_slots = tab->n_slots ? tab->n_slots * 2 : 64;
    uint32_t *slots = calloc(n_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t at = sc_shape_table_hash(sc_shape_at(shapes, i, size), size) & (n_slots - 1);
        while (slots[at])
            at = (at + 1) & (n_slots - 1);
        slots[at] = (uint32_t)i + 1;
    }
    free(tab->slots);
    tab->slots = slots;
    tab->n_slots = n_slots;
    return 0;
}

uint32_t sc_shape_table_put(sc_shape_table *tab, void **shapes, size_t *n, const void *shape,
                            size_t size)
{
    if (tab->last && memcmp(sc_shape_at(*shapes, tab->last - 1, size), shape, size) == 0)
        return tab->last - 1;
    if (2 * (*n + 1) > tab->n_slots && sc_shape_table_grow(tab, *shapes, *n, size) != 0)
        return UINT32_MAX;
    size_t at = sc_shape_table_hash(shape, size) & (tab->n_slots - 1);
    for (; tab->slots[at]; at = (at + 1) & (tab->n_slots - 1)) {
        uint32_t i = tab->slots[at] - 1;
        if (memcmp(sc_shape_at(*shapes, i, size), shape, size) == 0) {
            tab->last = i + 1;
            return i;
        }
    }
    /* A new shape: shapes are counted in 32 bits (a record keeps its shape's index). */
    if (*n >= UINT32_MAX - 1 || !sc_grow(shapes, &tab->cap, *n + 1, size, 16))
        return UINT32_MAX;
    uint32_t i = (uint32_t)(*n)++;
    memcpy((char *)*shapes + (size_t)i * size, shape, size);
    tab->slots[at] = i + 1;
    tab->last = i + 1;
    return i;
}

void sc_shape_table_free(sc_shape_table *tab)
{
    free(tab->slots);
    memset(tab, 0, sizeof *tab);
}
