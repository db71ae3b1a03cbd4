/* Test helper: see synthetic.h. */
#include "synthetic.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Grows an array by one zeroed element; tests abort on out of memory. */
static void *syn_grow(void **items, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *items = realloc(*items, *cap * size);
        if (!*items)
            abort();
    }
    char *p = (char *)*items + (*n)++ * size;
    memset(p, 0, size);
    return p;
}

#define SYN_GROW(s, arr, n, cap) syn_grow((void **)&(s)->t.arr, &(s)->t.n, &(s)->cap, \
                                          sizeof(*(s)->t.arr))

void syn_init(syn *s)
{
    memset(s, 0, sizeof(*s));
    s->t.path = "synthetic";
}

void syn_free(syn *s)
{
    free(s->t.calls);
    free(s->t.call_names);
    free(s->t.call_frames);
    free(s->t.call_extras);
    free(s->t.kernels);
    free(s->t.kernel_shapes);
    free(s->t.copies);
    free(s->t.copy_shapes);
    free(s->t.memsets);
    free(s->t.memset_shapes);
    free(s->t.streams);
    free(s->t.devices);
    free(s->t.ranges);
    free(s->t.overheads);
    free(s->t.unified);
    memset(s, 0, sizeof(*s));
}

/* Stable insertion sort by the uint64 start time at offset `off` (tests are small). */
static void syn_sort(void *items, size_t n, size_t size, size_t off)
{
    char *base = items, tmp[256];
    for (size_t i = 1; i < n; i++) {
        memcpy(tmp, base + i * size, size);
        uint64_t key;
        memcpy(&key, tmp + off, sizeof(key));
        size_t j = i;
        while (j > 0) {
            uint64_t prev;
            memcpy(&prev, base + (j - 1) * size + off, sizeof(prev));
            if (prev <= key)
                break;
            memcpy(base + j * size, base + (j - 1) * size, size);
            j--;
        }
        memcpy(base + j * size, tmp, size);
    }
}

void syn_finish(syn *s)
{
    syn_sort(s->t.calls, s->t.n_calls, sizeof(sc_api_call), 0);
    syn_sort(s->t.kernels, s->t.n_kernels, sizeof(sc_kernel), 0);
    syn_sort(s->t.copies, s->t.n_copies, sizeof(sc_copy), 0);
    syn_sort(s->t.memsets, s->t.n_memsets, sizeof(sc_memset), 0);
    syn_sort(s->t.ranges, s->t.n_ranges, sizeof(sc_range), 0);
    syn_sort(s->t.unified, s->t.n_unified, sizeof(sc_rec_unified), 0);
}

void syn_analyze(syn *s, sc_analysis *a)
{
    char err[256];
    syn_finish(s);
    assert_int_equal(sc_analyze(&s->t, a, err, sizeof(err)), 0);
}

sc_device *syn_device(syn *s, uint32_t device, uint32_t sm_count)
{
    sc_device *d = SYN_GROW(s, devices, n_devices, cap_devices);
    d->rec.device = device;
    d->rec.sm_count = sm_count;
    d->name = "Synthetic GPU";
    return d;
}

sc_rec_stream *syn_stream(syn *s, uint32_t device, uint32_t stream, uint32_t flag,
                          uint32_t correlation_id)
{
    sc_rec_stream *r = SYN_GROW(s, streams, n_streams, cap_streams);
    *r = (sc_rec_stream){device, SYN_CONTEXT, stream, flag, 0, correlation_id};
    return r;
}

sc_api_call *syn_call(syn *s, uint16_t call_class, uint64_t start, uint64_t end,
                      uint32_t correlation_id, const char *name, const uint64_t *frames,
                      uint16_t n_frames)
{
    sc_api_call *c = SYN_GROW(s, calls, n_calls, cap_calls);
    /* a duration past 32 bits, or an end before the start, in the extra (sc_call_end) */
    uint64_t wide_end_ns;
    c->rec.start_ns = start;
    c->rec.dur_ns = sc_call_dur_of(start, end, &wide_end_ns);
    c->rec.correlation_id = correlation_id;
    /* its name once in the trace's names, its frames copied into the trace's frames */
    name = name ? name : "cudaLaunchKernel";
    size_t at = 0;
    while (at < s->t.n_call_names && strcmp(s->t.call_names[at], name) != 0)
        at++;
    if (at == s->t.n_call_names)
        *(const char **)SYN_GROW(s, call_names, n_call_names, cap_call_names) = name;
    if (s->t.n_call_frames == 0)
        SYN_GROW(s, call_frames, n_call_frames, cap_call_frames);   /* the shared 0 */
    if (s->t.n_call_extras == 0)
        SYN_GROW(s, call_extras, n_call_extras, cap_call_extras);   /* the shared zeros */
    /* its own extra: its name, class, stream, context and frames */
    sc_call_extra *e = SYN_GROW(s, call_extras, n_call_extras, cap_call_extras);
    c->rec.extra_at = (uint32_t)(s->t.n_call_extras - 1);
    *e = (sc_call_extra){.stream = SC_STREAM_NONE, .name_at = (uint32_t)at,
                         .context_id = SYN_CONTEXT, .n_frames = n_frames,
                         .wide_end_ns = wide_end_ns,
                         .call_class = call_class,
                         .frames_at = n_frames && frames ? (uint32_t)s->t.n_call_frames : 0};
    for (uint16_t i = 0; frames && i < n_frames; i++)
        *(uint64_t *)SYN_GROW(s, call_frames, n_call_frames, cap_call_frames) = frames[i];
    return c;
}

