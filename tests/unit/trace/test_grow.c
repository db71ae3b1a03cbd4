/* sc_grow and SC_GROW: room for what was asked, doubling from the first capacity, the
 * elements kept; no realloc when there is room; a size past size_t refused before any
 * allocation; and a failed realloc (made to fail here through the linker's --wrap) leaves the
 * array and its capacity as they were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/grow.h"

/* realloc as grow.c calls it (-Wl,--wrap=realloc): counted, and failing while told to. */
void *__real_realloc(void *p, size_t size);
static size_t reallocs;
static bool fail_realloc;

void *__wrap_realloc(void *p, size_t size)
{
    reallocs++;
    return fail_realloc ? NULL : __real_realloc(p, size);
}

static void test_doubles_from_first(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    reallocs = 0;
    assert_true(SC_GROW(v, cap, 1, 16));
    assert_non_null(v);
    assert_int_equal(cap, 16);
    for (int i = 0; i < 16; i++)
        v[i] = i;
    assert_true(SC_GROW(v, cap, 17, 16));
    assert_int_equal(cap, 32);
    assert_true(SC_GROW(v, cap, 100, 16));   /* doubled until it holds: 32 -> 64 -> 128 */
    assert_int_equal(cap, 128);
    for (int i = 0; i < 16; i++)
        assert_int_equal(v[i], i);
    v[127] = 1;                              /* in the block (ASan/valgrind would say) */
    assert_int_equal(reallocs, 3);
    free(v);
}

/* Room already there: nothing allocated, nothing moved, also for nothing needed. */
static void test_room_left_alone(void **state)
{
    (void)state;
    size_t cap = 8;
    double *v = malloc(cap * sizeof *v), *was = v;
    assert_non_null(v);
    reallocs = 0;
    assert_true(SC_GROW(v, cap, 8, 16));
    assert_true(SC_GROW(v, cap, 0, 16));
    assert_ptr_equal(v, was);
    assert_int_equal(cap, 8);
    assert_int_equal(reallocs, 0);
    free(v);
}

/* A first capacity of 0 still gives room (1, then doubled). */
static void test_first_zero(void **state)
{
    (void)state;
    char *s = NULL;
    size_t cap = 0;
    assert_true(SC_GROW(s, cap, 3, 0));
    assert_int_equal(cap, 4);
    free(s);
}

/* Sizes that do not fit in a size_t: refused without calling realloc (a wrapped
 * multiplication would ask for a small block and report the huge capacity). */
static void test_overflow(void **state)
{
    (void)state;
    uint64_t *v = malloc(4 * sizeof *v), *was = v;
    assert_non_null(v);
    size_t cap = 4;
    reallocs = 0;
    /* The doubled capacity fits in a size_t, its bytes do not. */
    assert_false(SC_GROW(v, cap, SIZE_MAX / sizeof *v + 1, 16));
    /* Doubling itself would wrap. */
    assert_false(SC_GROW(v, cap, SIZE_MAX, 16));
    size_t big = SIZE_MAX / 2 + 1;           /* a capacity that cannot be doubled */
    void *raw = v;
    assert_false(sc_grow_slow(&raw, &big, big + 1, 1, 16));
    assert_int_equal(big, SIZE_MAX / 2 + 1);
    assert_int_equal(reallocs, 0);
    assert_ptr_equal(v, was);
    assert_int_equal(cap, 4);
    free(v);
}

/* realloc fails: the caller still has its block, its elements and its capacity. */
static void test_failure_leaves_array(void **state)
{
    (void)state;
    size_t cap = 0;
    int *v = NULL;
    assert_true(SC_GROW(v, cap, 4, 4));
    for (int i = 0; i < 4; i++)
        v[i] = 10 + i;
    int *was = v;
    fail_realloc = true;
    bool grown = SC_GROW(v, cap, 5, 4);
    fail_realloc = false;
    assert_false(grown);
    assert_ptr_equal(v, was);
    assert_int_equal(cap, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(v[i], 10 + i);
    free(v);

    /* Nothing allocated yet: still nothing. */
    int *none = NULL;
    size_t none_cap = 0;
    fail_realloc = true;
    grown = SC_GROW(none, none_cap, 1, 16);
    fail_realloc = false;
    assert_false(grown);
    assert_null(none);
    assert_int_equal(none_cap, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubles_from_first),
        cmocka_unit_test(test_room_left_alone),
        cmocka_unit_test(test_first_zero),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_failure_leaves_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
