/* Compact records (format 2.0): the encoder (trace/compact_write.h) and what the loader makes
 * of its output: every kernel and call comes back field for field, a time too far from the
 * base declares a new one, a value that does not fit is left to the full record, and a file
 * cut inside a compact record, or one whose compact record lacks its declaration, is read as
 * truncated or refused as corrupt. */
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
#include "trace/compact_write.h"
#include "trace/kernel_shapes.h"
#include "trace/load_calls.h"
#include "trace/record.h"
#include "trace/writer.h"

#include "scratch_dir.h"

/* A buffer of records as a thread buffer holds them, with its compact writer. */
typedef struct buffer {
    uint8_t data[1 << 16];
    size_t used;
    sc_compact_writer w;
    size_t kinds[SC_REC_KIND_LAST + 1];     /* records written, by kind */
} buffer;

static void count_kinds(buffer *b, const uint8_t *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        sc_record_header h;
        memcpy(&h, p + off, sizeof h);
        b->kinds[h.kind]++;
        off += h.size;
    }
}

static void put_full(buffer *b, uint16_t kind, const void *fixed, size_t size)
{
    size_t n = sc_record_encode(b->data + b->used, kind, fixed, size, NULL, 0);
    count_kinds(b, b->data + b->used, n);
    b->used += n;
}

/* As activity.c: compact when it fits, else in full. */
static void put_kernel(buffer *b, const sc_rec_kernel *k)
{
    size_t n = sc_compact_kernel(&b->w, b->data + b->used, k);
    if (!n) {
        put_full(b, SC_REC_KERNEL, k, sizeof *k);
        return;
    }
    count_kinds(b, b->data + b->used, n);
    b->used += n;
}

/* As callbacks.c: a call that may be compact tries the inline common case, then the
 * declaring one; else, or when they say no, it goes in full. */
static void put_call(buffer *b, const sc_rec_api *a)
{
    const void *key = (const void *)(uintptr_t)(0x1000 + a->cbid * 16);
    uint8_t *dst = b->data + b->used;
    if (a->flags != SC_API_STACK_SHARED || a->bytes || a->aux2 || a->result || a->n_frames) {
        put_full(b, SC_REC_API, a, sizeof *a);
        return;
    }
    size_t n = sc_compact_call_declared(&b->w, dst, key, a->stream, a->start_ns, a->end_ns,
                                        a->correlation_id, (uint32_t)a->aux, a->context_id);
    if (!n) {
        sc_rec_call_site site = {.stream = a->stream, .tid = a->tid, .flags = a->flags,
                                 .domain = a->domain, .cbid = a->cbid,
                                 .call_class = a->call_class};
        sc_compact_call_in c = {.start_ns = a->start_ns, .end_ns = a->end_ns,
                                .correlation_id = a->correlation_id,
                                .shared = (uint32_t)a->aux, .context_id = a->context_id};
        n = sc_compact_call(&b->w, dst, key, &site, &c);
    }
    if (!n) {
        put_full(b, SC_REC_API, a, sizeof *a);
        return;
    }
    count_kinds(b, dst, n);
    b->used += n;
}

static buffer *new_buffer(void)
{
    buffer *b = calloc(1, sizeof *b);
    assert_non_null(b);
    sc_compact_writer_init(&b->w);
    return b;
}

static void path_of(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s-1.sctrace", tmpdir, name);
}

/* The buffers, in this order, as one trace; END only when complete. */
static void write_trace(const char *name, buffer **bufs, size_t n_bufs, size_t cut,
                        bool complete)
{
    sc_writer w;
    char err[256], path[512];
    assert_int_equal(sc_writer_open(&w, tmpdir, name, 1, err, sizeof err), 0);
    for (size_t i = 0; i < n_bufs; i++)
        assert_int_equal(
            sc_writer_append(&w, bufs[i]->data, bufs[i]->used - (i + 1 == n_bufs ? cut : 0)), 0);
    if (complete) {
        sc_rec_end end = {.end_ns = 1, .reason = SC_END_EXIT};
        uint8_t rec[64];
        assert_int_equal(sc_writer_append(&w, rec, sc_record_encode(rec, SC_REC_END, &end,
                                                                    sizeof end, NULL, 0)), 0);
    }
    assert_int_equal(sc_writer_finish(&w, err, sizeof err), 0);
    path_of(path, sizeof path, name);
}

