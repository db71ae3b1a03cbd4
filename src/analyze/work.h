/* Device work of any kind (kernel, copy, memset) seen through one shape, so a rule that asks
 * "what ran on this stream, and when" walks the three record arrays as one.
 *
 * The position of a piece of work is its record order: kernels first, then copies, then
 * memsets, each in trace order. Rules use it to break ties deterministically.
 */
#ifndef SC_ANALYZE_WORK_H
#define SC_ANALYZE_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

typedef enum sc_work_kind {
    SC_WORK_KERNEL = 0,
    SC_WORK_MEMCPY = 1,
    SC_WORK_MEMSET = 2,
} sc_work_kind;

typedef struct sc_work {
    uint64_t start_ns, end_ns;      /* end_ns is never before start_ns */
    uint32_t device, context_id, stream_id, correlation_id;
    uint8_t kind;                   /* sc_work_kind */
    size_t index;                   /* into trace->kernels, ->copies or ->memsets */
} sc_work;

static inline size_t sc_work_count(const sc_trace *t)
{
    return t->n_kernels + t->n_copies + t->n_memsets;
}

/* The i-th piece of work in record order (i < sc_work_count(t)). */
static inline sc_work sc_work_at(const sc_trace *t, size_t i)
{
    sc_work w;
    if (i < t->n_kernels) {
        const sc_kernel_rec *r = &t->kernels[i].rec;
        const sc_kernel_shape *s = &t->kernel_shapes[r->shape];
        w = (sc_work){r->start_ns, r->end_ns, s->device, s->context_id, s->stream_id,
                      r->correlation_id, SC_WORK_KERNEL, i};
    } else if ((i -= t->n_kernels) < t->n_copies) {
        const sc_rec_memcpy *r = &t->copies[i];
        w = (sc_work){r->start_ns, r->end_ns, r->device, r->context_id, r->stream_id,
                      r->correlation_id, SC_WORK_MEMCPY, i};
    } else {
        i -= t->n_copies;
        const sc_rec_memset *r = &t->memsets[i];
        w = (sc_work){r->start_ns, r->end_ns, r->device, r->context_id, r->stream_id,
                      r->correlation_id, SC_WORK_MEMSET, i};
    }
    if (w.end_ns < w.start_ns)
        w.end_ns = w.start_ns;      /* a record with a broken end still has a start */
    return w;
}

static inline const char *sc_work_kind_name(uint8_t kind)
{
    static const char *const names[] = {"kernel", "memcpy", "memset"};
    return kind <= SC_WORK_MEMSET ? names[kind] : "?";
}

#endif
