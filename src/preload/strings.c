#include "preload/strings.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/loss.h"
#include "preload/thread.h"
#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"
#include "trace/record.h"

/* Twice the most names it holds, so probe runs stay short. */
enum { SC_STRINGS_SLOTS = 2 * SC_STRINGS_MAX };
#define SC_STRING_FAILED UINT32_MAX /* a slot whose text could not be copied */

typedef struct sc_string_slot {
    _Atomic uint64_t hash; /* 0: empty; claimed with compare-and-swap, never released */
    _Atomic uint32_t id;   /* 0 while the claimer fills the slot */
    const char *text;      /* written before id is published */
} sc_string_slot;

/* The slots, followed by one tag byte per slot (sc_strings_tags_of): a probe reads the tags,
 * 64 KiB that stay in the cache, and touches a slot's line only when the tag matches. A name
 * past its share, the steady state of a program that names every step anew, is then answered
 * without a cache miss into the 1.5 MiB of slots (on the fake CUPTI two thirds of the
 * lookup's time was that one load). */
static _Atomic(sc_string_slot *) sc_strings_table;
static atomic_uint sc_strings_next_id = 1;
static atomic_uint sc_strings_count, sc_strings_count_nvtx;
static _Atomic uint32_t sc_strings_overflow_id[2]; /* [nvtx] */

static uint64_t sc_fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (uint8_t)*s++) * 1099511628211ull;
    return h ? h : 1;
}

/* A slot's tag: 0 while it is empty (or claimed a moment ago, its tag not yet written), else
 * the top bits of its hash, never 0. */
static uint8_t sc_tag_of(uint64_t h)
{
    return (uint8_t)(h >> 56) | 1u;
}

static _Atomic uint8_t *sc_strings_tags_of(sc_string_slot *table)
{
    return (_Atomic uint8_t *)(table + SC_STRINGS_SLOTS);
}

void sc_strings_start(void)
{
    if (atomic_load(&sc_strings_table)) return;
    /* 1.5 MiB of zeros and the tags, mapped, not touched: pages cost memory as names arrive. */
    atomic_store(&sc_strings_table,
                 calloc(1, SC_STRINGS_SLOTS * (sizeof(sc_string_slot) + sizeof(uint8_t))));
}

/* Room for one more name of this kind: a bounded table is what keeps a program that names
 * every step differently from growing it without end. */
static bool sc_strings_admit(bool nvtx)
{
    /* Full is the steady state of a program past the cap: answered by loads alone. */
    if (atomic_load_explicit(&sc_strings_count, memory_order_relaxed) >= SC_STRINGS_MAX ||
        (nvtx &&
         atomic_load_explicit(&sc_strings_count_nvtx, memory_order_relaxed) >= SC_STRINGS_MAX_NVTX))
        return false;
    if (atomic_fetch_add(&sc_strings_count, 1) >= SC_STRINGS_MAX) {
        atomic_fetch_sub(&sc_strings_count, 1);
        return false;
    }
    if (nvtx && atomic_fetch_add(&sc_strings_count_nvtx, 1) >= SC_STRINGS_MAX_NVTX) {
        atomic_fetch_sub(&sc_strings_count_nvtx, 1);
        atomic_fetch_sub(&sc_strings_count, 1);
        return false;
    }
    return true;
}

static void sc_strings_unadmit(bool nvtx)
{
    if (nvtx) atomic_fetch_sub(&sc_strings_count_nvtx, 1);
    atomic_fetch_sub(&sc_strings_count, 1);
}

/* The slot we claimed: copy the text, write its STRING record, then publish the id (the
 * record precedes every use of the id in this thread's buffer). */
static uint32_t sc_strings_fill(sc_string_slot *s, const char *text)
{
    char *copy = strdup(text);
    if (!copy) {
        atomic_store_explicit(&s->id, SC_STRING_FAILED, memory_order_release);
        sc_loss_add(SC_LOSS_NO_MEMORY, 1);
        return 0;
    }
    s->text = copy;
    uint32_t id = atomic_fetch_add(&sc_strings_next_id, 1);
    size_t len = strlen(copy);
    if (len > SC_TBUF_MAX_RECORD - 64) len = SC_TBUF_MAX_RECORD - 64; /* a name, not a novel */
    sc_rec_string r = {.id = id};
    size_t size = sc_record_size(sizeof r, len + 1);
    uint8_t *dst = sc_tbuf_reserve(size);
    if (dst) {
        size_t n = sc_record_encode(dst, SC_REC_STRING, &r, sizeof r, copy, len + 1);
        dst[sizeof(sc_record_header) + sizeof r + len] = '\0'; /* a cut name ends here */
        sc_tbuf_commit(n);
    }
    atomic_store_explicit(&s->id, id, memory_order_release);
    return id;
}

/* The id of text in the table (and our copy of it), inserting it within the cap unless
 * bypass_cap; 0 when its share of the table is full (*full set) or out of memory. */
