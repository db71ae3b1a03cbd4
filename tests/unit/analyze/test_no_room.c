/* Rule no-room and its resident-block arithmetic. The device is an H200 as CUDA describes it:
 * 132 SMs, 2048 threads, 32 blocks, 65536 registers and 233472 bytes of shared memory per SM,
 * compute capability 9.0. Streams 14 and 15 are non-blocking, 7 is the legacy stream and 13
 * a blocking one. Every expected number is worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/occupancy.h"
#include "synthetic.h"

#define LEGACY 7
#define BLOCKING 13
#define S14 14
#define S15 15

static const char *const names[] = {"?", "sweep_kernel", "small_kernel", "grid_b"};

static sc_rec_device h200(uint32_t cc_major)
{
    return (sc_rec_device){.device = 0, .sm_count = 132, .max_threads_per_sm = 2048,
                           .max_blocks_per_sm = 32, .max_regs_per_sm = 65536,
                           .max_shared_per_sm = 233472, .cc_major = cc_major};
}

static void setup(syn *s)
{
    syn_device(s, 0, 132)->rec = h200(9);
    syn_stream(s, 0, LEGACY, SC_STREAM_FLAG_LEGACY, 0);
    syn_stream(s, 0, BLOCKING, SC_STREAM_FLAG_BLOCKING, 100);
    syn_stream(s, 0, S14, SC_STREAM_FLAG_NON_BLOCKING, 101);
    syn_stream(s, 0, S15, SC_STREAM_FLAG_NON_BLOCKING, 102);
}

/* A 5 us launch call at call_start and its kernel: grid x block, registers per thread. */
static sc_kernel *launch(syn *s, uint32_t stream, uint32_t name, uint64_t call_start,
                         uint64_t start, uint64_t end, int32_t grid, int32_t block,
                         uint32_t regs, uint32_t corr)
{
    syn_call(s, SC_CALL_LAUNCH, call_start, call_start + US(5), corr, NULL, NULL, 0);
    sc_kernel *k = syn_kernel(s, 0, stream, start, end, corr);
    syn_shape(s, k)->name_id = name;
    syn_shape(s, k)->name = names[name];
    syn_shape(s, k)->grid_x = grid;
    syn_shape(s, k)->block_x = block;
    syn_shape(s, k)->registers_per_thread = regs;
    return k;
}

static sc_kernel_shape shape(int32_t grid, int32_t block, uint32_t regs, uint32_t shared_static,
                             uint32_t shared_dynamic)
{
    return (sc_kernel_shape){.grid_x = grid, .grid_y = 1, .grid_z = 1, .block_x = block,
                             .block_y = 1, .block_z = 1, .registers_per_thread = regs,
                             .static_shared = shared_static, .dynamic_shared = shared_dynamic};
}

/* Each limit in turn:
 *  256 threads, 16 regs:   threads 2048/256 = 8; regs 16x32 = 512/warp x 8 warps = 4096,
 *                          65536/4096 = 16; shared (0 + 1024 reserve) 233472/1024 = 228;
 *                          blocks 32 -> 8 by threads, wave 132 x 8 = 1056
 *  256 threads, 37 regs:   37x32 = 1184 -> rounded up to 1280/warp, x 8 warps = 10240,
 *                          65536/10240 = 6.4 -> 6 by registers, wave 792
 *  128 threads, 16 regs, 20480 + 25600 = 46080 B shared: threads 16; regs 512 x 4 = 2048 ->
 *                          32; shared 233472/(46080 + 1024) = 4.96 -> 4 by shared, wave 528
 *  the same on cc 7.0 (no reserve): 233472/46080 = 5.07 -> 5
 *  32 threads, 16 regs:    threads 64, regs 512 x 1 -> 128, shared 228 -> 32 by the block
 *                          limit */
