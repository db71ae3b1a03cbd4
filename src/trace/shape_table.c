#include "trace/shape_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "streamcheck/trace.h"
#include "trace/grow.h"

_Static_assert(sizeof(sc_copy_shape) == SC_SHAPE_BYTES &&
                   sizeof(sc_memset_shape) == SC_SHAPE_BYTES,
               "the table holds copies' and memsets' shapes");

/* A shape as four 64-bit words: both kinds are 32 bytes (trace.h). */
typedef struct sc_shape_words {
    uint64_t w[4];
} sc_shape_words;

static sc_shape_words sc_shape_words_of(const void *shape)
{
    sc_shape_words v;
    memcpy(&v, shape, sizeof v);
    return v;
}

static bool sc_shape_words_equal(sc_shape_words a, sc_shape_words b)
{
    return ((a.w[0] ^ b.w[0]) | (a.w[1] ^ b.w[1]) | (a.w[2] ^ b.w[2]) | (a.w[3] ^ b.w[3])) == 0;
}

/* Each word multiplied in turn (the multiplier of splitmix64), the high bits folded down. */
static uint64_t sc_shape_table_hash(sc_shape_words v)
{
    uint64_t h = 0;
    for (int i = 0; i < 4; i++)
        h = (h ^ v.w[i]) * 0x9e3779b97f4a7c15ull;
    return h ^ h >> 32;
}

static sc_shape_words sc_shape_at(const void *shapes, size_t i)
{
    return sc_shape_words_of((const char *)shapes + i * SC_SHAPE_BYTES);
}

/* Doubles the index and fills it again from the n shapes. */
static int sc_shape_table_grow(sc_shape_table *tab, const void *shapes, size_t n)
{
    size_t n_slots = tab->n_slots ? tab->n_slots * 2 : 64;
    uint32_t *slots = calloc(n_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t at = sc_shape_table_hash(sc_shape_at(shapes, i)) & (n_slots - 1);
        while (slots[at])
            at = (at + 1) & (n_slots - 1);
        slots[at] = (uint32_t)i + 1;
    }
    free(tab->slots);
    tab->slots = slots;
    tab->n_slots = n_slots;
    return 0;
}

uint32_t sc_shape_table_put(sc_shape_table *tab, void **shapes, size_t *n, const void *shape)
{
    sc_shape_words v = sc_shape_words_of(shape);
    if (tab->last && sc_shape_words_equal(sc_shape_at(*shapes, tab->last - 1), v))
        return tab->last - 1;
    if (2 * (*n + 1) > tab->n_slots && sc_shape_table_grow(tab, *shapes, *n) != 0)
        return UINT32_MAX;
    size_t at = sc_shape_table_hash(v) & (tab->n_slots - 1);
    for (; tab->slots[at]; at = (at + 1) & (tab->n_slots - 1)) {
        uint32_t i = tab->slots[at] - 1;
        if (sc_shape_words_equal(sc_shape_at(*shapes, i), v)) {
            tab->last = i + 1;
            return i;
        }
    }
    /* A new shape: shapes are counted in 32 bits (a record keeps its shape's index). */
    if (*n >= UINT32_MAX - 1 || !sc_grow(shapes, &tab->cap, *n + 1, SC_SHAPE_BYTES, 16))
        return UINT32_MAX;
    uint32_t i = (uint32_t)(*n)++;
    memcpy((char *)*shapes + (size_t)i * SC_SHAPE_BYTES, shape, SC_SHAPE_BYTES);
    tab->slots[at] = i + 1;
    tab->last = i + 1;
    return i;
}

void sc_shape_table_free(sc_shape_table *tab)
{
    free(tab->slots);
    memset(tab, 0, sizeof *tab);
}
