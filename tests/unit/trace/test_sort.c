/* sc_sort, sc_stable_sort, sc_stable_sort_by_u64, sc_sort_copy and sc_sort_remake against a
 * plain insertion sort (stable by construction) on the shapes the report meets: in order,
 * interleaved sorted lists (the piles path), more lists than the piles path keeps and random
 * order (the merge path), reversed, many equal keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/sort.h"

/* 24 bytes: a size that is not a power of two, as most of the analyzer's elements. */
typedef struct item {
    uint64_t key;
    uint64_t pos;   /* input position: tells equal keys apart */
    uint64_t pad;
} item;

static int key_cmp(const void *a, const void *b)
{
    uint64_t x = ((const item *)a)->key, y = ((const item *)b)->key;
    return x < y ? -1 : x > y;
}

static int pad_cmp(const void *a, const void *b)
{
    uint64_t x = ((const item *)a)->pad, y = ((const item *)b)->pad;
    return x < y ? -1 : x > y;
}

static void reference_sort(item *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        item x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1].key > x.key) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static uint64_t next_random(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return *seed >> 33;
}

enum { N = 5000 };

/* `lists` sorted lists dealt out in random turns (keys within `spread` of each other, so
 * equal keys across lists are common); lists == 0: random keys in 0..spread. */
static void make(item *v, size_t lists, uint64_t spread, uint64_t seed)
{
    uint64_t last[128] = {0};
    for (size_t i = 0; i < N; i++) {
        if (lists == 0) {
            v[i].key = next_random(&seed) % (spread + 1);
        } else {
            size_t l = next_random(&seed) % lists;
            last[l] += next_random(&seed) % (spread + 1);
            v[i].key = last[l];
        }
        v[i].pos = i;
        v[i].pad = ~(uint64_t)i;
    }
}

/* sc_sort_remake's maker: element i from the source list (ctx), never from the array. */
static void remake_item(const void *ctx, size_t i, void *dst)
{
    memcpy(dst, (const item *)ctx + i, sizeof(item));
}

/* Keys in order (spread apart, ties when 0), then `moved` elements each taken `far` places
 * (up to, at random) later: device records in completion order, or one thread's buffer
 * written late. */
static void make_displaced(item *v, uint64_t spread, size_t moved, size_t far, uint64_t seed)
{
    uint64_t key = 0;
    for (size_t i = 0; i < N; i++) {
        key += next_random(&seed) % (spread + 1);
        v[i] = (item){.key = key, .pos = i, .pad = ~(uint64_t)i};
    }
    for (size_t m = 0; m < moved; m++) {
        size_t from = next_random(&seed) % N;
        size_t to = from + 1 + next_random(&seed) % far;
        if (to >= N)
            continue;
        item x = v[from];
        memmove(v + from, v + from + 1, (to - from) * sizeof *v);
        v[to] = x;
    }
    for (size_t i = 0; i < N; i++)
        v[i].pos = i;
}

static void check_items(item *v);

static void check_shape(size_t lists, uint64_t spread, uint64_t seed)
{
    static item v[N];
    make(v, lists, spread, seed);
    check_items(v);
}

static void check_items(item *v)
{
    static item w[N], want[N], was[N], copy[N], made[N], keyed[N];
    memcpy(w, v, N * sizeof *v);
    memcpy(want, v, N * sizeof *v);
    memcpy(was, v, N * sizeof *v);
    reference_sort(want, N);
    sc_sort_copy(copy, v, N, sizeof *v, key_cmp);
    assert_memory_equal(copy, want, sizeof copy);
    assert_memory_equal(v, was, N * sizeof *v);     /* the source as it was */
    memcpy(made, v, N * sizeof *v);
    sc_sort_remake(made, N, sizeof *made, key_cmp, remake_item, v);
    assert_memory_equal(made, want, sizeof made);
    sc_sort(v, N, sizeof *v, key_cmp);
    assert_memory_equal(v, want, N * sizeof *v);
    assert_int_equal(sc_stable_sort(w, N, sizeof *w, key_cmp), 0);
    assert_memory_equal(w, want, sizeof w);
    /* by a key that is not the first field: pad takes the key, key holds 0 */
    for (size_t i = 0; i < N; i++)
        keyed[i] = (item){.key = 0, .pos = was[i].pos, .pad = was[i].key};
    assert_int_equal(sc_stable_sort_by_u64(keyed, N, sizeof *keyed, offsetof(item, pad), pad_cmp),
                     0);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(keyed[i].pad, want[i].key);
        assert_int_equal(keyed[i].pos, want[i].pos);
    }
}

static void test_sort_interleaved_lists(void **state)
{
    (void)state;
    check_shape(1, 3, 1);           /* in order */
    check_shape(2, 3, 2);
    check_shape(4, 10, 3);          /* four streams' records in completion order */
    check_shape(60, 2, 4);          /* within what the piles path keeps */
    check_shape(100, 2, 5);         /* more lists than it keeps: the merge path */
}

/* Elements a few places late (insertion within its budget), many late or far (the budget
 * spent partway: the piles or the merge sort go on from the partly sorted list). */
static void test_sort_displaced(void **state)
{
    (void)state;
    static item v[N];
    static const struct {
        uint64_t spread;
        size_t moved, far;
    } shapes[] = {{10, 100, 4}, {0, 100, 4}, {2, 1000, 8}, {10, 30, 3000}, {1, 2000, 40},
                  {3, 10, 200}, {0, 4000, 2}};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        make_displaced(v, shapes[k].spread, shapes[k].moved, shapes[k].far, 11 + k);
        check_items(v);
    }
}

static void test_sort_random_and_equal(void **state)
{
    (void)state;
    check_shape(0, 1u << 30, 6);    /* random, few equal keys */
    check_shape(0, 999, 7);         /* random, five of each key: the merge path */
    check_shape(0, 7, 7);           /* random, mostly equal keys: eight piles at most */
    check_shape(0, 0, 8);           /* all equal: input order kept */
    static item v[N], want[N];      /* reversed */
    for (size_t i = 0; i < N; i++)
        v[i] = (item){.key = N - i / 2, .pos = i};
    memcpy(want, v, sizeof v);
    reference_sort(want, N);
    sc_sort(v, N, sizeof *v, key_cmp);
    assert_memory_equal(v, want, sizeof v);
}

/* Every length from 0 to 80 (the edges of runs, piles and merges), interleaved and random. */
static void test_sort_short_lists(void **state)
{
    (void)state;
    static item v[80], want[80];
    uint64_t seed = 9;
    for (size_t n = 0; n <= 80; n++) {
        for (int shape = 0; shape < 2; shape++) {
            uint64_t a = 0, b = 0;
            for (size_t i = 0; i < n; i++) {
                uint64_t *l = next_random(&seed) % 2 ? &a : &b;
                *l += next_random(&seed) % 3;
                v[i] = (item){.key = shape ? next_random(&seed) % 20 : *l, .pos = i};
            }
            memcpy(want, v, n * sizeof *v);
            reference_sort(want, n);
            static item k[80];
            memcpy(k, v, n * sizeof *v);
            assert_int_equal(sc_stable_sort(v, n, sizeof *v, key_cmp), 0);
            assert_int_equal(sc_stable_sort_by_u64(k, n, sizeof *k, offsetof(item, key), key_cmp),
                             0);
            if (n > 0) {
                assert_memory_equal(v, want, n * sizeof *v);
                assert_memory_equal(k, want, n * sizeof *k);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_interleaved_lists),
        cmocka_unit_test(test_sort_displaced),
        cmocka_unit_test(test_sort_random_and_equal),
        cmocka_unit_test(test_sort_short_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
