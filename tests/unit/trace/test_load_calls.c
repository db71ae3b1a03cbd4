/* The loaded calls' narrow form (trace.h: sc_call_rec and its sc_call_extra): every field of
 * every call comes back as written, whether its bytes, aux, aux2 and frames are set or not,
 * full record or compact; calls without frames share their extra; a class past a byte and a
 * trace naming more functions than 16 bits count keep theirs through the extra. And the
 * impossible times, which the load finds without a pass over the lists when there are none,
 * are left out whichever way their records are read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "streamcheck/trace.h"
#include "trace/load_calls.h"
#include "trace/record.h"
#include "trace/writer.h"

#include "scratch_dir.h"

_Static_assert(sizeof(sc_api_call) == 24, "a loaded call takes 24 bytes");

static void put(sc_writer *w, uint16_t kind, const void *fixed, size_t fixed_size,
                const void *tail, size_t tail_size)
{
    uint8_t buf[4096];
    size_t n = sc_record_encode(buf, kind, fixed, fixed_size, tail, tail_size);
    assert_int_equal(sc_writer_append(w, buf, n), 0);
}

static void open_trace(sc_writer *w, const char *name)
{
    char err[256];
    assert_int_equal(sc_writer_open(w, tmpdir, name, 7, err, sizeof err), 0);
    sc_rec_process p = {.pid = 7, .ppid = 1, .start_ns = 1000, .attach = SC_ATTACH_PRELOAD};
    put(w, SC_REC_PROCESS, &p, sizeof p, "/bin/app", 9);
}

static void load_trace(sc_writer *w, const char *name, sc_trace *t)
{
    char err[512], path[512];
    assert_int_equal(sc_writer_finish(w, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/%s-7.sctrace", tmpdir, name);
    assert_int_equal(sc_trace_load(path, t, err, sizeof err), 0);
}

/* What the loaded call must give back of the record it was written as. */
static void assert_call_is(const sc_trace *t, const sc_api_call *c, const sc_rec_api *written,
                           const uint64_t *frames, const char *name)
{
    sc_rec_api loaded, expected = *written;
    sc_call_as_record(t, c, &loaded);
    expected.domain = expected.cbid = 0;    /* they name the call */
    expected.result = 0;
    assert_memory_equal(&loaded, &expected, sizeof expected);
    assert_int_equal(sc_call_bytes(t, c), written->bytes);
    assert_int_equal(sc_call_class(t, c), written->call_class);
    assert_int_equal(sc_call_n_frames(t, c), written->n_frames);
    for (uint16_t i = 0; i < written->n_frames; i++)
        assert_int_equal(sc_call_frames(t, c)[i], frames[i]);
    assert_string_equal(sc_call_name(t, c), name);
}

enum { N_FULL = 10, N_SAME_BYTES = 20 };

