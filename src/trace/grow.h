/* Room in a growing array: the one copy of what the loader, the analyzer and the report tool
 * each wrote out by hand at every list they append to (double the capacity, realloc, keep the
 * old block when that fails). The check whether there is room already is inline, so a push
 * that fits costs a comparison, as it did; only a growth calls out. */
#ifndef SC_TRACE_GROW_H
#define SC_TRACE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *items (*cap elements of item_size bytes) hold at least `need`: the capacity is
 * doubled, from `first` when nothing is allocated yet, until it does. False when the doubled
 * capacity or its size in bytes does not fit in a size_t, or realloc fails: then *items and
 * *cap are as they were, the block still the caller's to use or free. */
bool sc_grow_slow(void **items, size_t *cap, size_t need, size_t item_size, size_t first);

static inline bool sc_grow(void **items, size_t *cap, size_t need, size_t item_size,
                           size_t first)
{
    return need <= *cap || sc_grow_slow(items, cap, need, item_size, first);
}

/* sc_grow on an array lvalue and its size_t capacity, the element size taken from the array:
 * SC_GROW(list->items, list->cap, list->n + 1, 16). */
#define SC_GROW(array, cap, need, first) \
    sc_grow((void **)&(array), &(cap), (need), sizeof *(array), (first))

#endif