/* c's extra made `want`: an entry of its own when it is not that already (another call may
 * share the one it has). */
static void syn_set_extra(syn *s, sc_api_call *c, const sc_call_extra *want)
{
    const sc_call_extra *had = &s->t.call_extras[c->rec.extra_at];
    if (had->bytes == want->bytes && had->stream == want->stream &&
        had->name_at == want->name_at && had->aux_high == want->aux_high &&
        had->tid == want->tid && had->context_id == want->context_id &&
        had->flags == want->flags && had->aux_other == want->aux_other &&
        had->wide_end_ns == want->wide_end_ns && c->rec.extra_at != 0)
        return;     /* frames, class and where the frames are: set by syn_call alone */
    sc_call_extra copy = *want;
    *(sc_call_extra *)SYN_GROW(s, call_extras, n_call_extras, cap_call_extras) = copy;
    c->rec.extra_at = (uint32_t)(s->t.n_call_extras - 1);
}

/* A setter of one field of a call's extra. */
#define SYN_EXTRA_SETTER(name, type, field)                                                 \
    void name(syn *s, sc_api_call *c, type value)                                           \
    {                                                                                       \
        sc_call_extra e = s->t.call_extras[c->rec.extra_at];                                \
        e.field = value;                                                                    \
        syn_set_extra(s, c, &e);                                                            \
    }

SYN_EXTRA_SETTER(syn_call_stream, uint64_t, stream)
SYN_EXTRA_SETTER(syn_call_flags, uint8_t, flags)
SYN_EXTRA_SETTER(syn_call_name_at, uint32_t, name_at)
SYN_EXTRA_SETTER(syn_call_tid, uint32_t, tid)
SYN_EXTRA_SETTER(syn_call_context, uint32_t, context_id)
SYN_EXTRA_SETTER(syn_call_bytes, uint64_t, bytes)

void syn_call_add_flags(syn *s, sc_api_call *c, uint8_t flags)
{
    syn_call_flags(s, c, (uint8_t)(s->t.call_extras[c->rec.extra_at].flags | flags));
}

void syn_call_aux(syn *s, sc_api_call *c, uint64_t aux)
{
    sc_call_extra e = s->t.call_extras[c->rec.extra_at];
    /* the low half where sc_call_aux reads it: the record's, or the extra's for a call that
     * keeps its aux2 (flags set before) */
    if (e.flags & SC_API_STACK_SHARED_AUX2)
        e.aux_other = (uint32_t)aux;
    else
        c->rec.aux_own = (uint32_t)aux;
    e.aux_high = (uint32_t)(aux >> 32);
    syn_set_extra(s, c, &e);
}

sc_kernel *syn_kernel(syn *s, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                      uint32_t correlation_id)
{
    sc_kernel *k = SYN_GROW(s, kernels, n_kernels, cap_kernels);
    k->rec.start_ns = start;
    k->rec.end_ns = end;
    k->rec.correlation_id = correlation_id;
    sc_kernel_shape *shape = SYN_GROW(s, kernel_shapes, n_kernel_shapes, cap_shapes);
    k->rec.shape = (uint32_t)(s->t.n_kernel_shapes - 1);
    shape->device = device;
    shape->context_id = SYN_CONTEXT;
    shape->stream_id = stream;
    shape->launch = k->rec.shape;
    shape->grid_x = shape->grid_y = shape->grid_z = 1;
    shape->block_x = 128;
    shape->block_y = shape->block_z = 1;
    shape->name_id = 1;
    shape->name = "kernel_a";
    return k;
}

sc_kernel_shape *syn_shape(syn *s, const sc_kernel *k)
{
    return &s->t.kernel_shapes[k->rec.shape];
}

