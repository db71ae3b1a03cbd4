/* sc_trace_load_between against sc_trace_load: for every trace of the folders named on the
 * command line (the recorded fixtures, the fuzzer's regressions: impossible times, a clock
 * past 2^63), and several windows of each, a window's load holds exactly the timed records of
 * the whole load that start in the window, in the same order, with the same names, frames and
 * shapes; everything else (shapes, streams' devices, impossible times, status) as the whole
 * load has it; and the run's start of the whole trace. A trace without a PROCESS record is
 * not cuttable; a file a load refuses, the read of times refuses with the same words. */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "scratch_dir.h"
#include "streamcheck/trace.h"
#include "trace/load_calls.h"
#include "trace/record.h"
#include "trace/writer.h"

static char **folders;
static int n_folders;

/* Whether a's and b's timed list `name` agree: b holds a's elements that start in [lo, hi). */
#define SAME_LIST(a, b, arr, n, start, lo, hi, same)                                        \
    do {                                                                                    \
        size_t j_ = 0;                                                                      \
        for (size_t i_ = 0; i_ < (a)->n; i_++) {                                            \
            uint64_t s_ = (a)->arr[i_].start;                                               \
            if (s_ < (lo) || s_ >= (hi))                                                    \
                continue;                                                                   \
            assert_true(j_ < (b)->n);                                                       \
            assert_true(same((a), &(a)->arr[i_], (b), &(b)->arr[j_]));                      \
            j_++;                                                                           \
        }                                                                                   \
        assert_int_equal(j_, (b)->n);                                                       \
    } while (0)

#define SAME_BYTES(ta, x, tb, y) (memcmp((x), (y), sizeof *(x)) == 0)

static int same_call(const sc_trace *ta, const sc_api_call *x, const sc_trace *tb,
                     const sc_api_call *y)
{
    /* name_at and extra_at are positions in each trace's own tables */
    sc_rec_api a, b;
    sc_call_as_record(ta, x, &a);
    sc_call_as_record(tb, y, &b);
    return memcmp(&a, &b, sizeof a) == 0 &&
           strcmp(sc_call_name(ta, x), sc_call_name(tb, y)) == 0 &&
           memcmp(sc_call_frames(ta, x), sc_call_frames(tb, y),
                  a.n_frames * sizeof(uint64_t)) == 0;
}

static int same_shape(const sc_kernel_shape *x, const sc_kernel_shape *y)
{
    sc_kernel_shape a = *x, b = *y;
    int names = strcmp(a.name, b.name) == 0;
    a.name = b.name = NULL;
    return names && memcmp(&a, &b, sizeof a) == 0;
}

static int same_kernel(const sc_trace *ta, const sc_kernel *x, const sc_trace *tb,
                       const sc_kernel *y)
{
    return memcmp(&x->rec, &y->rec, sizeof x->rec) == 0 &&
           same_shape(&ta->kernel_shapes[x->rec.shape], &tb->kernel_shapes[y->rec.shape]);
}

static int same_range(const sc_trace *ta, const sc_range *x, const sc_trace *tb,
                      const sc_range *y)
{
    (void)ta;
    (void)tb;
    return memcmp(&x->rec, &y->rec, sizeof x->rec) == 0 && strcmp(x->name, y->name) == 0 &&
           (x->domain == y->domain || (x->domain && y->domain && !strcmp(x->domain, y->domain)));
}

/* The run's start as a whole load tells it: the earliest call, kernel, copy, memset or range
 * (each list is sorted by start). */
static int whole_start(const sc_trace *t, uint64_t *start)
{
    int any = 0;
    uint64_t firsts[5] = {t->n_calls ? t->calls[0].rec.start_ns : 0,
                          t->n_kernels ? t->kernels[0].rec.start_ns : 0,
                          t->n_copies ? t->copies[0].start_ns : 0,
                          t->n_memsets ? t->memsets[0].start_ns : 0,
                          t->n_ranges ? t->ranges[0].rec.start_ns : 0};
    size_t counts[5] = {t->n_calls, t->n_kernels, t->n_copies, t->n_memsets, t->n_ranges};
    for (int k = 0; k < 5; k++)
        if (counts[k] && (!any || firsts[k] < *start)) {
            *start = firsts[k];
            any = 1;
        }
    return any;
}