static sc_rec_kernel kernel_at(uint64_t start, uint64_t duration, uint32_t corr, uint32_t stream)
{
    return (sc_rec_kernel){.start_ns = start, .end_ns = start + duration, .device = 0,
                           .context_id = 1, .stream_id = stream, .correlation_id = corr,
                           .grid_x = 128, .grid_y = 1, .grid_z = 1, .block_x = 256,
                           .block_y = 1, .block_z = 1, .registers_per_thread = 32,
                           .dynamic_shared = 1024, .name_id = 1 + stream % 3,
                           .graph_node_id = stream == 9 ? 77 : 0};
}

static sc_rec_api launch_at(uint64_t start, uint64_t duration, uint32_t corr, uint64_t stream)
{
    return (sc_rec_api){.start_ns = start, .end_ns = start + duration, .stream = stream,
                        .aux = corr - 1, .tid = 4242, .correlation_id = corr, .context_id = 1,
                        .flags = SC_API_STACK_SHARED, .domain = 2, .cbid = 211,
                        .call_class = SC_CALL_LAUNCH};
}

static void load(const char *name, sc_trace *t)
{
    char path[512], err[512];
    path_of(path, sizeof path, name);
    assert_int_equal(sc_trace_load(path, t, err, sizeof err), 0);
}

/* Kernels and calls sorted by start as the loader sorts them (starts are distinct here). */
static int by_kernel_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_rec_kernel *)a)->start_ns, y = ((const sc_rec_kernel *)b)->start_ns;
    return x < y ? -1 : x > y;
}
static int by_call_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_rec_api *)a)->start_ns, y = ((const sc_rec_api *)b)->start_ns;
    return x < y ? -1 : x > y;
}

enum { N = 600 };

static void test_round_trip_field_for_field(void **state)
{
    (void)state;
    static sc_rec_kernel kernels[N];
    static sc_rec_api calls[N];
    buffer *a = new_buffer(), *b = new_buffer();
    uint64_t t0 = 1700000000000000000ull;
    for (uint32_t i = 0; i < N; i++) {
        /* times spread over 12 s: the base moves several times; kernels end out of order */
        uint64_t start = t0 + (uint64_t)i * 20000000u + (i % 7) * 1000u;
        calls[i] = launch_at(start, 3000 + i, 2 * i + 2, 0x5000 + 16 * (i % 5));
        if (i % 50 == 7) calls[i].result = 2;       /* an error: in full */
        if (i % 50 == 9) calls[i].bytes = 64;       /* a byte count: in full */
        kernels[i] = kernel_at(start + 5000 - (i % 3) * 4000000000ull, 1000 + 17 * i, 2 * i + 2,
                               7 + i % 4);
        if (i == 300) kernels[i].end_ns = kernels[i].start_ns + (1ull << 33);  /* 8.6 s */
        if (i == 301) kernels[i].end_ns = kernels[i].start_ns - 1;   /* impossible: in full */
        /* Two buffers, as two threads' (the second one's ids collide with the first's). */
        buffer *to = i % 2 ? b : a;
        put_call(to, &calls[i]);
        put_kernel(to, &kernels[i]);
    }
    buffer *bufs[] = {a, b};
    write_trace("round", bufs, 2, 0, true);
    for (int k = 0; k < 2; k++) {
        assert_true(bufs[k]->kinds[SC_REC_KERNEL_COMPACT] > N / 2 - 10);
        assert_true(bufs[k]->kinds[SC_REC_CALL_COMPACT] >= N / 2 - 2 * N / 50);
        assert_true(bufs[k]->kinds[SC_REC_TIME_BASE] >= 4);   /* 12 s, +-2.1 s a base */
        assert_true(bufs[k]->kinds[SC_REC_KERNEL_SHAPE] <= 4);
        assert_true(bufs[k]->kinds[SC_REC_CALL_SITE] <= 5);
    }
    assert_int_equal(a->kinds[SC_REC_KERNEL] + b->kinds[SC_REC_KERNEL], 2);
    assert_int_equal(a->kinds[SC_REC_API] + b->kinds[SC_REC_API], 2 * N / 50);

    sc_trace t;
    load("round", &t);
    assert_int_equal(t.n_kernels, N - 1);   /* the impossible one is dropped, as in full */
    assert_int_equal(t.n_calls, N);
    qsort(kernels, N, sizeof *kernels, by_kernel_start);
    qsort(calls, N, sizeof *calls, by_call_start);
    for (size_t i = 0, j = 0; i < N; i++) {
        if (kernels[i].end_ns < kernels[i].start_ns) continue;
        sc_rec_kernel loaded;
        sc_kernel_as_record(&t, &t.kernels[j++], &loaded);
        assert_memory_equal(&loaded, &kernels[i], sizeof kernels[i]);
    }
    for (size_t i = 0; i < N; i++) {
        sc_rec_api loaded, expected = calls[i];
        sc_call_as_record(&t, &t.calls[i], &loaded);
        expected.domain = expected.cbid = 0;    /* they name the call (no CALL_NAME: "?") */
        expected.result = 0;
        assert_memory_equal(&loaded, &expected, sizeof expected);
        assert_string_equal(sc_call_name(&t, &t.calls[i]), "?");
        assert_int_equal(sc_call_frames(&t, &t.calls[i])[0], 0);   /* none: the shared 0 */
    }
    sc_trace_free(&t);
    free(a);
    free(b);
}

