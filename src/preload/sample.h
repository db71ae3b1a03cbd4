/* Which API calls take a full stack. Unwinding costs microseconds; most calls cost one or
 * two. So stacks are sampled per key, the things that change a finding: the call class, the
 * callback id, the stream and, for a launch, the kernel. A key's first SC_SAMPLE_FIRST calls
 * from a thread take a stack, then one in SC_SAMPLE_EVERY; the others share the stack of the
 * key's last sampled call (SC_API_STACK_SHARED). A call on another stream or of another
 * class never shares a stack it did not make.
 *
 * The cache is per thread (no locks), set-associative with least-recently-used eviction. A
 * collision evicts; it never stops sampling: a key that enters a full set (new, or back after
 * being evicted: the two cannot be told apart) takes one stack and shares it from its next
 * call on. Only a thread cycling through more than SC_SAMPLE_WAYS hot keys of one set takes
 * a stack on every call of those keys; with 1024 sets that needs thousands of keys.
 * Pure logic, no CUPTI: tests/unit/preload tests it directly. */
#ifndef SC_PRELOAD_SAMPLE_H
#define SC_PRELOAD_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

enum {
    SC_SAMPLE_SETS = 1024, /* x SC_SAMPLE_WAYS keys per thread, 40 bytes each: 160 KiB,
                              so that 4 hot keys rarely share a set even in a program
                              with thousands of (kernel, stream, call) keys */
    SC_SAMPLE_WAYS = 4,
    SC_SAMPLE_FIRST = 16,
    SC_SAMPLE_EVERY = 256,
};

typedef struct sc_sample_key {
    uint64_t stream;    /* the stream argument, SC_STREAM_NONE if none */
    const void *kernel; /* launches: CUPTI's symbolName pointer, one per kernel */
    uint64_t python;    /* the Python frames it was called from (python.h), 0 if none */
    uint16_t cbid;
    uint16_t call_class; /* enum sc_call_class */
} sc_sample_key;

typedef struct sc_sample_entry {
    uint64_t stream;
    const void *kernel;
    uint64_t python;
    uint32_t tag;      /* cbid << 16 | call_class | SC_SAMPLE_VALID; 0 = empty */
    uint32_t calls;    /* calls of the key since it entered the cache */
    uint32_t sampled;  /* correlation id of its last call with a stack */
    uint16_t last_use; /* the cache's tick, for least-recently-used */
    uint16_t gen;      /* valid only in the cache's generation */
} sc_sample_entry;

typedef struct sc_sample_cache {
    uint16_t tick;
    uint16_t gen;       /* a reset moves on to the next generation */
    uint64_t evictions; /* for tests and benchmarks */
    /* The entry the last call found or made: a loop of one call class on one stream (event
     * polling, a launch loop of one kernel) finds its key here without the hash or the set.
     * Only a hint: it counts only while it still holds that key, in this generation. */
    sc_sample_entry *last;
    sc_sample_entry sets[SC_SAMPLE_SETS][SC_SAMPLE_WAYS];
} sc_sample_cache;

#define SC_SAMPLE_VALID 0x8000u

static inline uint32_t sc_sample_tag(const sc_sample_key *k)
{
    return (uint32_t)k->cbid << 16 | (k->call_class & 0x7fffu) | SC_SAMPLE_VALID;
}

/* One more call of the entry's key: whether it takes a stack. */
static inline bool sc_sample_due(sc_sample_entry *e, uint32_t correlation, uint32_t *shared)
{
    uint32_t n = e->calls++;
    /* The common case first: past the first calls, not one in SC_SAMPLE_EVERY. */
    if (__builtin_expect(n >= SC_SAMPLE_FIRST && n % SC_SAMPLE_EVERY != 0 && e->sampled != 0,
                         1)) {
        *shared = e->sampled;
        return false;
    }
    e->sampled = correlation;
    return true;
}

static inline bool sc_sample_holds(const sc_sample_cache *c, const sc_sample_entry *e,
                                   uint32_t tag, const sc_sample_key *k)
{
    return e->tag == tag && e->stream == k->stream && e->kernel == k->kernel &&
           e->python == k->python && e->gen == c->gen;
}

/* sc_sample_take's search of the key's set, and its way in when it is not there. */
bool sc_sample_take_set(sc_sample_cache *c, const sc_sample_key *k, uint32_t tag, uint16_t now,
                        uint32_t correlation, uint32_t *shared);

/* Whether this call (correlation id `correlation`) takes a stack. When it does not, *shared
 * is the correlation id of the call whose stack it shares (never 0). Inline: the key of the
 * last call (c->last) is answered here, without the hash or the set; it is the entry the
 * set's search would find, since a key is in one way at most. */
static inline bool sc_sample_take(sc_sample_cache *c, const sc_sample_key *k, uint32_t correlation,
                                  uint32_t *shared)
{
    uint32_t tag = sc_sample_tag(k);
    uint16_t now = ++c->tick;
    sc_sample_entry *e = c->last;
    if (e && sc_sample_holds(c, e, tag, k)) {
        e->last_use = now;
        return sc_sample_due(e, correlation, shared);
    }
    return sc_sample_take_set(c, k, tag, now, correlation, shared);
}
/* Forgets every key (a thread's block reused by another thread): O(1), touches no page. */
void sc_sample_reset(sc_sample_cache *c);
/* The set a key falls in (for tests). */
unsigned sc_sample_set_of(const sc_sample_key *k);

#endif
