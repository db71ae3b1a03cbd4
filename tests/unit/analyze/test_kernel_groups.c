/* The kernels grouped by (device, context, name) (src/analyze/kernel_groups.c): the groups in
 * that order, each one's first launch by (issue time, index), its count, and its launches
 * gathered only when asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/kernel_groups.h"

enum { MAX_KERNELS = 4096, MAX_KINDS = 512, MAX_SHAPES = 2048 };

static sc_kernel kernels[MAX_KERNELS];
/* How the test's kernels were launched (name and the rest), by kind; the trace's shapes are
 * those with where each ran (device, context), as the loader makes them, and the kind of each. */
static sc_kernel_shape kinds[MAX_KINDS];
static sc_kernel_shape shapes[MAX_SHAPES];
static uint32_t shape_kind[MAX_SHAPES];
static sc_launch launches[MAX_KERNELS];
static sc_trace trace;

static void reset(void)
{
    memset(kernels, 0, sizeof kernels);
    memset(kinds, 0, sizeof kinds);
    memset(shapes, 0, sizeof shapes);
    memset(launches, 0, sizeof launches);
    memset(&trace, 0, sizeof trace);
    trace.kernels = kernels;
    trace.kernel_shapes = shapes;
}

/* A kernel of kind `kind` on (device, context), issued at `issue`: of the shape of that kind
 * and place, a new one if none is yet. */
static void add(uint32_t device, uint32_t context, uint32_t kind, uint64_t issue)
{
    size_t s = 0, launch = SIZE_MAX;
    for (; s < trace.n_kernel_shapes; s++) {
        if (shape_kind[s] != kind)
            continue;
        if (launch == SIZE_MAX)
            launch = s;
        if (shapes[s].device == device && shapes[s].context_id == context)
            break;
    }
    if (s == trace.n_kernel_shapes) {
        assert_true(s < MAX_SHAPES);
        shapes[s] = kinds[kind];
        shapes[s].device = device;
        shapes[s].context_id = context;
        shapes[s].launch = (uint32_t)(launch == SIZE_MAX ? s : launch);
        shape_kind[s] = kind;
        trace.n_kernel_shapes++;
    }
    size_t k = trace.n_kernels++;
    /* issued at its own start: a launch without a call (sc_launch_issue) */
    kernels[k] = (sc_kernel){.rec = {.start_ns = issue, .end_ns = issue, .shape = (uint32_t)s}};
    launches[k] = (sc_launch){.call = SC_LAUNCH_NO_CALL, .front_work = SC_LAUNCH_NO_FRONT};
}

static void groups_in_order_with_their_first_launch(void **state)
{
    (void)state;
    reset();
    kinds[0].name_id = 9;
    kinds[1].name_id = 4;
    kinds[2].name_id = 9;       /* another shape of the same name: the same kernel */
    add(1, 5, 0, 100);          /* 0: (1, 5, 9) */
    add(0, 5, 1, 200);          /* 1: (0, 5, 4) */
    add(1, 5, 2, 50);           /* 2: (1, 5, 9), issued before kernel 0 */
    add(0, 5, 1, 200);          /* 3: (0, 5, 4), issued with kernel 1: 1 stays first */
    add(1, 2, 0, 10);           /* 4: (1, 2, 9) */
    sc_kernel_groups g;
    assert_int_equal(sc_kernel_groups_build(&trace, launches, &g), 0);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.groups[0].device, 0);
    assert_int_equal(g.groups[0].name_id, 4);
    assert_int_equal(g.groups[0].first, 1);
    assert_int_equal(g.groups[0].count, 2);
    assert_int_equal(g.groups[1].device, 1);
    assert_int_equal(g.groups[1].context_id, 2);
    assert_int_equal(g.groups[1].first, 4);
    assert_int_equal(g.groups[1].count, 1);
    assert_int_equal(g.groups[2].context_id, 5);
    assert_int_equal(g.groups[2].name_id, 9);
    assert_int_equal(g.groups[2].first, 2);
    assert_int_equal(g.groups[2].count, 2);

    g.groups[0].gather = true;
    g.groups[2].gather = true;
    assert_int_equal(sc_kernel_groups_gather(&trace, &g), 0);
    const size_t *m0 = &g.members[g.groups[0].members_at];
    const size_t *m2 = &g.members[g.groups[2].members_at];
    assert_int_equal(m0[0], 1);
    assert_int_equal(m0[1], 3);
    assert_int_equal(m2[0], 0);
    assert_int_equal(m2[1], 2);
    assert_int_not_equal(g.groups[0].members_at, g.groups[2].members_at);
    sc_kernel_groups_free(&g);
}

