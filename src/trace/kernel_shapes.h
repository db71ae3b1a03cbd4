/* Each kernel shape once: the loader splits every kernel record into its own fields (times,
 * correlation id) and its shape (name, grid, block, resources, graph node, and device,
 * context and stream: sc_kernel_shape), and keeps each distinct shape once. A long trace's
 * millions of kernels have a few hundred shapes (the ones format 2.0 declares in KERNEL_SHAPE
 * records, which hold the same fields), so the loaded kernels take 24 bytes each instead of
 * 96. Full KERNEL records are shared the same way: the analysis sees the same shapes
 * whichever form the file has. */
#ifndef SC_TRACE_KERNEL_SHAPES_H
#define SC_TRACE_KERNEL_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

typedef struct sc_shape_set {
    uint32_t *slots;            /* open addressing: a shape's index + 1, 0 when empty */
    uint32_t *launches;         /* the same, by launch (sc_kernel_shape.launch): the first
                                   shape of each */
    size_t n_slots;             /* both's size: a power of two, at least twice the shapes */
    size_t cap_shapes;          /* allocated entries of the trace's kernel_shapes */
} sc_shape_set;

/* Puts r's own fields into *k and its shape, added to t->kernel_shapes unless an equal one is
 * there already, into k->rec.shape. The shape's name stays NULL (the loader names each shape
 * once, when every string is known). Returns 0, or -1 without memory. */
int sc_shape_set_add(sc_shape_set *set, sc_trace *t, const sc_rec_kernel *r, sc_kernel *k);

/* The full record kernel k stands for, field for field (its reserved field 0): what the
 * tests compare with what was written. */
void sc_kernel_as_record(const sc_trace *t, const sc_kernel *k, sc_rec_kernel *out);

/* Frees the set's index, not the shapes (the trace owns those). */
void sc_shape_set_free(sc_shape_set *set);

#endif
