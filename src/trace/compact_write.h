/* Writing compact records (trace_format.h, format 2.0): a kernel or an API call as a small
 * record against a time base and a declared shape or site, with the base and declarations
 * written just before it when the buffer does not hold them yet, or the full record when a
 * value does not fit.
 *
 * The state belongs to one writer of one buffer: the library keeps one per thread, for the
 * thread's current buffer, and forgets it (sc_compact_writer_forget) whenever that buffer
 * changes or starts over, so every buffer declares what it uses. Shapes and sites are
 * remembered in small direct-mapped tables: a collision only declares again, under a new id.
 * A call's common case is inline for the preload library's hot path; no CUPTI here, so tests
 * drive it directly. */
#ifndef SC_TRACE_COMPACT_WRITE_H
#define SC_TRACE_COMPACT_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "streamcheck/trace_format.h"
#include "trace/record.h"

enum {
    /* Slots for the sites and shapes one buffer declares. A site or shape seeks its slot
     * from the one its hash names, SC_COMPACT_PROBES at most (shapes: until a free one), so
     * two hot ones that hash alike do not take turns declaring themselves. The shapes are
     * forgotten all at once at 3/4 full: 768 shapes in turn (a large model's kernels, a
     * launch on many streams) are each declared once a buffer, where 256 slots declared
     * every kernel's shape again past 192 (80 bytes a slot: a writer of 88 KB a thread). */
    SC_COMPACT_SITE_SLOTS = 256,
    SC_COMPACT_SHAPE_SLOTS = 1024,
    SC_COMPACT_PROBES = 4,
    SC_COMPACT_BASE_BYTES = sizeof(sc_record_header) + sizeof(sc_rec_time_base),
    SC_COMPACT_SITE_BYTES = sizeof(sc_record_header) + sizeof(sc_rec_call_site),
    SC_COMPACT_CALL_BYTES = sizeof(sc_record_header) + sizeof(sc_rec_call_compact),
    SC_COMPACT_SHAPE_BYTES = sizeof(sc_record_header) + sizeof(sc_rec_kernel_shape),
    SC_COMPACT_KERNEL_BYTES = sizeof(sc_record_header) + sizeof(sc_rec_kernel_compact),
    /* The most a call or a kernel takes, declarations included: what to reserve. A call's
     * worst case is exactly a full API record without frames, which the hot path reserves
     * anyway. */
    SC_COMPACT_CALL_MAX = SC_COMPACT_BASE_BYTES + SC_COMPACT_SITE_BYTES + SC_COMPACT_CALL_BYTES,
    SC_COMPACT_KERNEL_MAX =
        SC_COMPACT_BASE_BYTES + SC_COMPACT_SHAPE_BYTES + SC_COMPACT_KERNEL_BYTES,
};
_Static_assert(SC_COMPACT_CALL_MAX == sizeof(sc_record_header) + sizeof(sc_rec_api),
               "a compact call with its declarations fits where a full call would");
_Static_assert(SC_COMPACT_CALL_BYTES == 32 && offsetof(sc_rec_call_compact, duration) == 4 &&
                   offsetof(sc_rec_call_compact, shared) == 12 &&
                   offsetof(sc_rec_call_compact, context_id) == 20,
               "sc_compact_call_declared writes the record as four words");

typedef struct sc_compact_site_slot {
    const void *key;            /* what the caller names the site by (the library: its hook);
                                   NULL: empty */
    uint64_t stream;
    uint16_t id;
} sc_compact_site_slot;

typedef struct sc_compact_shape_slot {
    sc_rec_kernel_shape shape;  /* id included */
    uint32_t gen;               /* valid only while the writer's gen is this */
} sc_compact_shape_slot;

typedef struct sc_compact_writer {
    uint64_t base_ns;           /* 0: no base declared since the last forget */
    uint32_t gen;               /* the shapes' generation: moves on at each forget, and
                                   when the shapes fill 3/4 of their slots (never 0) */
    uint32_t next_site, next_shape;
    uint32_t shapes_held;       /* in this generation */
    sc_compact_site_slot sites[SC_COMPACT_SITE_SLOTS];  /* emptied at each forget */
    sc_compact_shape_slot shapes[SC_COMPACT_SHAPE_SLOTS];
} sc_compact_writer;

