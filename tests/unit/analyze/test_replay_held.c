/* sc_rp_held_by_work, the work that held each late piece found in one walk over the ops
 * (through a bitmap of the late pieces' windows), against the search it replaced: every op
 * sorted by (recorded end, position), then from the last one ending at or before the piece's
 * start back while within the window, the first of its device and another stream that
 * started before the piece's model. Ops with many equal ends, on two devices and a few
 * streams, late pieces with windows that overlap, that hold nothing, that start near 0 or
 * far apart (past the bitmap's reach), a few that ran longer than 32 bits of nanoseconds
 * hold (read off their records: sc_rp_rec_end). Fails on any tie broken the other way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/replay_parts.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const uint64_t *ref_ends;     /* per op, its recorded end */

static int by_end_cmp(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    if (ref_ends[a] != ref_ends[b])
        return ref_ends[a] < ref_ends[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The search before: the ops by end, back from the last that ended by the piece's start. */
static int32_t ref_held(const sc_rp_op *ops, const uint64_t *starts, const uint64_t *ends,
                        const uint32_t *slots, const int32_t *by_end, size_t n, int32_t late,
                        uint64_t model)
{
    const sc_rp_op *o = &ops[late];
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ends[by_end[mid]] <= starts[late])
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k-- > 0;) {
        const sc_rp_op *h = &ops[by_end[k]];
        if (ends[by_end[k]] + SC_RP_HELD_WINDOW_NS < starts[late])
            break;
        if (h->dev == o->dev && slots[by_end[k]] != slots[late] && starts[by_end[k]] < model)
            return by_end[k];
    }
    return SC_RP_NONE;
}

static void check(size_t n, uint64_t spread, size_t n_late, bool far, uint64_t *seed)
{
    sc_rp_op *ops = calloc(n, sizeof *ops);
    sc_kernel *kernels = calloc(n, sizeof *kernels);    /* the ops' recorded starts */
    uint64_t *starts = calloc(n, sizeof *starts);
    uint64_t *ends = calloc(n, sizeof *ends);
    uint32_t *slots = calloc(n, sizeof *slots);
    int32_t *by_end = calloc(n, sizeof *by_end);
    sc_rp_sparse *lates = calloc(n_late, sizeof *lates);
    sc_rp_pending *p = calloc(n_late, sizeof *p);
    uint64_t *models = calloc(n_late, sizeof *models);
    assert_non_null(ops);
    assert_non_null(kernels);
    assert_non_null(starts);
    assert_non_null(ends);
    assert_non_null(slots);
    assert_non_null(by_end);
    assert_non_null(lates);
    assert_non_null(p);
    assert_non_null(models);
    for (size_t i = 0; i < n; i++) {
        starts[i] = rnd(seed) % spread;
        if (far && i % 7 == 0)
            starts[i] += (uint64_t)1 << 50;
        kernels[i].rec.start_ns = starts[i];
        uint64_t dur = rnd(seed) % 3 == 0 ? 0 : rnd(seed) % 20000;
        if (rnd(seed) % 50 == 0)
            dur += UINT32_MAX - 10 + rnd(seed) % 20;    /* its field's mark, or past it */
        ends[i] = starts[i] + dur;
        kernels[i].rec.end_ns = ends[i];
        ops[i].dev = (uint32_t)(rnd(seed) % 2);
        slots[i] = (uint32_t)(rnd(seed) % 3);
        by_end[i] = (int32_t)i;
    }
    ref_ends = ends;
    qsort(by_end, n, sizeof *by_end, by_end_cmp);
    for (size_t k = 0; k < n_late; k++) {
        int32_t i = (int32_t)(rnd(seed) % n);
        uint64_t model = starts[i] > 25000 ? starts[i] - rnd(seed) % 25000 : starts[i];
        lates[k] = (sc_rp_sparse){.index = i, .other = SC_RP_NONE};
        p[k] = (sc_rp_pending){.start = starts[i], .model = model, .late = k};
        models[k] = model;
    }
    sc_replay r = {.ops = ops, .n_ops = n, .op_slot = slots,
                   .records = {.kernels = kernels, .n_kernels = n, .copies_end = n},
                   .lates = lates, .n_lates = n_late};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(sc_rp_rec_end(&r, (int32_t)i), ends[i]);
        assert_int_equal(sc_rp_rec_dur(&r, (int32_t)i), ends[i] - starts[i]);
    }
    assert_int_equal(sc_rp_held_by_work(&r, p, n_late), 0);
    for (size_t k = 0; k < n_late; k++)
        assert_int_equal(lates[k].other,
                         ref_held(ops, starts, ends, slots, by_end, n, lates[k].index,
                                  models[k]));
    free(ops);
    free(kernels);
    free(starts);
    free(ends);
    free(slots);
    free(by_end);
    free(lates);
    free(p);
    free(models);
}

static void test_held_work_is_the_searchs(void **state)
{
    (void)state;
    uint64_t seed = 88172645463325252ull;
    for (int rep = 0; rep < 200; rep++)
        check(1 + rnd(&seed) % 300, 1 + rnd(&seed) % 400000, 1 + rnd(&seed) % 20,
              rep % 9 == 0, &seed);
    check(20000, 2000000, 300, false, &seed);
    check(20000, 50000, 2000, false, &seed);    /* windows everywhere */
    check(5000, 3000000000ull, 50, true, &seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held_work_is_the_searchs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