static void test_every_field_round_trips(void **state)
{
    (void)state;
    sc_writer w;
    open_trace(&w, "fields");
    sc_rec_call_name names[] = {{.domain = 1, .cbid = 211}, {.domain = 1, .cbid = 41},
                                {.domain = 2, .cbid = 307}};
    const char *texts[] = {"cudaLaunchKernel", "cudaMemcpyAsync", "cuLaunchKernel"};
    for (int i = 0; i < 3; i++)
        put(&w, SC_REC_CALL_NAME, &names[i], sizeof names[i], texts[i], strlen(texts[i]) + 1);
    uint64_t frames[4] = {0x401000, 0x401234, 0x7f0000001000, 0xffffffffffff0000ull};
    uint64_t t0 = 2000;
    /* full records: every combination of what may be set */
    sc_rec_api full[N_FULL] = {
        /* a launch sharing an earlier call's stack (aux), nothing else */
        {.stream = 0x10, .aux = 5, .tid = 9, .correlation_id = 6, .context_id = 1,
         .flags = SC_API_STACK_SHARED, .domain = 1, .cbid = 211, .call_class = SC_CALL_LAUNCH},
        /* an event record: a 64-bit handle in aux, the shared stack in aux2 */
        {.stream = 0x10, .aux = 0x7f00deadbeefull, .tid = 9, .correlation_id = 7,
         .context_id = 1, .flags = SC_API_STACK_SHARED_AUX2, .domain = 1, .cbid = 135,
         .call_class = SC_CALL_EVENT_RECORD, .aux2 = 3},
        /* a copy: bytes and its kind in aux2 */
        {.stream = 0x20, .bytes = 1 << 20, .tid = 9, .correlation_id = 8, .context_id = 1,
         .domain = 1, .cbid = 41, .call_class = SC_CALL_MEMCPY_ASYNC, .aux2 = 1},
        /* an allocation past 32 bits, no stream */
        {.stream = SC_STREAM_NONE, .bytes = 5ull << 30, .tid = 10, .correlation_id = 9,
         .context_id = 1, .domain = 1, .cbid = 20, .call_class = SC_CALL_MALLOC},
        /* its own stack and bytes */
        {.stream = 0x20, .bytes = 4096, .tid = 9, .correlation_id = 10, .context_id = 2,
         .domain = 1, .cbid = 41, .call_class = SC_CALL_MEMCPY_ASYNC, .n_frames = 4},
        /* its own stack, no bytes; every flag bit this version knows */
        {.stream = 0, .tid = 11, .correlation_id = 11, .context_id = 1, .flags = 0xf,
         .domain = 2, .cbid = 307, .call_class = SC_CALL_LAUNCH, .n_frames = 2},
        /* a class no byte holds, and one that a byte just does not */
        {.stream = 0x30, .tid = 9, .correlation_id = 12, .context_id = 1, .domain = 1,
         .cbid = 999, .call_class = 300},
        {.stream = 0x30, .bytes = 8, .tid = 9, .correlation_id = 13, .context_id = 1,
         .domain = 1, .cbid = 999, .call_class = 255},
        {.stream = 0x30, .tid = 9, .correlation_id = 14, .context_id = 1, .domain = 1,
         .cbid = 999, .call_class = 254},
        /* nothing at all */
        {.stream = 0x40, .tid = 9, .correlation_id = 15, .context_id = 3},
    };
    for (int i = 0; i < N_FULL; i++) {
        full[i].start_ns = t0 + 100 * (uint64_t)i;
        /* durations past what a loaded call's 32 bits hold go in its extra: 6 s, and one
         * nanosecond at each side of SC_CALL_DUR_WIDE */
        full[i].end_ns = full[i].start_ns + (i == 3   ? 6000000000ull
                                             : i == 8 ? SC_CALL_DUR_WIDE - 1ull
                                             : i == 9 ? SC_CALL_DUR_WIDE
                                                      : 50);
        full[i].result = i;     /* not kept */
        put(&w, SC_REC_API, &full[i], sizeof full[i], full[i].n_frames ? frames : NULL,
            full[i].n_frames * sizeof *frames);
    }
    /* copies of one size: one extra for all of them */
    sc_rec_api same[N_SAME_BYTES];
    for (int i = 0; i < N_SAME_BYTES; i++) {
        same[i] = full[2];
        same[i].start_ns = t0 + 10000 + 100 * (uint64_t)i;
        same[i].end_ns = same[i].start_ns + 50;
        same[i].correlation_id = 100 + (uint32_t)i;
        same[i].result = 0;
        put(&w, SC_REC_API, &same[i], sizeof same[i], NULL, 0);
    }
    /* compact calls: a site sharing in aux, one sharing in aux2 with a class past a byte, then
     * the first id declared anew as another call */
    sc_rec_time_base base = {.base_ns = t0 + 20000};
    put(&w, SC_REC_TIME_BASE, &base, sizeof base, NULL, 0);
    sc_rec_call_site sites[] = {
        {.stream = 0x50, .tid = 12, .flags = SC_API_STACK_SHARED, .domain = 1, .cbid = 211,
         .call_class = SC_CALL_LAUNCH, .id = 1},
        {.stream = 0x60, .tid = 12, .flags = SC_API_STACK_SHARED_AUX2, .domain = 1,
         .cbid = 998, .call_class = 4000, .id = 2},
        {.stream = 0x70, .tid = 13, .flags = SC_API_STACK_SHARED | SC_API_DRIVER, .domain = 2,
         .cbid = 307, .call_class = SC_CALL_LAUNCH, .id = 1},
    };
    sc_rec_api compact[6];
    for (int i = 0; i < 6; i++) {
        int s = i < 2 ? 0 : i < 4 ? 1 : 2;
        if (i == 0 || i == 2 || i == 4)
            put(&w, SC_REC_CALL_SITE, &sites[s], sizeof sites[s], NULL, 0);
        /* the last one lasts SC_CALL_DUR_WIDE exactly: an extra of its own holds its end */
        uint32_t dur = i == 5 ? SC_CALL_DUR_WIDE : 30;
        sc_rec_call_compact c = {.start_delta = 100 * i, .duration = dur,
                                 .correlation_id = 200 + (uint32_t)i, .shared = 50 + (uint32_t)i,
                                 .site_id = sites[s].id, .context_id = 1 + (uint32_t)i};
        put(&w, SC_REC_CALL_COMPACT, &c, sizeof c, NULL, 0);
        compact[i] = (sc_rec_api){
            .start_ns = base.base_ns + 100 * (uint64_t)i,
            .end_ns = base.base_ns + 100 * (uint64_t)i + dur, .stream = sites[s].stream,
            .aux = sites[s].flags & SC_API_STACK_SHARED ? c.shared : 0, .tid = sites[s].tid,
            .correlation_id = c.correlation_id, .context_id = c.context_id,
            .flags = sites[s].flags, .call_class = sites[s].call_class,
            .aux2 = sites[s].flags & SC_API_STACK_SHARED_AUX2 ? c.shared : 0};
    }
    sc_trace t;
    load_trace(&w, "fields", &t);
    assert_int_equal(t.n_calls, N_FULL + N_SAME_BYTES + 6);
    const char *full_names[N_FULL] = {"cudaLaunchKernel", "?", "cudaMemcpyAsync", "?",
                                      "cudaMemcpyAsync", "cuLaunchKernel", "?", "?", "?", "?"};
    for (int i = 0; i < N_FULL; i++)
        assert_call_is(&t, &t.calls[i], &full[i], frames, full_names[i]);
    for (int i = 0; i < N_SAME_BYTES; i++)
        assert_call_is(&t, &t.calls[N_FULL + i], &same[i], NULL, "cudaMemcpyAsync");
    const char *compact_names[6] = {"cudaLaunchKernel", "cudaLaunchKernel", "?", "?",
                                    "cuLaunchKernel", "cuLaunchKernel"};
    for (int i = 0; i < 6; i++)
        assert_call_is(&t, &t.calls[N_FULL + N_SAME_BYTES + i], &compact[i], NULL,
                       compact_names[i]);
    /* the class past a byte reads as one this version does not know */
    assert_int_equal(sc_call_class_id(&t, &t.calls[6]), SC_CALL_CLASS_WIDE);
    assert_int_equal(sc_call_class_id(&t, &t.calls[7]), SC_CALL_CLASS_WIDE);
    assert_int_equal(sc_call_class_id(&t, &t.calls[8]), 254);
    assert_int_equal(sc_call_class_id(&t, &t.calls[N_FULL + N_SAME_BYTES + 2]),
                     SC_CALL_CLASS_WIDE);
    /* calls of one function, class, flags, thread, context and stream share an extra (the
     * copies of one size share one); another of any of these, bytes or a high half of aux
     * make another; the event's handle keeps its high half in its extra */
    assert_int_not_equal(t.calls[0].rec.extra_at, 0);
    assert_int_not_equal(t.calls[1].rec.extra_at, t.calls[0].rec.extra_at);
    /* the event call keeps its aux2 (the stack-sharing call) and its extra the handle */
    assert_int_equal(t.calls[1].rec.aux_own, 3);
    assert_int_equal(sc_call_extra_of(&t, &t.calls[1])->aux_other, 0xdeadbeef);
    assert_int_equal(t.calls[0].rec.aux_own, 5);
    /* the long calls' ends are their extras' */
    assert_int_equal(t.calls[3].rec.dur_ns, SC_CALL_DUR_WIDE);
    assert_int_equal(t.calls[8].rec.dur_ns, SC_CALL_DUR_WIDE - 1);
    assert_int_equal(t.calls[9].rec.dur_ns, SC_CALL_DUR_WIDE);
    assert_int_equal(t.calls[N_FULL + N_SAME_BYTES + 5].rec.dur_ns, SC_CALL_DUR_WIDE);
    assert_int_equal(t.calls[0].rec.dur_ns, 50);
    assert_int_equal(sc_call_extra_of(&t, &t.calls[1])->aux_high, 0x7f00);
    for (int i = 0; i < N_SAME_BYTES; i++)
        assert_int_equal(t.calls[N_FULL + i].rec.extra_at, t.calls[2].rec.extra_at);
    /* a compact site's calls of two contexts: an extra each */
    const sc_api_call *site_calls = &t.calls[N_FULL + N_SAME_BYTES];
    assert_int_not_equal(site_calls[0].rec.extra_at, site_calls[1].rec.extra_at);
    assert_int_equal(sc_call_context(&t, &site_calls[0]), 1);
    assert_int_equal(sc_call_context(&t, &site_calls[1]), 2);
    /* the zeros; each full call's (its copies of one size sharing call 2's); two for each
     * compact site, and the long compact call's own */
    assert_int_equal(t.n_call_extras, 1 + N_FULL + 3 * 2 + 1);
    sc_trace_free(&t);
}