/* Hundreds of groups (the table grows several times), checked against a count made by
 * comparing every kernel with every group's triple. */
static void many_groups_against_a_plain_count(void **state)
{
    (void)state;
    reset();
    for (uint32_t s = 0; s < 300; s++)
        kinds[s].name_id = 1000 - s;
    uint64_t seed = 12345;
    for (size_t k = 0; k < MAX_KERNELS; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        add((uint32_t)(seed >> 60) % 2, 7 + (uint32_t)(seed >> 50) % 2,
            (uint32_t)((seed >> 33) % 300), (seed >> 20) % 5000);
    }
    sc_kernel_groups g;
    assert_int_equal(sc_kernel_groups_build(&trace, launches, &g), 0);
    size_t total = 0;
    for (size_t i = 0; i < g.n; i++) {
        const sc_kernel_group *x = &g.groups[i];
        if (i > 0) {    /* strictly ascending triples */
            const sc_kernel_group *p = &g.groups[i - 1];
            assert_true(p->device < x->device ||
                        (p->device == x->device && (p->context_id < x->context_id ||
                                                    (p->context_id == x->context_id &&
                                                     p->name_id < x->name_id))));
        }
        size_t count = 0, first = SIZE_MAX;
        for (size_t k = 0; k < trace.n_kernels; k++) {
            if (sc_kernel_device(&trace, &kernels[k]) != x->device ||
                sc_kernel_context(&trace, &kernels[k]) != x->context_id ||
                shapes[kernels[k].rec.shape].name_id != x->name_id)
                continue;
            count++;
            if (first == SIZE_MAX || kernels[k].rec.start_ns < kernels[first].rec.start_ns)
                first = k;
        }
        assert_int_equal(x->count, count);
        assert_int_equal(x->first, first);
        total += count;
        g.groups[i].gather = i % 3 == 0;
    }
    assert_int_equal(total, trace.n_kernels);
    assert_true(g.n > 600);
    assert_int_equal(sc_kernel_groups_gather(&trace, &g), 0);
    for (size_t i = 0; i < g.n; i += 3) {
        const sc_kernel_group *x = &g.groups[i];
        for (size_t j = 0; j < x->count; j++) {
            size_t k = g.members[x->members_at + j];
            assert_int_equal(sc_kernel_device(&trace, &kernels[k]), x->device);
            assert_int_equal(sc_kernel_context(&trace, &kernels[k]), x->context_id);
            assert_int_equal(shapes[kernels[k].rec.shape].name_id, x->name_id);
            if (j > 0)
                assert_true(g.members[x->members_at + j - 1] < k);
        }
    }
    sc_kernel_groups_free(&g);
}

static void no_kernels_no_groups(void **state)
{
    (void)state;
    reset();
    sc_kernel_groups g;
    assert_int_equal(sc_kernel_groups_build(&trace, launches, &g), 0);
    assert_int_equal(g.n, 0);
    assert_int_equal(sc_kernel_groups_gather(&trace, &g), 0);
    sc_kernel_groups_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(groups_in_order_with_their_first_launch),
        cmocka_unit_test(many_groups_against_a_plain_count),
        cmocka_unit_test(no_kernels_no_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
