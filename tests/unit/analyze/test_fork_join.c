/* sc_fork_join (fork_join.h): both parts run, on two threads when asked and in turn
 * otherwise; a failure of either is the call's; and the stage table's rows come out in the
 * same order either way, the second part's marked as run beside when it ran on a thread of
 * its own. In the unit suite, which CI's ThreadSanitizer build runs. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/fork_join.h"
#include "analyze/stage_clock.h"

typedef struct part_state {
    const char *stage;          /* marked when the part ends */
    int rc;                     /* what it returns */
    bool ran;
    pthread_t thread;           /* where it ran */
    int *cell;                  /* written by this part alone */
} part_state;

static int part(void *arg)
{
    part_state *p = arg;
    p->ran = true;
    p->thread = pthread_self();
    for (int i = 0; i < 1000; i++)
        p->cell[i % 8] += i;
    sc_stage_mark(p->stage);
    return p->rc;
}

static void run(bool two, int rc_here, int rc_there, part_state *here, part_state *there,
                int *rc)
{
    static int cells[2][8];
    memset(cells, 0, sizeof cells);
    *here = (part_state){.stage = "here", .rc = rc_here, .cell = cells[0]};
    *there = (part_state){.stage = "there", .rc = rc_there, .cell = cells[1]};
    *rc = sc_fork_join(two, (sc_part){part, here}, (sc_part){part, there});
}

static void test_in_turn_on_this_thread(void **state)
{
    (void)state;
    part_state a, b;
    int rc;
    run(false, 0, 0, &a, &b, &rc);
    assert_int_equal(rc, 0);
    assert_true(a.ran && b.ran);
    assert_true(pthread_equal(a.thread, pthread_self()) && pthread_equal(b.thread, a.thread));
    run(false, -1, 0, &a, &b, &rc);     /* the first failed: the second is not run */
    assert_int_equal(rc, -1);
    assert_true(a.ran && !b.ran);
    run(false, 0, -1, &a, &b, &rc);
    assert_int_equal(rc, -1);
}

static void test_side_by_side_on_two_threads(void **state)
{
    (void)state;
    part_state a, b;
    int rc;
    run(true, 0, 0, &a, &b, &rc);
    assert_int_equal(rc, 0);
    assert_true(a.ran && b.ran);
    assert_true(pthread_equal(a.thread, pthread_self()));
    assert_false(pthread_equal(b.thread, pthread_self()));
    for (int fail = 0; fail < 2; fail++) {  /* both run; either's failure is the call's */
        run(true, fail ? 0 : -1, fail ? -1 : 0, &a, &b, &rc);
        assert_int_equal(rc, -1);
        assert_true(a.ran && b.ran);
    }
}

static void test_the_stage_rows_in_the_same_order_either_way(void **state)
{
    (void)state;
    for (int two = 0; two < 2; two++) {
        part_state a, b;
        int rc;
        sc_stage_clock_begin();
        run(two, 0, 0, &a, &b, &rc);
        sc_stage_mark("after");
        sc_stage_rows rows;
        sc_stage_clock_end(&rows);
        assert_int_equal(rc, 0);
        assert_int_equal(rows.n, 3);
        assert_string_equal(rows.rows[0].name, "here");
        assert_string_equal(rows.rows[1].name, "there");
        assert_string_equal(rows.rows[2].name, "after");
        assert_false(rows.rows[0].beside);
        assert_int_equal(rows.rows[1].beside, two);
        assert_false(rows.rows[2].beside);
    }
    /* with this thread's clock off, the side keeps none either */
    part_state a, b;
    int rc;
    run(true, 0, 0, &a, &b, &rc);
    sc_stage_rows rows;
    sc_stage_clock_end(&rows);
    assert_int_equal(rows.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_turn_on_this_thread),
        cmocka_unit_test(test_side_by_side_on_two_threads),
        cmocka_unit_test(test_the_stage_rows_in_the_same_order_either_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
