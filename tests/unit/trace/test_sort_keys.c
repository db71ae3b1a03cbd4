/* sc_order_keys: the positions of unique 64-bit keys in ascending order, checked against the
 * keys themselves, for a list that interleaves a few lists in order (piled and merged), one
 * that alternates between the values of overlapping spans' starts and ends (each value on the
 * top pile or the one below it), one already in order, one in descending order (a pile per
 * key: more than the fast path takes, so it says so), a single key, and random lists of a
 * few to more lists than are merged at once against qsort. The piles are numbered as they
 * open (sc_piles_deal), which the merge of a few relies on to find each pile's first key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/piles.h"
#include "trace/sort_keys.h"

/* The order is a permutation of 0 .. n - 1 along which the keys ascend. */
static void assert_ordered(const uint64_t *key, size_t n, const uint32_t *order)
{
    bool *seen = calloc(n, sizeof *seen);
    assert_non_null(seen);
    for (size_t k = 0; k < n; k++) {
        assert_true(order[k] < n);
        assert_false(seen[order[k]]);
        seen[order[k]] = true;
        if (k > 0)
            assert_true(key[order[k - 1]] < key[order[k]]);
    }
    free(seen);
}

static void test_interleaved_lists(void **state)
{
    (void)state;
    enum { LISTS = 9, EACH = 1000 };
    uint64_t *key = malloc(LISTS * EACH * sizeof *key);
    assert_non_null(key);
    for (size_t l = 0; l < LISTS; l++)     /* list l: times l, l + 9, l + 18, ... */
        for (size_t i = 0; i < EACH; i++)
            key[l * EACH + i] = (uint64_t)i * LISTS + l;
    bool many = true;
    uint32_t *order = sc_order_keys(key, LISTS * EACH, &many);
    assert_non_null(order);
    assert_false(many);
    assert_ordered(key, LISTS * EACH, order);
    free(order);
    free(key);
}

/* Start and end of span i, one after the other: spans of 25 starting every 10, as the overlap
 * sweep's points of a device's kernels in start order. */
static void test_starts_and_ends_alternating(void **state)
{
    (void)state;
    enum { SPANS = 1000 };
    uint64_t key[2 * SPANS];
    for (size_t i = 0; i < SPANS; i++) {
        key[2 * i] = (uint64_t)i * 10 * 2 + 1;          /* starts odd, ends even: unique */
        key[2 * i + 1] = ((uint64_t)i * 10 + 25) * 2;
    }
    bool many = true;
    uint32_t *order = sc_order_keys(key, 2 * SPANS, &many);
    assert_non_null(order);
    assert_false(many);
    assert_ordered(key, 2 * SPANS, order);
    free(order);
}

static void test_in_order_and_single(void **state)
{
    (void)state;
    uint64_t key[500];
    for (size_t i = 0; i < 500; i++)
        key[i] = UINT64_MAX - 500 + i;
    bool many = true;
    uint32_t *order = sc_order_keys(key, 500, &many);
    assert_non_null(order);
    assert_false(many);
    for (uint32_t i = 0; i < 500; i++)
        assert_int_equal(order[i], i);
    free(order);
    order = sc_order_keys(key, 1, &many);
    assert_non_null(order);
    assert_int_equal(order[0], 0);
    free(order);
}

static void test_descending_needs_too_many_piles(void **state)
{
    (void)state;
    uint64_t key[65];
    for (size_t i = 0; i < 65; i++)
        key[i] = 1000 - i;
    bool many = true;
    uint32_t *order = sc_order_keys(key, 64, &many);   /* 64 piles: the most it takes */
    assert_non_null(order);
    assert_false(many);
    assert_ordered(key, 64, order);
    free(order);
    assert_null(sc_order_keys(key, 65, &many));         /* one more: the caller sorts */
    assert_true(many);
}

static int sc_u64_cmp(const void *pa, const void *pb)
{
    uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
    return x < y ? -1 : x > y;
}

/* Random lists of unique keys interleaving 1 to 12 ascending lists (up to 8 piles are merged
 * off the piles' bytes, more through a tree), the lists' steps anything from 1 to large,
 * against qsort of the keys: the order's keys must be the sorted keys, one for one. */
