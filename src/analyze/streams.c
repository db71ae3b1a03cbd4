/* Per-stream summaries: see streams.h. */
#include "analyze/streams.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/overlap.h"
#include "analyze/work.h"
#include "analyze/work_order.h"
#include "trace/grow.h"
#include "trace/sort.h"

typedef struct sc_stream_key {
    uint32_t device, context_id, stream_id;
} sc_stream_key;

static int sc_stream_key_cmp3(uint32_t dev_a, uint32_t ctx_a, uint32_t id_a, uint32_t dev_b,
                              uint32_t ctx_b, uint32_t id_b)
{
    if (dev_a != dev_b)
        return dev_a < dev_b ? -1 : 1;
    if (id_a != id_b)
        return id_a < id_b ? -1 : 1;
    if (ctx_a != ctx_b)
        return ctx_a < ctx_b ? -1 : 1;
    return 0;
}

static int sc_stream_key_cmp(const void *pa, const void *pb)
{
    const sc_stream_key *a = pa, *b = pb;
    return sc_stream_key_cmp3(a->device, a->context_id, a->stream_id, b->device, b->context_id,
                              b->stream_id);
}

#define SC_STREAMS_SCAN 8

const sc_stream_summary *sc_streams_find(const sc_stream_summary *streams, size_t n,
                                         uint32_t device, uint32_t context_id,
                                         uint32_t stream_id)
{
    /* A few streams (the usual trace) are compared for equality one after another: the keys
     * are unique, so it is the stream the search finds, without its three-way comparisons. */
    if (n <= SC_STREAMS_SCAN) {
        for (size_t i = 0; i < n; i++)
            if (streams[i].stream_id == stream_id && streams[i].device == device &&
                streams[i].context_id == context_id)
                return &streams[i];
        return NULL;
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const sc_stream_summary *s = &streams[mid];
        int c = sc_stream_key_cmp3(s->device, s->context_id, s->stream_id, device, context_id,
                                   stream_id);
        if (c == 0)
            return s;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The distinct stream keys seen so far: a sorted, unique prefix and an unsorted tail of keys
 * not found in it. Millions of work records name a handful of streams: holding one key per
 * record (and a summary per key) cost 80 bytes a record at the peak. */
typedef struct sc_key_set {
    sc_stream_key *keys;
    size_t n_sorted, n, cap;
} sc_key_set;

/* Sorts the whole set and drops duplicates: the tail joins the sorted prefix. */
static void sc_key_set_settle(sc_key_set *ks)
{
    sc_sort(ks->keys, ks->n, sizeof(*ks->keys), sc_stream_key_cmp);
    size_t m = 0;
    for (size_t i = 0; i < ks->n; i++)
        if (m == 0 || sc_stream_key_cmp(&ks->keys[m - 1], &ks->keys[i]) != 0)
            ks->keys[m++] = ks->keys[i];
    ks->n = ks->n_sorted = m;
}

static int sc_key_set_add(sc_key_set *ks, uint32_t device, uint32_t context_id, uint32_t id)
{
    sc_stream_key key = {device, context_id, id};
    if (ks->n > 0 && sc_stream_key_cmp(&ks->keys[ks->n - 1], &key) == 0)
        return 0;   /* the same stream as the record before: the common case */
    if (ks->n_sorted <= SC_STREAMS_SCAN) {
        /* a handful of streams whose records interleave (the usual trace): compared for
         * equality one after another, as sc_streams_find, instead of the search's three-way
         * comparisons */
        for (size_t i = 0; i < ks->n_sorted; i++)
            if (ks->keys[i].stream_id == id && ks->keys[i].device == device &&
                ks->keys[i].context_id == context_id)
                return 0;
    }
    size_t lo = 0, hi = ks->n_sorted <= SC_STREAMS_SCAN ? 0 : ks->n_sorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = sc_stream_key_cmp(&ks->keys[mid], &key);
        if (c == 0)
            return 0;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* a tail as long as the prefix (and at least 256) is sorted in: O(n log n) in all */
    if (ks->n - ks->n_sorted >= 256 && ks->n - ks->n_sorted >= ks->n_sorted)
        sc_key_set_settle(ks);
    if (!SC_GROW(ks->keys, ks->cap, ks->n + 1, 64))
        return -1;
    ks->keys[ks->n++] = key;
    return 0;
}

/* The distinct streams of the trace, as zeroed summaries with flag UNKNOWN. A kernel's stream
 * is its shape's: the shapes some kernel has (shape_slot[shape] != UINT32_MAX) are asked,
 * a few hundred keys instead of one per kernel. */
static int sc_streams_collect(const sc_trace *t, const uint32_t *shape_slot,
                              sc_stream_summary **out, size_t *n_out)
{
    sc_key_set ks = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < t->n_streams; i++)
        rc = sc_key_set_add(&ks, t->streams[i].device, t->streams[i].context_id,
                            t->streams[i].stream_id);
    for (size_t i = 0; rc == 0 && i < t->n_kernel_shapes; i++)
        if (shape_slot[i] != UINT32_MAX)
            rc = sc_key_set_add(&ks, t->kernel_shapes[i].device, t->kernel_shapes[i].context_id,
                                t->kernel_shapes[i].stream_id);
    for (size_t i = 0; rc == 0 && i < t->n_copies; i++) {
        const sc_copy_shape *c = sc_copy_shape_of(t, &t->copies[i]);
        rc = sc_key_set_add(&ks, c->device, c->context_id, c->stream_id);
    }
    for (size_t i = 0; rc == 0 && i < t->n_memsets; i++) {
        const sc_memset_shape *m = sc_memset_shape_of(t, &t->memsets[i]);
        rc = sc_key_set_add(&ks, m->device, m->context_id, m->stream_id);
    }
    sc_stream_summary *s = NULL;
    if (rc == 0) {
        sc_key_set_settle(&ks);
        s = calloc(ks.n ? ks.n : 1, sizeof(*s));
    }
    if (!s) {
        free(ks.keys);
        return -1;
    }
    for (size_t i = 0; i < ks.n; i++) {
        s[i].device = ks.keys[i].device;
        s[i].context_id = ks.keys[i].context_id;
        s[i].stream_id = ks.keys[i].stream_id;
        s[i].flag = SC_STREAM_FLAG_UNKNOWN;
    }
    free(ks.keys);
    *out = s;
    *n_out = ks.n;
    return 0;
}

/* Per kernel shape, UINT32_MAX, or 0 when some kernel has it (filled in with its stream's
 * slot once the streams are known). NULL without memory. */
static uint32_t *sc_shapes_used(const sc_trace *t)
{
    size_t n = t->n_kernel_shapes ? t->n_kernel_shapes : 1;
    uint32_t *used = malloc(n * sizeof *used);
    if (!used)
        return NULL;
    memset(used, 0xff, n * sizeof *used);
    for (size_t i = 0; i < t->n_kernels; i++)
        used[t->kernels[i].rec.shape] = 0;
    return used;
}

/* The call that created stream r, or NULL. A stream-creating call that is the program's
 * first also creates the context, and with it CUDA's own internal streams, all under the
 * call's correlation id; the program's stream is the last of them (the highest id). */
static const sc_api_call *sc_streams_creator(const sc_ctx *ctx, const sc_rec_stream *r)
{
    if (!r->correlation_id)
        return NULL;
    const sc_api_call *call = sc_ctx_call(ctx, r->correlation_id);
    if (!call || sc_call_class_id(ctx->trace, call) != SC_CALL_STREAM_CREATE)
        return NULL;
    const sc_trace *t = ctx->trace;
    for (size_t i = 0; i < t->n_streams; i++) {
        const sc_rec_stream *o = &t->streams[i];
        if (o->correlation_id == r->correlation_id && o->context_id == r->context_id &&
            o->stream_id > r->stream_id)
            return NULL;
    }
    return call;
}

/* Flag, priority and creating call from the STREAM records; the first record of a stream
 * wins, so a duplicate cannot change the answer with the record order. */
static int sc_streams_describe(const sc_ctx *ctx, sc_stream_summary *s, size_t n)
{
    const sc_trace *t = ctx->trace;
    bool *seen = calloc(n ? n : 1, sizeof(*seen));
    if (!seen)
        return -1;
    for (size_t i = 0; i < t->n_streams; i++) {
        const sc_rec_stream *r = &t->streams[i];
        sc_stream_summary *sum =
            (sc_stream_summary *)sc_streams_find(s, n, r->device, r->context_id, r->stream_id);
        if (!sum || seen[sum - s])
            continue;
        seen[sum - s] = true;
        sum->flag = r->flag;
        sum->priority = r->priority;
        sum->created_by = sc_streams_creator(ctx, r);
    }
    free(seen);
    return 0;
}

static size_t sc_streams_slot(const sc_stream_summary *s, size_t n, uint32_t dev, uint32_t cx,
                              uint32_t id)
{
    return (size_t)(sc_streams_find(s, n, dev, cx, id) - s);   /* every stream was collected */
}

/* Each piece of work's stream slot (a byte in slot8 when the streams are fewer than
 * SC_WORK_SLOT_NONE, else 32 bits in slot32), in sc_work_at() order, and each stream's copy
 * and memset counts, taken in the same pass. A kernel's slot is its shape's, looked up once
 * per shape. */
static void sc_streams_slots(const sc_trace *t, sc_stream_summary *s, size_t n,
                             uint32_t *shape_slot, uint8_t *slot8, uint32_t *slot32)
{
    for (size_t i = 0; i < t->n_kernel_shapes; i++)
        if (shape_slot[i] != UINT32_MAX)
            shape_slot[i] = (uint32_t)sc_streams_slot(s, n, t->kernel_shapes[i].device,
                                                      t->kernel_shapes[i].context_id,
                                                      t->kernel_shapes[i].stream_id);
    size_t w = 0;
#define SC_PUT_SLOT(slot) do { if (slot8) slot8[w++] = (uint8_t)(slot); \
                               else slot32[w++] = (uint32_t)(slot); } while (0)
    if (slot8)
        for (size_t i = 0; i < t->n_kernels; i++)
            slot8[w++] = (uint8_t)shape_slot[t->kernels[i].rec.shape];
    else
        for (size_t i = 0; i < t->n_kernels; i++)
            slot32[w++] = shape_slot[t->kernels[i].rec.shape];
    /* a copy or memset on the stream of the record before (the common case) takes its slot
     * without a search */
    size_t slot = 0;
    for (size_t i = 0; i < t->n_copies; i++) {
        const sc_copy_shape *r = sc_copy_shape_of(t, &t->copies[i]);
        if (i == 0 || t->copies[i].shape != t->copies[i - 1].shape)
            slot = sc_streams_slot(s, n, r->device, r->context_id, r->stream_id);
        s[slot].copy_count++;
        SC_PUT_SLOT(slot);
    }
    for (size_t i = 0; i < t->n_memsets; i++) {
        const sc_memset_shape *r = sc_memset_shape_of(t, &t->memsets[i]);
        if (i == 0 || t->memsets[i].shape != t->memsets[i - 1].shape)
            slot = sc_streams_slot(s, n, r->device, r->context_id, r->stream_id);
        s[slot].memset_count++;
        SC_PUT_SLOT(slot);
    }
#undef SC_PUT_SLOT
}

