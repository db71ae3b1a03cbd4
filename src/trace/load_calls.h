/* The loader's API calls: each record narrowed into an sc_api_call (include/streamcheck/
 * trace.h: 24 bytes instead of the 88 of the record with two pointers), what it shares with
 * the calls of its site and what only a few calls have (bytes, frames, an end past 32 bits of
 * duration) in an sc_call_extra beside it, the frames of every call in one table,
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

#define SC_PLAIN_MEMO 64     /* sc_plain_slot's 6 bits */

/* What an extra without frames holds, compared whole (sc_call_loader.plain). */
typedef struct sc_plain_key {
    uint64_t bytes;
    uint64_t stream;
    uint64_t origin;            /* tid << 32 | context */
    uint64_t site;              /* name_at << 32 | aux_high */
    uint64_t wide_end_ns;
    uint32_t kind;              /* call_class << 8 | flags */
    uint32_t aux_other;
} sc_plain_key;

/* The memo slot of a call of function `index` on `stream` by thread `tid`: a program's calls
 * alternate between a few functions, streams and threads. */
static inline uint32_t sc_plain_slot(uint32_t index, uint64_t stream, uint32_t tid)
{
    uint32_t h = (index ^ (uint32_t)(stream >> 4) ^ (uint32_t)(stream >> 36) ^ tid * 7u) *
                 0x9e3779b1u;
    return h >> 26;     /* SC_PLAIN_MEMO slots */
}

/* The key of a call's extra without frames. */
static inline sc_plain_key sc_plain_key_of(const sc_call_extra *e)
{
    return (sc_plain_key){.bytes = e->bytes, .stream = e->stream,
                          .origin = (uint64_t)e->tid << 32 | e->context_id,
                          .site = (uint64_t)e->name_at << 32 | e->aux_high,
                          .wide_end_ns = e->wide_end_ns,
                          .kind = (uint32_t)e->call_class << 8 | e->flags,
                          .aux_other = e->aux_other};
}

static inline bool sc_plain_key_same(const sc_plain_key *a, const sc_plain_key *b)
{
    return a->bytes == b->bytes && a->stream == b->stream && a->origin == b->origin &&
           a->site == b->site && a->kind == b->kind && a->aux_other == b->aux_other &&
           a->wide_end_ns == b->wide_end_ns;
}

typedef struct sc_call_loader {
    size_t cap_calls, cap_frames, cap_extras;
    sc_function_memo function_memo[SC_FUNCTION_MEMO];
    uint32_t *keys;             /* by function index - 1: its domain << 16 | cbid */
    size_t n_keys, cap_keys;
    uint32_t *slots;            /* open addressing over keys: a function index, 0 empty */
    size_t n_slots;             /* a power of two, at least twice the functions */
    /* the extras without frames, by their fields: open addressing over sc_trace.call_extras
     * positions, 0 empty; a power of two, at least twice those extras (a memo of fixed size
     * would make an extra anew at each miss: two kinds of call that took one slot in turn
     * would each make one per call) */
    uint32_t *extra_slots;
    size_t n_extra_slots, n_plain_extras;
    /* per slot (sc_plain_slot), the last extra without frames made or found for one of its
     * calls, what nearly every call has, and its key: sc_calls_add takes it for a call of
     * the same without sc_calls_fill (one memo for all calls would miss at each change of
     * function, stream or thread) */
    struct {
        sc_plain_key key;
        uint32_t at;            /* 0 none */
    } plain[SC_PLAIN_MEMO];
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

/* Sets rec's extra_at to an extra holding what `want` does (its frames_at aside): found
 * among the extras made before when it has no frames, else made, with its n_frames return
 * addresses copied from `frames` (as written: not necessarily aligned). Returns 0, or -1
 * without memory. */
int sc_calls_fill(sc_call_loader *ld, sc_trace *t, sc_call_rec *rec, const sc_call_extra *want,
                  const uint8_t *frames);

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
    /* the record keeps the aux that carries the stack-sharing call (sc_call_rec.aux_own) */
    bool aux2_own = r->flags & SC_API_STACK_SHARED_AUX2;
    uint64_t wide_end_ns;
    *c = (sc_call_rec){.start_ns = r->start_ns,
                       .dur_ns = sc_call_dur_of(r->start_ns, r->end_ns, &wide_end_ns),
                       .aux_own = aux2_own ? r->aux2 : (uint32_t)r->aux,
                       .correlation_id = r->correlation_id};
    sc_call_extra e = {.bytes = r->bytes, .stream = r->stream, .wide_end_ns = wide_end_ns,
                       .name_at = index, .aux_high = (uint32_t)(r->aux >> 32),
                       .aux_other = aux2_own ? (uint32_t)r->aux : r->aux2, .tid = r->tid,
                       .context_id = r->context_id, .n_frames = r->n_frames,
                       .call_class = r->call_class, .flags = (uint8_t)r->flags};
    bool plain = !r->n_frames;
    sc_plain_key key = sc_plain_key_of(&e);
    uint32_t memo = sc_plain_slot(index, r->stream, r->tid);
    if (plain && ld->plain[memo].at && sc_plain_key_same(&key, &ld->plain[memo].key))
        c->extra_at = ld->plain[memo].at;
    else if (sc_calls_fill(ld, t, c, &e, frames) != 0)
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