static void check_window(const char *path, const sc_trace *whole, const sc_trace_times *times,
                         uint64_t lo, uint64_t hi)
{
    sc_trace part;
    char err[512] = "";
    assert_int_equal(sc_trace_load_between(path, times, lo, hi, &part, err, sizeof err), 0);
    assert_true(part.loaded_between);
    SAME_LIST(whole, &part, calls, n_calls, rec.start_ns, lo, hi, same_call);
    SAME_LIST(whole, &part, kernels, n_kernels, rec.start_ns, lo, hi, same_kernel);
    SAME_LIST(whole, &part, copies, n_copies, start_ns, lo, hi, SAME_BYTES);
    SAME_LIST(whole, &part, memsets, n_memsets, start_ns, lo, hi, SAME_BYTES);
    SAME_LIST(whole, &part, syncs, n_syncs, start_ns, lo, hi, SAME_BYTES);
    SAME_LIST(whole, &part, ranges, n_ranges, rec.start_ns, lo, hi, same_range);
    SAME_LIST(whole, &part, overheads, n_overheads, start_ns, lo, hi, SAME_BYTES);
    SAME_LIST(whole, &part, unified, n_unified, start_ns, lo, hi, SAME_BYTES);
    /* what is not time is whole: every shape in the same order, every stream's device */
    assert_int_equal(part.n_kernel_shapes, whole->n_kernel_shapes);
    for (size_t i = 0; i < whole->n_kernel_shapes; i++)
        assert_true(same_shape(&whole->kernel_shapes[i], &part.kernel_shapes[i]));
    assert_int_equal(part.n_copy_shapes, whole->n_copy_shapes);
    if (whole->n_copy_shapes)
        assert_memory_equal(part.copy_shapes, whole->copy_shapes,
                            whole->n_copy_shapes * sizeof *whole->copy_shapes);
    assert_int_equal(part.n_memset_shapes, whole->n_memset_shapes);
    if (whole->n_memset_shapes)
        assert_memory_equal(part.memset_shapes, whole->memset_shapes,
                            whole->n_memset_shapes * sizeof *whole->memset_shapes);
    assert_int_equal(part.n_streams, whole->n_streams);
    if (whole->n_streams)
        assert_memory_equal(part.streams, whole->streams,
                            whole->n_streams * sizeof *whole->streams);
    assert_int_equal(part.n_pystacks, whole->n_pystacks);
    assert_int_equal(part.n_scope_windows, whole->n_scope_windows);
    assert_int_equal(part.impossible_times, whole->impossible_times);
    assert_int_equal(part.status, whole->status);
    assert_string_equal(part.status_detail, whole->status_detail);
    sc_trace_free(&part);
}

static int is_trace(const char *name)
{
    size_t n = strlen(name);
    return (n > 8 && strcmp(name + n - 8, ".sctrace") == 0) ||
           (n > 16 && strcmp(name + n - 16, ".sctrace.partial") == 0);
}

