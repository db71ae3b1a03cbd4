/* Device work of any kind (kernel, copy, memset) seen through one shape, so a rule that asks
 * "what ran on this stream, and when" walks the three record arrays as one.
 *
 * The position of a piece of work is its record order: kernels first, then copies, then
 * memsets, each in trace order. Rules use it to break ties deterministically. This file is
 * the one place that maps a position to its record (sc_work_ref_in); every reader of
 * positions goes through it.
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

/* The three record arrays and where each kind's positions begin: positions below n_kernels
 * are kernels, those below copies_end copies, the rest memsets. A loop that stores bytes as
 * it reads positions keeps one of these in a local, which its stores cannot alias (through
 * the trace's fields the compiler would load the counts again after each store). */
typedef struct sc_work_records {
    const sc_kernel *kernels;
    const sc_copy *copies;
    const sc_memset *memsets;
    size_t n_kernels, copies_end;
} sc_work_records;

static inline sc_work_records sc_work_records_of(const sc_trace *t)
{
    return (sc_work_records){t->kernels, t->copies, t->memsets, t->n_kernels,
                             t->n_kernels + t->n_copies};
}

/* What a position names: its kind and its index in that kind's array. */
typedef struct sc_work_ref {
    uint8_t kind;                   /* sc_work_kind */
    size_t index;
} sc_work_ref;

static inline __attribute__((always_inline)) sc_work_ref
sc_work_ref_in(const sc_work_records *v, size_t pos)
{
    if (pos < v->n_kernels)
        return (sc_work_ref){SC_WORK_KERNEL, pos};
    if (pos < v->copies_end)
        return (sc_work_ref){SC_WORK_MEMCPY, pos - v->n_kernels};
    return (sc_work_ref){SC_WORK_MEMSET, pos - v->copies_end};
}

static inline sc_work_ref sc_work_ref_at(const sc_trace *t, size_t pos)
{
    sc_work_records v = sc_work_records_of(t);
    return sc_work_ref_in(&v, pos);
}

/* The accessors below test the two bounds themselves, as sc_work_ref_in does, rather than
 * through its kind: the kind tested again after the bounds cost the sweeps and the replay's
 * passes 15-20M instructions at 1M records (callgrind), 1% of the report. */

/* The recorded start of the work at a position. */
static inline uint64_t sc_work_records_start(const sc_work_records *v, size_t pos)
{
    if (pos < v->n_kernels)
        return v->kernels[pos].rec.start_ns;
    if (pos < v->copies_end)
        return v->copies[pos - v->n_kernels].start_ns;
    return v->memsets[pos - v->copies_end].start_ns;
}

/* Its recorded start and end, the end never before the start: a record with a broken end
 * still has a start. */
static inline void sc_work_records_times(const sc_work_records *v, size_t pos, uint64_t *start,
                                         uint64_t *end)
{
    uint64_t e;
    if (pos < v->n_kernels) {
        *start = v->kernels[pos].rec.start_ns;
        e = v->kernels[pos].rec.end_ns;
    } else if (pos < v->copies_end) {
        *start = v->copies[pos - v->n_kernels].start_ns;
        e = v->copies[pos - v->n_kernels].end_ns;
    } else {
        *start = v->memsets[pos - v->copies_end].start_ns;
        e = v->memsets[pos - v->copies_end].end_ns;
    }
    *end = e < *start ? *start : e;
}

/* The i-th piece of work in record order (i < sc_work_count(t)). Inlined, what a caller
 * leaves unread is not loaded. */
static inline sc_work sc_work_at(const sc_trace *t, size_t i)
{
    sc_work w;
    if (i < t->n_kernels) {
        const sc_kernel_rec *r = &t->kernels[i].rec;
        const sc_kernel_shape *s = &t->kernel_shapes[r->shape];
        w = (sc_work){r->start_ns, r->end_ns, s->device, s->context_id, s->stream_id,
                      r->correlation_id, SC_WORK_KERNEL, i};
    } else if ((i -= t->n_kernels) < t->n_copies) {
        const sc_copy *r = &t->copies[i];
        const sc_copy_shape *s = &t->copy_shapes[r->shape];
        w = (sc_work){r->start_ns, r->end_ns, s->device, s->context_id, s->stream_id,
                      r->correlation_id, SC_WORK_MEMCPY, i};
    } else {
        i -= t->n_copies;
        const sc_memset *r = &t->memsets[i];
        const sc_memset_shape *s = &t->memset_shapes[r->shape];
        w = (sc_work){r->start_ns, r->end_ns, s->device, s->context_id, s->stream_id,
                      r->correlation_id, SC_WORK_MEMSET, i};
    }
    if (w.end_ns < w.start_ns)
        w.end_ns = w.start_ns;      /* as sc_work_records_times */
    return w;
}

/* The start and the end (clamped, as sc_work_at) of the work at a position, without the rest
 * of its sc_work: the searches and sweeps over the work orders (work_order.h) read one of
 * them per step. The records' accessors above, through the trace's arrays. */
static inline uint64_t sc_work_start_at(const sc_trace *t, size_t i)
{
    sc_work_records v = sc_work_records_of(t);
    return sc_work_records_start(&v, i);
}

/* Both at once. */
static inline void sc_work_span_at(const sc_trace *t, size_t i, uint64_t *start, uint64_t *end)
{
    sc_work_records v = sc_work_records_of(t);
    sc_work_records_times(&v, i, start, end);
}

static inline uint64_t sc_work_end_at(const sc_trace *t, size_t i)
{
    uint64_t s, e;
    sc_work_span_at(t, i, &s, &e);
    return e;
}

/* The CUPTI stream id of the work at a position. */
static inline uint32_t sc_work_stream_at(const sc_trace *t, size_t i)
{
    return sc_work_at(t, i).stream_id;
}

static inline const char *sc_work_kind_name(uint8_t kind)
{
    static const char *const names[] = {"kernel", "memcpy", "memset"};
    return kind <= SC_WORK_MEMSET ? names[kind] : "?";
}

#endif