static void test_occupancy_arithmetic(void **state)
{
    (void)state;
    sc_rec_device dev = h200(9), volta = h200(7);
    sc_occupancy o;
    char text[128];

    sc_kernel_shape k = shape(1056, 256, 16, 0, 0);
    assert_true(sc_occupancy_compute(&dev, &k, &o));
    assert_int_equal(o.blocks_per_sm, 8);
    assert_int_equal(o.limit, SC_OCC_BY_THREADS);
    assert_int_equal(o.wave, 1056);
    assert_true(sc_occupancy_full(&o));
    sc_occupancy_text(&o, text, sizeof(text));
    assert_string_equal(text, "8 blocks/SM by threads: 2048/256");
    k.grid_x = 1055;
    assert_true(sc_occupancy_compute(&dev, &k, &o));
    assert_false(sc_occupancy_full(&o));

    k = shape(792, 256, 37, 0, 0);
    assert_true(sc_occupancy_compute(&dev, &k, &o));
    assert_int_equal(o.blocks_per_sm, 6);
    assert_int_equal(o.limit, SC_OCC_BY_REGISTERS);
    assert_int_equal(o.regs_per_warp, 1280);
    assert_int_equal(o.wave, 792);
    sc_occupancy_text(&o, text, sizeof(text));
    assert_string_equal(text, "6 blocks/SM by registers: 65536/(1280 per warp x 8 warps)");

    k = shape(600, 128, 16, 20480, 25600);
    assert_true(sc_occupancy_compute(&dev, &k, &o));
    assert_int_equal(o.blocks_per_sm, 4);
    assert_int_equal(o.limit, SC_OCC_BY_SHARED);
    assert_int_equal(o.wave, 528);
    sc_occupancy_text(&o, text, sizeof(text));
    assert_string_equal(text, "4 blocks/SM by shared memory: 233472/(46080+1024 reserved bytes)");
    assert_true(sc_occupancy_compute(&volta, &k, &o));
    assert_int_equal(o.blocks_per_sm, 5);
    sc_occupancy_text(&o, text, sizeof(text));
    assert_string_equal(text, "5 blocks/SM by shared memory: 233472/46080 bytes");

    k = shape(10000, 32, 16, 0, 0);
    assert_true(sc_occupancy_compute(&dev, &k, &o));
    assert_int_equal(o.blocks_per_sm, 32);
    assert_int_equal(o.limit, SC_OCC_BY_BLOCKS);
    sc_occupancy_text(&o, text, sizeof(text));
    assert_string_equal(text, "32 blocks/SM by the block limit");

    dev.sm_count = 0;   /* a device record without limits says nothing */
    assert_false(sc_occupancy_compute(&dev, &k, &o));
}

/* A full grid, then a small kernel that waited for it:
 *   sweep_kernel on 14: call 0 .. 5 us, runs 10 .. 1010 us, 1056 blocks of 256 threads, 16
 *                       regs: exactly one full wave (see above), so room appears only as
 *                       its blocks end: tail from 1010 - 1000/4 = 760 us
 *   small_kernel on 15: call 20 .. 25 us, runs 1012 .. 1050 us, 1 block
 * Measured: small was ready at 25 us (call end; nothing before it on 15), before the tail;
 * it started at 1012 >= 760 us and <= 1010 + 20 us. Wait = 1012 - max(25, 10) = 987 us.
 * The replay: sweep's start gives the one issue sample, 10 us; small is bound by the room
 * edge (a full grid of another stream that did not overlap it), which has no lag. Unchanged:
 * sweep 10 .. 1010; small ready at 20 + 10 = 30, inside the running sweep, so it starts at
 * its end: 1010 .. 1048. Span 1048 us (recorded 1050). With room beside the sweep small runs
 * 30 .. 68 and the run ends with the sweep at 1010: saving 38 us, small's own length; 3.6%
 * of the run: a warning. */
