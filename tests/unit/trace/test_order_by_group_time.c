/* sc_order_by_group_time against qsort by (group, time, position): groups interleaved as a
 * few threads' calls are (in time order within each, and shuffled), one group, as many groups
 * as positions, neighbouring group ids, ties of time within a group and across groups, times
 * near the top of the 64-bit range, and groups up to UINT32_MAX. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/order_by_time.h"

typedef struct ref_node {
    uint32_t group;
    uint64_t time;
    uint32_t position;
} ref_node;

static int ref_cmp(const void *pa, const void *pb)
{
    const ref_node *x = pa, *y = pb;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->position < y->position ? -1 : x->position > y->position;
}

static uint64_t time_at(const void *ctx, size_t position)
{
    return ((const uint64_t *)ctx)[position];
}

/* Orders n positions of the given groups and times both ways and compares. */
static void check(const uint32_t *group, const uint64_t *time, size_t n)
{
    ref_node *ref = malloc((n ? n : 1) * sizeof *ref);
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    uint32_t *got = malloc((n ? n : 1) * sizeof *got);
    assert_non_null(ref);
    assert_non_null(v);
    assert_non_null(got);
    for (size_t i = 0; i < n; i++) {
        ref[i] = (ref_node){group[i], time[i], (uint32_t)i};
        v[i] = (uint64_t)group[i] << 32 | i;
    }
    qsort(ref, n, sizeof *ref, ref_cmp);
    assert_int_equal(sc_order_by_group_time(v, n, time, time_at, got), 0);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(got[k], ref[k].position);
    free(ref);
    free(v);
    free(got);
}

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* n positions over n_groups groups (each group's ids spread over the 32 bits), times from
 * base: each group's in ascending order (every seventh tied with the one before) when
 * `in_order`, else pseudo-random below spread. */
static void check_random(size_t n, uint32_t n_groups, uint64_t base, uint64_t spread,
                         int in_order, uint64_t seed)
{
    uint32_t *group = malloc(n * sizeof *group);
    uint64_t *time = malloc(n * sizeof *time);
    uint64_t *last = calloc(n_groups, sizeof *last);
    assert_non_null(group);
    assert_non_null(time);
    assert_non_null(last);
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        uint32_t g = (uint32_t)(xorshift(&x) % n_groups);
        group[i] = g * (UINT32_MAX / n_groups);
        if (in_order) {
            last[g] += i % 7 == 0 ? 0 : xorshift(&x) % 1000;
            time[i] = base + last[g];
        } else {
            time[i] = base + (spread ? xorshift(&x) % spread : 0);
        }
    }
    check(group, time, n);
    free(group);
    free(time);
    free(last);
}

static void test_threads_in_time_order(void **state)
{
    (void)state;
    check_random(5000, 3, 1000, 0, 1, 88172645463325252u);
    check_random(5000, 40, 1000, 0, 1, 12345);
    check_random(300, 1, 1000, 0, 1, 777);
}

static void test_shuffled(void **state)
{
    (void)state;
    check_random(5000, 3, 1000, 100000, 0, 42);
    check_random(5000, 5000, 1000, 100000, 0, 43);
    check_random(5000, 2, 5, 4, 0, 44);     /* ties everywhere */
    check_random(2000, 7, UINT64_MAX - 1000000, 1000000, 0, 45);
    check_random(2000, 7, 0, UINT64_MAX, 0, 46);   /* past what 64-bit keys hold */
}

/* Neighbouring group ids (a thread's id one above another's), times against their order. */
static void test_neighbouring_groups(void **state)
{
    (void)state;
    enum { N = 1000 };
    uint32_t group[N];
    uint64_t time[N];
    for (size_t i = 0; i < N; i++) {
        group[i] = (uint32_t)(i % 4);
        time[i] = 5000 - i;
    }
    check(group, time, N);
}

static void test_edges(void **state)
{
    (void)state;
    check(NULL, NULL, 0);
    uint32_t group[] = {UINT32_MAX, 0, UINT32_MAX, 0, 5};
    uint64_t time[] = {3, 9, 1, 9, UINT64_MAX};
    check(group, time, 5);
    check(group, time, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_in_time_order),
        cmocka_unit_test(test_shuffled),
        cmocka_unit_test(test_neighbouring_groups),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
