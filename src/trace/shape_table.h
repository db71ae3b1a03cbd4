/* Each shape once: the loader splits a copy's or a memset's record into its own fields (times,
 * correlation id) and its shape (what it moved and where it ran: sc_copy_shape,
 * sc_memset_shape), and keeps each distinct shape once in the trace, as it does the kernels'
 * (kernel_shapes.h, whose shapes also index their launches). A training run's copies and
 * memsets repeat the same few tensors every step: the loaded ones take 24 bytes each instead
 * of their records' 56 and 48. */
#ifndef SC_TRACE_SHAPE_TABLE_H
#define SC_TRACE_SHAPE_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sc_shape_table {
    uint32_t *slots;            /* open addressing: a shape's index + 1, 0 when empty */
    size_t n_slots;             /* a power of two, at least twice the shapes */
    size_t cap;                 /* allocated entries of the shapes' array */
    uint32_t last;              /* the shape found last, + 1 (0: none): records in a row
                                   often share one */
} sc_shape_table;

/* The size of every shape the table holds: a copy's and a memset's (trace.h asserts both). */
#define SC_SHAPE_BYTES 32u

/* The index of the shape equal to `shape` (SC_SHAPE_BYTES, without padding: shapes are
 * compared and hashed as bytes) among the *n at *shapes, appended (the array grown as it
 * needs, tab->cap its capacity) when there is none. UINT32_MAX without memory. */
uint32_t sc_shape_table_put(sc_shape_table *tab, void **shapes, size_t *n, const void *shape);

/* Frees the table's index, not the shapes (the trace owns those). */
void sc_shape_table_free(sc_shape_table *tab);

#endif