static void test_the_base_moves_only_when_a_time_does_not_fit(void **state)
{
    (void)state;
    buffer *b = new_buffer();
    uint64_t t0 = 5000000000000ull;
    sc_rec_kernel k = kernel_at(t0, 100, 1, 7);
    put_kernel(b, &k);                                  /* the first: base and shape */
    k = kernel_at(t0 + 0x7fffffffu, 100, 2, 7);         /* the last start that fits */
    put_kernel(b, &k);
    k = kernel_at(t0 - 0x80000000u, 100, 3, 7);         /* the earliest that fits */
    put_kernel(b, &k);
    assert_int_equal(b->kinds[SC_REC_TIME_BASE], 1);
    k = kernel_at(t0 + 0x80000000u, 100, 4, 7);         /* one past: a new base */
    put_kernel(b, &k);
    assert_int_equal(b->kinds[SC_REC_TIME_BASE], 2);
    k = kernel_at(t0 + 0x80000000u + 0xffffffffu, 0xffffffffu, 5, 7);  /* longest that fits */
    put_kernel(b, &k);
    k = kernel_at(t0, 0x100000000u, 6, 7);              /* 2^32 ns: in full */
    put_kernel(b, &k);
    assert_int_equal(b->kinds[SC_REC_KERNEL_COMPACT], 5);
    assert_int_equal(b->kinds[SC_REC_KERNEL], 1);
    assert_int_equal(b->kinds[SC_REC_KERNEL_SHAPE], 1);

    /* The buffer starts over: the next one declares its base and shape again. */
    buffer *next = new_buffer();
    next->w = b->w;
    sc_compact_writer_forget(&next->w);
    put_kernel(next, &k);
    k = kernel_at(t0 + 1, 100, 7, 7);
    put_kernel(next, &k);
    assert_int_equal(next->kinds[SC_REC_TIME_BASE], 1);
    assert_int_equal(next->kinds[SC_REC_KERNEL_SHAPE], 1);

    buffer *bufs[] = {b, next};
    write_trace("base", bufs, 2, 0, true);
    sc_trace t;
    load("base", &t);
    assert_int_equal(t.n_kernels, 8);
    uint64_t starts[] = {t0 - 0x80000000u, t0, t0, t0, t0 + 1, t0 + 0x7fffffffu,
                         t0 + 0x80000000u, t0 + 0x80000000u + 0xffffffffu};
    for (size_t i = 0; i < 8; i++) assert_int_equal(t.kernels[i].rec.start_ns, starts[i]);
    assert_int_equal(t.kernels[7].rec.end_ns - t.kernels[7].rec.start_ns, 0xffffffffu);
    sc_trace_free(&t);
    free(b);
    free(next);
}