static void check_trace(const char *path, size_t *cut, size_t *whole_only, size_t *refused)
{
    sc_trace whole;
    sc_trace_times times;
    char err_load[512] = "", err_times[512] = "";
    int loaded = sc_trace_load(path, &whole, err_load, sizeof err_load);
    int read = sc_trace_read_times(path, &times, err_times, sizeof err_times);
    assert_int_equal(read, loaded);
    if (loaded != 0) {
        assert_string_equal(err_times, err_load);
        ++*refused;
        return;
    }
    assert_int_equal(times.cuttable, whole.has_process);
    if (!times.cuttable) {
        ++*whole_only;
        sc_trace_free(&whole);
        return;
    }
    uint64_t start = 0;
    assert_int_equal(times.any, whole_start(&whole, &start));
    if (times.any)
        assert_true(times.run_start_ns == start);
    assert_true(times.impossible == whole.impossible_times);
    /* the last start of any timed record: the windows below cut through the run */
    uint64_t last = start;
    for (size_t i = 0; i < whole.n_calls; i++)
        if (whole.calls[i].rec.start_ns > last) last = whole.calls[i].rec.start_ns;
    for (size_t i = 0; i < whole.n_kernels; i++)
        if (whole.kernels[i].rec.start_ns > last) last = whole.kernels[i].rec.start_ns;
    uint64_t d = last - start;
    const uint64_t windows[][2] = {
        {0, UINT64_MAX},                            /* all of it */
        {start + d / 3, start + 2 * d / 3},         /* the middle third */
        {start + d / 2, UINT64_MAX},                /* from half on */
        {0, start + d / 4},                         /* the first quarter */
        {start + d / 2, start + d / 2},             /* empty */
    };
    for (size_t k = 0; k < sizeof windows / sizeof *windows; k++)
        check_window(path, &whole, &times, windows[k][0], windows[k][1]);
    ++*cut;
    sc_trace_free(&whole);
}

static void test_every_trace_of_the_folders(void **state)
{
    (void)state;
    size_t cut = 0, whole_only = 0, refused = 0;
    for (int f = 0; f < n_folders; f++) {
        DIR *dir = opendir(folders[f]);
        assert_non_null(dir);
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            if (!is_trace(e->d_name))
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", folders[f], e->d_name);
            check_trace(path, &cut, &whole_only, &refused);
        }
        closedir(dir);
    }
    print_message("cut %zu traces, %zu without a PROCESS record, %zu refused\n", cut,
                  whole_only, refused);
    assert_true(cut >= 40);     /* the fixtures are there: the test did look */
}

static void put(sc_writer *w, uint16_t kind, const void *fixed, size_t fixed_size,
                const void *tail, size_t tail_size)
{
    uint8_t buf[4096];
    size_t n = sc_record_encode(buf, kind, fixed, fixed_size, tail, tail_size);
    assert_int_equal(sc_writer_append(w, buf, n), 0);
}

/* A trace of its own: with or without a PROCESS record; kernels out of time order, one that
 * ends before it starts and one a century away (impossible times), a call with frames, a
 * copy and a range on both sides of the middle. */
static void write_trace(const char *name, int with_process, char *path, size_t n)
{
    sc_writer w;
    char err[256];
    assert_int_equal(sc_writer_open(&w, tmpdir, name, 7, err, sizeof err), 0);
    if (with_process) {
        sc_rec_process p = {.pid = 7, .start_ns = 1000};
        put(&w, SC_REC_PROCESS, &p, sizeof p, "/bin/app", 9);
    }
    sc_rec_string s = {.id = 1};
    put(&w, SC_REC_STRING, &s, sizeof s, "k", 2);
    for (uint64_t i = 0; i < 40; i++) {
        uint64_t t = 10000 - i * 200;   /* written latest first */
        sc_rec_kernel k = {.start_ns = t, .end_ns = t + 150, .stream_id = (uint32_t)(i % 3),
                           .context_id = 1, .device = 0, .name_id = 1,
                           .correlation_id = (uint32_t)i + 1, .grid_x = (int32_t)(i % 4) + 1};
        put(&w, SC_REC_KERNEL, &k, sizeof k, NULL, 0);
        uint64_t frames[2] = {0x401000 + i, 0x402000};
        sc_rec_api a = {.start_ns = t - 100, .end_ns = t - 50, .correlation_id = (uint32_t)i + 1,
                        .domain = 1, .cbid = 211, .call_class = SC_CALL_LAUNCH, .n_frames = 2};
        put(&w, SC_REC_API, &a, sizeof a, frames, sizeof frames);
    }
    sc_rec_kernel backwards = {.start_ns = 5000, .end_ns = 4000, .name_id = 1, .context_id = 1};
    sc_rec_kernel century = {.start_ns = 3000000000000000000ull,
                             .end_ns = 3000000000000000100ull, .name_id = 1, .context_id = 1};
    put(&w, SC_REC_KERNEL, &backwards, sizeof backwards, NULL, 0);
    put(&w, SC_REC_KERNEL, &century, sizeof century, NULL, 0);
    sc_rec_memcpy c1 = {.start_ns = 3000, .end_ns = 3100, .context_id = 2, .device = 1};
    sc_rec_memcpy c2 = {.start_ns = 8000, .end_ns = 8100, .context_id = 3, .device = 1};
    put(&w, SC_REC_MEMCPY, &c1, sizeof c1, NULL, 0);
    put(&w, SC_REC_MEMCPY, &c2, sizeof c2, NULL, 0);
    sc_rec_stream st = {.device = UINT32_MAX, .context_id = 3, .stream_id = 9};
    put(&w, SC_REC_STREAM, &st, sizeof st, NULL, 0);
    sc_rec_range r = {.start_ns = 2500, .end_ns = 9000, .name_id = 1};
    put(&w, SC_REC_RANGE, &r, sizeof r, NULL, 0);
    sc_rec_end e = {.end_ns = 12000};
    put(&w, SC_REC_END, &e, sizeof e, NULL, 0);
    assert_int_equal(sc_writer_finish(&w, err, sizeof err), 0);
    snprintf(path, n, "%s/%s-7.sctrace", tmpdir, name);
}