/* More functions than 16 bits count: each call keeps its own name, the ones past 65534
 * through their extra; functions without a CALL_NAME are "?". */
enum { N_FUNCTIONS = 70000 };

static void test_names_past_sixteen_bits(void **state)
{
    (void)state;
    sc_writer w;
    open_trace(&w, "names");
    char text[32];
    for (uint32_t i = 0; i < N_FUNCTIONS; i++) {
        if (i % 7 == 3)
            continue;   /* unnamed */
        sc_rec_call_name cn = {.domain = (uint16_t)(1 + i / 65536), .cbid = (uint16_t)i};
        int n = snprintf(text, sizeof text, "f%u", i);
        put(&w, SC_REC_CALL_NAME, &cn, sizeof cn, text, (size_t)n + 1);
    }
    for (uint32_t i = 0; i < N_FUNCTIONS; i++) {
        sc_rec_api a = {.start_ns = 2000 + i, .end_ns = 2001 + i, .stream = 0x10,
                        .correlation_id = 1 + i, .domain = (uint16_t)(1 + i / 65536),
                        .cbid = (uint16_t)i, .call_class = SC_CALL_LAUNCH,
                        .bytes = i % 5 == 0 ? 64 : 0};
        put(&w, SC_REC_API, &a, sizeof a, NULL, 0);
    }
    sc_trace t;
    load_trace(&w, "names", &t);
    assert_int_equal(t.n_calls, N_FUNCTIONS);
    size_t wide = 0;
    for (uint32_t i = 0; i < N_FUNCTIONS; i++) {
        const sc_api_call *c = &t.calls[i];
        assert_int_equal(c->rec.correlation_id, 1 + i);
        if (i % 7 == 3) {
            assert_string_equal(sc_call_name(&t, c), "?");
        } else {
            snprintf(text, sizeof text, "f%u", i);
            assert_string_equal(sc_call_name(&t, c), text);
        }
        assert_int_equal(sc_call_bytes(&t, c), i % 5 == 0 ? 64 : 0);
        wide += sc_call_extra_of(&t, c)->name_at >= UINT16_MAX;
    }
    assert_int_equal(wide, N_FUNCTIONS - (UINT16_MAX - 1));
    sc_trace_free(&t);
}