static void test_random_interleaved_against_qsort(void **state)
{
    (void)state;
    enum { MOST = 3000, LISTS = 12 };
    uint64_t *key = malloc(MOST * sizeof *key), *sorted = malloc(MOST * sizeof *sorted);
    assert_non_null(key);
    assert_non_null(sorted);
    srand(7);
    for (int round = 0; round < 300; round++) {
        size_t n = 1 + (size_t)rand() % MOST, lists = 1 + (size_t)rand() % LISTS;
        uint64_t last[LISTS], step = 1 + (uint64_t)rand() % (round % 2 ? 1000 : 3);
        for (size_t l = 0; l < lists; l++)
            last[l] = (uint64_t)rand() % 50 * LISTS + l;
        for (size_t i = 0; i < n; i++) {   /* list l's keys are l mod LISTS: unique */
            size_t l = (size_t)rand() % lists;
            last[l] += (1 + (uint64_t)rand() % step) * LISTS;
            key[i] = last[l];
        }
        bool many = true;
        uint32_t *order = sc_order_keys(key, n, &many);
        assert_non_null(order);
        assert_false(many);
        memcpy(sorted, key, n * sizeof *key);
        qsort(sorted, n, sizeof *sorted, sc_u64_cmp);
        for (size_t k = 0; k < n; k++)
            assert_true(key[order[k]] == sorted[k]);
        assert_ordered(key, n, order);
        free(order);
    }
    free(key);
    free(sorted);
}

/* A (time, position) pair for qsort: the order sc_order_times_in promises. */
typedef struct time_at {
    uint64_t t;
    uint32_t at;
} time_at;

static int sc_time_at_cmp(const void *pa, const void *pb)
{
    const time_at *x = pa, *y = pb;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Times that tie, interleaving 1 to 64 ascending lists (the tree's merge past 8 piles, its
 * leaves padded to a power of two), batches of one list at a time as a thread's buffers come,
 * some times at the top of the range: the positions must be qsort's by (time, position), one
 * for one. */
static void test_tied_times_of_many_lists_against_qsort(void **state)
{
    (void)state;
    enum { MOST = 4000, LISTS = 64 };
    uint64_t *t = malloc(MOST * sizeof *t);
    time_at *want = malloc(MOST * sizeof *want);
    uint32_t *order = malloc(MOST * sizeof *order);
    assert_non_null(t);
    assert_non_null(want);
    assert_non_null(order);
    srand(11);
    size_t tree_rounds = 0;
    for (int round = 0; round < 400; round++) {
        size_t n = 1 + (size_t)rand() % MOST, lists = 1 + (size_t)rand() % LISTS;
        uint64_t last[LISTS], step = (uint64_t)rand() % (round % 3 ? 4 : 200);
        uint64_t base = round % 5 == 0 ? UINT64_MAX - 3 * MOST * 200 : 0;
        for (size_t l = 0; l < lists; l++)
            last[l] = base + (uint64_t)rand() % 20;
        for (size_t i = 0; i < n;) {
            size_t l = (size_t)rand() % lists, batch = 1 + (size_t)rand() % 40;
            for (; batch > 0 && i < n; batch--, i++) {
                last[l] += (uint64_t)rand() % (step + 1);    /* 0: a tie within a list */
                t[i] = last[l];
            }
        }
        bool many = true;
        assert_int_equal(sc_order_times_in(t, n, order, &many), 0);
        assert_false(many);
        for (size_t i = 0; i < n; i++)
            want[i] = (time_at){t[i], (uint32_t)i};
        qsort(want, n, sizeof *want, sc_time_at_cmp);
        for (size_t k = 0; k < n; k++)
            assert_int_equal(order[k], want[k].at);
        tree_rounds += lists > 8;
    }
    assert_true(tree_rounds > 200);     /* most rounds took the tree */
    free(t);
    free(want);
    free(order);
}

static void test_piles_numbered_as_opened(void **state)
{
    (void)state;
    enum { N = 2000 };
    uint64_t *v = malloc(N * sizeof *v);
    uint8_t *pile = malloc(N);
    assert_non_null(v);
    assert_non_null(pile);
    srand(11);
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + (size_t)rand() % N;
        for (size_t i = 0; i < n; i++)   /* falling now and then: piles open late too */
            v[i] = rand() % 16 ? (uint64_t)i * 100 + (uint64_t)rand() % 300
                               : (uint64_t)rand() % (i * 100 + 1);
        size_t n_piles = sc_piles_deal(v, n, pile);
        if (n_piles == 0)
            continue;   /* too many: nothing numbered */
        size_t opened = 0;  /* each new number is the next one */
        for (size_t i = 0; i < n; i++) {
            assert_true(pile[i] <= opened);
            if (pile[i] == opened)
                opened++;
        }
        assert_int_equal(opened, n_piles);
    }
    free(v);
    free(pile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleaved_lists),
        cmocka_unit_test(test_starts_and_ends_alternating),
        cmocka_unit_test(test_in_order_and_single),
        cmocka_unit_test(test_descending_needs_too_many_piles),
        cmocka_unit_test(test_random_interleaved_against_qsort),
        cmocka_unit_test(test_tied_times_of_many_lists_against_qsort),
        cmocka_unit_test(test_piles_numbered_as_opened),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
