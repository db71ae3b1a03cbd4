/* Stack sampling (src/preload/sample.c): which calls take a stack, and whose stack the
 * others share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "preload/sample.h"
#include "streamcheck/trace_format.h"

static sc_sample_cache *new_cache(void)
{
    sc_sample_cache *c = calloc(1, sizeof *c);
    assert_non_null(c);
    return c;
}

static sc_sample_key key(uint64_t stream, uintptr_t kernel, uint16_t cbid, uint16_t cls)
{
    return (sc_sample_key){.stream = stream, .kernel = (const void *)kernel, .cbid = cbid,
                           .call_class = cls};
}

/* Calls n times with correlation ids from *corr on; returns how many took a stack. Each
 * call that shares must name the key's last call with a stack. */
static int calls(sc_sample_cache *c, sc_sample_key k, int n, uint32_t *corr)
{
    int taken = 0;
    uint32_t last_sampled = 0;
    for (int i = 0; i < n; i++) {
        uint32_t shared = 0, id = (*corr)++;
        if (sc_sample_take(c, &k, id, &shared, NULL)) {
            taken++;
            last_sampled = id;
        } else {
            assert_int_not_equal(shared, 0);
            assert_int_equal(shared, last_sampled);
        }
    }
    return taken;
}

static void test_first_then_one_in_every(void **state)
{
    (void)state;
    sc_sample_cache *c = new_cache();
    uint32_t corr = 1;
    /* 16 first, then calls 256, 512, 768 */
    assert_int_equal(calls(c, key(7, 0x1000, 211, SC_CALL_LAUNCH), 1000, &corr), 16 + 3);
    free(c);
}

static void test_keys_never_share_across_stream_class_cbid_kernel(void **state)
{
    (void)state;
    sc_sample_cache *c = new_cache();
    uint32_t corr = 1;
    sc_sample_key keys[] = {
        key(7, 0x1000, 211, SC_CALL_LAUNCH), key(8, 0x1000, 211, SC_CALL_LAUNCH),
        key(7, 0x2000, 211, SC_CALL_LAUNCH), key(7, 0x1000, 212, SC_CALL_LAUNCH),
        key(7, 0, 30, SC_CALL_EVENT_QUERY),  key(7, 0, 30, SC_CALL_STREAM_QUERY),
        key(SC_STREAM_NONE, 0, 30, SC_CALL_EVENT_QUERY),
    };
    size_t n = sizeof keys / sizeof *keys;
    uint32_t first[8] = {0};
    /* Interleaved: each key's calls share only that key's sampled calls. */
    for (int round = 0; round < 40; round++) {
        for (size_t k = 0; k < n; k++) {
            uint32_t shared = 0, id = corr++;
            bool took = sc_sample_take(c, &keys[k], id, &shared, NULL);
            if (round == 0) {
                assert_true(took);
                first[k] = id;
            }
            if (!took) {
                /* every sampled id of key k is congruent to first[k] modulo n */
                assert_int_equal((shared - first[k]) % n, 0);
            }
        }
    }
    free(c);
}

/* Keys that fall in one set: up to SC_SAMPLE_WAYS of them live side by side; more evict,
 * and an evicted key that comes back takes one stack, not another 16 (sampling goes on). */
