/* synthetic-trace: writes a large trace with the record mix of a real training-like program,
 * for timing the report tool (tools/bench/report-speed) without a GPU.
 *
 *   synthetic-trace [--full] [--span SECONDS] [--threads N] DIR RECORDS
 *                                     -> DIR/synthetic-4242.sctrace, path on stdout
 *
 * Each step of the program is an NVTX range on the main thread; in it every one of four
 * non-blocking streams gets a pinned host-to-device copy and four kernel launches, the side
 * streams record an event that stream 0 waits for, and the step ends with a
 * cudaStreamSynchronize. Every 64th step allocates device memory while the streams run (an
 * implicit synchronization) and copies from pageable memory. Stacks are sampled as the
 * library samples them: a call site's first call carries its frames, later calls point at
 * it (SC_API_STACK_SHARED). Records leave in the order the library writes them: API records
 * in thread-buffer batches, device records in CUPTI-buffer batches ordered by completion, so
 * the file is not in start-time order and the reader has sorting to do. The mix is fixed
 * (no randomness): the same count always gives the same file. Uses the library's writer and
 * its compact encoder (trace/compact_write.h) as the library does: kernels, and the calls that
 * share a stack without a byte count (launches, the stream sync), as compact records, each
 * batch declaring what it uses; --full writes every record in full, as format 1.5. RECORDS
 * counts the records the program's events make, compact or full, not the declarations.
 * --span spreads the same steps over about SECONDS of run, the host idle between them (data
 * loading, the optimizer's host work): a long run's pace, where the default packs the steps
 * back to back (10M records in 44 s). --threads runs N host threads side by side (up to 64),
 * each with four streams of its own and the same steps, the records shared among them (a
 * multi-threaded server or trainer); each thread writes its own buffers, as the library's
 * threads do. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamcheck/trace_format.h"
#include "trace/compact_write.h"
#include "trace/writer.h"

enum {
    N_STREAMS = 4,
    KERNELS_PER_STREAM = 4,
    N_FRAMES = 8,
    FIRST_TID = 100,
    MAX_THREADS = 64,
    CONTEXT = 1,
    BATCH_BYTES = 1 << 20,      /* a thread buffer / CUPTI buffer handed to the writer */
    SLOW_STEP_EVERY = 64,
};

/* Call names and the CUPTI runtime callback ids they stand for (names are what reports show;
 * the ids only need to be distinct). */
enum cbid {
    CB_LAUNCH = 211, CB_MEMCPY_ASYNC = 41, CB_EVENT_RECORD = 135, CB_WAIT_EVENT = 147,
    CB_STREAM_SYNC = 131, CB_MALLOC = 20, CB_STREAM_CREATE = 268,
};

typedef struct batch {
    uint8_t *data;
    size_t used;
    sc_compact_writer compact;  /* what this batch declared: forgotten when it is written */
} batch;

/* A host thread of the program: its clock, its streams and call sites, its trace buffer. */
typedef struct host_thread {
    uint64_t host_ns;                   /* the thread's clock */
    uint64_t stream_free[N_STREAMS];    /* when each of its streams' last work ends */
    uint32_t site_corr[16];             /* the sampled call of each call site, 0 = none yet */
    batch api;                          /* its thread buffer */
    uint32_t tid;
    unsigned index;
    uint64_t steps;
} host_thread;

typedef struct generator {
    sc_writer writer;
    bool full;                          /* --full: no compact records */
    batch act;                          /* the CUPTI buffer */
    host_thread threads[MAX_THREADS];
    unsigned n_threads;
    host_thread *t;                     /* the thread whose calls are being made */
    uint64_t records, api_records, activity_records;
    uint32_t next_corr;
} generator;

static const uint64_t stream_handle_base = 0x5600000000ull;
static const uint32_t stream_id_base = 13;

