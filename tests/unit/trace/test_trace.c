/* Trace writer and reader: a round trip, and every way a file can be damaged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "streamcheck/trace.h"
#include "trace/record.h"
#include "trace/sort.h"
#include "trace/writer.h"

#include "scratch_dir.h"

static void put(sc_writer *w, uint16_t kind, const void *fixed, size_t fixed_size,
                const void *tail, size_t tail_size)
{
    uint8_t buf[4096];
    size_t n = sc_record_encode(buf, kind, fixed, fixed_size, tail, tail_size);
    assert_int_equal(sc_writer_append(w, buf, n), 0);
}

/* Writes a small trace: two kernels out of time order, a call with a stack, names. */
static void write_sample(sc_writer *w, int with_end)
{
    sc_rec_process p = {.pid = 42, .ppid = 1, .start_ns = 1000, .attach = SC_ATTACH_PRELOAD};
    put(w, SC_REC_PROCESS, &p, sizeof p, "/bin/app", 9);
    sc_rec_string s = {.id = 1};
    put(w, SC_REC_STRING, &s, sizeof s, "_Z4spinv", 9);
    sc_rec_call_name cn = {.domain = 1, .cbid = 211};
    put(w, SC_REC_CALL_NAME, &cn, sizeof cn, "cudaLaunchKernel", 17);
    sc_rec_kernel k2 = {.start_ns = 5000, .end_ns = 6000, .stream_id = 7, .name_id = 1,
                        .correlation_id = 2};
    sc_rec_kernel k1 = {.start_ns = 2000, .end_ns = 4000, .stream_id = 7, .name_id = 1,
                        .correlation_id = 1};
    put(w, SC_REC_KERNEL, &k2, sizeof k2, NULL, 0);
    put(w, SC_REC_KERNEL, &k1, sizeof k1, NULL, 0);
    uint64_t frames[3] = {0x401000, 0x401234, 0x7f0000001000};
    sc_rec_api a = {.start_ns = 1500, .end_ns = 1600, .stream = 0, .correlation_id = 1,
                    .domain = 1, .cbid = 211, .call_class = SC_CALL_LAUNCH, .n_frames = 3};
    put(w, SC_REC_API, &a, sizeof a, frames, sizeof frames);
    sc_rec_module m = {.bias = 0, .lo = 0x400000, .hi = 0x500000};
    put(w, SC_REC_MODULE, &m, sizeof m, "/bin/app", 9);
    put(w, SC_REC_ENV, NULL, 0, "CUDA_LAUNCH_BLOCKING=1", 23);
    if (with_end) {
        sc_rec_end e = {.end_ns = 9000, .dropped_records = 3, .api_records = 1};
        put(w, SC_REC_END, &e, sizeof e, NULL, 0);
    }
}

static void path_of(char *out, size_t n, const char *name) { snprintf(out, n, "%s/%s", tmpdir, name); }

static void make_trace(int with_end, char *path, size_t n)
{
    sc_writer w;
    char err[256];
    assert_int_equal(sc_writer_open(&w, tmpdir, "app", 42, err, sizeof err), 0);
    write_sample(&w, with_end);
    assert_int_equal(sc_writer_finish(&w, err, sizeof err), 0);
    path_of(path, n, "app-42.sctrace");
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[512], err[512];
    make_trace(1, path, sizeof path);
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.status, SC_TRACE_COMPLETE);
    assert_true(t.has_process);
    assert_int_equal(t.process.pid, 42);
    assert_string_equal(t.exe, "/bin/app");
    assert_int_equal(t.n_kernels, 2);
    /* sorted by start time, whatever the file order */
    assert_int_equal(t.kernels[0].rec.start_ns, 2000);
    assert_int_equal(t.kernels[1].rec.start_ns, 5000);
    assert_string_equal(sc_kernel_name(&t, &t.kernels[0]), "_Z4spinv");
    assert_int_equal(t.n_calls, 1);
    assert_string_equal(sc_call_name(&t, &t.calls[0]), "cudaLaunchKernel");
    assert_int_equal(sc_call_n_frames(&t, &t.calls[0]), 3);
    assert_int_equal(sc_call_frames(&t, &t.calls[0])[1], 0x401234);
    assert_int_equal(t.n_env, 1);
    assert_string_equal(t.env[0], "CUDA_LAUNCH_BLOCKING=1");
    assert_true(t.has_end);
    assert_int_equal(t.end.dropped_records, 3);
    assert_non_null(sc_trace_module_at(&t, 0x401234));
    assert_null(sc_trace_module_at(&t, 0x7f0000001000));
    sc_trace_free(&t);
}