static void test_ids_past_the_last_are_left_to_full_records(void **state)
{
    (void)state;
    buffer *b = new_buffer();
    b->w.next_shape = SC_COMPACT_MAX_ID;    /* one id left */
    b->w.next_site = SC_COMPACT_MAX_ID + 1; /* none */
    sc_rec_kernel k = kernel_at(1000000000000ull, 10, 1, 7);
    put_kernel(b, &k);
    k = kernel_at(1000000000100ull, 10, 2, 8);          /* another shape: no id for it */
    put_kernel(b, &k);
    sc_rec_api a = launch_at(1000000000000ull, 10, 3, 0x10);
    put_call(b, &a);
    assert_int_equal(b->kinds[SC_REC_KERNEL_COMPACT], 1);
    assert_int_equal(b->kinds[SC_REC_KERNEL], 1);
    assert_int_equal(b->kinds[SC_REC_API], 1);
    buffer *bufs[] = {b};
    write_trace("ids", bufs, 1, 0, true);
    sc_trace t;
    load("ids", &t);
    assert_int_equal(t.n_kernels, 2);
    assert_int_equal(t.n_calls, 1);
    assert_int_equal(sc_kernel_stream(&t, &t.kernels[1]), 8);
    sc_trace_free(&t);
    free(b);
}

static void test_cut_inside_a_compact_record_is_truncated(void **state)
{
    (void)state;
    buffer *b = new_buffer();
    for (uint32_t i = 0; i < 10; i++) {
        sc_rec_api a = launch_at(2000000000000ull + i * 1000u, 100, i + 2, 0x10);
        put_call(b, &a);
    }
    buffer *bufs[] = {b};
    write_trace("cut", bufs, 1, 12, false);     /* the last CALL_COMPACT loses 12 of 32 */
    sc_trace t;
    load("cut", &t);
    assert_int_equal(t.status, SC_TRACE_TRUNCATED);
    assert_non_null(strstr(t.status_detail, "cut short"));
    assert_int_equal(t.n_calls, 9);
    assert_int_equal(t.calls[8].rec.correlation_id, 10);
    sc_trace_free(&t);
    free(b);
}

/* A file whose compact record comes before what it needs is corrupt, named at its byte. */
static void expect_corrupt(const char *name, buffer *b, const char *words)
{
    buffer *bufs[] = {b};
    write_trace(name, bufs, 1, 0, true);
    char path[512], err[512];
    path_of(path, sizeof path, name);
    sc_trace t;
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, words));
}

static void test_a_compact_record_without_its_declaration_is_corrupt(void **state)
{
    (void)state;
    buffer *b = new_buffer();
    sc_rec_time_base base = {.base_ns = 1000};
    put_full(b, SC_REC_TIME_BASE, &base, sizeof base);
    sc_rec_kernel_compact k = {.duration = 5, .correlation_id = 1, .shape_id = 3};
    put_full(b, SC_REC_KERNEL_COMPACT, &k, sizeof k);       /* shape 3: never declared */
    expect_corrupt("undeclared", b, "compact record before its declaration at byte 32");

    buffer *c = new_buffer();
    sc_rec_call_site site = {.stream = 1, .tid = 2, .flags = SC_API_STACK_SHARED, .domain = 2,
                             .cbid = 211, .call_class = SC_CALL_LAUNCH, .id = 1};
    put_full(c, SC_REC_CALL_SITE, &site, sizeof site);
    sc_rec_call_compact call = {.duration = 5, .correlation_id = 1, .site_id = 1};
    put_full(c, SC_REC_CALL_COMPACT, &call, sizeof call);   /* before any TIME_BASE */
    expect_corrupt("nobase", c, "compact record before its declaration");

    buffer *d = new_buffer();
    sc_rec_kernel_shape shape = {.id = 0};
    put_full(d, SC_REC_KERNEL_SHAPE, &shape, sizeof shape);
    expect_corrupt("shape0", d, "bad shape or site id");
    free(b);
    free(c);
    free(d);
}

