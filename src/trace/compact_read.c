#include "trace/compact_read.h"

#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"
#include "trace/validate.h"

/* Grows a table indexed by id so that it holds `id`; new entries are zeroed (undeclared). */
static int sc_table_hold(void **table, size_t *cap, size_t elem, uint32_t id)
{
    if (id < *cap) return 0;
    size_t had = *cap;
    if (!sc_grow(table, cap, (size_t)id + 1, elem, 64)) return -1;
    memset((char *)*table + had * elem, 0, (*cap - had) * elem);
    return 0;
}

static uint64_t sc_start(const sc_compact_reader *r, int32_t delta)
{
    return r->base_ns + (uint64_t)(int64_t)delta;   /* wraps as the writer's difference did */
}

static enum sc_compact_result sc_expand_kernel(const sc_compact_reader *r, const uint8_t *p,
                                               size_t fixed, sc_rec_kernel *k)
{
    sc_rec_kernel_compact c;
    SC_RECORD_COPY_FIXED(c, p, fixed);
    if (!r->has_base || c.shape_id >= r->cap_shapes || r->shapes[c.shape_id].id == 0)
        return SC_COMPACT_UNDECLARED;
    const sc_rec_kernel_shape *s = &r->shapes[c.shape_id];
    uint64_t start = sc_start(r, c.start_delta);
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

static enum sc_compact_result sc_expand_call(const sc_compact_reader *r, const uint8_t *p,
                                             size_t fixed, sc_rec_api *a)
{
    sc_rec_call_compact c;
    SC_RECORD_COPY_FIXED(c, p, fixed);
    if (!r->has_base || c.site_id >= r->cap_sites || r->sites[c.site_id].id == 0)
        return SC_COMPACT_UNDECLARED;
    const sc_rec_call_site *s = &r->sites[c.site_id];
    uint64_t start = sc_start(r, c.start_delta);
    *a = (sc_rec_api){
        .start_ns = start, .end_ns = start + c.duration, .stream = s->stream,
        .aux = s->flags & SC_API_STACK_SHARED ? c.shared : 0, .tid = s->tid,
        .correlation_id = c.correlation_id, .context_id = c.context_id, .flags = s->flags,
        .domain = s->domain, .cbid = s->cbid, .call_class = s->call_class,
        .aux2 = s->flags & SC_API_STACK_SHARED_AUX2 ? c.shared : 0};
    return SC_COMPACT_CALL;
}

enum sc_compact_result sc_compact_read(sc_compact_reader *r, uint16_t kind, const uint8_t *p,
                                       size_t fixed, sc_rec_kernel *kernel, sc_rec_api *call)
{
    switch (kind) {
    case SC_REC_TIME_BASE: {
        sc_rec_time_base b;
        SC_RECORD_COPY_FIXED(b, p, fixed);
        r->base_ns = b.base_ns;
        r->has_base = true;
        return SC_COMPACT_DECLARED;
    }
    case SC_REC_KERNEL_SHAPE: {
        sc_rec_kernel_shape s;
        SC_RECORD_COPY_FIXED(s, p, fixed);  /* its id was checked: 1 to SC_COMPACT_MAX_ID */
        if (sc_table_hold((void **)&r->shapes, &r->cap_shapes, sizeof s, s.id) != 0)
            return SC_COMPACT_NO_MEMORY;
        r->shapes[s.id] = s;
        return SC_COMPACT_DECLARED;
    }
    case SC_REC_CALL_SITE: {
        sc_rec_call_site s;
        SC_RECORD_COPY_FIXED(s, p, fixed);
        if (sc_table_hold((void **)&r->sites, &r->cap_sites, sizeof s, s.id) != 0)
            return SC_COMPACT_NO_MEMORY;
        r->sites[s.id] = s;
        return SC_COMPACT_DECLARED;
    }
    case SC_REC_KERNEL_COMPACT: return sc_expand_kernel(r, p, fixed, kernel);
    case SC_REC_CALL_COMPACT: return sc_expand_call(r, p, fixed, call);
    default: return SC_COMPACT_NOT_COMPACT;
    }
}

void sc_compact_reader_free(sc_compact_reader *r)
{
    free(r->shapes);
    free(r->sites);
    memset(r, 0, sizeof *r);
}