static void full_grid_then_small(syn *s, int32_t grid)
{
    setup(s);
    launch(s, S14, 1, 0, US(10), US(1010), grid, 256, 16, 1);
    launch(s, S15, 2, US(20), US(1012), US(1050), 1, 128, 16, 2);
}

static void test_full_grid_then_small_kernel_waited(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    full_grid_then_small(&s, 1056);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "no-room");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_WARNING);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(987));
    assert_int_equal(a.replay.replay_span_ns, US(1048));
    assert_int_equal(f->cost_ns, US(38));
    assert_int_equal(f->worst.call->rec.correlation_id, 2);
    assert_string_equal(f->title,
                        "sweep_kernel (1056 blocks of 256 threads) fills all 132 SMs (8 "
                        "blocks/SM by threads: 2048/256) — small_kernel on stream 15 waited "
                        "987 us for room");
    const sc_evidence *ev = f->worst.evidence;
    size_t n = f->worst.n_evidence;
    assert_true(syn_evidence(ev, n, "wait_us") == 987.0);
    assert_true(syn_evidence(ev, n, "blocks") == 1056.0);
    assert_true(syn_evidence(ev, n, "threads_per_block") == 256.0);
    assert_true(syn_evidence(ev, n, "sm_count") == 132.0);
    assert_true(syn_evidence(ev, n, "blocks_per_sm") == 8.0);
    assert_true(syn_evidence(ev, n, "wave_blocks") == 1056.0);
    assert_true(syn_evidence(ev, n, "stream") == S15);
    assert_true(syn_evidence(ev, n, "blocking_grid_stream") == S14);
    assert_null(syn_finding(&a, "lazy-loading"));   /* one launch each: nothing corroborates */
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The kernel that waited for room runs long itself: the same sweep (10 .. 1010 us), then on
 * 15 a 1-block kernel called at 20 us that ran 1012 .. 2012 us. Measured: 987 us, as above.
 * Unchanged the replay puts it at the sweep's end, 1010 .. 2010 (span 2010 us, recorded
 * 2012); with room it runs 30 .. 1030 beside the sweep: the run ends at 1030, saving 980 us,
 * 48.7% of the run: an error. */
static void test_long_kernel_held_for_room_is_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    setup(&s);
    launch(&s, S14, 1, 0, US(10), US(1010), 1056, 256, 16, 1);
    launch(&s, S15, 2, US(20), US(1012), US(2012), 1, 128, 16, 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "no-room");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(987));
    assert_int_equal(a.replay.replay_span_ns, US(2010));
    assert_int_equal(f->cost_ns, US(980));
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_false(f->join);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The same wait in a run stretched to 20000 us by a last small_kernel on 15 (call 19985 ..
 * 19990, runs 19990 .. 20000 us, alone). Issue lags 10 us (sweep) and 5 us (the last
 * kernel): lower quartile 5 us. Unchanged: sweep 5 .. 1005, small held to 1005 .. 1043, the
 * last kernel at 19985 + 5 = 19990 .. 20000. With room small runs 25 .. 63, but the run
 * still ends with the last kernel, which the host issued at 19985 us whatever the device
 * did: saving 0. It waited 987 us for nothing the run would gain: a join, a note. */
static void test_wait_the_host_hides_is_a_join(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    full_grid_then_small(&s, 1056);
    launch(&s, S15, 2, US(19985), US(19990), US(20000), 1, 128, 16, 3);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "no-room");
    assert_non_null(f);
    assert_int_equal(syn_finding_count(&a, "no-room"), 1);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->waited_ns, US(987));
    assert_int_equal(a.replay.replay_span_ns, US(20000));
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_true(f->join);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A full grid behind a full grid: the sweep (10 .. 1010 us, one full wave) on 14, then on 15
 * a second sweep called at 20 us that ran 1012 .. 2012 us. It waited 987 us as the small
 * kernel above did, but with room made for it the two would share a device that either
 * fills: no gain, so no "waited for room" finding (the second finding names pairs that
 * overlapped without gain; these did not overlap). */
