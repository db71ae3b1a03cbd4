/* sc_record_check_inline (validate.h) against sc_record_check: the same fault and the same
 * header for every record, sound or broken in each way the checks know, of every kind; and
 * the memo of sound headers (sc_header_memo) holds no header of a record the check refuses,
 * but for an API record's whose frames do not fit (its user tests those). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "trace/validate.h"

enum { PAYLOAD = 256 };

static uint8_t data[sizeof(sc_record_header) + PAYLOAD];

/* A record of `kind` with `fixed` and `size` in its header; the payload's bytes are
 * `fill` (ids and counts read from it: 0 and 0xff test both sides of their rules). */
static void make(uint16_t kind, uint16_t fixed, uint32_t size, uint8_t fill)
{
    memset(data, fill, sizeof data);
    sc_record_header h = {.kind = kind, .fixed = fixed, .size = size};
    memcpy(data, &h, sizeof h);
}

static void expect_same(size_t size, bool after_end)
{
    sc_record_header a, b;
    memset(&a, 0xaa, sizeof a);
    memset(&b, 0xaa, sizeof b);
    enum sc_record_fault slow = sc_record_check(data, size, 0, after_end, &a);
    enum sc_record_fault fast = sc_record_check_inline(data, size, 0, after_end, &b);
    assert_int_equal(fast, slow);
    if (slow != SC_RECORD_STRAY)
        assert_memory_equal(&a, &b, sizeof a);
}

static void test_every_kind_size_and_fixed_part(void **state)
{
    (void)state;
    static const uint8_t fills[] = {0, 0x01, 0xff};
    int ok = 0, faults = 0;
    for (uint16_t kind = 0; kind <= SC_REC_KIND_LAST + 2; kind++)
        for (uint32_t size = 0; size <= sizeof data + 8; size += 4)
            for (uint16_t fixed = 0; fixed <= PAYLOAD + 8; fixed += fixed < 64 ? 4 : 24)
                for (size_t f = 0; f < sizeof fills; f++) {
                    make(kind, fixed, size, fills[f]);
                    for (size_t have = 0; have <= sizeof data; have += have < 16 ? 1 : 40) {
                        expect_same(have, false);
                        expect_same(have, true);
                        sc_record_header h;
                        if (sc_record_check(data, have, 0, false, &h) == SC_RECORD_OK)
                            ok++;
                        else
                            faults++;
                    }
                }
    /* the loop met both sound and broken records */
    assert_true(ok > 100);
    assert_true(faults > 100);
}

/* API records: their frames just fit, or one does not, with every fixed part. */
static void test_api_frames(void **state)
{
    (void)state;
    int ok = 0;
    for (uint32_t size = 8; size <= sizeof data; size += 8)
        for (uint16_t fixed = 0; fixed <= PAYLOAD + 8; fixed += 4)
            for (uint16_t frames = 0; frames <= PAYLOAD / 8 + 1; frames++) {
                make(SC_REC_API, fixed, size, 0x5a);
                memcpy(data + sizeof(sc_record_header) + offsetof(sc_rec_api, n_frames), &frames,
                       sizeof frames);
                expect_same(sizeof data, false);
                sc_record_header h;
                ok += sc_record_check(data, sizeof data, 0, false, &h) == SC_RECORD_OK;
            }
    assert_true(ok > 100);
}

/* Every header the memo holds, after every sound record's was kept, is one of a sound record
 * wherever it fits; a fresh memo holds none. */
static void test_header_memo(void **state)
{
    (void)state;
    static const uint8_t fills[] = {0, 0x01, 0xff};
    sc_header_memo m;
    sc_header_memo_init(&m);
    uint64_t probe = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 100000; i++) {
        probe = probe * 6364136223846793005ull + 1442695040888963407ull;
        sc_record_header h;
        memcpy(&h, &probe, sizeof h);
        assert_false(sc_header_memo_has(&m, &h));
        h.kind = (uint16_t)(i % 32);
        h.fixed = 0;
        h.size = 0;
        assert_false(sc_header_memo_has(&m, &h));
    }
    for (int round = 0; round < 2; round++) {
        int held = 0, api_overruns = 0;
        for (uint16_t kind = 0; kind <= SC_REC_KIND_LAST + 2; kind++)
            for (uint32_t size = 0; size <= sizeof data + 8; size += 4)
                for (uint16_t fixed = 0; fixed <= PAYLOAD + 8; fixed += fixed < 64 ? 4 : 24)
                    for (size_t f = 0; f < sizeof fills; f++) {
                        make(kind, fixed, size, fills[f]);
                        sc_record_header h;
                        enum sc_record_fault fault =
                            sc_record_check_inline(data, sizeof data, 0, false, &h);
                        if (round == 0 && fault == SC_RECORD_OK)
                            sc_header_memo_keep(&m, &h);
                        if (round == 1 && fault != SC_RECORD_STRAY && size <= sizeof data &&
                            sc_header_memo_has(&m, &h)) {
                            /* an API header is held without its frames' fit */
                            if (kind == SC_REC_API && fault == SC_RECORD_FRAMES_OVERRUN)
                                api_overruns++;
                            else
                                assert_int_equal(fault, SC_RECORD_OK);
                            held++;
                        }
                    }
        if (round == 1) {
            assert_true(held > 10);
            assert_true(api_overruns > 0);  /* the fills make some; sc_load_api refuses them */
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_size_and_fixed_part),
        cmocka_unit_test(test_api_frames),
        cmocka_unit_test(test_header_memo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
