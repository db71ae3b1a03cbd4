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

/* Takes the next record of the file, in file order, whose payload sc_record_check accepted
 * (its fixed part is `fixed` bytes: fields a newer writer appended are ignored). */
enum sc_compact_result sc_compact_read(sc_compact_reader *r, uint16_t kind, const uint8_t *p,
                                       size_t fixed, sc_rec_kernel *kernel, sc_rec_api *call);

void sc_compact_reader_free(sc_compact_reader *r);

#endif