static void test_partial_name_while_running(void **state)
{
    (void)state;
    sc_writer w;
    char err[256], path[512];
    assert_int_equal(sc_writer_open(&w, tmpdir, "run", 7, err, sizeof err), 0);
    write_sample(&w, 0);
    /* not finished: the file keeps its .partial name and loads as partial */
    path_of(path, sizeof path, "run-7.sctrace.partial");
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.status, SC_TRACE_PARTIAL);
    assert_non_null(strstr(t.status_detail, "no end record"));
    assert_int_equal(t.n_kernels, 2);
    sc_trace_free(&t);
    sc_writer_abandon(&w);
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void test_truncated_keeps_prefix(void **state)
{
    (void)state;
    char path[512], err[512];
    make_trace(1, path, sizeof path);
    /* cut the file inside its last record (the END record is 48 bytes) */
    assert_int_equal(truncate(path, file_size(path) - 20), 0);
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.status, SC_TRACE_TRUNCATED);
    assert_non_null(strstr(t.status_detail, "cut short"));
    assert_false(t.has_end);
    assert_int_equal(t.n_kernels, 2);
    sc_trace_free(&t);
}

static void patch(const char *path, long offset, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, offset, SEEK_SET);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

static void test_corrupt_record_size(void **state)
{
    (void)state;
    char path[512], err[512];
    make_trace(1, path, sizeof path);
    uint32_t bad = 13; /* not a multiple of 8 */
    patch(path, sizeof(sc_file_header) + 4, &bad, sizeof bad);
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "corrupt trace"));
    assert_non_null(strstr(err, path));
}

/* An API record whose frames run past it, after records of the same header found sound: the
 * same fault at its offset, in a load and in a read of times (the loader's memo of sound
 * headers holds API headers without their frames' fit). */
static void test_frames_overrun_after_sound_calls(void **state)
{
    (void)state;
    sc_writer w;
    char err[512], path[512];
    assert_int_equal(sc_writer_open(&w, tmpdir, "overrun", 7, err, sizeof err), 0);
    uint64_t frames[2] = {0x401000, 0x401234};
    for (uint32_t i = 0; i < 4; i++) {
        sc_rec_api a = {.start_ns = 100 + i, .end_ns = 200 + i, .correlation_id = i + 1,
                        .domain = 1, .cbid = 211, .n_frames = 2};
        put(&w, SC_REC_API, &a, sizeof a, frames, sizeof frames);
    }
    assert_int_equal(sc_writer_finish(&w, err, sizeof err), 0);
    path_of(path, sizeof path, "overrun-7.sctrace");
    /* the third API record: its header as the others', its frames one too many */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    sc_file_header fh;
    assert_int_equal(fread(&fh, sizeof fh, 1, f), 1);
    long off = (long)fh.header_size, third = -1;
    for (int apis = 0; third < 0;) {
        sc_record_header h;
        fseek(f, off, SEEK_SET);
        assert_int_equal(fread(&h, sizeof h, 1, f), 1);
        if (h.kind == SC_REC_API && ++apis == 3)
            third = off;
        off += (long)h.size;
    }
    fclose(f);
    uint16_t n_frames = 3;
    patch(path, third + (long)sizeof(sc_record_header) + (long)offsetof(sc_rec_api, n_frames),
          &n_frames, sizeof n_frames);
    char want[640];
    snprintf(want, sizeof want, "%s: corrupt trace: frames overrun at byte %ld", path, third);
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), -1);
    assert_string_equal(err, want);
    sc_trace_times times;
    assert_int_equal(sc_trace_read_times(path, &times, err, sizeof err), -1);
    assert_string_equal(err, want);
}

static void test_not_a_trace(void **state)
{
    (void)state;
    char path[512], err[512];
    path_of(path, sizeof path, "notes.txt");
    FILE *f = fopen(path, "w");
    fputs("hello, this is not a trace file at all\n", f);
    fclose(f);
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a streamcheck trace"));
}

