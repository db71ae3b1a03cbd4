#include "trace/compact_read.h"

#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"

/* Grows a table indexed by id so that it holds `id`; new entries are zeroed (undeclared). */
static int sc_table_hold(void **table, size_t *cap, size_t elem, uint32_t id)
{
    if (id < *cap) return 0;
    size_t had = *cap;
    if (!sc_grow(table, cap, (size_t)id + 1, elem, 64)) return -1;
    memset((char *)*table + had * elem, 0, (*cap - had) * elem);
    return 0;
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
    case SC_REC_KERNEL_COMPACT: return sc_compact_expand_kernel(r, p, fixed, kernel);
    case SC_REC_CALL_COMPACT: return sc_compact_expand_call(r, p, fixed, call);
    default: return SC_COMPACT_NOT_COMPACT;
    }
}

void sc_compact_reader_free(sc_compact_reader *r)
{
    free(r->shapes);
    free(r->sites);
    memset(r, 0, sizeof *r);
}
