/* sc_sort_piles, both ways it moves the elements into place, and sc_sort_piles_into: in place along the permutation's
 * cycles (the elements move less than a MiB: a list nearly in order) and gathered through a
 * second array (a list sorted again by another key, elements moving across it), each against
 * a stable insertion sort, ties across piles kept in input order; and a list needing more
 * piles than it keeps, left as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/sort_piles.h"

/* 40 bytes, as the device records sorted again by end, and not a size sc_copy_one names. */
typedef struct item {
    uint64_t key;
    uint64_t pos;   /* input position: tells equal keys apart */
    uint64_t pad[3];
} item;

typedef struct odd {
    uint32_t key;
    char tail[17];  /* 21 bytes */
} odd;

static int item_cmp(const void *a, const void *b)
{
    uint64_t x = ((const item *)a)->key, y = ((const item *)b)->key;
    return x < y ? -1 : x > y;
}

static int odd_cmp(const void *a, const void *b)
{
    uint32_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x < y ? -1 : x > y;
}

static uint64_t next_random(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return *seed >> 33;
}

/* By key, then input position: a total order, so the C library's qsort gives the one stable
 * order (an insertion sort took seconds on the far lists, minutes under the sanitizers). */
static int item_then_pos_cmp(const void *a, const void *b)
{
    int c = item_cmp(a, b);
    if (c) return c;
    uint64_t x = ((const item *)a)->pos, y = ((const item *)b)->pos;
    return x < y ? -1 : x > y;
}

static void reference_sort(item *v, size_t n)
{
    qsort(v, n, sizeof *v, item_then_pos_cmp);
}

static item *make(size_t n)
{
    item *v = calloc(n, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i].pad[0] = v[i].pad[2] = ~(uint64_t)i;
    return v;
}

/* Sorted in place and into a second array, the source of that left as it was. */
static void check(item *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i].pos = i;
    item *want = malloc(n * sizeof *want), *was = malloc(n * sizeof *was),
         *into = malloc(n * sizeof *into);
    assert_true(want && was && into);
    memcpy(want, v, n * sizeof *v);
    memcpy(was, v, n * sizeof *v);
    reference_sort(want, n);
    assert_int_equal(sc_sort_piles_into(into, v, n, sizeof *v, item_cmp), 0);
    assert_memory_equal(into, want, n * sizeof *v);
    assert_memory_equal(v, was, n * sizeof *v);
    assert_int_equal(sc_sort_piles(v, n, sizeof *v, item_cmp), 0);
    assert_memory_equal(v, want, n * sizeof *v);
    free(want);
    free(was);
    free(into);
}

/* Records of four streams, each in order, reaching the list a little out of turn: elements
 * move a few places (in place), with equal keys across streams. */
static void test_sort_piles_nearly_in_order(void **state)
{
    (void)state;
    enum { N = 60000 };     /* 2.4 MB: more than the in-place reach, which must not matter */
    item *v = make(N);
    uint64_t seed = 1, clock = 0, last[4] = {0};
    for (size_t i = 0; i < N; i++) {
        size_t s = next_random(&seed) % 4;
        clock += next_random(&seed) % 3;
        last[s] = clock > last[s] + 5 ? clock - next_random(&seed) % 5 : last[s];
        v[i].key = last[s];
    }
    check(v, N);
    free(v);
}

/* The same records sorted again by stream: each element moves about a quarter of the list
 * (MBs: gathered). Then two halves swapped, every element moving n / 2. */
static void test_sort_piles_far(void **state)
{
    (void)state;
    enum { N = 100000 };
    item *v = make(N);
    uint64_t seed = 2;
    for (size_t i = 0; i < N; i++)
        v[i].key = next_random(&seed) % 4;
    check(v, N);
    for (size_t i = 0; i < N; i++)
        v[i].key = i < N / 2 ? N + i : i;
    check(v, N);
    free(v);
}

/* Short lists and short reaches: every permutation of cycles up to the list's length (a
 * rotation by r of n elements is one cycle of n when they are coprime). */
static void test_sort_piles_rotations(void **state)
{
    (void)state;
    item *v = make(40);
    for (size_t n = 2; n <= 40; n++) {
        for (size_t r = 1; r < n; r++) {
            for (size_t i = 0; i < n; i++)
                v[i] = (item){.key = (i + r) % n / 2, .pad = {i, ~i, i * 3}};
            check(v, n);
        }
    }
    free(v);
}

/* An element size the copies do not name, moved in place and gathered. */
static void test_sort_piles_odd_size(void **state)
{
    (void)state;
    size_t sizes[] = {3000, 199998};   /* 63 KB, 4.2 MB */
    for (size_t t = 0; t < 2; t++) {
        size_t n = sizes[t];
        odd *v = calloc(n, sizeof *v);
        assert_non_null(v);
        for (size_t i = 0; i < n; i++) {
            uint32_t key = (uint32_t)(i % 3 * n + i / 3);   /* three lists in order */
            memcpy(&v[i].key, &key, sizeof key);
            memcpy(v[i].tail, &i, sizeof i);
            v[i].tail[16] = (char)i;
        }
        assert_int_equal(sc_sort_piles(v, n, sizeof *v, odd_cmp), 0);
        for (size_t k = 0; k < n; k++) {
            size_t i = k / (n / 3) + k % (n / 3) * 3, from;   /* n divisible by 3 */
            memcpy(&from, v[k].tail, sizeof from);
            assert_int_equal(from, i);
            assert_int_equal(v[k].tail[16], (char)i);
        }
        free(v);
    }
}

/* Descending: a pile per element, more than it keeps: 1, nothing moved or written. */
static void test_sort_piles_too_many(void **state)
{
    (void)state;
    item *v = make(100), *was = make(100), *into = make(100), *blank = make(100);
    for (size_t i = 0; i < 100; i++)
        v[i].key = 100 - i;
    memcpy(was, v, 100 * sizeof *v);
    assert_int_equal(sc_sort_piles(v, 100, sizeof *v, item_cmp), 1);
    assert_memory_equal(v, was, 100 * sizeof *v);
    assert_int_equal(sc_sort_piles_into(into, v, 100, sizeof *v, item_cmp), 1);
    assert_memory_equal(into, blank, 100 * sizeof *v);
    free(v);
    free(was);
    free(into);
    free(blank);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_piles_nearly_in_order),
        cmocka_unit_test(test_sort_piles_far),
        cmocka_unit_test(test_sort_piles_rotations),
        cmocka_unit_test(test_sort_piles_odd_size),
        cmocka_unit_test(test_sort_piles_too_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
