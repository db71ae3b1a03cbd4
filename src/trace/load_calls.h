/* The loader's API calls: each record narrowed into an sc_api_call (include/streamcheck/
 * trace.h: 56 bytes instead of the 88 of the record with two pointers), what only a few calls
 * have (bytes, frames) in an sc_call_extra beside it, the frames of every call in one table,
 * and the names of the calls, set once every CALL_NAME record has been read (they may come
 * after the calls they name).
 *
 * A call's name_at is, from the moment it is loaded, its function's place in the table of the
 * functions the calls name (domain << 16 | cbid, in the order the loader first meets them):
 * naming the calls is then naming those few functions, not a pass over every call. */
#ifndef SC_TRACE_LOAD_CALLS_H
#define SC_TRACE_LOAD_CALLS_H

#include <stdbool.h>
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

/* Extras of calls without frames, looked up by what they hold before one is added: a run's
 * copies move a few sizes again and again. A direct-mapped table: a miss only adds an
 * entry. */
#define SC_EXTRA_MEMO 256

/* The functions last looked up, in front of the hash table: a run calls a few again and
 * again. Direct-mapped by key. */
#define SC_FUNCTION_MEMO 64
typedef struct sc_function_memo {
    uint32_t key, index;        /* index 0: empty */
} sc_function_memo;

static inline size_t sc_function_memo_at(uint32_t key)
{
    return (key ^ key >> 11) % SC_FUNCTION_MEMO;
}

typedef struct sc_call_loader {
    size_t cap_calls, cap_frames, cap_extras;
    sc_function_memo function_memo[SC_FUNCTION_MEMO];
    uint32_t *keys;             /* by function index - 1: its domain << 16 | cbid */
    size_t n_keys, cap_keys;
    uint32_t *slots;            /* open addressing over keys: a function index, 0 empty */
    size_t n_slots;             /* a power of two, at least twice the functions */
    uint32_t extra_memo[SC_EXTRA_MEMO];     /* an extra without frames, 0 none */
    /* the last plain extra made or found (no bytes, frames, wide name or class: a thread,
     * a context and high halves, what most calls have out of line), its high halves (stream
     * << 32 | aux) and origin (tid << 32 | context): sc_calls_add takes it for a call of the
     * same without sc_calls_fill */
    uint64_t plain_highs, plain_origin;
    uint32_t plain_at;          /* 0 none */
} sc_call_loader;

int sc_calls_function_slow(sc_call_loader *ld, uint32_t key, uint32_t *index);

/* The function index (1 or more: call_names[0] is "?") of key domain << 16 | cbid, the key
 * added when new. Returns 0, or -1 without memory. */
static inline int sc_calls_function(sc_call_loader *ld, uint32_t key, uint32_t *index)
{
    const sc_function_memo *m = &ld->function_memo[sc_function_memo_at(key)];
    if (m->index && m->key == key) {
        *index = m->index;
        return 0;
    }
    return sc_calls_function_slow(ld, key, index);
}

/* Sets rec's name_at, call_class, stream_low, aux_low and extra_at for a call of function
 * `index`, class `call_class` (as written), `bytes`, stream handle `stream`, `aux`, thread
 * `tid`, context `context_id` and n_frames return addresses at `frames` (as written: not
 * necessarily aligned). Returns 0, or -1 without memory. */
int sc_calls_fill(sc_call_loader *ld, sc_trace *t, sc_call_rec *rec, uint32_t index,
                  uint16_t call_class, uint64_t bytes, uint64_t stream, uint64_t aux,
                  uint32_t tid, uint32_t context_id, uint16_t n_frames, const uint8_t *frames);

/* Makes room for one more call. Returns 0, or -1 without memory. */
int sc_calls_room(sc_call_loader *ld, sc_trace *t);

/* Appends a call to t->calls for the caller to fill: with a copy of one made ready by
 * sc_calls_fill (a compact call site's) and its own fields, written in place rather than
 * made aside and copied in. Returns it, or NULL without memory. Inline when there is room
 * (every call but one in 64 and the first). */
static inline sc_call_rec *sc_calls_next(sc_call_loader *ld, sc_trace *t)
{
    if (t->n_calls >= ld->cap_calls && sc_calls_room(ld, t) != 0)
        return NULL;
    return &t->calls[t->n_calls++].rec;
}

/* Appends the call that record r stands for to t->calls, its r->n_frames return addresses
 * (at `frames`) to t->call_frames. Returns 0, or -1 without memory. Inline: the loader calls
 * it per API record, and the narrowing then writes the array without a copy between. */
static inline int sc_calls_add(sc_call_loader *ld, sc_trace *t, const sc_rec_api *r,
                               const uint8_t *frames)
{
    uint32_t index;
    if (sc_calls_function(ld, (uint32_t)r->domain << 16 | r->cbid, &index) != 0)
        return -1;
    if (t->n_calls >= ld->cap_calls && sc_calls_room(ld, t) != 0)
        return -1;
    sc_call_rec *c = &t->calls[t->n_calls].rec;
    *c = (sc_call_rec){.start_ns = r->start_ns, .end_ns = r->end_ns,
                       .stream_low = (uint32_t)r->stream, .aux_low = (uint32_t)r->aux,
                       .correlation_id = r->correlation_id, .aux2 = r->aux2,
                       .name_at = (uint16_t)index, .flags = (uint8_t)r->flags,
                       .call_class = (uint8_t)r->call_class};
    uint64_t highs = (r->stream >> 32) << 32 | r->aux >> 32;
    uint64_t origin = (uint64_t)r->tid << 32 | r->context_id;
    bool plain = !r->bytes && !r->n_frames && index < SC_CALL_NAME_WIDE &&
                 r->call_class < SC_CALL_CLASS_WIDE;
    if (plain && ld->plain_at && highs == ld->plain_highs && origin == ld->plain_origin)
        c->extra_at = ld->plain_at;
    else if ((!plain || highs || origin) &&
             sc_calls_fill(ld, t, c, index, r->call_class, r->bytes, r->stream, r->aux, r->tid,
                           r->context_id, r->n_frames, frames) != 0)
        return -1;
    t->n_calls++;
    return 0;
}

/* Names every function the calls name: names[] (n of them) sorted by key; a function it
 * lacks is named "?". Makes the extras and frames tables exist when no call made them.
 * Returns 0, or -1 without memory. */
int sc_calls_name(sc_call_loader *ld, sc_trace *t, const sc_name_entry *names, size_t n);

/* Frees what the loader keeps beside the trace. */
void sc_call_loader_free(sc_call_loader *ld);

/* The record call c stands for, field for field, but for its domain, callback id and result
 * (0): what the tests compare with what was written. */
void sc_call_as_record(const sc_trace *t, const sc_api_call *c, sc_rec_api *out);

#endif
