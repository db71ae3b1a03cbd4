/* The loader's copies of what the analysis keeps from the file (texts, stack frames): few and
 * small next to the records, in blocks that never move, so the pointers into them hold until
 * the trace is freed. */
#ifndef SC_TRACE_ARENA_H
#define SC_TRACE_ARENA_H

#include <stddef.h>

typedef struct sc_arena_block sc_arena_block;

/* A copy of n bytes at an 8-byte boundary (frame arrays are uint64), or NULL without memory.
 * *head is the block list (NULL at first); sc_arena_free releases it. */
void *sc_arena_copy(sc_arena_block **head, const void *src, size_t n);
void sc_arena_free(sc_arena_block *head);

#endif