static void test_collisions_evict_and_never_turn_sampling_off(void **state)
{
    (void)state;
    sc_sample_cache *c = new_cache();
    sc_sample_key same[SC_SAMPLE_WAYS + 1];
    int found = 0;
    sc_sample_key probe = key(1, 0x1000, 211, SC_CALL_LAUNCH);
    unsigned set = sc_sample_set_of(&probe);
    for (uint64_t s = 1; found < SC_SAMPLE_WAYS + 1 && s < 10000000; s++) {
        sc_sample_key k = key(s, 0x1000, 211, SC_CALL_LAUNCH);
        if (sc_sample_set_of(&k) == set) same[found++] = k;
    }
    assert_int_equal(found, SC_SAMPLE_WAYS + 1);
    uint32_t corr = 1, last[SC_SAMPLE_WAYS] = {0};
    /* Four colliding keys alternate: each takes its 16 and then shares its own. */
    int taken = 0;
    for (int round = 0; round < 200; round++) {
        for (int k = 0; k < SC_SAMPLE_WAYS; k++) {
            uint32_t shared = 0, id = corr++;
            if (sc_sample_take(c, &same[k], id, &shared, NULL)) {
                taken++;
                last[k] = id;
            } else {
                assert_int_equal(shared, last[k]);
            }
        }
    }
    assert_int_equal(taken, SC_SAMPLE_WAYS * 16);    /* call 256 of a key not reached */
    assert_int_equal(c->evictions, 0);
    /* A fifth evicts the least recently used (a newcomer that evicts cannot be told from a
     * key coming back: it takes one stack, then shares); the evicted one, back, evicts in
     * turn and takes one stack. Sampling never stops. */
    assert_int_equal(calls(c, same[SC_SAMPLE_WAYS], 20, &corr), 1);
    assert_int_equal(c->evictions, 1);
    assert_int_equal(calls(c, same[0], 20, &corr), 1);
    assert_int_equal(c->evictions, 2);
    free(c);
}

/* The cache as it was before its calls were counted down (sample.h): every call moved the
 * tick on and counted the key's calls; call n took a stack when n < SC_SAMPLE_FIRST,
 * n % SC_SAMPLE_EVERY == 0 or no stack had a correlation id yet. The cache must decide as
 * this did, call for call, evictions included. */
typedef struct ref_entry {
    uint64_t stream;
    const void *kernel;
    uint64_t python;
    uint32_t tag, calls, sampled, stack_key;
    uint16_t last_use, gen;
} ref_entry;

typedef struct ref_cache {
    uint16_t tick, gen;
    uint64_t evictions;
    ref_entry sets[SC_SAMPLE_SETS][SC_SAMPLE_WAYS];
} ref_cache;

/* ... and, since a key's first calls in a thread running Python may share (sample.h): such
 * a call, not the key's first, whose whole Python stack is the one of the key's last stack
 * (and known) shares that stack. */
static bool ref_due(ref_entry *e, uint32_t correlation, uint32_t *shared,
                    sc_sample_stack_key_fn stack_key)
{
    uint32_t n = e->calls++;
    if (n >= SC_SAMPLE_FIRST && n % SC_SAMPLE_EVERY != 0 && e->sampled != 0) {
        *shared = e->sampled;
        return false;
    }
    if (n < SC_SAMPLE_FIRST && e->python && stack_key) {
        uint32_t whole = stack_key();
        if (n > 0 && whole != 0 && whole == e->stack_key && e->sampled != 0) {
            *shared = e->sampled;
            return false;
        }
        e->stack_key = whole;
    }
    e->sampled = correlation;
    return true;
}

static bool ref_take_with(ref_cache *c, const sc_sample_key *k, uint32_t correlation,
                          uint32_t *shared, sc_sample_stack_key_fn stack_key)
{
    uint32_t tag = sc_sample_tag(k);
    uint16_t now = ++c->tick;
    ref_entry *set = c->sets[sc_sample_set_of(k)], *victim = NULL;
    for (int w = 0; w < SC_SAMPLE_WAYS; w++) {
        ref_entry *e = &set[w];
        bool live = e->tag && e->gen == c->gen;
        if (live && e->tag == tag && e->stream == k->stream && e->kernel == k->kernel &&
            e->python == k->python) {
            e->last_use = now;
            return ref_due(e, correlation, shared, stack_key);
        }
        if (!live) {
            if (!victim || victim->tag) victim = e;
            e->tag = 0;
        } else if (!victim || (victim->tag && (uint16_t)(now - e->last_use) >
                                                  (uint16_t)(now - victim->last_use))) {
            victim = e;
        }
    }
    bool evicting = victim->tag != 0;
    c->evictions += evicting;
    *victim = (ref_entry){.stream = k->stream, .kernel = k->kernel, .python = k->python,
                          .tag = tag, .calls = evicting ? SC_SAMPLE_FIRST : 0,
                          .last_use = now, .gen = c->gen};
    return ref_due(victim, correlation, shared, stack_key);
}