/* The current thread's stream s: its handle and CUPTI id (each thread its own streams). */
static uint64_t stream_handle(const generator *g, unsigned s)
{
    return stream_handle_base + (uint64_t)(g->t->index * N_STREAMS + s) * 0x1000;
}

static uint32_t stream_id(const generator *g, unsigned s)
{
    return stream_id_base + g->t->index * N_STREAMS + s;
}

static void flush(generator *g, batch *b)
{
    if (b->used && sc_writer_append(&g->writer, b->data, b->used) != 0) {
        fprintf(stderr, "synthetic-trace: write failed\n");
        exit(1);
    }
    b->used = 0;
    sc_compact_writer_forget(&b->compact);
}

/* Room for `size` more bytes in the batch: written out first when it has not. */
static uint8_t *room(generator *g, batch *b, size_t size)
{
    if (b->used + size > BATCH_BYTES) flush(g, b);
    return b->data + b->used;
}

/* Appends one record (header, fixed part, extra bytes, optional text) to a batch. */
static void emit(generator *g, batch *b, uint16_t kind, const void *fixed, size_t fixed_size,
                 const void *extra, size_t extra_size, const char *text)
{
    size_t text_size = text ? strlen(text) + 1 : 0;
    size_t size = sizeof(sc_record_header) + fixed_size + extra_size + text_size;
    size = (size + 7) & ~(size_t)7;
    if (b->used + size > BATCH_BYTES) flush(g, b);
    uint8_t *p = b->data + b->used;
    memset(p, 0, size);
    sc_record_header h = {.kind = kind, .fixed = (uint16_t)fixed_size, .size = (uint32_t)size};
    memcpy(p, &h, sizeof h);
    memcpy(p + sizeof h, fixed, fixed_size);
    if (extra_size) memcpy(p + sizeof h + fixed_size, extra, extra_size);
    if (text) memcpy(p + sizeof h + fixed_size + extra_size, text, text_size);
    b->used += size;
    g->records++;
}

/* An API call of `dur` ns on the main thread, starting now; returns its correlation id. The
 * call site `site` takes its stack on its first call only. */
static uint32_t call(generator *g, unsigned site, uint16_t cbid, uint16_t cls, uint64_t stream,
                     uint64_t bytes, uint64_t aux, uint32_t aux2, uint64_t dur)
{
    sc_rec_api a = {.start_ns = g->t->host_ns, .end_ns = g->t->host_ns + dur, .stream = stream,
                    .bytes = bytes, .aux = aux, .tid = g->t->tid,
                    .correlation_id = g->next_corr++, .context_id = CONTEXT, .domain = 2,
                    .cbid = cbid, .call_class = cls, .aux2 = aux2};
    uint64_t frames[N_FRAMES];
    size_t n_frames = 0;
    bool handle_aux = cls == SC_CALL_EVENT_RECORD || cls == SC_CALL_EVENT_WAIT;
    if (g->t->site_corr[site] == 0) {
        g->t->site_corr[site] = a.correlation_id;
        for (size_t i = 0; i < N_FRAMES; i++) frames[i] = 0x401000 + site * 0x100 + i * 0x2000;
        n_frames = N_FRAMES;
    } else if (handle_aux) {
        a.flags |= SC_API_STACK_SHARED_AUX2;
        a.aux2 = g->t->site_corr[site];
    } else {
        a.flags |= SC_API_STACK_SHARED;
        a.aux = g->t->site_corr[site];
    }
    a.n_frames = (uint16_t)n_frames;
    size_t compact = 0;
    if (!g->full && a.flags == SC_API_STACK_SHARED && !a.bytes && !a.aux2) {
        /* As the library: the call's site is its call and stream (the key: any value that
         * stands for the call alone). */
        const void *key = (const void *)(uintptr_t)(0x1000u + cbid);
        uint8_t *dst = room(g, &g->t->api, SC_COMPACT_CALL_MAX);
        compact = sc_compact_call_declared(&g->t->api.compact, dst, key, a.stream, a.start_ns,
                                           a.end_ns, a.correlation_id, (uint32_t)a.aux,
                                           a.context_id);
        sc_rec_call_site site = {.stream = a.stream, .tid = a.tid, .flags = a.flags,
                                 .domain = a.domain, .cbid = a.cbid, .call_class = a.call_class};
        sc_compact_call_in in = {.start_ns = a.start_ns, .end_ns = a.end_ns,
                                 .correlation_id = a.correlation_id, .shared = (uint32_t)a.aux,
                                 .context_id = a.context_id};
        if (!compact) compact = sc_compact_call(&g->t->api.compact, dst, key, &site, &in);
        g->t->api.used += compact;
        g->records += compact != 0;
    }
    if (!compact)
        emit(g, &g->t->api, SC_REC_API, &a, sizeof a, frames, n_frames * sizeof *frames, NULL);
    g->api_records++;
    g->t->host_ns += dur + 400;    /* the program's own work between calls */
    return a.correlation_id;
}