/* A record of each timed kind the load reads inline (compact kernels and calls) and of the
 * others, each once impossible (`late`: only the two that the END record, last, makes so,
 * so that nothing else sends the load to look at every record). */
static void check_impossible_times(const char *name, bool late)
{
    const uint64_t s = 1000000000ull;
    sc_writer w;
    char err[256];
    assert_int_equal(sc_writer_open(&w, tmpdir, name, 7, err, sizeof err), 0);
    sc_rec_process p = {.pid = 7, .ppid = 1, .start_ns = 100 * s, .attach = SC_ATTACH_PRELOAD};
    put(&w, SC_REC_PROCESS, &p, sizeof p, "/bin/app", 9);
    sc_rec_time_base base = {.base_ns = 101 * s};
    put(&w, SC_REC_TIME_BASE, &base, sizeof base, NULL, 0);
    sc_rec_kernel_shape shape = {.id = 1, .context_id = 1, .stream_id = 7, .grid_x = 1,
                                 .grid_y = 1, .grid_z = 1, .block_x = 32, .block_y = 1,
                                 .block_z = 1};
    put(&w, SC_REC_KERNEL_SHAPE, &shape, sizeof shape, NULL, 0);
    sc_rec_call_site site = {.stream = 0x10, .tid = 1, .domain = 1, .cbid = 211,
                             .call_class = SC_CALL_LAUNCH, .id = 1};
    put(&w, SC_REC_CALL_SITE, &site, sizeof site, NULL, 0);
    /* possible */
    sc_rec_kernel_compact k = {.start_delta = 0, .duration = 100, .correlation_id = 1,
                               .shape_id = 1};
    put(&w, SC_REC_KERNEL_COMPACT, &k, sizeof k, NULL, 0);
    sc_rec_call_compact c = {.start_delta = 0, .duration = 100, .correlation_id = 1,
                             .site_id = 1, .context_id = 1};
    put(&w, SC_REC_CALL_COMPACT, &c, sizeof c, NULL, 0);
    sc_rec_memcpy copy = {.start_ns = 102 * s, .end_ns = 102 * s + 5, .correlation_id = 2};
    put(&w, SC_REC_MEMCPY, &copy, sizeof copy, NULL, 0);
    /* impossible: a compact kernel and call ending past the END record's end and its margin
     * (107 s + 4 s, past 100.7 s + 10 s: only the END record, last, tells), a call ending
     * before it starts, a copy starting before the PROCESS record's start and its margin */
    base.base_ns = 107 * s;
    put(&w, SC_REC_TIME_BASE, &base, sizeof base, NULL, 0);
    k = (sc_rec_kernel_compact){.start_delta = 0, .duration = 4000000000u, .correlation_id = 3,
                                .shape_id = 1};
    put(&w, SC_REC_KERNEL_COMPACT, &k, sizeof k, NULL, 0);
    c = (sc_rec_call_compact){.start_delta = 1, .duration = 4000000000u, .correlation_id = 3,
                              .site_id = 1, .context_id = 1};
    put(&w, SC_REC_CALL_COMPACT, &c, sizeof c, NULL, 0);
    if (!late) {
        sc_rec_api a = {.start_ns = 103 * s, .end_ns = 103 * s - 1, .correlation_id = 4,
                        .domain = 1, .cbid = 211};
        put(&w, SC_REC_API, &a, sizeof a, NULL, 0);
        copy = (sc_rec_memcpy){.start_ns = 89 * s, .end_ns = 102 * s, .correlation_id = 5};
        put(&w, SC_REC_MEMCPY, &copy, sizeof copy, NULL, 0);
    }
    sc_rec_end end = {.end_ns = 100 * s + 7 * s / 10, .reason = SC_END_EXIT};
    put(&w, SC_REC_END, &end, sizeof end, NULL, 0);
    sc_trace t;
    load_trace(&w, name, &t);
    assert_int_equal(t.impossible_times, late ? 2 : 4);
    assert_int_equal(t.n_kernels, 1);
    assert_int_equal(t.n_calls, 1);
    assert_int_equal(t.n_copies, 1);
    assert_int_equal(t.kernels[0].rec.correlation_id, 1);
    assert_int_equal(t.calls[0].rec.correlation_id, 1);
    assert_int_equal(t.copies[0].correlation_id, 2);
    sc_trace_free(&t);
}

