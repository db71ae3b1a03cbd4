/* Reading compact records (trace_format.h, format 2.0): the time base and the declared shapes
 * and sites as the file declares them, and each compact record expanded into the full KERNEL
 * or API record it stands for. The loader (reader.c) and streamcheck-report --dump keep one
 * each, so both call a compact record without its declarations corrupt at the same byte. No
 * state outside the struct: several traces are read at once on several threads. */
#ifndef SC_TRACE_COMPACT_READ_H
#define SC_TRACE_COMPACT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace_format.h"
#include "trace/validate.h"

typedef struct sc_compact_reader {
    uint64_t base_ns;
    bool has_base;
    sc_rec_kernel_shape *shapes;    /* by id; id 0 in an entry: not declared */
    size_t cap_shapes;
    sc_rec_call_site *sites;        /* by id, likewise */
    size_t cap_sites;
} sc_compact_reader;

enum sc_compact_result {
    SC_COMPACT_NOT_COMPACT,     /* a kind of format 1.x: not for this reader */
    SC_COMPACT_DECLARED,        /* a TIME_BASE, KERNEL_SHAPE or CALL_SITE, remembered */
    SC_COMPACT_KERNEL,          /* a KERNEL_COMPACT, expanded into *kernel */
    SC_COMPACT_CALL,            /* a CALL_COMPACT, expanded into *call */
    SC_COMPACT_UNDECLARED,      /* a compact record before its base or its id's declaration */
    SC_COMPACT_NO_MEMORY,
};

/* Whether the kind is one of format 2.0's compact kinds. */
static inline bool sc_compact_kind(uint16_t kind)
{
    return kind >= SC_REC_TIME_BASE && kind <= SC_REC_CALL_COMPACT;
}

static inline uint64_t sc_compact_start(const sc_compact_reader *r, int32_t delta)
{
    return r->base_ns + (uint64_t)(int64_t)delta;   /* wraps as the writer's difference did */
}

/* sc_compact_read of a KERNEL_COMPACT, inline: the loader expands one per kernel. */
static inline enum sc_compact_result sc_compact_expand_kernel(const sc_compact_reader *r,
                                                              const uint8_t *p, size_t fixed,
                                                              sc_rec_kernel *k)
{
    sc_rec_kernel_compact c;
    SC_RECORD_COPY_FIXED(c, p, fixed);
    if (!r->has_base || c.shape_id >= r->cap_shapes || r->shapes[c.shape_id].id == 0)
        return SC_COMPACT_UNDECLARED;
    const sc_rec_kernel_shape *s = &r->shapes[c.shape_id];
    uint64_t start = sc_compact_start(r, c.start_delta);
    *k = (sc_rec_kernel){
        .start_ns = start, .end_ns = start + c.duration, .graph_node_id = s->graph_node_id,
        .device = s->device, .context_id = s->context_id, .stream_id = s->stream_id,
        .correlation_id = c.correlation_id, .grid_x = s->grid_x, .grid_y = s->grid_y,
        .grid_z = s->grid_z, .block_x = s->block_x, .block_y = s->block_y,
        .block_z = s->block_z, .registers_per_thread = s->registers_per_thread,
        .static_shared = s->static_shared, .dynamic_shared = s->dynamic_shared,
        .name_id = s->name_id, .launch_type = s->launch_type};
    return SC_COMPACT_KERNEL;
}

/* sc_compact_read of a CALL_COMPACT, inline: the loader expands one per call. */
static inline enum sc_compact_result sc_compact_expand_call(const sc_compact_reader *r,
                                                            const uint8_t *p, size_t fixed,
                                                            sc_rec_api *a)
{
    sc_rec_call_compact c;
    SC_RECORD_COPY_FIXED(c, p, fixed);
    if (!r->has_base || c.site_id >= r->cap_sites || r->sites[c.site_id].id == 0)
        return SC_COMPACT_UNDECLARED;
    const sc_rec_call_site *s = &r->sites[c.site_id];
    uint64_t start = sc_compact_start(r, c.start_delta);
    *a = (sc_rec_api){
        .start_ns = start, .end_ns = start + c.duration, .stream = s->stream,
        .aux = s->flags & SC_API_STACK_SHARED ? c.shared : 0, .tid = s->tid,
        .correlation_id = c.correlation_id, .context_id = c.context_id, .flags = s->flags,
        .domain = s->domain, .cbid = s->cbid, .call_class = s->call_class,
        .aux2 = s->flags & SC_API_STACK_SHARED_AUX2 ? c.shared : 0};
    return SC_COMPACT_CALL;
}

/* Takes the next record of the file, in file order, whose payload sc_record_check accepted
 * (its fixed part is `fixed` bytes: fields a newer writer appended are ignored). */
enum sc_compact_result sc_compact_read(sc_compact_reader *r, uint16_t kind, const uint8_t *p,
                                       size_t fixed, sc_rec_kernel *kernel, sc_rec_api *call);

void sc_compact_reader_free(sc_compact_reader *r);

#endif
