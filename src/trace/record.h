/* Encoding one trace record into a caller's buffer: the only place that knows how a
 * record's fixed part, its variable tail and its padding are laid out. Header-only so the
 * preload library's hot path can inline it. */
#ifndef SC_TRACE_RECORD_H
#define SC_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "streamcheck/trace_format.h"

static inline size_t sc_record_padded(size_t size) { return (size + 7u) & ~(size_t)7u; }

/* Bytes a record with this fixed part and tail takes on disk. */
static inline size_t sc_record_size(size_t fixed_size, size_t tail_size)
{
    return sc_record_padded(sizeof(sc_record_header) + fixed_size + tail_size);
}

/* Writes header + fixed + tail + zero padding at dst, which must hold
 * sc_record_size(fixed_size, tail_size) bytes. Returns the bytes written. */
static inline size_t sc_record_encode(void *dst, uint16_t kind, const void *fixed,
                                      size_t fixed_size, const void *tail, size_t tail_size)
{
    size_t total = sc_record_size(fixed_size, tail_size);
    sc_record_header h = {.kind = kind, .fixed = (uint16_t)fixed_size, .size = (uint32_t)total};
    uint8_t *p = dst;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    if (fixed_size) memcpy(p, fixed, fixed_size);
    p += fixed_size;
    if (tail_size) memcpy(p, tail, tail_size);
    p += tail_size;
    memset(p, 0, total - (sizeof h + fixed_size + tail_size));
    return total;
}

#endif
