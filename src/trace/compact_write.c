/* The declaring side of compact_write.h: what the hot path's inline common case leaves to it
 * (a site or shape to declare, a time base to move), and kernels. */
#include "trace/compact_write.h"

#include <stdbool.h>

void sc_compact_writer_forget(sc_compact_writer *w)
{
    if (w->next_site > 1)   /* sites were declared (shapes carry their generation) */
        memset(w->sites, 0, sizeof w->sites);
    w->base_ns = 0;
    w->next_site = w->next_shape = 1;
    w->shapes_held = 0;
    if (++w->gen == 0) w->gen = 1;
}

void sc_compact_writer_init(sc_compact_writer *w)
{
    memset(w, 0, sizeof *w);
    sc_compact_writer_forget(w);
}

/* The start's difference from the base, declaring a new base at *dst first when the start is
 * too far from it (or there is none: 0, since the last forget). */
static int32_t sc_compact_delta(sc_compact_writer *w, uint64_t start_ns, uint8_t **dst)
{
    uint64_t delta = start_ns - w->base_ns;
    if (w->base_ns == 0 || delta + 0x80000000u > 0xffffffffu) {
        w->base_ns = start_ns ? start_ns : 1;   /* 1 ns early: 0 says "none" */
        sc_rec_time_base b = {.base_ns = w->base_ns};
        *dst = sc_compact_put(*dst, SC_REC_TIME_BASE, &b, sizeof b);
        return (int32_t)(start_ns - w->base_ns);
    }
    return (int32_t)(uint32_t)delta;
}

/* The site's slot: where it is declared, else a free one to declare it in, else (every
 * probe taken) the one its hash names, whose site is forgotten. *declared says which. */
static sc_compact_site_slot *sc_compact_site_find(sc_compact_writer *w, const void *key,
                                                  uint64_t stream, bool *declared)
{
    unsigned home = sc_compact_site_slot_of(key, stream);
    for (unsigned i = 0; i < SC_COMPACT_PROBES; i++) {
        sc_compact_site_slot *s = &w->sites[(home + i) % SC_COMPACT_SITE_SLOTS];
        if (s->key == key && s->stream == stream) {
            *declared = true;
            return s;
        }
        if (!s->key) {
            *declared = false;
            return s;
        }
    }
    *declared = false;
    return &w->sites[home];
}

size_t sc_compact_call(sc_compact_writer *w, uint8_t *dst, const void *key,
                       sc_rec_call_site *site, const sc_compact_call_in *c)
{
    uint64_t duration = c->end_ns - c->start_ns;
    if (duration > 0xffffffffu || !key) return 0;
    bool declared;
    sc_compact_site_slot *s = sc_compact_site_find(w, key, site->stream, &declared);
    uint8_t *p = dst;
    if (!declared) {
        if (w->next_site > SC_COMPACT_MAX_ID) return 0;
        site->id = (uint16_t)w->next_site++;
        *s = (sc_compact_site_slot){.key = key, .stream = site->stream, .id = site->id};
        p = sc_compact_put(p, SC_REC_CALL_SITE, site, sizeof *site);
    }
    sc_rec_call_compact r = {.duration = (uint32_t)duration, .correlation_id = c->correlation_id,
                             .shared = c->shared, .site_id = s->id,
                             .context_id = c->context_id};
    r.start_delta = sc_compact_delta(w, c->start_ns, &p);
    p = sc_compact_put(p, SC_REC_CALL_COMPACT, &r, sizeof r);
    return (size_t)(p - dst);
}

static sc_rec_kernel_shape sc_compact_shape_of(const sc_rec_kernel *k)
{
    return (sc_rec_kernel_shape){
        .graph_node_id = k->graph_node_id, .device = k->device, .context_id = k->context_id,
        .stream_id = k->stream_id, .grid_x = k->grid_x, .grid_y = k->grid_y,
        .grid_z = k->grid_z, .block_x = k->block_x, .block_y = k->block_y,
        .block_z = k->block_z, .registers_per_thread = k->registers_per_thread,
        .static_shared = k->static_shared, .dynamic_shared = k->dynamic_shared,
        .name_id = k->name_id, .launch_type = k->launch_type};
}

static unsigned sc_compact_shape_slot_of(const sc_rec_kernel_shape *s)
{
    uint64_t h = s->graph_node_id * 0x9e3779b97f4a7c15ull;
    const uint32_t *v = &s->device;     /* device .. launch_type: 14 words, id left out */
    for (int i = 0; i < 14; i++) h = (h ^ v[i]) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;   /* the multiplications carry differences up only: fold the top down */
    return (unsigned)((h * 0xbf58476d1ce4e5b9ull) >> 32) % SC_COMPACT_SHAPE_SLOTS;
}

/* The shape's slot (its id in shape->id when it is declared there), else a free one to
 * declare it in: linear probing, the slots emptied at 3/4 full (a program with that many
 * kernel shapes at once declares them again). */
static sc_compact_shape_slot *sc_compact_shape_find(sc_compact_writer *w,
                                                    sc_rec_kernel_shape *shape, bool *declared)
{
    if (w->shapes_held >= SC_COMPACT_SHAPE_SLOTS * 3 / 4) {
        if (++w->gen == 0) w->gen = 1;
        w->shapes_held = 0;
    }
    for (unsigned i = sc_compact_shape_slot_of(shape);; i = (i + 1) % SC_COMPACT_SHAPE_SLOTS) {
        sc_compact_shape_slot *s = &w->shapes[i];
        if (s->gen != w->gen) {
            *declared = false;
            return s;
        }
        shape->id = s->shape.id;
        if (memcmp(&s->shape, shape, sizeof *shape) == 0) {
            *declared = true;
            return s;
        }
    }
}

size_t sc_compact_kernel(sc_compact_writer *w, uint8_t *dst, const sc_rec_kernel *k)
{
    uint64_t duration = k->end_ns - k->start_ns;
    if (duration > 0xffffffffu) return 0;   /* an end before the start too */
    sc_rec_kernel_shape shape = sc_compact_shape_of(k);
    bool declared;
    sc_compact_shape_slot *s = sc_compact_shape_find(w, &shape, &declared);
    uint8_t *p = dst;
    if (!declared) {
        if (w->next_shape > SC_COMPACT_MAX_ID) return 0;
        shape.id = w->next_shape++;
        s->shape = shape;
        s->gen = w->gen;
        w->shapes_held++;
        p = sc_compact_put(p, SC_REC_KERNEL_SHAPE, &shape, sizeof shape);
    }
    sc_rec_kernel_compact r = {.duration = (uint32_t)duration,
                               .correlation_id = k->correlation_id, .shape_id = shape.id};
    r.start_delta = sc_compact_delta(w, k->start_ns, &p);
    p = sc_compact_put(p, SC_REC_KERNEL_COMPACT, &r, sizeof r);
    return (size_t)(p - dst);
}