/* A state that knows nothing (on zeroed memory, sc_compact_writer_forget is enough). */
void sc_compact_writer_init(sc_compact_writer *w);
/* The buffer the writer writes to changed, or started over: nothing declared counts any more.
 * Costs a 6 KiB clear, once a buffer, when sites were declared in it. */
void sc_compact_writer_forget(sc_compact_writer *w);

/* What a compact call needs besides its site. */
typedef struct sc_compact_call_in {
    uint64_t start_ns, end_ns;
    uint32_t correlation_id;
    uint32_t shared;            /* the stack-sharing call, 0 when flags have no sharing flag */
    uint32_t context_id;
} sc_compact_call_in;

static inline unsigned sc_compact_site_slot_of(const void *key, uint64_t stream)
{
    return (unsigned)((((uint64_t)(uintptr_t)key ^ stream) * 0x9e3779b97f4a7c15ull) >> 56) %
           SC_COMPACT_SITE_SLOTS;
}

/* The common case of sc_compact_call, inline for the preload library's hot path: the site
 * (key, stream) is declared, in the slot its hash names, and the times fit the base. Writes the CALL_COMPACT record at
 * dst and returns its size, or returns 0 without writing anything: then sc_compact_call does
 * the rest. (A declared site implies a declared base: the call that declared it declared one
 * if there was none.) */
static inline size_t sc_compact_call_declared(const sc_compact_writer *w, uint8_t *dst,
                                              const void *key, uint64_t stream,
                                              uint64_t start_ns, uint64_t end_ns,
                                              uint32_t correlation_id, uint32_t shared,
                                              uint32_t context_id)
{
    uint64_t duration = end_ns - start_ns;
    uint64_t delta = start_ns - w->base_ns;
    const sc_compact_site_slot *s = &w->sites[sc_compact_site_slot_of(key, stream)];
    if (__builtin_expect(s->key != key, 0) || __builtin_expect(s->stream != stream, 0) ||
        __builtin_expect(duration >> 32 != 0, 0) ||
        __builtin_expect((delta + 0x80000000u) >> 32 != 0, 0))
        return 0;
    /* Four 8-byte stores: the header, then the fields in pairs (little-endian). */
    uint64_t word = SC_REC_CALL_COMPACT | (uint64_t)sizeof(sc_rec_call_compact) << 16 |
                    (uint64_t)SC_COMPACT_CALL_BYTES << 32;
    memcpy(dst, &word, sizeof word);
    word = (uint32_t)delta | duration << 32;
    memcpy(dst + 8, &word, sizeof word);
    word = correlation_id | (uint64_t)shared << 32;
    memcpy(dst + 16, &word, sizeof word);
    word = s->id | (uint64_t)context_id << 32;
    memcpy(dst + 24, &word, sizeof word);
    return SC_COMPACT_CALL_BYTES;
}

/* A call of the site (key, site->stream) as a CALL_COMPACT record at dst (room for
 * SC_COMPACT_CALL_MAX bytes), with a TIME_BASE and a CALL_SITE before it when needed (site's
 * id is set here). Returns the bytes written, or 0 (nothing written) when the call does not
 * fit: the caller writes the full record. The caller has checked the rest: no frames, bytes
 * 0, the aux that does not hold the sharing call 0, aux2 likewise, result 0. */
size_t sc_compact_call(sc_compact_writer *w, uint8_t *dst, const void *key,
                       sc_rec_call_site *site, const sc_compact_call_in *c);

/* A kernel as a KERNEL_COMPACT record at dst (room for SC_COMPACT_KERNEL_MAX bytes), with a
 * TIME_BASE and a KERNEL_SHAPE before it when needed. Returns the bytes written, or 0
 * (nothing written): write the full record. */
size_t sc_compact_kernel(sc_compact_writer *w, uint8_t *dst, const sc_rec_kernel *k);

/* Writes a record whose whole size is header + fixed (no tail, no padding); returns its end. */
static inline uint8_t *sc_compact_put(uint8_t *dst, uint16_t kind, const void *fixed,
                                      uint16_t fixed_size)
{
    sc_record_header h = {.kind = kind, .fixed = fixed_size,
                          .size = (uint32_t)(sizeof h + fixed_size)};
    memcpy(dst, &h, sizeof h);
    memcpy(dst + sizeof h, fixed, fixed_size);
    return dst + sizeof h + fixed_size;
}

#endif
