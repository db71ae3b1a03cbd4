/* Rule pin-per-step, and the calls a move out of the loop takes away (loop_calls.h), which
 * implicit-sync prices too. Expected numbers are worked out in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/loop_calls.h"
#include "synthetic.h"

static sc_api_call *call(syn *s, uint16_t cls, uint64_t start, uint64_t end, uint32_t tid,
                         const char *name)
{
    sc_api_call *c = syn_call(s, cls, start, end, 0, name, NULL, 0);
    syn_call_tid(s, c, tid);
    return c;
}

/* Which calls a move out of the loop takes, per family, on one thread each:
 *   thread 1 (limits):  launch, set-limit, launch, set-limit, set-limit: every set-limit
 *                        after the first (a launch before it does not make it a repeat)
 *   thread 2 (pinned):  register, unregister, register, unregister: the release followed by
 *                        an acquisition and the acquisition after it; the first register
 *                        and the last unregister stay
 *   thread 3 (pinned):  free-host, host-alloc (set-up code: a buffer freed, another made):
 *                        both, once (the rule wants the pattern twice) */
static void test_loop_moves_what_the_loop_redoes(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    const uint16_t one[] = {SC_CALL_LAUNCH, SC_CALL_SET_LIMIT, SC_CALL_LAUNCH, SC_CALL_SET_LIMIT,
                            SC_CALL_SET_LIMIT};
    const uint16_t two[] = {SC_CALL_HOST_REGISTER, SC_CALL_HOST_UNREGISTER, SC_CALL_HOST_REGISTER,
                            SC_CALL_HOST_UNREGISTER};
    const uint16_t three[] = {SC_CALL_HOST_FREE, SC_CALL_HOST_ALLOC};
    for (size_t i = 0; i < 5; i++)
        call(&s, one[i], US(10 * i), US(10 * i + 5), 1, "c1");
    for (size_t i = 0; i < 4; i++)
        call(&s, two[i], US(100 + 10 * i), US(100 + 10 * i + 5), 2, "c2");
    for (size_t i = 0; i < 2; i++)
        call(&s, three[i], US(200 + 10 * i), US(200 + 10 * i + 5), 3, "c3");
    syn_finish(&s);
    const sc_loop_scope scopes[] = {{1, SC_LOOP_LIMITS}, {2, SC_LOOP_PINNED}, {3, SC_LOOP_PINNED}};
    const bool want[11] = {false, false, false, true, true,    /* thread 1 */
                           false, true, true, false,           /* thread 2 */
                           true, true};                        /* thread 3 */
    /* every call, then the calls of the families alone (as the blocking index lists them:
     * the launches passed over either way) */
    uint32_t every[11], families[11];
    size_t n_families = 0;
    for (uint32_t i = 0; i < 11; i++) {
        every[i] = i;
        if (sc_call_class_id(&s.t, &s.t.calls[i]) != SC_CALL_LAUNCH)
            families[n_families++] = i;
    }
    assert_int_equal(n_families, 9);
    bool moved[11] = {false};
    assert_int_equal(sc_loop_moved(&s.t, every, 11, scopes, 3, moved), 0);
    for (size_t i = 0; i < 11; i++)
        assert_int_equal(moved[i], want[i]);
    memset(moved, 0, sizeof moved);
    assert_int_equal(sc_loop_moved(&s.t, families, n_families, scopes, 3, moved), 0);
    for (size_t k = 0; k < n_families; k++)
        assert_int_equal(moved[k], want[families[k]]);
    syn_free(&s);
}

/* Three steps of register (300 us) .. launch .. unregister (100 us), thread 1, with nothing
 * else in flight (no wait: implicit-sync has nothing to say):
 *   step k at 1000k: register 1000k .. 1000k+300, launch 1000k+300 .. +305 (kernel on 20
 *   runs +310 .. +410), unregister 1000k+410 .. +510
 * The loop pins again twice: the 2nd and 3rd registers (300 us each) and the 1st and 2nd
 * unregisters (100 us each) go: 4 instances, 800 us of host time. Replayed without them
 * (the host gaps between calls kept: 490 us after each unregister), the run of 2510 us
 * shrinks by what they took: 800 us, an error. */
static void test_pinning_every_step_is_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_stream(&s, 0, 20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    for (uint32_t k = 0; k < 3; k++) {
        uint64_t t0 = US(1000 * k);
        sc_api_call *r = call(&s, SC_CALL_HOST_REGISTER, t0, t0 + US(300), 1, "cudaHostRegister");
        syn_call_bytes(&s, r, 8u << 20);
        sc_api_call *l = syn_call(&s, SC_CALL_LAUNCH, t0 + US(300), t0 + US(305), 10 + k, NULL,
                                  NULL, 0);
        syn_call_tid(&s, l, 1);
        syn_call_stream(&s, l, 0xA0);
        syn_kernel(&s, 0, 20, t0 + US(310), t0 + US(410), 10 + k);
        call(&s, SC_CALL_HOST_UNREGISTER, t0 + US(410), t0 + US(510), 1, "cudaHostUnregister");
    }
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "implicit-sync"));
    const sc_finding *f = syn_finding(&a, "pin-per-step");
    assert_non_null(f);
    assert_int_equal(f->count, 4);
    assert_int_equal(f->waited_ns, US(800));
    assert_int_equal(f->cost_ns, US(800));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(syn_evidence(f->totals, f->n_totals, "bytes_pinned_again") == (double)(16u << 20));
    assert_string_equal(sc_call_name(&s.t, f->worst.call), "cudaHostRegister");
    assert_non_null(strstr(f->fix, "once at start-up"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Set-up code that frees one pinned buffer and allocates another, once: not a loop. */
static void test_one_reallocation_is_not_a_loop(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    call(&s, SC_CALL_HOST_ALLOC, 0, US(300), 1, "cudaHostAlloc");
    call(&s, SC_CALL_HOST_FREE, US(400), US(500), 1, "cudaFreeHost");
    call(&s, SC_CALL_HOST_ALLOC, US(600), US(900), 1, "cudaHostAlloc");
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "pin-per-step"));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_moves_what_the_loop_redoes),
        cmocka_unit_test(test_pinning_every_step_is_error),
        cmocka_unit_test(test_one_reallocation_is_not_a_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
