/* sc_record_check_inline (validate.h) against sc_record_check: the same fault and the same
 * header for every record, sound or broken in each way the checks know, of every kind. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_size_and_fixed_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
