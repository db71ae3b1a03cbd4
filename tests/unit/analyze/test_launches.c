/* sc_launches_build's walk order: each device's work by issue time, then start, then record
 * position (kernels before copies), one device apart from another. The order shows in what each kernel found before it:
 * the latest end on its own stream and the other-stream work still in flight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/internal.h"
#include "analyze/launches.h"
#include "synthetic.h"

/* A launch call at `issue` (its id `corr`) whose kernel ran from start to end. */
static void launch(syn *s, uint32_t device, uint32_t stream, uint64_t issue, uint64_t start,
                   uint64_t end, uint32_t corr)
{
    syn_call(s, SC_CALL_LAUNCH, issue, issue + US(1), corr, NULL, NULL, 0);
    syn_kernel(s, device, stream, start, end, corr);
}

/* The launch of the kernel that ran from start to end (the trace orders its kernels). */
static const sc_launch *of(const sc_ctx *ctx, uint64_t start, uint64_t end)
{
    for (size_t k = 0; k < ctx->trace->n_kernels; k++)
        if (ctx->trace->kernels[k].rec.start_ns == start && ctx->trace->kernels[k].rec.end_ns == end)
            return &ctx->launches[k];
    fail_msg("no kernel from %llu to %llu", (unsigned long long)start, (unsigned long long)end);
    return NULL;
}

static void test_ties(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    /* kernels 0 and 1: no call (issued at their start), one start: record order */
    syn_kernel(&s, 0, 1, US(100), US(300), 0);
    syn_kernel(&s, 0, 1, US(100), US(200), 0);
    /* kernel 2 and a copy on its stream: calls of one start; the copy, after every kernel in
     * record order, started first */
    launch(&s, 0, 2, US(50), US(400), US(500), 5);
    syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(50), US(51), 6, "cudaMemcpyAsync", NULL, 0);
    syn_copy(&s, 0, 2, US(350), US(380), 8, 6, SC_MEMCPY_ASYNC, SC_MEM_DEVICE, SC_MEM_PINNED);
    /* kernel 4 on another device, in flight for all of them */
    launch(&s, 1, 3, US(10), US(120), US(1000), 7);
    /* kernel 5: kernel 2 of another stream of its device is still running when it is issued */
    syn_kernel(&s, 0, 1, US(450), US(460), 0);
    syn_finish(&s);
    sc_analysis a = {0};
    a.trace = &s.t;
    sc_ctx ctx = {.trace = &s.t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    const sc_launch *k0 = of(&ctx, US(100), US(300)), *k1 = of(&ctx, US(100), US(200));
    const sc_launch *k2 = of(&ctx, US(400), US(500));
    const sc_launch *k4 = of(&ctx, US(120), US(1000)), *k5 = of(&ctx, US(450), US(460));
    assert_int_equal(k0->own_prev_end_ns, 0);
    assert_int_equal(k1->own_prev_end_ns, US(300));
    assert_int_equal(k2->own_prev_end_ns, US(380));
    assert_int_equal(sc_launch_issue(&s.t, k2, (size_t)(k2 - ctx.launches)), US(50));
    assert_false(sc_launch_has_front(k4));
    assert_true(sc_launch_has_front(k5));
    assert_int_equal(sc_launch_front_end(&s.t, k5), US(500));
    assert_int_equal(k5->front_slot, k2->slot);
    assert_int_equal(k5->own_prev_end_ns, US(300));
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
