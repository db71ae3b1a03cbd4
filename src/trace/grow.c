/* See grow.h. */
#include "trace/grow.h"

#include <stdint.h>
#include <stdlib.h>

bool sc_grow_slow(void **items, size_t *cap, size_t need, size_t item_size, size_t first)
{
    size_t grown = *cap ? *cap : first ? first : 1;
    while (grown < need) {
        if (grown > SIZE_MAX / 2)
            return false;
        grown *= 2;
    }
    /* Checked before the multiplication: a wrapped size would be a small block that realloc
     * gives, and the caller would write past it. */
    if (item_size && grown > SIZE_MAX / item_size)
        return false;
    void *p = realloc(*items, grown * item_size);
    if (!p)
        return false;
    *items = p;
    *cap = grown;
    return true;
}
