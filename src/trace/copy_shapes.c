#include "trace/copy_shapes.h"

#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"

/* FNV-1a over the shape's 32 bytes (no padding: trace.h), 4 at a time. */
static uint64_t sc_copy_shape_hash(const sc_copy_shape *s)
{
    const unsigned char *p = (const unsigned char *)s;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *s; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, sizeof w);
        h = (h ^ w) * 1099511628211ull;
    }
    return h ^ h >> 29;
}

/* Doubles the index and fills it again from the shapes. */
static int sc_copy_shape_set_grow(sc_copy_shape_set *set, const sc_trace *t)
{
    size_t n = set->n_slots ? set->n_slots * 2 : 64;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->n_copy_shapes; i++) {
        size_t at = sc_copy_shape_hash(&t->copy_shapes[i]) & (n - 1);
        while (slots[at])
            at = (at + 1) & (n - 1);
        slots[at] = (uint32_t)i + 1;
    }
    free(set->slots);
    set->slots = slots;
    set->n_slots = n;
    return 0;
}

int sc_copy_shape_set_add(sc_copy_shape_set *set, sc_trace *t, const sc_rec_memcpy *r,
                          sc_copy *c)
{
    *c = (sc_copy){.start_ns = r->start_ns, .end_ns = r->end_ns,
                   .correlation_id = r->correlation_id};
    sc_copy_shape s;
    memset(&s, 0, sizeof s);    /* compared and hashed as bytes */
    s.bytes = r->bytes;
    s.device = r->device;
    s.context_id = r->context_id;
    s.stream_id = r->stream_id;
    s.src_device = r->src_device;
    s.dst_device = r->dst_device;
    s.copy_kind = r->copy_kind;
    s.src_kind = r->src_kind;
    s.dst_kind = r->dst_kind;
    s.flags = r->flags;
    if (set->last && memcmp(&t->copy_shapes[set->last - 1], &s, sizeof s) == 0) {
        c->shape = set->last - 1;
        return 0;
    }
    if (2 * (t->n_copy_shapes + 1) > set->n_slots && sc_copy_shape_set_grow(set, t) != 0)
        return -1;
    size_t at = sc_copy_shape_hash(&s) & (set->n_slots - 1);
    for (; set->slots[at]; at = (at + 1) & (set->n_slots - 1)) {
        uint32_t i = set->slots[at] - 1;
        if (memcmp(&t->copy_shapes[i], &s, sizeof s) == 0) {
            c->shape = i;
            set->last = i + 1;
            return 0;
        }
    }
    /* A new shape: shapes are counted in 32 bits (a copy keeps its shape's index). */
    if (t->n_copy_shapes >= UINT32_MAX - 1)
        return -1;
    if (!SC_GROW(t->copy_shapes, set->cap_shapes, t->n_copy_shapes + 1, 16))
        return -1;
    c->shape = (uint32_t)t->n_copy_shapes;
    t->copy_shapes[t->n_copy_shapes++] = s;
    set->slots[at] = c->shape + 1;
    set->last = c->shape + 1;
    return 0;
}

void sc_copy_shape_set_free(sc_copy_shape_set *set)
{
    free(set->slots);
    memset(set, 0, sizeof *set);
}