static bool ref_take(ref_cache *c, const sc_sample_key *k, uint32_t correlation,
                     uint32_t *shared)
{
    return ref_take_with(c, k, correlation, shared, NULL);
}

/* A stand-in for the thread's whole Python stack: what the test sets before each call, and
 * how often it was asked. */
static uint32_t whole_stack;
static long whole_stack_asked;
static uint32_t fake_stack_key(void)
{
    whole_stack_asked++;
    return whole_stack;
}

static uint64_t rng_state = 88172645463325252ull;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)rng_state;
}

/* Random calls of keys that crowd a few sets (runs of one key, as loops make; keys that
 * come and go; an occasional correlation id 0 and reset): every decision and every shared
 * id as the reference's, for a million calls, the tick wrapping many times over. */
static void test_decides_as_before_call_for_call(void **state)
{
    (void)state;
    sc_sample_cache *c = new_cache();
    ref_cache *r = calloc(1, sizeof *r);
    assert_non_null(r);
    enum { KEYS = 24 };
    sc_sample_key keys[KEYS];
    /* Half of them in one set: evictions, least-recently-used choices. */
    sc_sample_key probe = key(1, 0x1000, 211, SC_CALL_LAUNCH);
    unsigned set = sc_sample_set_of(&probe);
    int found = 0;
    for (uint64_t s = 1; found < KEYS / 2; s++) {
        sc_sample_key k = key(s, 0x1000, 211, SC_CALL_LAUNCH);
        if (sc_sample_set_of(&k) == set) keys[found++] = k;
    }
    for (int i = found; i < KEYS; i++) {
        keys[i] = key(100 + (uint64_t)i, i % 3 ? 0x2000u : 0u, (uint16_t)(30 + i % 4),
                      i % 2 ? SC_CALL_EVENT_QUERY : SC_CALL_EVENT_RECORD);
        keys[i].python = (uint64_t)(i % 5);
    }
    uint32_t corr = 1;
    int k = 0;
    long taken = 0;
    for (long i = 0; i < 1000000; i++) {
        uint32_t x = rng();
        if (x % 97 == 0) k = (int)(rng() % KEYS);   /* runs of one key, then another */
        else if (x % 7 == 0) k = (int)(rng() % 4);  /* or a few keys in turn */
        if (x % 200003 == 0) {
            sc_sample_reset(c);
            r->gen++;   /* what a reset is, without the wrap's clear */
        }
        uint32_t id = x % 1009 == 0 ? 0 : corr++;
        uint32_t got = 0, want = 0;
        bool t1 = sc_sample_take(c, &keys[k], id, &got, NULL);
        bool t2 = ref_take(r, &keys[k], id, &want);
        assert_int_equal(t1, t2);
        if (!t1) assert_int_equal(got, want);
        taken += t1;
    }
    assert_int_equal(c->evictions, r->evictions);
    assert_true(c->evictions > 100);
    assert_true(taken > 1000 && taken < 200000);
    free(r);
    free(c);
}

/* The same random calls, now with a whole Python stack behind each call (one of a few, or
 * unknown): every decision and shared id as the reference's, the stack asked of the same
 * calls and of few of them; some first calls shared, some not. */