/* Device work of one step, written in completion order as a CUPTI buffer delivers it. */
typedef struct device_rec {
    uint64_t end_ns;
    uint16_t kind;
    union {
        sc_rec_kernel kernel;
        sc_rec_memcpy copy;
        sc_rec_sync sync;
    } u;
} device_rec;

static int by_end(const void *a, const void *b)
{
    uint64_t x = ((const device_rec *)a)->end_ns, y = ((const device_rec *)b)->end_ns;
    return x < y ? -1 : x > y;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static size_t copy_on(generator *g, device_rec *out, unsigned s, uint64_t bytes, uint8_t src,
                      uint32_t corr)
{
    uint64_t start = max_u64(g->t->host_ns + 1500, g->t->stream_free[s]);
    uint64_t end = start + bytes / (src == SC_MEM_PINNED ? 25 : 8);    /* 25 / 8 GB/s */
    g->t->stream_free[s] = end;
    out->kind = SC_REC_MEMCPY;
    out->end_ns = end;
    out->u.copy = (sc_rec_memcpy){.start_ns = start, .end_ns = end, .bytes = bytes,
                                  .context_id = CONTEXT, .stream_id = stream_id(g, s),
                                  .correlation_id = corr, .copy_kind = 1, .src_kind = src,
                                  .dst_kind = SC_MEM_DEVICE, .flags = SC_MEMCPY_ASYNC};
    return 1;
}

static void step(generator *g, uint64_t n)
{
    device_rec dev[N_STREAMS * (KERNELS_PER_STREAM + 2) + 4];
    size_t nd = 0;
    uint64_t step_start = g->t->host_ns;
    bool slow = n % SLOW_STEP_EVERY == SLOW_STEP_EVERY - 1;
    for (unsigned s = 0; s < N_STREAMS; s++) {
        uint64_t handle = stream_handle(g, s);
        uint8_t src = slow && s == 1 ? SC_MEM_PAGEABLE : SC_MEM_PINNED;
        uint32_t corr = call(g, 0 + s, CB_MEMCPY_ASYNC, SC_CALL_MEMCPY_ASYNC, handle,
                             256 << 10, 0, 1, src == SC_MEM_PINNED ? 2500 : 40000);
        nd += copy_on(g, dev + nd, s, 256 << 10, src, corr);
        for (unsigned k = 0; k < KERNELS_PER_STREAM; k++) {
            corr = call(g, 4 + k, CB_LAUNCH, SC_CALL_LAUNCH, handle, 0, 0, 0, 3000);
            uint64_t start = max_u64(g->t->host_ns + 1000, g->t->stream_free[s]);
            uint64_t end = start + 20000 + (uint64_t)((n * 7919 + s * 131 + k * 17) % 40000);
            g->t->stream_free[s] = end;
            dev[nd].kind = SC_REC_KERNEL;
            dev[nd].end_ns = end;
            dev[nd++].u.kernel = (sc_rec_kernel){
                .start_ns = start, .end_ns = end, .context_id = CONTEXT,
                .stream_id = stream_id(g, s), .correlation_id = corr, .grid_x = 64,
                .grid_y = 1, .grid_z = 1, .block_x = 256, .block_y = 1, .block_z = 1,
                .registers_per_thread = 32, .static_shared = 4096, .name_id = 1 + k};
        }
        if (slow && s == 2)     /* an allocation inside the loop: waits for the device */
            call(g, 8, CB_MALLOC, SC_CALL_MALLOC, SC_STREAM_NONE, 64 << 20, 0, 0,
                 max_u64(g->t->stream_free[0], g->t->stream_free[1]) - g->t->host_ns + 2000);
    }
    /* Side streams hand their results to stream 0 through events. */
    for (unsigned s = 1; s < N_STREAMS; s++) {
        uint64_t event = 0x7700000000ull + g->t->index * 0x10000ull + s * 0x100;
        call(g, 9, CB_EVENT_RECORD, SC_CALL_EVENT_RECORD, stream_handle(g, s), 0,
             event, 0, 1500);
        uint32_t corr = call(g, 10, CB_WAIT_EVENT, SC_CALL_EVENT_WAIT, stream_handle(g, 0),
                             0, event, 0, 1500);
        uint64_t at = max_u64(g->t->stream_free[0], g->t->stream_free[s]);
        g->t->stream_free[0] = at;
        dev[nd].kind = SC_REC_SYNC;
        dev[nd].end_ns = at;
        dev[nd++].u.sync = (sc_rec_sync){.start_ns = g->t->host_ns - 1500,
                                         .end_ns = g->t->host_ns, .type = 2,
                                         .context_id = CONTEXT,
                                         .stream_id = stream_id(g, 0), .correlation_id = corr,
                                         .event_id = s};
    }
    /* The step ends when stream 0 is done. */
    uint64_t wait = max_u64(g->t->stream_free[0], g->t->host_ns) - g->t->host_ns + 2000;
    uint64_t sync_start = g->t->host_ns;
    uint32_t corr = call(g, 11, CB_STREAM_SYNC, SC_CALL_STREAM_SYNC, stream_handle(g, 0), 0, 0,
                         0, wait);
    dev[nd].kind = SC_REC_SYNC;
    dev[nd].end_ns = sync_start + wait;
    dev[nd++].u.sync = (sc_rec_sync){.start_ns = sync_start, .end_ns = sync_start + wait,
                                     .type = 3, .context_id = CONTEXT,
                                     .stream_id = stream_id(g, 0), .correlation_id = corr,
                                     .event_id = UINT32_MAX};
    qsort(dev, nd, sizeof *dev, by_end);
    for (size_t i = 0; i < nd; i++) {
        const device_rec *d = &dev[i];
        size_t compact = 0;
        if (d->kind == SC_REC_KERNEL && !g->full) {
            uint8_t *dst = room(g, &g->act, SC_COMPACT_KERNEL_MAX);
            compact = sc_compact_kernel(&g->act.compact, dst, &d->u.kernel);
            g->act.used += compact;
            g->records += compact != 0;
        }
        if (!compact && d->kind == SC_REC_KERNEL)
            emit(g, &g->act, d->kind, &d->u.kernel, sizeof d->u.kernel, NULL, 0, NULL);
        else if (d->kind == SC_REC_MEMCPY)
            emit(g, &g->act, d->kind, &d->u.copy, sizeof d->u.copy, NULL, 0, NULL);
        else if (d->kind == SC_REC_SYNC)
            emit(g, &g->act, d->kind, &d->u.sync, sizeof d->u.sync, NULL, 0, NULL);
        g->activity_records++;
    }
    sc_rec_range r = {.start_ns = step_start, .end_ns = g->t->host_ns, .tid = g->t->tid,
                      .name_id = 5};
    emit(g, &g->t->api, SC_REC_RANGE, &r, sizeof r, NULL, 0, NULL);
}

static void preamble(generator *g)
{
    sc_rec_process p = {.pid = 4242, .ppid = 1, .start_ns = g->t->host_ns,
                        .start_unix_ns = 1700000000ull * 1000000000ull,
                        .attach = SC_ATTACH_PRELOAD};
    emit(g, &g->t->api, SC_REC_PROCESS, &p, sizeof p, NULL, 0, "/opt/synthetic/train");
    sc_rec_module m = {.lo = 0x400000, .hi = 0x800000};
    emit(g, &g->t->api, SC_REC_MODULE, &m, sizeof m, NULL, 0, "/opt/synthetic/train");
    sc_rec_device d = {.sm_count = 132, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
                       .max_regs_per_sm = 65536, .max_shared_per_sm = 233472,
                       .max_threads_per_block = 1024, .max_regs_per_block = 65536,
                       .max_shared_per_block = 49152, .cc_major = 9, .async_engines = 3,
                       .global_memory = 141ull << 30};
    emit(g, &g->t->api, SC_REC_DEVICE, &d, sizeof d, NULL, 0, "NVIDIA H200");
    static const char *const strings[] = {"_Z6embedPKfPf", "_Z4gemmPKfS0_Pf",
                                          "_Z7softmaxPf", "_Z6reducePKfPf", "step"};
    for (uint32_t i = 0; i < sizeof strings / sizeof *strings; i++) {
        sc_rec_string s = {.id = i + 1};
        emit(g, &g->t->api, SC_REC_STRING, &s, sizeof s, NULL, 0, strings[i]);
    }
    static const struct { uint16_t cbid; const char *name; } names[] = {
        {CB_LAUNCH, "cudaLaunchKernel"}, {CB_MEMCPY_ASYNC, "cudaMemcpyAsync"},
        {CB_EVENT_RECORD, "cudaEventRecord"}, {CB_WAIT_EVENT, "cudaStreamWaitEvent"},
        {CB_STREAM_SYNC, "cudaStreamSynchronize"}, {CB_MALLOC, "cudaMalloc"},
        {CB_STREAM_CREATE, "cudaStreamCreateWithFlags"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        sc_rec_call_name c = {.domain = 2, .cbid = names[i].cbid};
        emit(g, &g->t->api, SC_REC_CALL_NAME, &c, sizeof c, NULL, 0, names[i].name);
    }
    for (unsigned k = 0; k < g->n_threads; k++) {  /* each thread creates its streams */
        g->t = &g->threads[k];
        for (unsigned s = 0; s < N_STREAMS; s++) {
            /* A site each: aux holds the created handle, so it cannot share a stack. */
            uint32_t corr = call(g, 12 + s, CB_STREAM_CREATE, SC_CALL_STREAM_CREATE,
                                 SC_STREAM_NONE, 0, stream_handle(g, s), 1, 8000);
            sc_rec_stream st = {.device = UINT32_MAX, .context_id = CONTEXT,
                                .stream_id = stream_id(g, s),
                                .flag = SC_STREAM_FLAG_NON_BLOCKING, .correlation_id = corr};
            emit(g, &g->act, SC_REC_STREAM, &st, sizeof st, NULL, 0, NULL);
            g->activity_records++;
        }
    }
    g->t = &g->threads[0];
}

/* The records one step makes (step() above): to spread the steps over --span. */
static uint64_t records_per_step(void)
{
    return 1 /* the range */ + N_STREAMS * (2 + KERNELS_PER_STREAM * 2) /* copy, launches */ +
           (N_STREAMS - 1) * 3 /* event record, wait, its sync */ + 2 /* the stream sync */;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: synthetic-trace [--full] [--span SECONDS] [--threads N] DIR RECORDS\n");
    return 2;
}

int main(int argc, char **argv)
{
    static generator g = {.next_corr = 1, .n_threads = 1};
    double span_s = 0;
    char *end = NULL;
    for (; argc > 1 && argv[1][0] == '-' && argv[1][1] == '-'; argc--, argv++) {
        if (strcmp(argv[1], "--full") == 0) {
            g.full = true;
        } else if (strcmp(argv[1], "--span") == 0 && argc > 2) {
            span_s = strtod(argv[2], &end);
            if (!end || *end || !(span_s > 0) || span_s > 1e7)
                return usage();
            argc--, argv++;
        } else if (strcmp(argv[1], "--threads") == 0 && argc > 2) {
            unsigned long n = strtoul(argv[2], &end, 10);
            if (!end || *end || n == 0 || n > MAX_THREADS)
                return usage();
            g.n_threads = (unsigned)n;
            argc--, argv++;
        } else {
            return usage();
        }
    }
    unsigned long long target = argc == 3 ? strtoull(argv[2], &end, 10) : 0;
    if (argc != 3 || !end || *end || target == 0)
        return usage();
    /* the idle time after each of a thread's steps that brings the run to about span_s */
    uint64_t steps = target / records_per_step() / g.n_threads + 1;
    uint64_t idle_ns = span_s > 0 ? (uint64_t)(span_s * 1e9 / (double)steps) : 0;
    g.act.data = malloc(BATCH_BYTES);
    bool room = g.act.data != NULL;
    sc_compact_writer_init(&g.act.compact);
    for (unsigned k = 0; k < g.n_threads; k++) {
        host_thread *t = &g.threads[k];
        /* the threads start a few microseconds apart, then run side by side */
        *t = (host_thread){.host_ns = 1000000000ull + k * 7919ull, .tid = FIRST_TID + k,
                           .index = k, .api.data = malloc(BATCH_BYTES)};
        room = room && t->api.data;
        sc_compact_writer_init(&t->api.compact);
    }
    g.t = &g.threads[0];
    char err[512];
    uint16_t major = g.full ? SC_TRACE_FULL_MAJOR : SC_TRACE_VERSION_MAJOR;
    uint16_t minor = g.full ? SC_TRACE_FULL_MINOR : SC_TRACE_VERSION_MINOR;
    if (!room || sc_writer_open_version(&g.writer, argv[1], "synthetic", 4242, major, minor,
                                        err, sizeof err) != 0) {
        fprintf(stderr, "synthetic-trace: %s\n", room ? err : "no memory");
        return 1;
    }
    preamble(&g);
    while (g.records < target) {    /* the thread whose clock is earliest makes its step */
        host_thread *t = &g.threads[0];
        for (unsigned k = 1; k < g.n_threads; k++)
            if (g.threads[k].host_ns < t->host_ns)
                t = &g.threads[k];
        g.t = t;
        step(&g, t->steps++);
        t->host_ns += idle_ns;
    }
    for (unsigned k = 0; k < g.n_threads; k++)
        flush(&g, &g.threads[k].api);
    flush(&g, &g.act);
    g.t = &g.threads[0];
    uint64_t last = 0;
    for (unsigned k = 0; k < g.n_threads; k++)
        last = g.threads[k].host_ns > last ? g.threads[k].host_ns : last;
    sc_rec_end e = {.end_ns = last + 1000, .api_records = g.api_records,
                    .activity_records = g.activity_records, .reason = SC_END_EXIT};
    emit(&g, &g.t->api, SC_REC_END, &e, sizeof e, NULL, 0, NULL);
    flush(&g, &g.t->api);
    if (sc_writer_finish(&g.writer, err, sizeof err) != 0) {
        fprintf(stderr, "synthetic-trace: %s\n", err);
        return 1;
    }
    printf("%s\n", g.writer.final_path);
    for (unsigned k = 0; k < g.n_threads; k++)
        free(g.threads[k].api.data);
    free(g.act.data);
    return 0;
}
