/* sc_rp_issue_orders, each slot's and each device's work in issue order merged from the
 * slots' runs (a slot's kernels, copies and memsets, each in issue order), against qsort of
 * each device's and each slot's work by (issue time, recorded start, position): the same
 * groups and the same orders, on work built to stress the merge: many equal issue times and
 * starts, one or two devices, up to 200 streams (more than the device merge's row of heads
 * takes: its tree of losers), work of no known stream; and work out of issue order within a
 * kind, which the merge leaves to the sort. Work of no known stream on two devices is not for
 * the merge (1). Fails on any tie broken the other way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/replay_parts.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t issue_at(const void *issue, size_t i)
{
    return ((const uint64_t *)issue)[i];
}

static const uint64_t *ref_starts;  /* per op, its recorded start */
static const uint64_t *ref_issue;

static int ref_cmp(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    if (ref_issue[a] != ref_issue[b])
        return ref_issue[a] < ref_issue[b] ? -1 : 1;
    if (ref_starts[a] != ref_starts[b])
        return ref_starts[a] < ref_starts[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

typedef struct shape {
    size_t kernels, copies, memsets, slots, devs;
    bool unknown;       /* some work of no known stream */
    bool shuffled;      /* some work out of issue order within its kind */
} shape;

/* The reference order of the ops that match (key: 0 device, 1 slot) value v. */
static size_t ref_group(const sc_replay *r, int key, uint32_t v, int32_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < r->n_ops; i++)
        if ((key == 0 ? r->ops[i].dev : r->op_slot[i]) == v)
            out[m++] = (int32_t)i;
    qsort(out, m, sizeof *out, ref_cmp);
    return m;
}

static void check(const shape *s, uint64_t *seed)
{
    size_t n = s->kernels + s->copies + s->memsets;
    sc_trace t = {.n_kernels = s->kernels, .n_copies = s->copies, .n_memsets = s->memsets};
    sc_ctx ctx = {.trace = &t};
    sc_rp_op *ops = calloc(n + 1, sizeof *ops);
    uint64_t *starts = calloc(n + 1, sizeof *starts);
    t.kernels = calloc(s->kernels + 1, sizeof *t.kernels);
    t.copies = calloc(s->copies + 1, sizeof *t.copies);
    t.memsets = calloc(s->memsets + 1, sizeof *t.memsets);
    uint32_t *slot = calloc(n + 1, sizeof *slot);
    uint64_t *issue = calloc(n + 1, sizeof *issue);
    int32_t *want = calloc(n + 1, sizeof *want);
    assert_non_null(ops);
    assert_non_null(starts);
    assert_non_null(t.kernels);
    assert_non_null(t.copies);
    assert_non_null(t.memsets);
    assert_non_null(slot);
    assert_non_null(issue);
    assert_non_null(want);
    /* a slot's device: slot % devs; the unknown slot's, one device unless devs > 1 */
    size_t counts[3] = {s->kernels, s->copies, s->memsets};
    for (size_t k = 0, i = 0; k < 3; k++) {
        uint64_t at = 1000;
        for (size_t j = 0; j < counts[k]; j++, i++) {
            at += rnd(seed) % 3;
            issue[i] = s->shuffled && rnd(seed) % 13 == 0 ? at - rnd(seed) % 4 : at;
            starts[i] = issue[i] + rnd(seed) % 3;
            if (k == 0)     /* where the replay reads it: the trace's record */
                t.kernels[j].rec.start_ns = starts[i];
            else if (k == 1)
                t.copies[j].start_ns = starts[i];
            else
                t.memsets[j].start_ns = starts[i];
            slot[i] = (uint32_t)(rnd(seed) % s->slots);
            if (s->unknown && rnd(seed) % 10 == 0)
                slot[i] = (uint32_t)s->slots;
            ops[i].dev = slot[i] < s->slots ? (uint32_t)(slot[i] % s->devs)
                                            : (uint32_t)(rnd(seed) % s->devs);
        }
    }
    bool spans = false;     /* work of no known stream on two devices */
    int64_t unknown_dev = -1;
    for (size_t i = 0; i < n; i++) {
        if (slot[i] != s->slots)
            continue;
        if (unknown_dev >= 0 && unknown_dev != ops[i].dev)
            spans = true;
        unknown_dev = ops[i].dev;
    }
    sc_replay r = {.ctx = &ctx, .ops = ops, .op_slot = slot, .n_ops = n, .n_slots = s->slots,
                   .n_devs = s->devs,
                   .records = {.kernels = t.kernels, .copies = t.copies, .memsets = t.memsets,
                              .n_kernels = s->kernels, .copies_end = s->kernels + s->copies}};
    assert_int_equal(sc_packed_times_make(&r.op_issue, n, issue, issue_at), 0);
    int rc = sc_rp_issue_orders(&r);
    if (spans) {
        assert_int_equal(rc, 1);
        assert_null(r.dev_order);
        assert_null(r.slot_ops);
    } else {
        assert_int_equal(rc, 0);
        ref_starts = starts;
        ref_issue = issue;
        for (uint32_t d = 0; d < s->devs; d++) {
            size_t m = ref_group(&r, 0, d, want);
            assert_int_equal(r.dev_count[d], m);
            assert_memory_equal(r.dev_order + r.dev_first[d], want, m * sizeof *want);
        }
        for (uint32_t sl = 0; sl <= s->slots; sl++) {
            size_t m = ref_group(&r, 1, sl, want);
            assert_int_equal(r.slot_count[sl], m);
            assert_memory_equal(r.slot_ops + r.slot_first[sl], want, m * sizeof *want);
        }
    }
    free(r.dev_first);
    free(r.dev_count);
    free(r.dev_order);
    free(r.slot_first);
    free(r.slot_count);
    free(r.slot_ops);
    sc_packed_times_free(&r.op_issue);
    free(ops);
    free(starts);
    free(t.kernels);
    free(t.copies);
    free(t.memsets);
    free(slot);
    free(issue);
    free(want);
}

static void test_merged_issue_orders_are_the_sorted_ones(void **state)
{
    (void)state;
    uint64_t seed = 88172645463325252ull;
    for (int rep = 0; rep < 300; rep++) {
        shape s = {.kernels = rnd(&seed) % 80, .copies = rnd(&seed) % 30,
                   .memsets = rnd(&seed) % 5, .slots = 1 + rnd(&seed) % 6,
                   .devs = 1 + rnd(&seed) % 2, .unknown = rep % 3 == 0};
        check(&s, &seed);
    }
    check(&(shape){.kernels = 30000, .copies = 8000, .memsets = 100, .slots = 5, .devs = 1,
                   .unknown = true}, &seed);
    /* more streams on a device than sc_rp_issue_merge's heads: the tree of losers, with
     * leaves to spare (17, 33 streams) and without (64), on one device or two */
    check(&(shape){.kernels = 3000, .copies = 800, .slots = 17, .devs = 1}, &seed);
    check(&(shape){.kernels = 3000, .copies = 800, .slots = 20, .devs = 1}, &seed);
    check(&(shape){.kernels = 3000, .copies = 800, .slots = 33, .devs = 1,
                   .unknown = true}, &seed);
    check(&(shape){.kernels = 3000, .copies = 800, .slots = 40, .devs = 2}, &seed);
    check(&(shape){.kernels = 20000, .copies = 5000, .memsets = 50, .slots = 64, .devs = 1},
          &seed);
    check(&(shape){.kernels = 4000, .copies = 1000, .slots = 200, .devs = 2}, &seed);
    for (int rep = 0; rep < 60; rep++) {
        shape s = {.kernels = rnd(&seed) % 400, .copies = rnd(&seed) % 100,
                   .memsets = rnd(&seed) % 5, .slots = 1 + rnd(&seed) % 80,
                   .devs = 1 + rnd(&seed) % 2, .unknown = rep % 3 == 0};
        check(&s, &seed);
    }
    check(&(shape){.slots = 2, .devs = 2}, &seed);     /* no work */
}

static void test_work_out_of_order_is_sorted(void **state)
{
    (void)state;
    uint64_t seed = 2463534242ull;
    for (int rep = 0; rep < 200; rep++) {
        shape s = {.kernels = 1 + rnd(&seed) % 80, .copies = rnd(&seed) % 30,
                   .memsets = rnd(&seed) % 5, .slots = 1 + rnd(&seed) % 4,
                   .devs = 1 + rnd(&seed) % 2, .unknown = rep % 4 == 0, .shuffled = true};
        check(&s, &seed);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_issue_orders_are_the_sorted_ones),
        cmocka_unit_test(test_work_out_of_order_is_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