static void test_newer_major_refused(void **state)
{
    (void)state;
    char path[512], err[512];
    make_trace(1, path, sizeof path);
    uint16_t major = SC_TRACE_VERSION_MAJOR + 1;
    patch(path, 8, &major, sizeof major);
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "newer streamcheck"));
}

static void test_unknown_kind_and_longer_record_accepted(void **state)
{
    (void)state;
    sc_writer w;
    char err[256], path[512];
    assert_int_equal(sc_writer_open(&w, tmpdir, "future", 9, err, sizeof err), 0);
    uint8_t blob[24] = {1, 2, 3};
    put(&w, 200, blob, sizeof blob, NULL, 0); /* a kind from a newer minor version */
    /* a kernel record with 16 more bytes of fields appended by a newer minor version */
    uint8_t longer[sizeof(sc_rec_kernel) + 16] = {0};
    sc_rec_kernel k = {.start_ns = 10, .end_ns = 20, .stream_id = 3};
    memcpy(longer, &k, sizeof k);
    put(&w, SC_REC_KERNEL, longer, sizeof longer, NULL, 0);
    assert_int_equal(sc_writer_finish(&w, err, sizeof err), 0);
    path_of(path, sizeof path, "future-9.sctrace");
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.n_kernels, 1);
    assert_int_equal(t.kernels[0].rec.end_ns, 20);
    assert_string_equal(sc_kernel_name(&t, &t.kernels[0]), "?");
    sc_trace_free(&t);
}

static void test_unwritable_folder(void **state)
{
    (void)state;
    sc_writer w;
    char err[256];
    assert_int_equal(sc_writer_open(&w, "/proc/no-such-place/out", "app", 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "/proc/no-such-place/out"));
}

static void test_stable_order_for_equal_starts(void **state)
{
    (void)state;
    sc_writer w;
    char err[256], path[512];
    assert_int_equal(sc_writer_open(&w, tmpdir, "ties", 5, err, sizeof err), 0);
    for (uint32_t i = 0; i < 100; i++) {
        sc_rec_kernel k = {.start_ns = 100 - i / 10, .end_ns = 200, .correlation_id = i};
        put(&w, SC_REC_KERNEL, &k, sizeof k, NULL, 0);
    }
    assert_int_equal(sc_writer_finish(&w, err, sizeof err), 0);
    path_of(path, sizeof path, "ties-5.sctrace");
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    for (size_t i = 1; i < t.n_kernels; i++) {
        const sc_kernel_rec *a = &t.kernels[i - 1].rec, *b = &t.kernels[i].rec;
        assert_true(a->start_ns <= b->start_ns);
        if (a->start_ns == b->start_ns) assert_true(a->correlation_id < b->correlation_id);
    }
    sc_trace_free(&t);
}

/* LOSS records (format 1.1): the last record of a cause wins (counts are cumulative), a cause
 * never written reads 0, and every cause has a name. */
static void test_losses(void **state)
{
    (void)state;
    sc_writer w;
    char err[256], path[512];
    assert_int_equal(sc_writer_open(&w, tmpdir, "lost", 6, err, sizeof err), 0);
    sc_rec_loss a = {.cause = SC_LOSS_NVTX_DEPTH, .count = 2};
    sc_rec_loss b = {.cause = SC_LOSS_NAMES, .count = 7};
    sc_rec_loss c = {.cause = SC_LOSS_NVTX_DEPTH, .count = 5};
    put(&w, SC_REC_LOSS, &a, sizeof a, NULL, 0);
    put(&w, SC_REC_LOSS, &b, sizeof b, NULL, 0);
    put(&w, SC_REC_LOSS, &c, sizeof c, NULL, 0);
    sc_rec_end e = {.end_ns = 1};
    put(&w, SC_REC_END, &e, sizeof e, NULL, 0);
    assert_int_equal(sc_writer_finish(&w, err, sizeof err), 0);
    path_of(path, sizeof path, "lost-6.sctrace");
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.version_minor, SC_TRACE_VERSION_MINOR);
    assert_int_equal(t.n_losses, 2);
    assert_int_equal(sc_trace_lost(&t, SC_LOSS_NVTX_DEPTH), 5);
    assert_int_equal(sc_trace_lost(&t, SC_LOSS_NAMES), 7);
    assert_int_equal(sc_trace_lost(&t, SC_LOSS_TOO_LARGE), 0);
    sc_trace_free(&t);
    for (uint32_t cause = 1; cause <= SC_LOSS_CAUSES; cause++) {
        assert_string_not_equal(sc_loss_cause_name(cause), "unknown");
        assert_non_null(sc_loss_cause_text(cause));
    }
    assert_string_equal(sc_loss_cause_name(SC_LOSS_CAUSES + 1), "unknown");
}