static void test_full_grid_behind_full_grid_is_not_no_room(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    setup(&s);
    launch(&s, S14, 1, 0, US(10), US(1010), 1056, 256, 16, 1);
    launch(&s, S15, 3, US(20), US(1012), US(2012), 1056, 256, 16, 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "no-room"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* 1000 blocks < one wave of 1056: SMs were left free, so the wait is not for room. */
static void test_partial_grid_is_silent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    full_grid_then_small(&s, 1000);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "no-room"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Register-limited: 256 threads x 37 registers fit 6 blocks/SM (arithmetic above), so 792
 * blocks fill the device and small_kernel waits 1012 - 25 = 987 us; 791 blocks do not. The
 * timings are full_grid_then_small's: the fix saves small's 38 us, as there. */
static void test_register_limited_grid(void **state)
{
    (void)state;
    const int32_t grids[] = {792, 791};
    for (size_t i = 0; i < 2; i++) {
        syn s;
        syn_init(&s);
        setup(&s);
        launch(&s, S14, 1, 0, US(10), US(1010), grids[i], 256, 37, 1);
        launch(&s, S15, 2, US(20), US(1012), US(1050), 1, 128, 16, 2);
        sc_analysis a;
        syn_analyze(&s, &a);
        const sc_finding *f = syn_finding(&a, "no-room");
        if (i == 0) {
            assert_non_null(f);
            assert_int_equal(f->waited_ns, US(987));
            assert_int_equal(f->cost_ns, US(38));
            assert_non_null(strstr(f->title, "(792 blocks of 256 threads) fills all 132 SMs "
                                             "(6 blocks/SM by registers: 65536/(1280 per "
                                             "warp x 8 warps))"));
        } else {
            assert_null(f);
        }
        sc_analysis_free(&a);
        syn_free(&s);
    }
}

/* Shared-memory-limited, with a partial last wave: 600 blocks of 128 threads with 46080 B of
 * shared memory fit 4/SM (with the 1 KiB reserve; 5/SM and 660 per wave without it, so 600
 * would not be full), wave 528: waves = ceil(600/528) = 2, the last one partial (72 blocks).
 *   sweep_kernel on 14: runs 10 .. 1010 us: a wave takes 1000/2 = 500 us, the last wave
 *                       starts at 10 + 500 = 510 us: tail from 510 - 500/4 = 385 us
 *   small_kernel on 15: ready at 25 us, starts 512 us (as the last wave left room)
 * Measured: wait = 512 - max(25, 10) = 487 us.
 * The replay. small overlapped the sweep, so no room edge binds it: its start counts as an
 * issue sample, 492 us, beside the sweep's 10 us; the typical issue lag is their lower
 * quartile, 10 us (a delayed sample never makes the typical lag). small is then 482 us
 * later than its issue allows, while the full sweep ran: held by it, with the recorded lag
 * from the sweep's end, 512 - 1010 = -498 us. Unchanged: sweep 0 + 10 = 10 .. 1010, small
 * max(20 + 10, 1010 - 498) = 512 .. 560: span 1010 us, as recorded. With room small runs at
 * 30 .. 78, and the run still ends with the sweep: saving 0, a note; it waited 487 us: a
 * join. */
static void test_shared_limited_grid_last_wave(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    setup(&s);
    sc_kernel *k = launch(&s, S14, 1, 0, US(10), US(1010), 600, 128, 16, 1);
    syn_shape(&s, k)->static_shared = 20480;
    syn_shape(&s, k)->dynamic_shared = 25600;
    launch(&s, S15, 2, US(20), US(512), US(560), 1, 128, 16, 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "no-room");
    assert_non_null(f);
    assert_int_equal(f->waited_ns, US(487));
    assert_int_equal(a.replay.held, 1);
    assert_int_equal(a.replay.replay_span_ns, US(1010));
    assert_true(a.replay.trusted);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_true(f->join);
    assert_non_null(strstr(f->title, "4 blocks/SM by shared memory: 233472/(46080+1024 "
                                     "reserved bytes)"));
    assert_true(syn_evidence(f->worst.evidence, f->worst.n_evidence, "wave_blocks") == 528.0);
    sc_analysis_free(&a);
    syn_free(&s);
}

/* The full grid on the blocking stream 13 and the small kernel on the legacy stream 7: the
 * legacy stream serialized them whatever the room; that is legacy-stream's finding. */
static void test_legacy_blocking_pair_is_silent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    setup(&s);
    launch(&s, BLOCKING, 1, 0, US(10), US(1010), 1056, 256, 16, 1);
    launch(&s, LEGACY, 2, US(20), US(1012), US(1050), 1, 128, 16, 2);
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "no-room"));
    assert_non_null(syn_finding(&a, "legacy-stream"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* Two full grids (1056 x 256 each) that interleave without gain:
 *   sweep_kernel on 14 alone: 10 .. 110 us        grid_b on 15 alone: 210 .. 310 us
 *   sweep_kernel on 14: 1010 .. 1210 us            grid_b on 15: 1012 .. 1212 us
 * Solo durations (instances that ran alone): 100 us each. grid_b started at 1012, long
 * before sweep's tail (1210 - 200/4 = 1160 us): they overlapped 1210 - 1012 = 198 us, took
 * 1212 - 1010 = 202 us together against 200 us in order: speedup 200/202 = 0.99 <= 1.05.
 * A note, cost 0. grid_b was ready at max(1006, 310) = 1006 us and started 6 us later,
 * before the tail: no wait for room. */
static void test_two_full_grids_overlapped_without_gain(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    setup(&s);
    launch(&s, S14, 1, 0, US(10), US(110), 1056, 256, 16, 1);
    launch(&s, S15, 3, US(200), US(210), US(310), 1056, 256, 16, 2);
    launch(&s, S14, 1, US(1000), US(1010), US(1210), 1056, 256, 16, 3);
    launch(&s, S15, 3, US(1001), US(1012), US(1212), 1056, 256, 16, 4);
    sc_analysis a;
    syn_analyze(&s, &a);
    const sc_finding *f = syn_finding(&a, "no-room");
    assert_non_null(f);
    assert_int_equal(f->severity, SC_SEV_NOTE);
    assert_int_equal(f->cost_ns, 0);
    assert_int_equal(f->count, 1);
    assert_non_null(strstr(f->title, "overlapped without gain"));
    const sc_evidence *ev = f->worst.evidence;
    size_t n = f->worst.n_evidence;
    assert_true(syn_evidence(ev, n, "overlap_us") == 198.0);
    assert_true(syn_evidence(ev, n, "together_us") == 202.0);
    assert_true(syn_evidence(ev, n, "solo_sum_us") == 200.0);
    double speedup = syn_evidence(ev, n, "speedup");
    assert_true(speedup > 200.0 / 202.0 - 1e-9 && speedup < 200.0 / 202.0 + 1e-9);
    assert_null(syn_finding_sev(&a, "no-room", SC_SEV_WARNING));
    assert_null(syn_finding_sev(&a, "no-room", SC_SEV_ERROR));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_occupancy_arithmetic),
        cmocka_unit_test(test_full_grid_then_small_kernel_waited),
        cmocka_unit_test(test_long_kernel_held_for_room_is_error),
        cmocka_unit_test(test_wait_the_host_hides_is_a_join),
        cmocka_unit_test(test_partial_grid_is_silent),
        cmocka_unit_test(test_full_grid_behind_full_grid_is_not_no_room),
        cmocka_unit_test(test_register_limited_grid),
        cmocka_unit_test(test_shared_limited_grid_last_wave),
        cmocka_unit_test(test_legacy_blocking_pair_is_silent),
        cmocka_unit_test(test_two_full_grids_overlapped_without_gain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
