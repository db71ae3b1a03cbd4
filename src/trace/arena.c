#include "trace/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC_ARENA_BLOCK (64u << 10)

struct sc_arena_block {
    sc_arena_block *next;
    size_t used, cap;
    alignas(8) unsigned char data[];
};

void *sc_arena_copy(sc_arena_block **head, const void *src, size_t n)
{
    size_t need = (n + 7) & ~(size_t)7;
    if (need < n)
        return NULL;
    sc_arena_block *b = *head;
    if (!b || b->cap - b->used < need) {
        /* A new block; a copy larger than a block gets one of its own size. */
        size_t cap = need > SC_ARENA_BLOCK ? need : SC_ARENA_BLOCK;
        if (cap > SIZE_MAX - sizeof *b)
            return NULL;
        sc_arena_block *nb = malloc(sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        nb->next = b;
        *head = b = nb;
    }
    void *out = b->data + b->used;
    if (n)
        memcpy(out, src, n);
    b->used += need;
    return out;
}

void sc_arena_free(sc_arena_block *head)
{
    while (head) {
        sc_arena_block *next = head->next;
        free(head);
        head = next;
    }
}