static void test_a_later_declaration_of_an_id_holds_from_there(void **state)
{
    (void)state;
    /* Two buffers of two threads both declare site 1 and shape 1, differently: each
     * buffer's records are read with its own (the second's replace the first's). */
    buffer *a = new_buffer(), *b = new_buffer();
    sc_rec_api ca = launch_at(3000000000000ull, 10, 2, 0xa0);
    sc_rec_api cb = launch_at(3000000000500ull, 10, 3, 0xb0);
    cb.tid = 99;
    sc_rec_kernel ka = kernel_at(3000000001000ull, 10, 2, 7);
    sc_rec_kernel kb = kernel_at(3000000001500ull, 10, 3, 8);
    kb.grid_x = ka.grid_x + 5;      /* another shape under the same id */
    put_call(a, &ca);
    put_kernel(a, &ka);
    put_call(b, &cb);
    put_kernel(b, &kb);
    ca.start_ns += 100;
    ca.end_ns += 100;
    ca.correlation_id = 4;
    ca.aux = 3;
    put_call(a, &ca);       /* a's site still: a buffer reaches the file in one piece */
    buffer *bufs[] = {a, b};
    write_trace("ids2", bufs, 2, 0, true);
    sc_trace t;
    load("ids2", &t);
    assert_int_equal(t.n_calls, 3);
    assert_int_equal(sc_call_stream_handle(&t, &t.calls[0]), 0xa0);
    assert_int_equal(sc_call_stream_handle(&t, &t.calls[1]), 0xa0);
    assert_int_equal(sc_call_tid(&t, &t.calls[2]), 99);
    assert_int_equal(sc_kernel_stream(&t, &t.kernels[0]), 7);
    assert_int_equal(sc_kernel_stream(&t, &t.kernels[1]), 8);
    assert_int_equal(sc_kernel_shape_of(&t, &t.kernels[0])->grid_x, ka.grid_x);
    assert_int_equal(sc_kernel_shape_of(&t, &t.kernels[1])->grid_x, kb.grid_x);
    sc_trace_free(&t);
    free(a);
    free(b);
}

/* Where a kernel ran is its shape's: one shape per launch (name, grid, block, resources,
 * graph node) and place (device, context, stream), the same for a kernel written in full and
 * one written compact; each shape's launch is the first shape of the same launch, whatever
 * its place. 240 shapes: the loader's index grows past its first 128. */
enum { N_LAUNCHES = 3, N_PLACES = 80, N_PLACED = 2 * N_LAUNCHES * N_PLACES };

static sc_rec_kernel placed_kernel(uint32_t i)
{
    uint32_t launch = i % N_LAUNCHES, place = (i / N_LAUNCHES) % N_PLACES;
    sc_rec_kernel k = kernel_at(4000000000000ull + i * 1000ull, 100 + i, i + 1, 0);
    k.name_id = 10 + launch;
    k.grid_x = 64 << launch;
    k.graph_node_id = 0;
    k.device = place % 2;
    k.context_id = 1 + place / 2 % 2;
    k.stream_id = 100 + place / 4;
    return k;
}

static bool same_launch(const sc_kernel_shape *a, const sc_kernel_shape *b)
{
    return a->graph_node_id == b->graph_node_id && a->grid_x == b->grid_x &&
           a->grid_y == b->grid_y && a->grid_z == b->grid_z && a->block_x == b->block_x &&
           a->block_y == b->block_y && a->block_z == b->block_z &&
           a->registers_per_thread == b->registers_per_thread &&
           a->static_shared == b->static_shared && a->dynamic_shared == b->dynamic_shared &&
           a->name_id == b->name_id && a->launch_type == b->launch_type;
}

