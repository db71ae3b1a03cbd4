/* sc_streams_find: every stream of a sorted array (device, stream id, context id) is found,
 * and keys that differ from one in a single field are not, for each count from 0 to 20: both
 * the scan of a few streams and the binary search past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/streams.h"

/* n streams in sc_streams_build's order: two devices, ids 7, 9, 11, ..., two contexts
 * each. */
static sc_stream_summary *sorted_streams(size_t n)
{
    sc_stream_summary *s = calloc(n ? n : 1, sizeof *s);
    assert_non_null(s);
    size_t half = (n + 1) / 2;
    for (size_t i = 0; i < n; i++) {
        size_t k = i < half ? i : i - half;
        s[i].device = i < half ? 0 : 3;
        s[i].stream_id = 7 + 2 * (uint32_t)(k / 2);
        s[i].context_id = 100 + (uint32_t)(k % 2) * 5;
    }
    return s;
}

static void test_found_and_not(void **state)
{
    (void)state;
    for (size_t n = 0; n <= 20; n++) {
        sc_stream_summary *s = sorted_streams(n);
        for (size_t i = 0; i < n; i++) {
            uint32_t d = s[i].device, c = s[i].context_id, id = s[i].stream_id;
            assert_ptr_equal(sc_streams_find(s, n, d, c, id), &s[i]);
            assert_null(sc_streams_find(s, n, d + 1, c, id));
            assert_null(sc_streams_find(s, n, d, c + 1, id));
            assert_null(sc_streams_find(s, n, d, c, id + 1));
        }
        assert_null(sc_streams_find(s, n, 0, 100, 0));
        assert_null(sc_streams_find(s, n, 9, 100, 7));
        free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found_and_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