/* sc_sort: a list in order is left alone after one pass of comparisons; any other is sorted. */
static size_t sort_compares;
static int count_cmp(const void *a, const void *b)
{
    sort_compares++;
    uint32_t x = *(const uint32_t *)a >> 8, y = *(const uint32_t *)b >> 8; /* low byte: tag */
    return x < y ? -1 : x > y;
}

/* A trace of a PROCESS record and n records of one kind, the last first (the loader sorts
 * them by start), written as app NAME-PID and loaded into *t. */
static void load_records(const char *name, int pid, uint16_t kind, const void *records,
                         size_t n, size_t size, sc_trace *t)
{
    sc_writer w;
    char err[256], path[512], file[64];
    assert_int_equal(sc_writer_open(&w, tmpdir, name, pid, err, sizeof err), 0);
    sc_rec_process p = {.pid = (uint32_t)pid, .ppid = 1, .start_ns = 1000,
                        .attach = SC_ATTACH_PRELOAD};
    put(&w, SC_REC_PROCESS, &p, sizeof p, "/bin/app", 9);
    for (size_t i = n; i-- > 0;)
        put(&w, kind, (const char *)records + i * size, size, NULL, 0);
    assert_int_equal(sc_writer_finish(&w, err, sizeof err), 0);
    snprintf(file, sizeof file, "%s-%d.sctrace", name, pid);
    path_of(path, sizeof path, file);
    assert_int_equal(sc_trace_load(path, t, err, sizeof err), 0);
}

/* Copies keep their shape apart (trace.h, sc_copy_shape): each field of a MEMCPY record
 * but its times and correlation id, changed alone, makes a shape of its own, and the copies
 * between them that repeat the first shape share it; every loaded copy gives back its
 * record, field for field, in time order whatever the file order. */
static void test_copies_share_their_shapes(void **state)
{
    (void)state;
    enum { N_FIELDS = 10, N = 2 * N_FIELDS + 1 };
    const sc_rec_memcpy base = {.bytes = 1 << 20, .device = 1, .context_id = 2, .stream_id = 3,
                                .copy_kind = 1, .src_kind = SC_MEM_PINNED,
                                .dst_kind = SC_MEM_DEVICE, .flags = SC_MEMCPY_ASYNC,
                                .src_device = 1, .dst_device = 1};
    sc_rec_memcpy written[N];
    for (int i = 0; i < N; i++) {
        sc_rec_memcpy c = base;
        c.start_ns = 1000 + 100 * (uint64_t)i;
        c.end_ns = c.start_ns + 50;
        c.correlation_id = (uint32_t)i + 1;
        switch (i % 2 ? i / 2 : -1) {   /* odd copies: one field apart from the base */
        case 0: c.bytes += 1; break;
        case 1: c.device += 1; break;
        case 2: c.context_id += 1; break;
        case 3: c.stream_id += 1; break;
        case 4: c.copy_kind = 2; break;
        case 5: c.src_kind = SC_MEM_PAGEABLE; break;
        case 6: c.dst_kind = SC_MEM_PINNED; break;
        case 7: c.flags = 0; break;
        case 8: c.src_device += 1; break;
        case 9: c.dst_device += 1; break;
        default: break;
        }
        written[i] = c;
    }
    sc_trace t;
    load_records("copies", 43, SC_REC_MEMCPY, written, N, sizeof *written, &t);
    assert_int_equal(t.n_copies, N);
    assert_int_equal(t.n_copy_shapes, 1 + N_FIELDS);
    for (int i = 0; i < N; i++) {
        sc_rec_memcpy loaded = sc_copy_record(&t, &t.copies[i]);
        assert_memory_equal(&loaded, &written[i], sizeof loaded);
        if (i % 2 == 0)
            assert_int_equal(t.copies[i].shape, t.copies[0].shape);
        assert_int_equal(sc_copy_device(&t, &t.copies[i]), written[i].device);
        assert_int_equal(sc_copy_stream(&t, &t.copies[i]), written[i].stream_id);
        assert_int_equal(sc_copy_bytes(&t, &t.copies[i]), written[i].bytes);
    }
    sc_trace_free(&t);
}