int sc_streams_build(const sc_ctx *ctx, sc_stream_summary **out, size_t *n_out,
                     sc_stream_slots *slots)
{
    sc_stream_summary *s = NULL;
    size_t n = 0;
    *out = NULL;
    *n_out = 0;
    *slots = (sc_stream_slots){0};
    uint32_t *shape_slot = sc_shapes_used(ctx->trace);
    if (!shape_slot || sc_streams_collect(ctx->trace, shape_slot, &s, &n) != 0) {
        free(shape_slot);
        return -1;
    }
    /* the slots a byte each when they fit (kept for the launches), else 32 bits each */
    size_t n_work = sc_work_count(ctx->trace);
    if (n < SC_WORK_SLOT_NONE)
        slots->slot8 = malloc(n_work ? n_work : 1);
    else
        slots->slot32 = malloc((n_work ? n_work : 1) * sizeof *slots->slot32);
    int rc = -1;
    if ((slots->slot8 || slots->slot32) && sc_streams_describe(ctx, s, n) == 0) {
        sc_streams_slots(ctx->trace, s, n, shape_slot, slots->slot8, slots->slot32);
        rc = sc_streams_mark_per_thread(ctx, s, n, slots);
    }
    free(shape_slot);
    if (rc != 0) {
        free(s);
        sc_stream_slots_free(slots);
        return -1;
    }
    *out = s;
    *n_out = n;
    return 0;
}

void sc_streams_set_overlap(sc_stream_summary *s, size_t n, const sc_overlap *m,
                            const uint64_t *solo_sum_ns, const uint64_t *solo_known)
{
    for (size_t i = 0; i < n; i++) {
        s[i].overlap = m[i];
        sc_overlap_set_solo(&s[i].overlap, solo_sum_ns[i], solo_known[i]);
    }
}

void sc_stream_slots_free(sc_stream_slots *slots)
{
    free(slots->slot8);
    free(slots->slot32);
    *slots = (sc_stream_slots){0};
}
