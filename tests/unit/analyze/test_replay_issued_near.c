/* sc_rp_last_issued_near, the lookup from where a slot's last one ended, against
 * sc_rp_last_issued_before, the search of the whole slot: the same work and the same count
 * issued before, for times that ascend (the barrier's walk), that mostly ascend (the event
 * records), that descend and that jump at random, from every kind of start (0, the slot's
 * count, a stale position past it), over slots with runs of equal issue times and times far
 * apart (the packed times' far list). Fails on any off-by-one of the two searches. */
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

static uint64_t issue_of(const void *ctx, size_t i)
{
    return ((const uint64_t *)ctx)[i];
}

enum { SLOTS = 3 };

/* One device's n ops, issued in position order, dealt to SLOTS slots at random. */
typedef struct world {
    sc_replay r;
    uint64_t *issue;
    size_t dev_first, dev_count;
    size_t slot_first[SLOTS + 1], slot_count[SLOTS + 1];
} world;

static void world_make(world *w, size_t n, uint64_t *seed)
{
    *w = (world){0};
    sc_rp_op *ops = calloc(n ? n : 1, sizeof *ops);
    w->issue = calloc(n ? n : 1, sizeof *w->issue);
    int32_t *slot_ops = calloc(n ? n : 1, sizeof *slot_ops);
    uint32_t *slot = calloc(n ? n : 1, sizeof *slot);
    assert_non_null(ops);
    assert_non_null(slot);
    assert_non_null(w->issue);
    assert_non_null(slot_ops);
    uint64_t t = 1000;
    for (size_t i = 0; i < n; i++) {
        uint64_t step = rnd(seed) % 8;
        t += step < 3 ? 0 : step < 7 ? rnd(seed) % 50 : (uint64_t)1 << 33;  /* ties, far */
        w->issue[i] = t;
        ops[i].dev = 0;
        slot[i] = (uint32_t)(rnd(seed) % SLOTS);
        w->slot_count[slot[i]]++;
    }
    for (size_t s = 1; s <= SLOTS; s++)
        w->slot_first[s] = w->slot_first[s - 1] + w->slot_count[s - 1];
    size_t fill[SLOTS] = {0};
    for (size_t i = 0; i < n; i++)
        slot_ops[w->slot_first[slot[i]] + fill[slot[i]]++] = (int32_t)i;
    w->dev_count = n;
    w->r = (sc_replay){.ops = ops, .n_ops = n, .n_slots = SLOTS, .n_devs = 1,
                       .dev_first = &w->dev_first, .dev_count = &w->dev_count,
                       .slot_first = w->slot_first, .slot_count = w->slot_count,
                       .slot_ops = slot_ops, .op_slot = slot};
    assert_int_equal(sc_packed_times_make(&w->r.op_issue, n, w->issue, issue_of), 0);
}

static void world_free(world *w)
{
    free(w->r.ops);
    free(w->r.slot_ops);
    free(w->r.op_slot);
    free(w->issue);
    sc_packed_times_free(&w->r.op_issue);
}

/* A time to look up: an op's issue time, just below or above one, or past every op. */
static uint64_t query(const world *w, uint64_t *seed)
{
    size_t n = w->r.n_ops;
    if (n == 0 || rnd(seed) % 16 == 0)
        return rnd(seed) % 2 ? 0 : UINT64_MAX;
    uint64_t t = w->issue[rnd(seed) % n];
    switch (rnd(seed) % 3) {
    case 0: return t;
    case 1: return t - 1;
    default: return t + 1;
    }
}

/* The lookup from *near against the whole search, *near carried on as the walks carry it. */
static void check_one(const world *w, uint32_t slot, uint64_t at, size_t *near)
{
    size_t want_pos = 0;
    int32_t want = sc_rp_last_issued_before(&w->r, slot, at, &want_pos);
    int32_t got = sc_rp_last_issued_near(&w->r, slot, at, near);
    assert_int_equal(got, want);
    assert_int_equal(*near, want_pos);
}

static void check_world(size_t n, uint64_t *seed)
{
    world w;
    world_make(&w, n, seed);
    for (uint32_t slot = 0; slot < SLOTS; slot++) {
        size_t count = w.slot_count[slot];
        /* ascending: every op's own issue time, in order, as the barrier walks them */
        size_t near = 0;
        for (size_t k = 0; k < n; k++)
            check_one(&w, slot, w.issue[k], &near);
        /* mostly ascending, descending and random, from 0, the count and past it */
        size_t starts[] = {0, count, count + 5};
        for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
            near = starts[s];
            uint64_t at[64];
            for (size_t k = 0; k < 64; k++)
                at[k] = query(&w, seed);
            for (size_t k = 0; k < 64; k++)
                check_one(&w, slot, at[k], &near);
            near = starts[s];
            for (size_t k = 64; k-- > 0;)
                check_one(&w, slot, at[k], &near);
            near = starts[s] > count ? count : starts[s];
            for (size_t k = 0; k < 64; k++) {
                /* positions spread over the run, a random time now and then */
                uint64_t t = n == 0 || k % 8 == 7 ? query(&w, seed) : w.issue[k * n / 64];
                check_one(&w, slot, t, &near);
            }
        }
    }
    world_free(&w);
}

static void test_against_whole_search(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    const size_t sizes[] = {0, 1, 2, 3, 7, 64, 65, 300, 5000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int round = 0; round < 4; round++)
            check_world(sizes[k], &seed);
}

/* A slot the replay does not keep work for (work of no known stream) has none. */
static void test_unknown_slot(void **state)
{
    (void)state;
    uint64_t seed = 7;
    world w;
    world_make(&w, 10, &seed);
    size_t near = 3;
    assert_int_equal(sc_rp_last_issued_near(&w.r, SLOTS, UINT64_MAX, &near), SC_RP_NONE);
    assert_int_equal(near, 3);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_whole_search),
        cmocka_unit_test(test_unknown_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