static void test_python_first_calls_decide_as_the_reference(void **state)
{
    (void)state;
    sc_sample_cache *c = new_cache();
    ref_cache *r = calloc(1, sizeof *r);
    assert_non_null(r);
    enum { KEYS = 40 };
    sc_sample_key keys[KEYS];
    for (int i = 0; i < KEYS; i++) {
        keys[i] = key(1 + (uint64_t)(i % 3), 0x1000u + (uintptr_t)(i % 7), 211,
                      SC_CALL_LAUNCH);
        keys[i].python = (uint64_t)(i % 4);    /* a quarter without Python */
    }
    uint32_t corr = 1;
    int k = 0;
    long taken = 0, shared_first = 0, asked_real = 0;
    for (long i = 0; i < 300000; i++) {
        uint32_t x = rng();
        if (x % 5 == 0) k = (int)(rng() % KEYS);
        if (x % 50021 == 0) {
            sc_sample_reset(c);
            r->gen++;
        }
        whole_stack = x % 13 == 0 ? 0 : 1 + (x >> 8) % 3;
        uint32_t id = x % 1009 == 0 ? 0 : corr++;
        uint32_t got = 0, want = 0;
        long before = whole_stack_asked;
        bool t1 = sc_sample_take(c, &keys[k], id, &got, fake_stack_key);
        asked_real += whole_stack_asked - before;
        bool t2 = ref_take_with(r, &keys[k], id, &want, fake_stack_key);
        assert_int_equal(t1, t2);
        if (!t1) assert_int_equal(got, want);
        taken += t1;
        shared_first += !t1 && whole_stack_asked - before > 0;
    }
    /* asked once by each cache for the same calls */
    assert_int_equal(asked_real * 2, whole_stack_asked);
    assert_int_equal(c->evictions, r->evictions);
    assert_true(shared_first > 1000);
    assert_true(asked_real < 300000 / 3);
    assert_true(taken > 1000);
    free(r);
    free(c);
}

/* A loop of one Python line: its key's first call takes a stack and the 15 after it share
 * it; called from another caller further out (the same innermost frames, so the same key),
 * a call takes its own; a thread without Python, or a stack that cannot be read, takes all
 * 16 first ones as before. */
static void test_a_python_lines_first_calls_share_its_first_stack(void **state)
{
    (void)state;
    sc_sample_cache *c = new_cache();
    uint32_t corr = 1, shared = 0;
    sc_sample_key line = key(7, 0x1000, 211, SC_CALL_LAUNCH);
    line.python = 0x51;
    whole_stack = 0xAAAA;
    uint32_t first = corr++;
    assert_true(sc_sample_take(c, &line, first, &shared, fake_stack_key));
    for (int i = 1; i < 40; i++) {
        assert_false(sc_sample_take(c, &line, corr++, &shared, fake_stack_key));
        assert_int_equal(shared, first);
    }
    /* The same innermost frames reached from two callers further out: one key, whose
     * first calls take a stack for each caller's whole stack that differs from the last
     * one taken, and share it otherwise. */
    sc_sample_key two = line;
    two.stream = 8;
    whole_stack = 0xAAAA;
    assert_true(sc_sample_take(c, &two, corr++, &shared, fake_stack_key));
    whole_stack = 0xBBBB;
    uint32_t b = corr++;
    assert_true(sc_sample_take(c, &two, b, &shared, fake_stack_key));
    assert_false(sc_sample_take(c, &two, corr++, &shared, fake_stack_key));
    assert_int_equal(shared, b);
    /* without Python, or unreadable: the 16 first calls take their own */
    sc_sample_key native = key(9, 0x1000, 211, SC_CALL_LAUNCH);
    assert_int_equal(calls(c, native, 40, &corr), 16);
    sc_sample_key unread = key(10, 0x1000, 211, SC_CALL_LAUNCH);
    unread.python = 0x53;
    whole_stack = 0;
    int took = 0;
    for (int i = 0; i < 40; i++) took += sc_sample_take(c, &unread, corr++, &shared, fake_stack_key);
    assert_int_equal(took, 16);
    free(c);
}

/* Both caches through the same calls: n calls of key k, each decided alike. */
static void both(sc_sample_cache *c, ref_cache *r, const sc_sample_key *k, int n, uint32_t *corr)
{
    for (int i = 0; i < n; i++) {
        uint32_t id = (*corr)++, got = 0, want = 0;
        bool t1 = sc_sample_take(c, k, id, &got, NULL);
        assert_int_equal(t1, ref_take(r, k, id, &want));
        if (!t1) assert_int_equal(got, want);
    }
}