sc_copy *syn_copy(syn *s, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                  uint64_t bytes, uint32_t correlation_id, uint8_t flags, uint8_t src_kind,
                  uint8_t dst_kind)
{
    sc_copy *c = SYN_GROW(s, copies, n_copies, cap_copies);
    c->start_ns = start;
    c->end_ns = end;
    c->correlation_id = correlation_id;
    sc_copy_shape *shape = SYN_GROW(s, copy_shapes, n_copy_shapes, cap_copy_shapes);
    c->shape = (uint32_t)(s->t.n_copy_shapes - 1);
    shape->bytes = bytes;
    shape->device = device;
    shape->context_id = SYN_CONTEXT;
    shape->stream_id = stream;
    shape->copy_kind = dst_kind == SC_MEM_DEVICE ? 1 : 2;
    shape->src_kind = src_kind;
    shape->dst_kind = dst_kind;
    shape->flags = flags;
    shape->src_device = shape->dst_device = device;
    return c;
}

sc_copy_shape *syn_copy_shape(syn *s, const sc_copy *c)
{
    return &s->t.copy_shapes[c->shape];
}

sc_memset *syn_memset(syn *s, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                      uint32_t correlation_id)
{
    sc_memset *m = SYN_GROW(s, memsets, n_memsets, cap_memsets);
    m->start_ns = start;
    m->end_ns = end;
    m->correlation_id = correlation_id;
    sc_memset_shape *shape = SYN_GROW(s, memset_shapes, n_memset_shapes, cap_memset_shapes);
    m->shape = (uint32_t)(s->t.n_memset_shapes - 1);
    shape->bytes = 4096;
    shape->device = device;
    shape->context_id = SYN_CONTEXT;
    shape->stream_id = stream;
    shape->memory_kind = SC_MEM_DEVICE;
    return m;
}

sc_memset_shape *syn_memset_shape(syn *s, const sc_memset *m)
{
    return &s->t.memset_shapes[m->shape];
}

sc_range *syn_range(syn *s, const char *name, uint64_t start, uint64_t end, uint32_t tid,
                    uint32_t depth)
{
    sc_range *r = SYN_GROW(s, ranges, n_ranges, cap_ranges);
    r->rec.start_ns = start;
    r->rec.end_ns = end;
    r->rec.tid = tid;
    r->rec.name_id = 1;
    r->rec.depth = depth;
    r->name = name;
    return r;
}

uint64_t syn_rand(uint64_t *state)
{
    /* xorshift64*: fixed, portable */
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

const sc_finding *syn_finding(const sc_analysis *a, const char *rule)
{
    for (size_t i = 0; i < a->n_findings; i++)
        if (strcmp(a->findings[i].rule, rule) == 0)
            return &a->findings[i];
    return NULL;
}

const sc_finding *syn_finding_sev(const sc_analysis *a, const char *rule, sc_severity sev)
{
    for (size_t i = 0; i < a->n_findings; i++)
        if (strcmp(a->findings[i].rule, rule) == 0 && a->findings[i].severity == sev)
            return &a->findings[i];
    return NULL;
}

size_t syn_finding_count(const sc_analysis *a, const char *rule)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n_findings; i++)
        n += strcmp(a->findings[i].rule, rule) == 0;
    return n;
}

double syn_evidence(const sc_evidence *ev, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ev[i].key, key) == 0)
            return ev[i].value;
    return -1;
}

double syn_ev(const sc_instance *inst, const char *key)
{
    return syn_evidence(inst->evidence, inst->n_evidence, key);
}

sc_rec_overhead *syn_overhead(syn *s, uint32_t kind, uint64_t start, uint64_t end,
                              uint32_t correlation_id)
{
    sc_rec_overhead *o = SYN_GROW(s, overheads, n_overheads, cap_overheads);
    *o = (sc_rec_overhead){.start_ns = start, .end_ns = end, .kind = kind, .object_kind = 2,
                           .correlation_id = correlation_id};
    return o;
}

sc_rec_unified *syn_unified(syn *s, uint32_t kind, uint64_t start, uint64_t end, uint64_t value,
                            uint32_t flags, uint32_t device)
{
    sc_rec_unified *u = SYN_GROW(s, unified, n_unified, cap_unified);
    bool to_device = kind != SC_UNIFIED_DTOH;
    *u = (sc_rec_unified){.start_ns = start, .end_ns = end, .address = 0x7f0000000000ull,
                          .value = value, .kind = kind, .flags = flags,
                          .src_id = kind == SC_UNIFIED_GPU_FAULT ? device : to_device ? 0 : device,
                          .dst_id = to_device ? device : 0};
    return u;
}