/* Calls of many kinds in turn (thread, stream, context and size): the extra of each kind is
 * made once and found again however the kinds interleave, whatever their count (a table of
 * every extra without frames, not a memo of a few: two kinds that took one memo slot in turn
 * would make one per call). Every call gives its fields back. */
enum { N_KINDS = 1500, N_ROUNDS = 3 };

static void test_extras_made_once(void **state)
{
    (void)state;
    sc_writer w;
    open_trace(&w, "kinds");
    for (int r = 0; r < N_ROUNDS; r++)
        for (uint32_t k = 0; k < N_KINDS; k++) {
            sc_rec_api a = {.start_ns = 2000 + 100 * (uint64_t)(r * N_KINDS + k), .end_ns = 0,
                            .stream = 0x7f0000000000ull + 0x100 * (uint64_t)(k % 37),
                            .bytes = k % 5 == 0 ? 64 * (uint64_t)(k % 11) : 0,
                            .tid = 100 + k % 7, .context_id = 1 + k / 37 % 41,
                            .correlation_id = 1 + (uint32_t)(r * N_KINDS + k), .domain = 1,
                            .cbid = 211, .call_class = SC_CALL_LAUNCH};
            a.end_ns = a.start_ns + 50;
            put(&w, SC_REC_API, &a, sizeof a, NULL, 0);
        }
    sc_trace t;
    load_trace(&w, "kinds", &t);
    assert_int_equal(t.n_calls, N_ROUNDS * N_KINDS);
    /* the kinds: k itself, as stream (k % 37), context (k / 37 % 41) and thread (k % 7) tell
     * it apart below 37 * 41 * 7, and the sizes only split kinds already apart */
    assert_int_equal(t.n_call_extras, 1 + N_KINDS);
    for (size_t i = 0; i < t.n_calls; i++) {
        uint32_t k = (uint32_t)(i % N_KINDS);
        const sc_api_call *c = &t.calls[i];
        assert_int_equal(c->rec.extra_at, t.calls[k].rec.extra_at);
        assert_int_equal(sc_call_stream_handle(&t, c), 0x7f0000000000ull + 0x100 * (k % 37));
        assert_int_equal(sc_call_tid(&t, c), 100 + k % 7);
        assert_int_equal(sc_call_context(&t, c), 1 + k / 37 % 41);
        assert_int_equal(sc_call_bytes(&t, c), k % 5 == 0 ? 64 * (k % 11) : 0);
        assert_string_equal(sc_call_name(&t, c), "?");
    }
    sc_trace_free(&t);
}

static void test_impossible_times_of_every_path(void **state)
{
    (void)state;
    check_impossible_times("times", false);
    check_impossible_times("late", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_field_round_trips),
        cmocka_unit_test(test_names_past_sixteen_bits),
        cmocka_unit_test(test_impossible_times_of_every_path),
        cmocka_unit_test(test_extras_made_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
