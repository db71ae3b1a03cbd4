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

bool sc_sample_take_set(sc_sample_cache *c, const sc_sample_key *k, uint32_t tag, uint16_t now,
                        uint32_t correlation, uint32_t *shared)
{
    sc_sample_entry *set = c->sets[sc_sample_set_of(k)];
    sc_sample_entry *victim = NULL;
    for (int w = 0; w < SC_SAMPLE_WAYS; w++) {
        sc_sample_entry *e = &set[w];
        bool live = e->tag && e->gen == c->gen;
        if (live && sc_sample_holds(c, e, tag, k)) {
            e->last_use = now;
            c->last = e;
            return sc_sample_due(e, correlation, shared);
        }
        /* An empty way first, else the least recently used (ticks wrap: compare by age). */
        if (!live) {
            if (!victim || victim->tag) victim = e;
            e->tag = 0;
        } else if (!victim || (victim->tag && (uint16_t)(now - e->last_use) >
                                                  (uint16_t)(now - victim->last_use))) {
            victim = e;
        }
    }
    /* A newcomer. One that evicts another key starts past its first calls: under eviction
     * pressure a key costs one stack each time it comes back, not SC_SAMPLE_FIRST. */
    bool evicting = victim->tag != 0;
    c->evictions += evicting;
    *victim = (sc_sample_entry){.stream = k->stream,
                                .kernel = k->kernel,
                                .python = k->python,
                                .tag = tag,
                                .calls = evicting ? SC_SAMPLE_FIRST : 0,
                                .last_use = now,
                                .gen = c->gen};
    c->last = victim;
    return sc_sample_due(victim, correlation, shared);
}

void sc_sample_reset(sc_sample_cache *c)
{
    /* Entries of an older generation read as empty. Once in 65536 reuses the generation
     * comes round again: then, and only then, the entries are cleared. */
    if (++c->gen == 0) memset(c->sets, 0, sizeof c->sets);
}