static uint32_t sc_strings_find(const char *text, bool nvtx, bool bypass_cap, bool *full,
                                const char **interned)
{
    sc_string_slot *table = atomic_load_explicit(&sc_strings_table, memory_order_acquire);
    if (!table) return 0;
    _Atomic uint8_t *tags = sc_strings_tags_of(table);
    uint64_t h = sc_fnv1a(text);
    uint8_t want = sc_tag_of(h);
    size_t mask = SC_STRINGS_SLOTS - 1;
    for (size_t probe = 0, j = h & mask; probe < SC_STRINGS_SLOTS; probe++, j = (j + 1) & mask) {
        uint8_t tag = atomic_load_explicit(&tags[j], memory_order_acquire);
        if (tag && tag != want) continue; /* another hash: its slot is not read */
        sc_string_slot *s = &table[j];
        uint64_t seen = 0;
        if (!tag) {
            /* Past the cap nothing is inserted, so the slot need not be read. (Should another
             * thread have claimed it this moment for this very text, this use counts as a
             * name past the cap: the table was full by then anyway.) */
            if (!bypass_cap && !sc_strings_admit(nvtx)) {
                *full = true;
                return 0;
            }
            if (atomic_compare_exchange_strong(&s->hash, &seen, h)) {
                /* after the hash: a reader that sees the tag sees the hash */
                atomic_store_explicit(&tags[j], want, memory_order_release);
                uint32_t id = sc_strings_fill(s, text);
                *interned = s->text;
                return id;
            }
            if (!bypass_cap) sc_strings_unadmit(nvtx);
            /* Another thread took the slot first (seen: its hash): perhaps for the same text. */
        } else {
            seen = atomic_load_explicit(&s->hash, memory_order_acquire);
        }
        if (seen != h) continue;
        uint32_t id;
        for (int spins = 0; (id = atomic_load_explicit(&s->id, memory_order_acquire)) == 0; spins++)
            if (spins > 64) sched_yield(); /* its claimer is copying the text */
        if (id != SC_STRING_FAILED && strcmp(s->text, text) == 0) {
            *interned = s->text;
            return id;
        }
    }
    return 0;
}

/* The name past the cap stands for: interned outside the cap, once. */
static uint32_t sc_strings_overflow(bool nvtx)
{
    sc_loss_add(SC_LOSS_NAMES, 1);
    uint32_t id = atomic_load_explicit(&sc_strings_overflow_id[nvtx], memory_order_relaxed);
    if (id) return id;
    bool full = false;
    const char *interned;
    char name[64];
    snprintf(name, sizeof name, nvtx ? "(NVTX names past %d)" : "(names past %d)",
             nvtx ? SC_STRINGS_MAX_NVTX : SC_STRINGS_MAX);
    id = sc_strings_find(name, false, true, &full, &interned);
    atomic_store_explicit(&sc_strings_overflow_id[nvtx], id, memory_order_relaxed);
    return id;
}

/* A name not in the thread's cache: the table, and the cache's slot filled. Out of line, so
 * that the cache's hit (every push of a loop's range) saves no registers. */
static __attribute__((noinline)) uint32_t sc_string_lookup_table(const char *text, bool nvtx,
                                                                 sc_thread *t, size_t slot)
{
    bool full = false;
    const char *interned = NULL;
    uint32_t id = sc_strings_find(text, nvtx, false, &full, &interned);
    if (full) return sc_strings_overflow(nvtx);
    if (id && t) {
        t->strings.slot[slot].ptr = text;
        t->strings.slot[slot].interned = interned;
        t->strings.slot[slot].id = id;
    }
    return id;
}

static uint32_t sc_string_lookup(const char *text, bool nvtx)
{
    if (!text) return 0;
    sc_thread *t = sc_thread_self();
    size_t slot = ((uintptr_t)text >> 4) % SC_STRING_CACHE;
    if (t && t->strings.slot[slot].ptr == text && strcmp(t->strings.slot[slot].interned, text) == 0)
        return t->strings.slot[slot].id;
    return sc_string_lookup_table(text, nvtx, t, slot);
}

uint32_t sc_string_id(const char *text)
{
    return sc_string_lookup(text, false);
}

uint32_t sc_string_id_nvtx(const char *text)
{
    return sc_string_lookup(text, true);
}

void sc_strings_reset(void)
{
    /* A forked child: the parent's table is left as it was (another thread may have been
     * filling a slot at the fork), and nothing is recorded here anyway. */
    atomic_store(&sc_strings_table, NULL);
    atomic_store(&sc_strings_next_id, 1);
    atomic_store(&sc_strings_count, 0);
    atomic_store(&sc_strings_count_nvtx, 0);
    atomic_store(&sc_strings_overflow_id[0], 0);
    atomic_store(&sc_strings_overflow_id[1], 0);
}
