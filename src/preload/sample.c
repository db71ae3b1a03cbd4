#include "preload/sample.h"

#include <stddef.h>
#include <string.h>

unsigned sc_sample_set_of(const sc_sample_key *k)
{
    /* A 64-bit mix (murmur3's finalizer) of the fields: pointers and handles share their low
     * bits (alignment), so they must not index the set directly. */
    uint64_t h = k->stream * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)k->kernel ^
                 ((uint64_t)k->cbid << 32 | k->call_class) ^ k->python;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (unsigned)(h % SC_SAMPLE_SETS);
}

/* One more call of the entry's key: whether it takes a stack (sample.h: the countdown). */
static bool sc_sample_due(sc_sample_entry *e, uint32_t correlation, uint32_t *shared,
                          sc_sample_stack_key_fn stack_key)
{
    if (e->left > 1) {
        e->left--;
        *shared = e->sampled;
        return false;
    }
    uint32_t n = e->due_at;
    bool take = true;
    if (n < SC_SAMPLE_FIRST && e->python && stack_key) {
        /* A first call in a thread running Python: the key's last stack serves it when its
         * whole Python stack is that stack's (sample.h). */
        uint32_t whole = stack_key();
        take = !(n > 0 && whole && whole == e->stack_key && e->sampled);
        if (take) e->stack_key = whole;
    }
    if (take)
        e->sampled = correlation;
    else
        *shared = e->sampled;
    /* The next call that takes one: the next while the first calls last (and after a stack
     * that no call can name), then the next multiple of SC_SAMPLE_EVERY. */
    uint32_t next = !e->sampled || n + 1 < SC_SAMPLE_FIRST
                        ? n + 1
                        : (n / SC_SAMPLE_EVERY + 1) * SC_SAMPLE_EVERY;
    e->left = next - n;
    e->due_at = next;
    return take;
}

static bool sc_sample_holds(const sc_sample_entry *e, uint64_t stream, const void *kernel,
                            uint64_t python, uint32_t tag)
{
    return e->tag == tag && e->stream == stream && e->kernel == kernel && e->python == python;
}

/* The key's entry in its set, or a way made for it (an empty one first, else the least
 * recently used, evicted). */
static sc_sample_entry *sc_sample_find(sc_sample_cache *c, uint64_t stream, const void *kernel,
                                       uint64_t python, uint32_t tag, uint16_t now)
{
    sc_sample_key k = {.stream = stream, .kernel = kernel, .python = python,
                       .cbid = (uint16_t)(tag >> 16), .call_class = (uint16_t)(tag & 0x7fffu)};
    sc_sample_entry *set = c->sets[sc_sample_set_of(&k)];
    sc_sample_entry *victim = NULL;
    for (int w = 0; w < SC_SAMPLE_WAYS; w++) {
        sc_sample_entry *e = &set[w];
        bool live = e->tag && e->gen == c->gen;
        if (live && sc_sample_holds(e, stream, kernel, python, tag)) return e;
        /* An empty way first, else the least recently used (ticks wrap: compare by age). */
        if (!live) {
            if (!victim || victim->tag) victim = e;
            e->tag = 0;
        } else if (!victim || (victim->tag && (uint16_t)(now - e->last_use) >
                                                  (uint16_t)(now - victim->last_use))) {
            victim = e;
        }
    }
    /* A newcomer: its first call takes a stack. One that evicts another key starts past its
     * first calls: under eviction pressure a key costs one stack each time it comes back,
     * not SC_SAMPLE_FIRST. */
    bool evicting = victim->tag != 0;
    c->evictions += evicting;
    *victim = (sc_sample_entry){.stream = stream,
                                .kernel = kernel,
                                .python = python,
                                .tag = tag,
                                .left = 1,
                                .due_at = evicting ? SC_SAMPLE_FIRST : 0,
                                .gen = c->gen};
    return victim;
}

bool sc_sample_take_slow(sc_sample_cache *c, uint64_t stream, const void *kernel,
                         uint64_t python, uint32_t tag, uint32_t correlation, uint32_t *shared,
                         sc_sample_stack_key_fn stack_key)
{
    /* The calls c->last answered since it was set moved the tick on, one each, and were
     * its last uses: each took one off its countdown. */
    sc_sample_entry *last = c->last;
    uint16_t now = (uint16_t)(c->tick + 1);
    if (last) {
        now = (uint16_t)(now + (c->last_left - last->left));
        last->last_use = (uint16_t)(now - 1);
    }
    c->tick = now;
    sc_sample_entry *e = last && sc_sample_holds(last, stream, kernel, python, tag)
                             ? last
                             : sc_sample_find(c, stream, kernel, python, tag, now);
    e->last_use = now;
    bool take = sc_sample_due(e, correlation, shared, stack_key);
    c->last = e;
    c->last_left = e->left;
    return take;
}

void sc_sample_reset(sc_sample_cache *c)
{
    /* Entries of an older generation read as empty. Once in 65536 reuses the generation
     * comes round again: then, and only then, the entries are cleared. */
    c->last = NULL;
    if (++c->gen == 0) memset(c->sets, 0, sizeof c->sets);
}
