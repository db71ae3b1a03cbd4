#include "trace/load_calls.h"

#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"

/* Makes room for `more` frames; the table starts with one 0, where calls without frames
 * point (so sc_call_frames never gives NULL, and a 0-frame call reads no frame of another). */
static int sc_frames_hold(sc_call_loader *ld, sc_trace *t, size_t more)
{
    if (!t->call_frames) {
        ld->cap_frames = 64;
        t->call_frames = malloc(ld->cap_frames * sizeof *t->call_frames);
        if (!t->call_frames)
            return -1;
        t->call_frames[0] = 0;
        t->n_call_frames = 1;
    }
    /* an extra keeps a 32-bit position */
    if (more > (size_t)UINT32_MAX - t->n_call_frames)
        return -1;
    return SC_GROW(t->call_frames, ld->cap_frames, t->n_call_frames + more, 64) ? 0 : -1;
}

/* Makes room for one more extra; the table starts with entry 0, all zeros, the extra of
 * every call without bytes or frames. */
static int sc_extras_hold(sc_call_loader *ld, sc_trace *t)
{
    if (!t->call_extras) {
        ld->cap_extras = 64;
        t->call_extras = calloc(ld->cap_extras, sizeof *t->call_extras);
        if (!t->call_extras)
            return -1;
        t->n_call_extras = 1;
    }
    /* a call keeps a 32-bit position */
    if (t->n_call_extras > UINT32_MAX)
        return -1;
    return SC_GROW(t->call_extras, ld->cap_extras, t->n_call_extras + 1, 64) ? 0 : -1;
}

static size_t sc_key_slot(uint32_t key, size_t n_slots)
{
    return (size_t)((key * 0x9e3779b1u) >> 7) & (n_slots - 1);
}

/* Doubles the slots (from 64) and puts every key back. */
static int sc_functions_rehash(sc_call_loader *ld)
{
    size_t n = ld->n_slots ? ld->n_slots * 2 : 64;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < ld->n_keys; i++) {
        size_t s = sc_key_slot(ld->keys[i], n);
        while (slots[s])
            s = (s + 1) & (n - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    free(ld->slots);
    ld->slots = slots;
    ld->n_slots = n;
    return 0;
}

/* sc_calls_function past its memo: the hash table, the key added when new; the memo told. */
int sc_calls_function_slow(sc_call_loader *ld, uint32_t key, uint32_t *index)
{
    sc_function_memo *m = &ld->function_memo[sc_function_memo_at(key)];
    if (ld->n_slots) {
        for (size_t s = sc_key_slot(key, ld->n_slots);; s = (s + 1) & (ld->n_slots - 1)) {
            uint32_t at = ld->slots[s];
            if (!at)
                break;
            if (ld->keys[at - 1] == key) {
                *m = (sc_function_memo){.key = key, .index = at};
                *index = at;
                return 0;
            }
        }
    }
    /* new: call_names keeps "?" first, so the functions' indexes start at 1 */
    if (ld->n_keys >= UINT32_MAX - 1)
        return -1;
    if ((ld->n_keys + 1) * 2 > ld->n_slots && sc_functions_rehash(ld) != 0)
        return -1;
    if (!SC_GROW(ld->keys, ld->cap_keys, ld->n_keys + 1, 64))
        return -1;
    ld->keys[ld->n_keys++] = key;
    size_t s = sc_key_slot(key, ld->n_slots);
    while (ld->slots[s])
        s = (s + 1) & (ld->n_slots - 1);
    ld->slots[s] = (uint32_t)ld->n_keys;
    *m = (sc_function_memo){.key = key, .index = (uint32_t)ld->n_keys};
    *index = (uint32_t)ld->n_keys;
    return 0;
}

static bool sc_extra_same(const sc_call_extra *a, const sc_call_extra *b)
{
    return a->bytes == b->bytes && a->stream == b->stream && a->frames_at == b->frames_at &&
           a->name_at == b->name_at && a->aux_high == b->aux_high && a->tid == b->tid &&
           a->context_id == b->context_id && a->n_frames == b->n_frames &&
           a->call_class == b->call_class && a->flags == b->flags &&
           a->aux_other == b->aux_other && a->wide_end_ns == b->wide_end_ns;
}

/* An extra without frames remembered for the next call (sc_call_loader.plain). */
static void sc_note_plain(sc_call_loader *ld, const sc_call_extra *e, uint32_t at)
{
    if (!e->n_frames) {
        uint32_t memo = sc_plain_slot(e->name_at, e->stream, e->tid);
        ld->plain[memo].key = sc_plain_key_of(e);
        ld->plain[memo].at = at;
    }
}

static uint64_t sc_extra_hash(const sc_call_extra *e)
{
    uint64_t h = (e->bytes ^ e->stream ^ (uint64_t)e->name_at << 32 ^
                  ((uint64_t)e->call_class << 8 | e->flags) ^ (uint64_t)e->aux_high << 40 ^
                  ((uint64_t)e->tid << 24 ^ (uint64_t)e->context_id << 48 ^ e->context_id) ^
                  e->wide_end_ns ^ (uint64_t)e->aux_other << 16) *
                 0x9e3779b97f4a7c15ull;
    return h ^ h >> 29;
}

/* The slot of extra e in the table (mask: its size - 1): its own, or the empty one where it
 * goes. */
static uint32_t *sc_extra_slot(const sc_trace *t, uint32_t *slots, size_t mask,
                               const sc_call_extra *e)
{
    for (size_t k = sc_extra_hash(e) & mask;; k = (k + 1) & mask)
        if (!slots[k] || sc_extra_same(&t->call_extras[slots[k]], e))
            return &slots[k];
}

/* Room in the table for one more extra. Returns 0, or -1 without memory. */
static int sc_extra_slots_hold(sc_call_loader *ld, const sc_trace *t)
{
    if (2 * (ld->n_plain_extras + 1) <= ld->n_extra_slots)
        return 0;
    size_t n = ld->n_extra_slots ? 2 * ld->n_extra_slots : 256;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t k = 0; k < ld->n_extra_slots; k++)
        if (ld->extra_slots[k])
            *sc_extra_slot(t, slots, n - 1, &t->call_extras[ld->extra_slots[k]]) =
                ld->extra_slots[k];
    free(ld->extra_slots);
    ld->extra_slots = slots;
    ld->n_extra_slots = n;
    return 0;
}

