/* sc_rp_issue_sort, the replay's issue order (issue time, recorded start, position), against
 * qsort with that comparator: random work with many equal issue times and recorded starts,
 * taken whole and as subsets (a device's or a slot's work), in lengths 0-300 and 5000 (where
 * the times are ordered as keys, not by the comparator). Fails when the work issued at one
 * time is left in position order, or put in order by anything else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/replay_parts.h"

static const uint64_t *ref_starts;
static const uint64_t *ref_issue;

static int ref_cmp(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    if (ref_issue[a] != ref_issue[b])
        return ref_issue[a] < ref_issue[b] ? -1 : 1;
    uint64_t sa = ref_starts[a], sb = ref_starts[b];
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return a < b ? -1 : a > b;
}

static uint64_t issue_at(const void *issue, size_t i)
{
    return ((const uint64_t *)issue)[i];
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* n ops whose issue times take `times` values (nearly in position order when `drift`) and
 * recorded starts `n_starts` values; every `stride`-th position sorted, against qsort. */
static void check(size_t n, uint64_t times, uint64_t n_starts, bool drift, size_t stride,
                  uint64_t *seed)
{
    sc_rp_op *ops = calloc(n ? n : 1, sizeof *ops);
    sc_kernel *kernels = calloc(n ? n : 1, sizeof *kernels);   /* the ops' recorded starts */
    uint64_t *starts = calloc(n ? n : 1, sizeof *starts);
    uint64_t *issue = calloc(n ? n : 1, sizeof *issue);
    int32_t *got = calloc(n ? n : 1, sizeof *got), *want = calloc(n ? n : 1, sizeof *want);
    assert_non_null(ops);
    assert_non_null(kernels);
    assert_non_null(starts);
    assert_non_null(issue);
    assert_non_null(got);
    assert_non_null(want);
    for (size_t i = 0; i < n; i++) {
        issue[i] = 1000000 + (drift ? i / 4 + rnd(seed) % times : rnd(seed) % times);
        starts[i] = issue[i] + rnd(seed) % n_starts;
        kernels[i].rec.start_ns = starts[i];
    }
    sc_replay r = {.ops = ops, .n_ops = n,
                   .records = {.kernels = kernels, .n_kernels = n, .copies_end = n}};
    assert_int_equal(sc_packed_times_make(&r.op_issue, n, issue, issue_at), 0);
    size_t m = 0;
    for (size_t i = 0; i < n; i += stride)
        got[m] = want[m] = (int32_t)i, m++;
    ref_starts = starts;
    ref_issue = issue;
    qsort(want, m, sizeof *want, ref_cmp);
    assert_int_equal(sc_rp_issue_sort(&r, got, m), 0);
    assert_memory_equal(got, want, m * sizeof *got);
    sc_packed_times_free(&r.op_issue);
    free(ops);
    free(kernels);
    free(starts);
    free(issue);
    free(got);
    free(want);
}

static void test_issue_order_is_the_comparators(void **state)
{
    (void)state;
    uint64_t seed = 88172645463325252ull;
    for (size_t n = 0; n <= 300; n++) {
        check(n, 7, 3, false, 1, &seed);
        check(n, 50, 2, true, 1, &seed);
        check(n, 3, 5, false, 2, &seed);
        check(n, 1, 4, false, 1, &seed);     /* all issued at once */
    }
    check(5000, 40, 3, true, 1, &seed);
    check(5000, 1000, 2, false, 3, &seed);
    check(5000, 2, 1000, false, 1, &seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_order_is_the_comparators),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