/* Memsets the same way (sc_memset_shape): each field changed alone makes a shape. */
static void test_memsets_share_their_shapes(void **state)
{
    (void)state;
    enum { N_FIELDS = 7, N = 2 * N_FIELDS + 1 };
    const sc_rec_memset base = {.bytes = 4096, .device = 1, .context_id = 2, .stream_id = 3,
                                .value = 0, .memory_kind = SC_MEM_DEVICE, .flags = 1};
    sc_rec_memset written[N];
    for (int i = 0; i < N; i++) {
        sc_rec_memset m = base;
        m.start_ns = 1000 + 100 * (uint64_t)i;
        m.end_ns = m.start_ns + 50;
        m.correlation_id = (uint32_t)i + 1;
        switch (i % 2 ? i / 2 : -1) {
        case 0: m.bytes += 4; break;
        case 1: m.device += 1; break;
        case 2: m.context_id += 1; break;
        case 3: m.stream_id += 1; break;
        case 4: m.value = 0xff; break;
        case 5: m.memory_kind = SC_MEM_MANAGED; break;
        case 6: m.flags = 0; break;
        default: break;
        }
        written[i] = m;
    }
    sc_trace t;
    load_records("memsets", 44, SC_REC_MEMSET, written, N, sizeof *written, &t);
    assert_int_equal(t.n_memsets, N);
    assert_int_equal(t.n_memset_shapes, 1 + N_FIELDS);
    for (int i = 0; i < N; i++) {
        sc_rec_memset loaded = sc_memset_record(&t, &t.memsets[i]);
        assert_memory_equal(&loaded, &written[i], sizeof loaded);
        if (i % 2 == 0)
            assert_int_equal(t.memsets[i].shape, t.memsets[0].shape);
        assert_int_equal(sc_memset_device(&t, &t.memsets[i]), written[i].device);
        assert_int_equal(sc_memset_stream(&t, &t.memsets[i]), written[i].stream_id);
    }
    sc_trace_free(&t);
}

static void test_sort_skips_sorted(void **state)
{
    (void)state;
    enum { N = 1000 };
    uint32_t v[N], before[N];
    for (uint32_t i = 0; i < N; i++)
        v[i] = (i / 3) << 8 | (i % 256);    /* keys repeat; the tag tells equal keys apart */
    memcpy(before, v, sizeof v);
    sort_compares = 0;
    sc_sort(v, N, sizeof *v, count_cmp);
    assert_int_equal(sort_compares, N - 1);
    assert_memory_equal(v, before, sizeof v);

    uint64_t seed = 12345;
    for (uint32_t i = N - 1; i > 0; i--) {  /* shuffle */
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t j = (uint32_t)((seed >> 33) % (i + 1)), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
    sc_sort(v, N, sizeof *v, count_cmp);
    for (uint32_t i = 1; i < N; i++)
        assert_true(v[i - 1] >> 8 <= v[i] >> 8);
    uint64_t sum = 0, want = 0;             /* the same elements */
    for (uint32_t i = 0; i < N; i++) {
        sum += v[i];
        want += before[i];
    }
    assert_int_equal(sum, want);
    sc_sort(v, 0, sizeof *v, count_cmp);    /* empty and single lists: nothing to do */
    sc_sort(v, 1, sizeof *v, count_cmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_partial_name_while_running),
        cmocka_unit_test(test_truncated_keeps_prefix),
        cmocka_unit_test(test_corrupt_record_size),
        cmocka_unit_test(test_frames_overrun_after_sound_calls),
        cmocka_unit_test(test_not_a_trace),
        cmocka_unit_test(test_newer_major_refused),
        cmocka_unit_test(test_unknown_kind_and_longer_record_accepted),
        cmocka_unit_test(test_unwritable_folder),
        cmocka_unit_test(test_stable_order_for_equal_starts),
        cmocka_unit_test(test_losses),
        cmocka_unit_test(test_sort_skips_sorted),
        cmocka_unit_test(test_copies_share_their_shapes),
        cmocka_unit_test(test_memsets_share_their_shapes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
