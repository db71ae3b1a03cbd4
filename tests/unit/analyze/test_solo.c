/* Productive speedup takes a kernel's solo time only from instances of the same work: same
 * name and launch shape, and a duration that sharing the device could explain (solo.h).
 * Device 0, streams 20 and 21 non-blocking; every number is worked out in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "synthetic.h"

/* One kernel: a warm-up alone, 0 .. 10 us, then two overlapped instances, 100 .. 5100 and
 * 110 .. 5110 us (two running at once). 5000 us is 500 x the warm-up: no sharing makes a
 * kernel that much slower (at most 1.5 x 2 x 10 = 30 us): the warm-up did other work (a loop
 * count of 10 instead of 200000), so the overlapped instances have no solo time and the
 * device's productive speedup is unknown, not 0.02x. */
static void test_warm_up_with_other_work_is_no_solo_time(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_kernel(&s, 0, 20, US(0), US(10), 1);
    syn_kernel(&s, 0, 20, US(100), US(5100), 2);
    syn_kernel(&s, 0, 21, US(110), US(5110), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_overlap *o = &a.devices[0].overlap;
    assert_int_equal(o->kernel_count, 3);
    assert_int_equal(o->solo_known, 1);
    assert_true(o->speedup == 0.0);
    assert_true(o->concurrency > 1.9);  /* they did overlap: (10 + 5000 + 5000) / 5020 */
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The same with the warm-up taking 100 us: 5000 us is more than 1.5 x 2 x 100 = 300 us, still
 * other work. With instances of 150 us beside each other (two at once, 150 <= 300, >= 90) the
 * median of the alone ones stands for them: solo sum 3 x 100 = 300 us over a busy time of 100
 * + 160 = 260 us (0 .. 100, then 100 .. 260): speedup 300 / 260. */
static void test_consistent_solo_instance_is_used(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_kernel(&s, 0, 20, US(0), US(100), 1);
    syn_kernel(&s, 0, 20, US(100), US(250), 2);
    syn_kernel(&s, 0, 21, US(110), US(260), 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_overlap *o = &a.devices[0].overlap;
    assert_int_equal(o->solo_known, 3);
    assert_int_equal(o->solo_sum_ns, US(300));
    assert_int_equal(o->busy_ns, US(260));
    assert_true(o->speedup > 300.0 / 260.0 - 1e-9 && o->speedup < 300.0 / 260.0 + 1e-9);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Instances of the same kernel are those of the same launch shape: kernel_a with block 128
 * ran alone for 100 and 120 us (an even count: the median is their mean, 110 us), kernel_a
 * with block 256 alone for 400 us. Then one instance of each shape beside the other (two at
 * once): each borrows its own shape's median (110 and 400 us, both within 0.9 x .. 1.5 x 2 x
 * of their 150 and 500 us), not the other's: solo sum 100 + 120 + 400 + 110 + 400 us. */
static void test_each_launch_shape_has_its_own_median(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_kernel(&s, 0, 20, US(0), US(100), 1);
    syn_kernel(&s, 0, 20, US(100), US(220), 2);
    syn_shape(&s, syn_kernel(&s, 0, 20, US(300), US(700), 3))->block_x = 256;
    syn_kernel(&s, 0, 20, US(1000), US(1150), 4);
    syn_shape(&s, syn_kernel(&s, 0, 21, US(1000), US(1500), 5))->block_x = 256;
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_overlap *o = &a.devices[0].overlap;
    assert_int_equal(o->kernel_count, 5);
    assert_int_equal(o->solo_known, 5);
    assert_int_equal(o->solo_sum_ns, US(100 + 120 + 400 + 110 + 400));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warm_up_with_other_work_is_no_solo_time),
        cmocka_unit_test(test_consistent_solo_instance_is_used),
        cmocka_unit_test(test_each_launch_shape_has_its_own_median),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
