/* Communication kernels: which names are NCCL's, and comm time split into the part compute
 * hid and the exposed rest, worked out by hand; compute metrics leave comm kernels out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "synthetic.h"

static void test_names(void **state)
{
    (void)state;
    /* NCCL 2.19 on (mangled and demangled), 2.8-2.18, before 2.8, debug builds */
    assert_true(sc_kernel_is_comm(
        "_Z38ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"));
    assert_true(sc_kernel_is_comm("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"));
    assert_true(sc_kernel_is_comm("_Z21ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE"));
    assert_true(sc_kernel_is_comm("_Z38ncclKernel_AllReduce_RING_LL_Sum_floatP11ncclDevCommmP8ncclWork"));
    assert_true(sc_kernel_is_comm("ncclAllReduceRingLLKernel_sum_f32"));
    assert_true(sc_kernel_is_comm("ncclSendRecvKernel_copy_i8"));
    assert_true(sc_kernel_is_comm("ncclKernelDebug_AllGather_RING_LL_Sum_int8_t"));
    /* not kernels of NCCL's, or not NCCL's */
    assert_false(sc_kernel_is_comm("_Z28ncclDevFunc_AllReduce_Sum_f32v"));
    assert_false(sc_kernel_is_comm("ncclKernelMain"));
    assert_false(sc_kernel_is_comm("_Z4spinv"));
    assert_false(sc_kernel_is_comm("my_ncclKernel_copy"));
    assert_false(sc_kernel_is_comm("_Z30ncclKernel_x"));    /* a length past the name's end */
    assert_false(sc_kernel_is_comm("_Z5ncclKernel_AllReduce"));   /* the identifier is "ncclK" */
    assert_false(sc_kernel_is_comm(""));
    assert_false(sc_kernel_is_comm(NULL));
}

/* Device 0: compute A 0-100 and B 150-300 us; comm 50-200 (stream 30) and 250-400.
 * Comm union 50-200 and 250-400 = 300 us; compute covers 50-100, 150-200 and 250-300 of it,
 * 150 us; 150 us exposed. Compute alone: busy 250, sum 250, concurrency 1.00. */
static void test_overlapped_and_exposed(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_kernel(&s, 0, 20, US(0), US(100), 1);
    syn_kernel(&s, 0, 21, US(150), US(300), 2);
    sc_kernel *c1 = syn_kernel(&s, 0, 30, US(50), US(200), 3);
    sc_kernel *c2 = syn_kernel(&s, 0, 30, US(250), US(400), 4);
    syn_shape(&s, c1)->name =
        "_Z38ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
    syn_shape(&s, c2)->name = syn_shape(&s, c1)->name;
    /* device 1: one comm kernel alone, all of it exposed */
    syn_shape(&s, syn_kernel(&s, 1, 40, US(0), US(80), 5))->name = "ncclDevKernel_Generic";
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.n_devices, 2);
    const sc_comm *c = &a.devices[0].comm;
    assert_int_equal(c->kernel_count, 2);
    assert_int_equal(c->kernel_sum_ns, US(300));
    assert_int_equal(c->busy_ns, US(300));
    assert_int_equal(c->overlapped_ns, US(150));
    assert_int_equal(c->exposed_ns, US(150));
    const sc_overlap *m = &a.devices[0].overlap;
    assert_int_equal(m->kernel_count, 2);
    assert_int_equal(m->busy_ns, US(250));
    assert_int_equal(m->kernel_sum_ns, US(250));
    assert_true(m->concurrency == 1.0);
    assert_int_equal(m->overlap_ns, 0);
    assert_int_equal(a.devices[0].n_intervals_total, 0);
    assert_int_equal(a.devices[1].comm.exposed_ns, US(80));
    assert_int_equal(a.devices[1].comm.overlapped_ns, 0);
    assert_int_equal(a.devices[1].overlap.kernel_count, 0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Without comm kernels nothing changes: the comm block is zero. */
static void test_no_comm(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_kernel(&s, 0, 20, US(0), US(100), 1);
    syn_kernel(&s, 0, 21, US(50), US(150), 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.devices[0].comm.kernel_count, 0);
    assert_int_equal(a.devices[0].comm.busy_ns, 0);
    assert_int_equal(a.devices[0].overlap.kernel_count, 2);
    assert_int_equal(a.devices[0].overlap.overlap_ns, US(50));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_overlapped_and_exposed),
        cmocka_unit_test(test_no_comm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