static void test_written_traces(void **state)
{
    (void)state;
    char path[512];
    size_t cut = 0, whole_only = 0, refused = 0;
    write_trace("with", 1, path, sizeof path);
    check_trace(path, &cut, &whole_only, &refused);
    assert_int_equal(cut, 1);
    sc_trace t;
    char err[512];
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.impossible_times, 2);   /* the backwards kernel and the century one */
    assert_int_equal(t.streams[0].device, 1);  /* from the copy of context 3 */
    sc_trace_free(&t);

    /* a window that leaves the copy of context 3 out still gives its stream a device */
    sc_trace_times times;
    assert_int_equal(sc_trace_read_times(path, &times, err, sizeof err), 0);
    assert_true(times.cuttable && times.any);
    assert_true(times.run_start_ns == 10000 - 39 * 200 - 100);  /* the earliest call */
    assert_int_equal(times.impossible, 2);
    assert_int_equal(sc_trace_load_between(path, &times, 0, 4000, &t, err, sizeof err), 0);
    assert_int_equal(t.n_copies, 1);
    assert_int_equal(t.streams[0].device, 1);
    assert_int_equal(t.impossible_times, 2);
    sc_trace_free(&t);

    /* truncated inside the END record: a truncated trace, cut the same way */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    assert_int_equal(truncate(path, size - 20), 0);
    check_trace(path, &cut, &whole_only, &refused);
    assert_int_equal(cut, 2);

    /* a corrupt record size: refused by both with the same words */
    uint32_t bad = 13;
    f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, (long)sizeof(sc_file_header) + 4, SEEK_SET);
    assert_int_equal(fwrite(&bad, 1, sizeof bad, f), sizeof bad);
    fclose(f);
    check_trace(path, &cut, &whole_only, &refused);
    assert_int_equal(refused, 1);

    /* without a PROCESS record the bounds need every record: not cuttable */
    write_trace("without", 0, path, sizeof path);
    check_trace(path, &cut, &whole_only, &refused);
    assert_int_equal(whole_only, 1);
}

static void test_missing_file(void **state)
{
    (void)state;
    sc_trace_times times;
    char err[512] = "";
    assert_int_equal(sc_trace_read_times("/no/such/trace.sctrace", &times, err, sizeof err), -1);
    assert_non_null(strstr(err, "/no/such/trace.sctrace"));
}

int main(int argc, char **argv)
{
    folders = argv + 1;
    n_folders = argc - 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_trace_of_the_folders),
        cmocka_unit_test(test_written_traces),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
