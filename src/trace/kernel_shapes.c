#include "trace/kernel_shapes.h"

#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"

/* The bytes that make two shapes the same: every field but the name, which the loader derives
 * from name_id, and the launch, which follows from the rest. They run from graph_node_id to
 * stream_id without padding; the launch shape's are the first of them, to launch_type. */
#define SC_SHAPE_KEY_AT offsetof(sc_kernel_shape, graph_node_id)
#define SC_SHAPE_KEY_BYTES \
    (offsetof(sc_kernel_shape, stream_id) + sizeof(uint32_t) - SC_SHAPE_KEY_AT)
#define SC_LAUNCH_KEY_BYTES \
    (offsetof(sc_kernel_shape, launch_type) + sizeof(uint32_t) - SC_SHAPE_KEY_AT)
_Static_assert(SC_SHAPE_KEY_BYTES == 8 + 14 * sizeof(uint32_t), "a shape's key has no padding");
_Static_assert(offsetof(sc_kernel_shape, device) == SC_SHAPE_KEY_AT + SC_LAUNCH_KEY_BYTES,
               "where a kernel ran follows how it was launched");

static const void *sc_shape_key(const sc_kernel_shape *s)
{
    return (const char *)s + SC_SHAPE_KEY_AT;
}

/* FNV-1a over the key's first `bytes`, 4 bytes at a time (every field is a multiple of 4). */
static uint64_t sc_shape_hash(const sc_kernel_shape *s, size_t bytes)
{
    const unsigned char *p = sc_shape_key(s);
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, sizeof w);
        h = (h ^ w) * 1099511628211ull;
    }
    return h ^ h >> 29;
}

/* Doubles both indexes (and fills them again from the shapes: every shape in `slots`, the
 * first of each launch in `launches`). */
static int sc_shape_set_grow(sc_shape_set *set, const sc_trace *t)
{
    size_t n = set->n_slots ? set->n_slots * 2 : 256;
    uint32_t *slots = calloc(n, sizeof *slots), *launches = calloc(n, sizeof *launches);
    if (!slots || !launches) {
        free(slots);
        free(launches);
        return -1;
    }
    for (size_t i = 0; i < t->n_kernel_shapes; i++) {
        const sc_kernel_shape *s = &t->kernel_shapes[i];
        size_t at = sc_shape_hash(s, SC_SHAPE_KEY_BYTES) & (n - 1);
        while (slots[at])
            at = (at + 1) & (n - 1);
        slots[at] = (uint32_t)i + 1;
        if (s->launch != i)
            continue;
        at = sc_shape_hash(s, SC_LAUNCH_KEY_BYTES) & (n - 1);
        while (launches[at])
            at = (at + 1) & (n - 1);
        launches[at] = (uint32_t)i + 1;
    }
    free(set->slots);
    free(set->launches);
    set->slots = slots;
    set->launches = launches;
    set->n_slots = n;
    return 0;
}

/* The first shape of s's launch, or `none` (the index s will take) when s is the first. */
static uint32_t sc_shape_set_launch(sc_shape_set *set, const sc_trace *t,
                                    const sc_kernel_shape *s, uint32_t none)
{
    size_t at = sc_shape_hash(s, SC_LAUNCH_KEY_BYTES) & (set->n_slots - 1);
    for (; set->launches[at]; at = (at + 1) & (set->n_slots - 1)) {
        uint32_t i = set->launches[at] - 1;
        if (memcmp(sc_shape_key(&t->kernel_shapes[i]), sc_shape_key(s), SC_LAUNCH_KEY_BYTES) == 0)
            return i;
    }
    set->launches[at] = none + 1;
    return none;
}

int sc_shape_set_add(sc_shape_set *set, sc_trace *t, const sc_rec_kernel *r, sc_kernel *k)
{
    *k = (sc_kernel){.rec = {.start_ns = r->start_ns, .end_ns = r->end_ns,
                             .correlation_id = r->correlation_id}};
    sc_kernel_shape s = {
        .graph_node_id = r->graph_node_id, .grid_x = r->grid_x, .grid_y = r->grid_y,
        .grid_z = r->grid_z, .block_x = r->block_x, .block_y = r->block_y,
        .block_z = r->block_z, .registers_per_thread = r->registers_per_thread,
        .static_shared = r->static_shared, .dynamic_shared = r->dynamic_shared,
        .name_id = r->name_id, .launch_type = r->launch_type, .device = r->device,
        .context_id = r->context_id, .stream_id = r->stream_id};
    if (2 * (t->n_kernel_shapes + 1) > set->n_slots && sc_shape_set_grow(set, t) != 0)
        return -1;
    size_t at = sc_shape_hash(&s, SC_SHAPE_KEY_BYTES) & (set->n_slots - 1);
    for (; set->slots[at]; at = (at + 1) & (set->n_slots - 1)) {
        uint32_t i = set->slots[at] - 1;
        if (memcmp(sc_shape_key(&t->kernel_shapes[i]), sc_shape_key(&s), SC_SHAPE_KEY_BYTES) == 0) {
            k->rec.shape = i;
            return 0;
        }
    }
    /* A new shape: shapes are counted in 32 bits (a kernel keeps its shape's index). */
    if (t->n_kernel_shapes >= UINT32_MAX - 1)
        return -1;
    if (!SC_GROW(t->kernel_shapes, set->cap_shapes, t->n_kernel_shapes + 1, 64))
        return -1;
    k->rec.shape = (uint32_t)t->n_kernel_shapes;
    s.launch = sc_shape_set_launch(set, t, &s, k->rec.shape);
    t->kernel_shapes[t->n_kernel_shapes++] = s;
    set->slots[at] = k->rec.shape + 1;
    return 0;
}

void sc_kernel_as_record(const sc_trace *t, const sc_kernel *k, sc_rec_kernel *out)
{
    const sc_kernel_shape *s = sc_kernel_shape_of(t, k);
    *out = (sc_rec_kernel){
        .start_ns = k->rec.start_ns, .end_ns = k->rec.end_ns, .graph_node_id = s->graph_node_id,
        .device = s->device, .context_id = s->context_id, .stream_id = s->stream_id,
        .correlation_id = k->rec.correlation_id, .grid_x = s->grid_x, .grid_y = s->grid_y,
        .grid_z = s->grid_z, .block_x = s->block_x, .block_y = s->block_y,
        .block_z = s->block_z, .registers_per_thread = s->registers_per_thread,
        .static_shared = s->static_shared, .dynamic_shared = s->dynamic_shared,
        .name_id = s->name_id, .launch_type = s->launch_type};
}

void sc_shape_set_free(sc_shape_set *set)
{
    free(set->slots);
    free(set->launches);
    memset(set, 0, sizeof *set);
}