/* Least recently used by 16-bit ticks that wrap: the calls a run of one key makes without
 * the set's search still move the tick, so an entry's age wraps when it did before. Here A
 * is older than D, but by the wrapped ages D looks older: the newcomer evicts D, as before. */
static void test_lru_ages_count_every_call(void **state)
{
    (void)state;
    sc_sample_cache *c = new_cache();
    ref_cache *r = calloc(1, sizeof *r);
    assert_non_null(r);
    sc_sample_key same[5];
    sc_sample_key probe = key(1, 0x1000, 211, SC_CALL_LAUNCH);
    unsigned set = sc_sample_set_of(&probe);
    int found = 0;
    for (uint64_t s = 1; found < 5; s++) {
        sc_sample_key k = key(s, 0x1000, 211, SC_CALL_LAUNCH);
        if (sc_sample_set_of(&k) == set) same[found++] = k;
    }
    sc_sample_key other = key(0, 0x9000, 30, SC_CALL_EVENT_QUERY);
    while (sc_sample_set_of(&other) == set) other.stream++;
    uint32_t corr = 1;
    both(c, r, &same[0], 1, &corr);         /* A */
    both(c, r, &other, 10000, &corr);
    both(c, r, &same[3], 1, &corr);         /* D */
    both(c, r, &same[1], 1, &corr);
    both(c, r, &same[2], 1, &corr);
    both(c, r, &other, 56000, &corr);       /* A's age wraps past D's */
    both(c, r, &same[4], 2, &corr);         /* the newcomer evicts D */
    both(c, r, &same[0], 3, &corr);         /* A is still there: no stack */
    both(c, r, &same[3], 3, &corr);         /* D comes back: one stack, evicting */
    assert_int_equal(c->evictions, r->evictions);
    assert_int_equal(c->evictions, 2);
    /* A run's last call is its entry's last use: A, run long, is then younger than Y and
     * Z, although the run began before them and X's age wrapped. */
    sc_sample_reset(c);
    r->gen++;
    both(c, r, &same[1], 1, &corr);         /* X */
    both(c, r, &same[0], 40000, &corr);     /* A */
    both(c, r, &same[2], 1, &corr);         /* Y */
    both(c, r, &same[3], 1, &corr);         /* Z */
    both(c, r, &other, 30000, &corr);
    both(c, r, &same[4], 2, &corr);         /* evicts A by its age, not Y */
    both(c, r, &same[2], 2, &corr);
    both(c, r, &same[0], 2, &corr);
    assert_int_equal(c->evictions, r->evictions);
    free(r);
    free(c);
}

static void test_reset_forgets_without_clearing(void **state)
{
    (void)state;
    sc_sample_cache *c = new_cache();
    uint32_t corr = 1;
    sc_sample_key k = key(3, 0x1000, 211, SC_CALL_LAUNCH);
    assert_int_equal(calls(c, k, 100, &corr), 16);
    sc_sample_reset(c);
    /* Another thread's block now: its first calls take stacks again, none is shared. */
    assert_int_equal(calls(c, k, 100, &corr), 16);
    assert_int_equal(c->evictions, 0);
    for (int i = 0; i < 70000; i++) sc_sample_reset(c);   /* the generation wraps */
    assert_int_equal(calls(c, k, 20, &corr), 16);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_then_one_in_every),
        cmocka_unit_test(test_keys_never_share_across_stream_class_cbid_kernel),
        cmocka_unit_test(test_collisions_evict_and_never_turn_sampling_off),
        cmocka_unit_test(test_reset_forgets_without_clearing),
        cmocka_unit_test(test_decides_as_before_call_for_call),
        cmocka_unit_test(test_python_first_calls_decide_as_the_reference),
        cmocka_unit_test(test_a_python_lines_first_calls_share_its_first_stack),
        cmocka_unit_test(test_lru_ages_count_every_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