int sc_calls_fill(sc_call_loader *ld, sc_trace *t, sc_call_rec *rec, const sc_call_extra *want,
                  const uint8_t *frames)
{
    sc_call_extra e = *want;
    e.frames_at = 0;
    rec->extra_at = 0;
    static const sc_call_extra zeros = {0};
    if (!e.n_frames && sc_extra_same(&e, &zeros))
        return 0;
    uint32_t *slot = NULL;
    if (!e.n_frames) {
        if (sc_extras_hold(ld, t) != 0 || sc_extra_slots_hold(ld, t) != 0)
            return -1;
        slot = sc_extra_slot(t, ld->extra_slots, ld->n_extra_slots - 1, &e);
        if (*slot) {
            rec->extra_at = *slot;
            sc_note_plain(ld, &e, rec->extra_at);
            return 0;
        }
    } else if (sc_extras_hold(ld, t) != 0) {
        return -1;
    }
    if (e.n_frames) {
        /* frames are a call's own: its extra too */
        if (sc_frames_hold(ld, t, e.n_frames) != 0)
            return -1;
        e.frames_at = (uint32_t)t->n_call_frames;
        memcpy(t->call_frames + t->n_call_frames, frames, e.n_frames * sizeof(uint64_t));
        t->n_call_frames += e.n_frames;
    }
    rec->extra_at = (uint32_t)t->n_call_extras;
    t->call_extras[t->n_call_extras++] = e;
    if (slot) {
        *slot = rec->extra_at;
        ld->n_plain_extras++;
    }
    sc_note_plain(ld, &e, rec->extra_at);
    return 0;
}

int sc_calls_room(sc_call_loader *ld, sc_trace *t)
{
    return SC_GROW(t->calls, ld->cap_calls, t->n_calls + 1, 64) ? 0 : -1;
}

int sc_name_entry_cmp(const void *a, const void *b)
{
    uint32_t x = ((const sc_name_entry *)a)->key, y = ((const sc_name_entry *)b)->key;
    return x < y ? -1 : x > y;
}

int sc_calls_name(sc_call_loader *ld, sc_trace *t, const sc_name_entry *names, size_t n)
{
    if ((!t->call_extras && sc_extras_hold(ld, t) != 0) ||
        (!t->call_frames && sc_frames_hold(ld, t, 0) != 0))
        return -1;
    /* entry 0 is "?"; entry i the name of function i (ld->keys[i - 1]) */
    t->call_names = malloc((ld->n_keys + 1) * sizeof *t->call_names);
    if (!t->call_names)
        return -1;
    t->call_names[0] = "?";
    for (size_t i = 0; i < ld->n_keys; i++) {
        sc_name_entry key = {.key = ld->keys[i]};
        const sc_name_entry *e = n ? bsearch(&key, names, n, sizeof key, sc_name_entry_cmp) : NULL;
        t->call_names[1 + i] = e ? e->name : "?";
    }
    t->n_call_names = ld->n_keys + 1;
    return 0;
}

void sc_call_loader_free(sc_call_loader *ld)
{
    free(ld->keys);
    free(ld->slots);
    free(ld->extra_slots);
    memset(ld, 0, sizeof *ld);
}

void sc_call_as_record(const sc_trace *t, const sc_api_call *c, sc_rec_api *out)
{
    const sc_call_rec *r = &c->rec;
    *out = (sc_rec_api){.start_ns = r->start_ns, .end_ns = sc_call_end(t, c),
                        .stream = sc_call_stream_handle(t, c), .bytes = sc_call_bytes(t, c),
                        .aux = sc_call_aux(t, c), .tid = sc_call_tid(t, c),
                        .correlation_id = r->correlation_id,
                        .context_id = sc_call_context(t, c),
                        .flags = sc_call_flags(t, c), .call_class = sc_call_class(t, c),
                        .n_frames = sc_call_n_frames(t, c), .aux2 = sc_call_aux2(t, c)};
}
