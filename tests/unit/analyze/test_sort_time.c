/* sc_sort_by_time against the comparison sort it replaces (sc_stable_sort by the leading key):
 * the same order, ties included, whatever the keys' span (a few bits, all 64), the element
 * size, and with lists already in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/sort_time.h"
#include "trace/sort.h"

typedef struct elem16 { uint64_t t; uint64_t pos; } elem16;
typedef struct elem40 { uint64_t t; uint64_t pos; uint64_t pad[3]; } elem40;

static int key_cmp(const void *a, const void *b)
{
    uint64_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x < y ? -1 : x > y;
}

static uint64_t next_random(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return *seed ^ (*seed >> 29);
}

/* n elements of `size` bytes (key, then input position); keys base + random % spread. */
static void check_like_stable_sort(size_t n, size_t size, uint64_t base, uint64_t spread,
                                   uint64_t seed)
{
    char *ours = malloc(n * size + 1), *theirs = malloc(n * size + 1);
    assert_non_null(ours);
    assert_non_null(theirs);
    memset(ours, 0, n * size);
    for (size_t i = 0; i < n; i++) {
        uint64_t key = base + (spread ? next_random(&seed) % spread : next_random(&seed));
        uint64_t pos = i;
        memcpy(ours + i * size, &key, sizeof key);
        memcpy(ours + i * size + 8, &pos, sizeof pos);
    }
    memcpy(theirs, ours, n * size);
    assert_int_equal(sc_sort_by_time(ours, n, size), 0);
    assert_int_equal(sc_stable_sort(theirs, n, size, key_cmp), 0);
    assert_memory_equal(ours, theirs, n * size);
    /* sorted again: already in order, unchanged */
    assert_int_equal(sc_sort_by_time(ours, n, size), 0);
    assert_memory_equal(ours, theirs, n * size);
    free(ours);
    free(theirs);
}

static void test_same_order_as_the_stable_sort(void **state)
{
    (void)state;
    check_like_stable_sort(5000, sizeof(elem16), 1000, 50, 1);            /* many ties */
    check_like_stable_sort(5000, sizeof(elem16), 1ull << 60, 1ull << 40, 2);
    check_like_stable_sort(5000, sizeof(elem16), 0, 0, 3);                 /* all 64 bits */
    check_like_stable_sort(5000, 24, UINT64_MAX - 100000, 100000, 4);
    check_like_stable_sort(3000, sizeof(elem40), 7, 1ull << 33, 5);
    check_like_stable_sort(2, sizeof(elem16), 0, 2, 6);
    check_like_stable_sort(1, sizeof(elem16), 0, 2, 7);
    check_like_stable_sort(0, sizeof(elem16), 0, 2, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_order_as_the_stable_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