static void test_a_shape_is_one_launch_in_one_place(void **state)
{
    (void)state;
    static sc_rec_kernel written[N_PLACED];
    buffer *a = new_buffer(), *b = new_buffer();
    for (uint32_t i = 0; i < N_PLACED; i++) {
        written[i] = placed_kernel(i);
        if (i % 5 == 0)
            written[i].end_ns = written[i].start_ns + (1ull << 32);   /* too long: in full */
        put_kernel(i % 2 ? b : a, &written[i]);
    }
    assert_true(a->kinds[SC_REC_KERNEL] + b->kinds[SC_REC_KERNEL] == N_PLACED / 5);
    assert_true(a->kinds[SC_REC_KERNEL_COMPACT] + b->kinds[SC_REC_KERNEL_COMPACT] > N_PLACED / 2);
    buffer *bufs[] = {a, b};
    write_trace("placed", bufs, 2, 0, true);
    sc_trace t;
    load("placed", &t);
    assert_int_equal(t.n_kernels, N_PLACED);
    assert_int_equal(t.n_kernel_shapes, N_LAUNCHES * N_PLACES);
    for (size_t i = 0; i < t.n_kernels; i++) {
        const sc_kernel *k = &t.kernels[i];
        const sc_rec_kernel *w = &written[k->rec.correlation_id - 1];
        sc_rec_kernel loaded;
        sc_kernel_as_record(&t, k, &loaded);
        assert_memory_equal(&loaded, w, sizeof loaded);
        assert_int_equal(sc_kernel_device(&t, k), w->device);
        assert_int_equal(sc_kernel_context(&t, k), w->context_id);
        assert_int_equal(sc_kernel_stream(&t, k), w->stream_id);
        /* the other kernel of its launch and place (full or compact) has its shape */
        for (size_t j = 0; j < t.n_kernels; j++) {
            const sc_rec_kernel *v = &written[t.kernels[j].rec.correlation_id - 1];
            bool same = v->name_id == w->name_id && v->device == w->device &&
                        v->context_id == w->context_id && v->stream_id == w->stream_id;
            assert_int_equal(t.kernels[j].rec.shape == k->rec.shape, same);
            assert_int_equal(sc_kernel_launch(&t, &t.kernels[j]) == sc_kernel_launch(&t, k),
                             v->name_id == w->name_id);
        }
    }
    /* a shape's launch is the first shape of the same launch */
    for (size_t i = 0; i < t.n_kernel_shapes; i++) {
        const sc_kernel_shape *s = &t.kernel_shapes[i];
        size_t first = 0;
        while (!same_launch(&t.kernel_shapes[first], s))
            first++;
        assert_int_equal(s->launch, first);
    }
    sc_trace_free(&t);
    free(a);
    free(b);
}

/* A program of more kernel shapes than 3/4 of 256 (a large model's kernels, or one launch on
 * many streams), each in turn: each declared once in a buffer, where a table that forgets all
 * at 192 declared every kernel's shape again (a declaration beside each kernel: the trace of
 * 16 threads' 64 streams grew by 58%). Each loads as written. */
enum { N_TURNED = 400, TURNS = 3 };

static void test_many_shapes_in_turn_declared_once(void **state)
{
    (void)state;
    buffer *b = new_buffer();
    static sc_rec_kernel written[N_TURNED * TURNS];
    for (uint32_t i = 0; i < N_TURNED * TURNS; i++) {
        sc_rec_kernel k = kernel_at(7000000000000ull + i * 1000ull, 100, i + 1, i % N_TURNED);
        k.name_id = 1 + (i % N_TURNED) % 7;
        written[i] = k;
        put_kernel(b, &k);
    }
    assert_int_equal(b->kinds[SC_REC_KERNEL_SHAPE], N_TURNED);
    assert_int_equal(b->kinds[SC_REC_KERNEL_COMPACT], N_TURNED * TURNS);
    buffer *bufs[] = {b};
    write_trace("turned", bufs, 1, 0, true);
    sc_trace t;
    load("turned", &t);
    assert_int_equal(t.n_kernels, N_TURNED * TURNS);
    assert_int_equal(t.n_kernel_shapes, N_TURNED);
    for (size_t i = 0; i < t.n_kernels; i++) {
        sc_rec_kernel loaded;
        sc_kernel_as_record(&t, &t.kernels[i], &loaded);
        assert_memory_equal(&loaded, &written[t.kernels[i].rec.correlation_id - 1],
                            sizeof loaded);
    }
    sc_trace_free(&t);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_field_for_field),
        cmocka_unit_test(test_the_base_moves_only_when_a_time_does_not_fit),
        cmocka_unit_test(test_ids_past_the_last_are_left_to_full_records),
        cmocka_unit_test(test_cut_inside_a_compact_record_is_truncated),
        cmocka_unit_test(test_a_compact_record_without_its_declaration_is_corrupt),
        cmocka_unit_test(test_a_later_declaration_of_an_id_holds_from_there),
        cmocka_unit_test(test_a_shape_is_one_launch_in_one_place),
        cmocka_unit_test(test_many_shapes_in_turn_declared_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
