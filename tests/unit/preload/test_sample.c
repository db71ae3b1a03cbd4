/* Stack sampling (src/preload/sample.c): which calls take a stack, and whose stack the
 * others share. */
#include <setjmp.h>
#include <stdarg.h>
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
        if (sc_sample_take(c, &k, id, &shared)) {
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
            bool took = sc_sample_take(c, &keys[k], id, &shared);
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
            if (sc_sample_take(c, &same[k], id, &shared)) {
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
