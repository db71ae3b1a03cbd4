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
 *
 * In a thread running Python the key holds only the innermost Python frames (python.h), so
 * that the common call is cheap; a key's first calls would take a stack each, 16 per
 * (kernel, stream, line) while a program starts, and each delays the thread's next launch
 * (5-9 us in PyTorch, enough to shift one stream's kernels against another's). There a first
 * call whose whole Python stack (sc_python_stack_key, asked of those calls only) is the one
 * of the key's last stack shares that stack: its site is its Python line, which is the
 * same. A call from another caller further out still takes its own.
 * Pure logic, no CUPTI: tests/unit/preload tests it directly. */
#ifndef SC_PRELOAD_SAMPLE_H
#define SC_PRELOAD_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

enum {
    SC_SAMPLE_SETS = 1024, /* x SC_SAMPLE_WAYS keys per thread, 48 bytes each: 192 KiB
                              (untouched pages cost nothing), so that 4 hot keys rarely
                              share a set even in a program with thousands of (kernel,
                              stream, call) keys */
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
    /* The key's calls are numbered from 0 as it enters the cache (from SC_SAMPLE_FIRST when
     * it evicts another); call n takes a stack when n < SC_SAMPLE_FIRST, when
     * n % SC_SAMPLE_EVERY == 0, or when the last stack's call had no correlation id. Kept
     * as a countdown, so that a call that shares costs one decrement: */
    uint32_t left;     /* calls until the next that takes a stack, that one included */
    uint32_t due_at;   /* the number of that call */
    uint32_t sampled;  /* correlation id of its last call with a stack */
    uint32_t stack_key; /* that call's whole Python stack (sc_sample_stack_key_fn), 0 none */
    uint16_t last_use; /* the cache's tick at its last call, for least-recently-used (the
                          entry c->last: at the call that made it c->last; see there) */
    uint16_t gen;      /* valid only in the cache's generation */
} sc_sample_entry;

typedef struct sc_sample_cache {
    /* The entry the last call found or made: a loop of one call class on one stream (event
     * polling, a launch loop of one kernel) finds its key here, without the hash or the set,
     * and without touching the cache's tick: the calls it answers (until one is due) are
     * counted by its countdown, and the tick and its last use are brought up to date from
     * it by the next call that misses (sample.c). NULL after a reset. */
    sc_sample_entry *last;
    uint32_t last_left; /* last->left when it became c->last */
    uint16_t tick;      /* one a call: up to the call that set c->last */
    uint16_t gen;       /* a reset moves on to the next generation */
    uint64_t evictions; /* for tests and benchmarks */
    sc_sample_entry sets[SC_SAMPLE_SETS][SC_SAMPLE_WAYS];
} sc_sample_cache;

#define SC_SAMPLE_VALID 0x8000u

static inline uint32_t sc_sample_tag_of(uint16_t cbid, uint16_t call_class)
{
    return (uint32_t)cbid << 16 | (call_class & 0x7fffu) | SC_SAMPLE_VALID;
}

static inline uint32_t sc_sample_tag(const sc_sample_key *k)
{
    return sc_sample_tag_of(k->cbid, k->call_class);
}

/* The whole Python stack of the calling thread as a hash, 0 when unknown: asked only of a
 * key's first calls in a thread running Python (the key's python not 0). */
typedef uint32_t (*sc_sample_stack_key_fn)(void);

/* sc_sample_take_key's work for every call the last call's entry does not answer: the
 * key's set, its way in when it is not there, least-recently-used and the tick. */
bool sc_sample_take_slow(sc_sample_cache *c, uint64_t stream, const void *kernel,
                         uint64_t python, uint32_t tag, uint32_t correlation, uint32_t *shared,
                         sc_sample_stack_key_fn stack_key);

/* Whether this call (correlation id `correlation`) of the key (stream, kernel, python, tag:
 * sc_sample_tag_of) takes a stack. When it does not, *shared is the correlation id of the
 * call whose stack it shares (never 0). Inline: a call of the last call's key that is not
 * due is answered here (it is the entry the set's search would find, since a key is in one
 * way at most). */
static inline bool sc_sample_take_key(sc_sample_cache *c, uint64_t stream, const void *kernel,
                                      uint64_t python, uint32_t tag, uint32_t correlation,
                                      uint32_t *shared, sc_sample_stack_key_fn stack_key)
{
    sc_sample_entry *e = c->last;
    if (__builtin_expect(e && e->tag == tag && e->stream == stream && e->kernel == kernel &&
                             e->python == python && e->left > 1,
                         1)) {
        e->left--;
        *shared = e->sampled;
        return false;
    }
    return sc_sample_take_slow(c, stream, kernel, python, tag, correlation, shared, stack_key);
}

/* The same for a key as one struct. */
static inline bool sc_sample_take(sc_sample_cache *c, const sc_sample_key *k, uint32_t correlation,
                                  uint32_t *shared, sc_sample_stack_key_fn stack_key)
{
    return sc_sample_take_key(c, k->stream, k->kernel, k->python, sc_sample_tag(k), correlation,
                              shared, stack_key);
}
/* Forgets every key (a thread's block reused by another thread): O(1), touches no page. */
void sc_sample_reset(sc_sample_cache *c);
/* The set a key falls in (for tests). */
unsigned sc_sample_set_of(const sc_sample_key *k);

#endif
