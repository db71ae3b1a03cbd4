/* The loader's API calls: each record narrowed into an sc_api_call (include/streamcheck/
 * trace.h: 72 bytes instead of the 88 of the record with two pointers), the frames of every
 * call in one table (calls point into it by a 32-bit position), and the names of the calls,
 * set once every CALL_NAME record has been read (they may come after the calls they name). */
#ifndef SC_TRACE_LOAD_CALLS_H
#define SC_TRACE_LOAD_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

/* A CALL_NAME record: key = domain << 16 | cbid. */
typedef struct sc_name_entry {
    uint32_t key;
    const char *name;
} sc_name_entry;

/* Orders CALL_NAME entries by key (for qsort and bsearch). */
int sc_name_entry_cmp(const void *a, const void *b);

typedef struct sc_call_loader {
    size_t cap_calls, cap_frames;
} sc_call_loader;

/* The fields of record r a loaded call keeps (all but domain, cbid and result). */
static inline sc_call_rec sc_call_narrow(const sc_rec_api *r)
{
    return (sc_call_rec){.start_ns = r->start_ns, .end_ns = r->end_ns, .stream = r->stream,
                         .bytes = r->bytes, .aux = r->aux, .tid = r->tid,
                         .correlation_id = r->correlation_id, .context_id = r->context_id,
                         .flags = r->flags, .call_class = r->call_class,
                         .n_frames = r->n_frames, .aux2 = r->aux2};
}

int sc_calls_add_slow(sc_call_loader *ld, sc_trace *t, const sc_rec_api *r,
                      const uint8_t *frames);

/* Appends the call that record r stands for to t->calls, its r->n_frames return addresses
 * (at `frames`, as written: not necessarily aligned) to t->call_frames. Until sc_calls_name,
 * the call's name_at holds its domain << 16 | cbid. Returns 0, or -1 without memory.
 * Inline when the call has no frames and there is room (most calls, every compact one): the
 * loader calls it per call, and the narrowing then writes the array without a copy between. */
static inline int sc_calls_add(sc_call_loader *ld, sc_trace *t, const sc_rec_api *r,
                               const uint8_t *frames)
{
    if (r->n_frames || !t->call_frames || t->n_calls >= ld->cap_calls)
        return sc_calls_add_slow(ld, t, r, frames);
    t->calls[t->n_calls++] =
        (sc_api_call){.rec = sc_call_narrow(r), .name_at = (uint32_t)r->domain << 16 | r->cbid};
    return 0;
}

/* Names every call: names[] (n of them) sorted by key; a call whose domain and id it lacks
 * is named "?". Returns 0, or -1 without memory. */
int sc_calls_name(sc_trace *t, const sc_name_entry *names, size_t n);

#endif
