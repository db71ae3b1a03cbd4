/* Each copy shape once: the loader splits every MEMCPY record into its own fields (times,
 * correlation id) and its shape (size, direction, memory kinds, flags, devices, and device,
 * context and stream: sc_copy_shape), and keeps each distinct shape once, as it does the
 * kernels' (kernel_shapes.h). A training run's copies move the same few tensors every step:
 * the loaded copies take 24 bytes each instead of 56. */
#ifndef SC_TRACE_COPY_SHAPES_H
#define SC_TRACE_COPY_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

typedef struct sc_copy_shape_set {
    uint32_t *slots;            /* open addressing: a shape's index + 1, 0 when empty */
    size_t n_slots;             /* a power of two, at least twice the shapes */
    size_t cap_shapes;          /* allocated entries of the trace's copy_shapes */
    uint32_t last;              /* the shape found last, + 1 (0: none): copies in a row
                                   often share one */
} sc_copy_shape_set;

/* Puts r's own fields into *c and its shape, added to t->copy_shapes unless an equal one is
 * there already, into c->shape. Returns 0, or -1 without memory. */
int sc_copy_shape_set_add(sc_copy_shape_set *set, sc_trace *t, const sc_rec_memcpy *r,
                          sc_copy *c);

/* Frees the set's index, not the shapes (the trace owns those). */
void sc_copy_shape_set_free(sc_copy_shape_set *set);

#endif
