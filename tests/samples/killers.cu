// killers: one concurrency killer per mode, each with a clean twin that does the same GPU
// work without it. streamcheck's GPU tests run every mode and check that the killer's rule
// fires where the killer is, with its cost, and stays quiet on the twin.
//
//   killers MODE [--steps N]
//
//   bad mode              clean twin            rule the bad mode triggers
//   malloc-in-loop        malloc-before-loop    implicit-sync (cudaFree drains the spin's stream)
//   sync-copy             async-copy            implicit-sync, if the synchronous cudaMemcpy
//                                               waited for the other stream (printed: drained=)
//   device-sync-per-step  events                host-sync (the GPU starves between steps)
//   query-poll            events                host-sync (cudaStreamQuery polling)
//   lazy-cold             lazy-warm             lazy-loading (run lazy-cold with
//                                               CUDA_MODULE_LOADING=EAGER for a clean run too)
//   no-room               room                  no-room (a grid fills every SM)
//   blocking              blocking-fixed        blocking-stream, legacy-stream (blocking-fixed
//                                               is the fix itself: the spin's stream made
//                                               non-blocking; nonblocking is a tidier twin that
//                                               joins the two streams every repetition)
//   pageable-2d           pinned-2d             pageable-async (cudaMemcpy2DAsync)
//   pageable-driver       pinned-2d             pageable-async (cuMemcpyHtoDAsync)
//   launch-blocking       (itself)              serializing-env under CUDA_LAUNCH_BLOCKING=1;
//                                               clean (two overlapping streams) without it
//
// Setup is the same for every mode and stays short and quiet: the primary context is made
// before anything streamcheck times (cudaSetDevice, which it does not hook), every buffer is
// allocated before any GPU work, and every kernel is checked against a CPU reference on a tiny
// input in one batch with a single synchronize at its end. The checks use launch shapes no
// measured launch uses, so none of them counts as a measured kernel's solo run, and they are
// each kernel's warm-up launch (lazy module loading happens there), except for the kernel the
// lazy modes are about. Every mode runs inside an NVTX range named after it, verifies what the
// GPU computed, and prints `mode=NAME steps=N ms=...`; lines starting with '#' are diagnostics
// (what the program measured itself, e.g. whether a call drained the other stream).
#include <cuda.h>
#include <nvtx3/nvToolsExt.h>

#include <string.h>

#include "sample_kernels.cuh"
#include "sample_spin.cuh"

// --- kernels ------------------------------------------------------------------------------

// Bandwidth sweep: `passes` read-modify-write passes over a buffer far larger than L2,
// grid-stride, float4 accesses. With as many blocks as the device holds, every block stays
// resident for the whole kernel, so nothing else fits beside it until it ends. `started`
// (optional, mapped host memory): block 0 writes `tag` there when it starts, so the host can
// tell the grid is on the device (no-room).
__device__ __host__ inline float4 sweep_op(float4 v)
{
    return make_float4(fmaf(v.x, 0.5f, 1.0f), fmaf(v.y, 0.5f, 1.0f), fmaf(v.z, 0.5f, 1.0f),
                       fmaf(v.w, 0.5f, 1.0f));
}

__global__ void sweep_kernel(float4 *x, size_t n4, int passes, int *started, int tag)
{
    if (started != nullptr && blockIdx.x == 0 && threadIdx.x == 0) {
        *(volatile int *)started = tag;
        __threadfence_system();
    }
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int p = 0; p < passes; ++p)
        for (size_t i = first; i < n4; i += stride)
            x[i] = sweep_op(x[i]);
}

// The lazy modes' kernel lives in killers_cold.cu, a module of its own; it is launched only
// through this function.
void launch_cold_sweep(int blocks, int threads, cudaStream_t s, float4 *x, size_t n4, int passes);

// --- sizing -------------------------------------------------------------------------------

enum {
    SPIN_BLOCKS = 8,  // the measured spins: a few SMs, the rest of the device stays free
    SPIN_THREADS = 128,
    STEP_BLOCKS = 8,
    STEP_THREADS = 128,
    STEP_N = STEP_BLOCKS * STEP_THREADS,
    SWEEP_THREADS = 256,
    RESULT_N = 32,          // sync-copy: the small result copied back each step
    CHUNKS = 4,             // pageable modes
    ROWS = 512,             // rows per chunk
    WIDTH = 4096,           // floats per row (16 KiB)
    HOST_PAD = 256,         // bytes of padding after each host row: a real 2D (pitched) copy
    CHECK_SPIN_ITERS = 100,
    CHECK_STEP_ITERS = 50,
};
static const size_t BIG_BYTES = 256u << 20;    // sweeps: far beyond any L2
static const size_t LAZY_BYTES = 64u << 20;    // the lazy modes' sweeps: short, beside the spin
// malloc modes: the per-step workspace. Small on purpose: cudaFree returns right after the
// device drained (freeing a large buffer takes long enough by itself to hide why it waited).
static const size_t TMP_BYTES = 1u << 20;
static const size_t CHUNK_FLOATS = (size_t)ROWS * WIDTH;
static const size_t PIN_BYTES = 512u << 10;    // pinned staging: checks and readbacks
static const size_t DEV_SCRATCH_BYTES = 512u << 10;

enum ModeId {
    M_MALLOC_IN_LOOP, M_MALLOC_BEFORE_LOOP, M_SYNC_COPY, M_ASYNC_COPY, M_DEVICE_SYNC,
    M_QUERY_POLL, M_EVENTS, M_LAZY_COLD, M_LAZY_WARM, M_NO_ROOM, M_ROOM, M_BLOCKING,
    M_NONBLOCKING, M_PAGEABLE_2D, M_PAGEABLE_DRIVER, M_PINNED_2D, M_LAUNCH_BLOCKING,
    M_BLOCKING_FIXED, M_COUNT
};

struct Mode {
    const char *name;
    int default_steps;  // steps, or repetitions for the modes that repeat one arrangement
    const char *what;
};

static const Mode k_modes[M_COUNT] = {
    {"malloc-in-loop", 20, "cudaMalloc + cudaFree of a workspace every step while a spin runs on another stream"},
    {"malloc-before-loop", 20, "the same steps with the workspace allocated once before the loop"},
    {"sync-copy", 8, "a synchronous cudaMemcpy of a small result every step while a spin runs on another stream"},
    {"async-copy", 8, "the same results copied with cudaMemcpyAsync into pinned memory on their own stream, one event"},
    {"device-sync-per-step", 400, "cudaDeviceSynchronize after every step of a few short kernels"},
    {"query-poll", 400, "cudaStreamQuery polled until each step is done"},
    {"events", 400, "the same steps ordered across streams by events, one synchronize at the end"},
    {"lazy-cold", 1, "a spin on stream A, then the first launch ever of a sweep on stream B"},
    {"lazy-warm", 1, "the same, the sweep kernel launched once (tiny) before"},
    {"no-room", 3, "a grid-filling sweep on A, then a small kernel on B that has to wait for room"},
    {"room", 3, "the same with a sweep grid of half the device's capacity"},
    {"blocking", 3, "a spin on a cudaStreamCreate stream, sweeps on the legacy stream"},
    {"nonblocking", 3, "the same kernels on two non-blocking streams"},
    {"pageable-2d", 1, "cudaMemcpy2DAsync from malloc'd (pageable) host memory"},
    {"pageable-driver", 1, "cuMemcpyHtoDAsync from malloc'd (pageable) host memory"},
    {"pinned-2d", 1, "cudaMemcpy2DAsync from pinned host memory"},
    {"launch-blocking", 3, "two non-blocking streams that overlap (run it with CUDA_LAUNCH_BLOCKING=1)"},
    {"blocking-fixed", 3, "blocking with its fix: the spin's stream non-blocking, sweeps on the legacy stream"},
};

// Target durations at the peak clock, in microseconds.
static const double MALLOC_SPIN_US = 1000.0, MALLOC_STEP_US = 20.0;
static const double COPY_SPIN_US = 2000.0, COPY_RESULT_US = 5.0;
static const double STEP_US = 20.0;
static const double LAZY_SPIN_US = 3000.0;
static const double NOROOM_SMALL_US = 100.0;
static const double OVERLAP_SPIN_US = 5000.0;
enum {
    LAZY_SWEEPS = 4, LAZY_PASSES = 2,
    NOROOM_PASSES = 8,
    OVERLAP_SWEEPS = 4, OVERLAP_PASSES = 6,
};

struct Ctx {
    ModeId mode;
    int steps;
    cudaDeviceProp prop;
    cudaStream_t a, b;           // non-blocking
    cudaStream_t blocking;       // cudaStreamCreate: only the `blocking` mode makes it
    cudaEvent_t join_x, join_y;  // cross-stream edges (no timing)
    double cycles_per_iter;
    int clock_khz;

    // device
    float *spin_out;                     // SPIN_BLOCKS * SPIN_THREADS
    float *step_in, *step_a, *step_b;    // STEP_N each
    float *acc;                          // STEP_N
    float *tmp;                          // malloc-before-loop: the workspace
    float *result;                       // sync/async-copy: steps * RESULT_N
    float4 *big;                         // sweeps
    size_t big_n4;
    int fill_blocks;                     // sweep blocks that fill the device
    float *chunks;                       // pageable modes: CHUNKS * CHUNK_FLOATS
    char *d_scratch;                     // reference checks

    // host
    char *h_pin;                         // PIN_BYTES pinned: checks and readbacks
    float *h_result;                     // sync-copy: pageable, async-copy: pinned
    char *h_chunks;                      // pageable modes: host rows (pageable or pinned)
    size_t h_pitch;                      // bytes per host row
    int *started_h, *started_d;          // no-room/room: mapped flag

    // iteration counts, from the calibration
    long long it_malloc_spin, it_malloc_step, it_copy_spin, it_copy_result, it_step,
        it_lazy_spin, it_small, it_overlap_spin;
};

static bool uses_steps(const Ctx &c)
{
    return c.mode == M_DEVICE_SYNC || c.mode == M_QUERY_POLL || c.mode == M_EVENTS;
}

// --- shared helpers -----------------------------------------------------------------------

static void launch_spin(const Ctx &c, cudaStream_t s, long long iters)
{
    spin_kernel<<<SPIN_BLOCKS, SPIN_THREADS, 0, s>>>(c.spin_out, iters, nullptr);
    SC_CHECK_LAUNCH();
}

static void launch_sweep(const Ctx &c, cudaStream_t s, int blocks, int passes, int *started,
                         int tag)
{
    sweep_kernel<<<blocks, SWEEP_THREADS, 0, s>>>(c.big, c.big_n4, passes, started, tag);
    SC_CHECK_LAUNCH();
}

// Each of two streams waits for the other's work so far, without the host.
static void join(const Ctx &c, cudaStream_t s1, cudaStream_t s2)
{
    SC_CHECK(cudaEventRecord(c.join_x, s1));
    SC_CHECK(cudaEventRecord(c.join_y, s2));
    SC_CHECK(cudaStreamWaitEvent(s1, c.join_y, 0));
    SC_CHECK(cudaStreamWaitEvent(s2, c.join_x, 0));
}

static void fail(const char *what, size_t i, float got, float want)
{
    fprintf(stderr, "verification FAILED: %s element %zu = %.9g, CPU says %.9g\n", what, i, got,
            want);
    exit(1);
}

static void busy_wait_us(double us)
{
    double until = sc_now_ms() + us * 1e-3;
    while (sc_now_ms() < until) {
    }
}

static float step_input(int i)
{
    return (float)(i % 37) * 0.01f;
}

static float chunk_value(size_t i)
{
    return (float)(i % 1021) * 0.25f;
}

// --- setup --------------------------------------------------------------------------------

// Carves 256-byte aligned regions from the pinned staging and the device scratch, in the same
// offsets, so one copy each way moves every check's data.
struct Carve {
    char *h, *d;
    size_t off, cap;
};

template <typename T>
static void carve(Carve &cv, size_t count, T **h, T **d)
{
    size_t bytes = (count * sizeof(T) + 255) & ~(size_t)255;
    if (cv.off + bytes > cv.cap) {
        fprintf(stderr, "staging too small\n");
        exit(1);
    }
    *h = (T *)(cv.h + cv.off);
    *d = (T *)(cv.d + cv.off);
    cv.off += bytes;
}

static void allocate(Ctx &c)
{
    const ModeId m = c.mode;
    SC_CHECK(cudaMalloc(&c.spin_out, SPIN_BLOCKS * SPIN_THREADS * sizeof(float)));
    SC_CHECK(cudaMalloc(&c.d_scratch, DEV_SCRATCH_BYTES));
    SC_CHECK(cudaMallocHost(&c.h_pin, PIN_BYTES));
    if (m == M_MALLOC_IN_LOOP || m == M_MALLOC_BEFORE_LOOP || uses_steps(c)) {
        SC_CHECK(cudaMalloc(&c.step_in, STEP_N * sizeof(float)));
        SC_CHECK(cudaMalloc(&c.step_a, STEP_N * sizeof(float)));
        SC_CHECK(cudaMalloc(&c.step_b, STEP_N * sizeof(float)));
        SC_CHECK(cudaMalloc(&c.acc, STEP_N * sizeof(float)));
    }
    if (m == M_MALLOC_BEFORE_LOOP)
        SC_CHECK(cudaMalloc(&c.tmp, TMP_BYTES));
    if (m == M_SYNC_COPY || m == M_ASYNC_COPY) {
        SC_CHECK(cudaMalloc(&c.step_in, STEP_N * sizeof(float)));
        SC_CHECK(cudaMalloc(&c.result, (size_t)c.steps * RESULT_N * sizeof(float)));
        size_t bytes = (size_t)c.steps * RESULT_N * sizeof(float);
        if (m == M_SYNC_COPY) {
            c.h_result = (float *)malloc(bytes);  // pageable, as most programs have it
            if (c.h_result == nullptr) {
                fprintf(stderr, "out of host memory\n");
                exit(1);
            }
        } else {
            SC_CHECK(cudaMallocHost(&c.h_result, bytes));
        }
    }
    bool lazy = m == M_LAZY_COLD || m == M_LAZY_WARM;
    bool sweeps = m == M_NO_ROOM || m == M_ROOM || m == M_BLOCKING || m == M_NONBLOCKING ||
                  m == M_LAUNCH_BLOCKING || m == M_BLOCKING_FIXED;
    if (lazy || sweeps) {
        size_t bytes = lazy ? LAZY_BYTES : BIG_BYTES;
        if (bytes > c.prop.totalGlobalMem / 8)
            bytes = c.prop.totalGlobalMem / 8;
        c.big_n4 = bytes / sizeof(float4);
        SC_CHECK(cudaMalloc(&c.big, c.big_n4 * sizeof(float4)));
        // Not initialized on purpose: the sweeps' speed does not depend on the values.
    }
    if (sweeps)  // never for the lazy modes: an occupancy query would load the kernel
        c.fill_blocks = sc_filling_blocks(sweep_kernel, SWEEP_THREADS, c.prop);
    if (m == M_NO_ROOM || m == M_ROOM) {
        SC_CHECK(cudaHostAlloc(&c.started_h, sizeof(int), cudaHostAllocMapped));
        *(volatile int *)c.started_h = 0;
        SC_CHECK(cudaHostGetDevicePointer(&c.started_d, c.started_h, 0));
    }
    if (m == M_PAGEABLE_2D || m == M_PAGEABLE_DRIVER || m == M_PINNED_2D) {
        // The driver mode copies whole chunks with a 1D copy: its rows are packed.
        c.h_pitch = WIDTH * sizeof(float) + (m == M_PAGEABLE_DRIVER ? 0 : HOST_PAD);
        size_t bytes = (size_t)CHUNKS * ROWS * c.h_pitch;
        if (m == M_PINNED_2D) {
            SC_CHECK(cudaMallocHost(&c.h_chunks, bytes));
        } else {
            c.h_chunks = (char *)malloc(bytes);
            if (c.h_chunks == nullptr) {
                fprintf(stderr, "out of host memory\n");
                exit(1);
            }
        }
        // Written now, so every page is faulted in before anything is measured.
        memset(c.h_chunks, 0, bytes);
        for (size_t r = 0; r < (size_t)CHUNKS * ROWS; ++r) {
            float *row = (float *)(c.h_chunks + r * c.h_pitch);
            for (size_t x = 0; x < WIDTH; ++x)
                row[x] = chunk_value(r * WIDTH + x);
        }
        SC_CHECK(cudaMalloc(&c.chunks, CHUNKS * CHUNK_FLOATS * sizeof(float)));
    }
    if (m == M_BLOCKING)
        SC_CHECK(cudaStreamCreate(&c.blocking));
}

// Every kernel once on a tiny input, in launch shapes no measured launch uses, plus the spin
// calibration and the measured buffers' initial values: one batch on stream A, one
// synchronize. `cold` says whether cold_sweep_kernel is checked here (all modes but
// lazy-cold, which checks it after its measurement).
static void check_and_calibrate(Ctx &c, bool cold)
{
    Carve cv = {c.h_pin, c.d_scratch, 0, PIN_BYTES < DEV_SCRATCH_BYTES ? PIN_BYTES : DEV_SCRATCH_BYTES};
    const int n_spin = 16 * 64;
    const size_t n_sweep4 = 2 * SWEEP_THREADS * 3 + 17;  // float4s; the grid-stride loop wraps
    const size_t n_cold4 = 3 * 128 * 2 + 5;
    const int n_step = 90;  // 3 blocks x 32 threads, the last 6 threads idle
    const size_t n_scale = 2000;
    const int sweep_passes = 3;
    float *h_spin, *d_spin, *h_sweep, *d_sweep, *h_cold, *d_cold, *h_in, *d_in, *h_out, *d_out,
        *h_acc, *d_acc, *h_scale, *d_scale, *h_cal, *d_cal;
    long long *h_cycles, *d_cycles;
    carve(cv, 4, &h_cycles, &d_cycles);
    carve(cv, n_spin, &h_spin, &d_spin);
    carve(cv, 4 * n_sweep4, &h_sweep, &d_sweep);
    carve(cv, 4 * n_cold4, &h_cold, &d_cold);
    carve(cv, n_step, &h_in, &d_in);
    carve(cv, n_step, &h_out, &d_out);
    carve(cv, n_step, &h_acc, &d_acc);
    carve(cv, n_scale, &h_scale, &d_scale);
    carve(cv, 32, &h_cal, &d_cal);
    const size_t bytes = cv.off;

    for (size_t i = 0; i < 4 * n_sweep4; ++i)
        h_sweep[i] = (float)(i % 97) * 0.25f;
    for (size_t i = 0; i < 4 * n_cold4; ++i)
        h_cold[i] = (float)(i % 89) * 0.5f;
    for (int i = 0; i < n_step; ++i) {
        h_in[i] = step_input(i * 3);
        h_acc[i] = (float)(i % 5);
    }
    for (size_t i = 0; i < n_scale; ++i)
        h_scale[i] = chunk_value(i * 7);
    // The inputs as they were, for the CPU side.
    float *want = (float *)malloc(bytes);
    if (want == nullptr) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    memcpy(want, c.h_pin, bytes);
    const size_t o_sweep = (char *)h_sweep - c.h_pin, o_cold = (char *)h_cold - c.h_pin,
                 o_in = (char *)h_in - c.h_pin, o_acc = (char *)h_acc - c.h_pin,
                 o_scale = (char *)h_scale - c.h_pin;

    cudaStream_t s = c.a;
    SC_CHECK(cudaMemcpyAsync(c.d_scratch, c.h_pin, bytes, cudaMemcpyHostToDevice, s));
    spin_kernel<<<16, 64, 0, s>>>(d_spin, CHECK_SPIN_ITERS, nullptr);
    SC_CHECK_LAUNCH();
    sweep_kernel<<<2, SWEEP_THREADS, 0, s>>>((float4 *)d_sweep, n_sweep4, sweep_passes, nullptr, 0);
    SC_CHECK_LAUNCH();
    if (cold) {
        launch_cold_sweep(3, 128, s, (float4 *)d_cold, n_cold4, sweep_passes);
    }
    step_kernel<<<3, 32, 0, s>>>(d_out, d_in, n_step, CHECK_STEP_ITERS, 0.125f);
    SC_CHECK_LAUNCH();
    accumulate_kernel<<<3, 32, 0, s>>>(d_acc, d_out, d_in, n_step);
    SC_CHECK_LAUNCH();
    scale_kernel<<<2, 128, 0, s>>>(d_scale, n_scale, 0.5f, 1.0f);
    SC_CHECK_LAUNCH();
    sc_spin_calibrate_enqueue(d_cal, d_cycles, s);
    // The measured buffers' starting values.
    if (c.step_in != nullptr) {
        for (int i = 0; i < STEP_N; ++i)
            ((float *)(c.h_pin + PIN_BYTES / 2))[i] = step_input(i);
        SC_CHECK(cudaMemcpyAsync(c.step_in, c.h_pin + PIN_BYTES / 2, STEP_N * sizeof(float),
                                 cudaMemcpyHostToDevice, s));
    }
    if (c.acc != nullptr)
        SC_CHECK(cudaMemsetAsync(c.acc, 0, STEP_N * sizeof(float), s));
    SC_CHECK(cudaMemcpyAsync(c.h_pin, c.d_scratch, bytes, cudaMemcpyDeviceToHost, s));
    SC_CHECK(cudaStreamSynchronize(s));

    for (int t = 0; t < n_spin; ++t) {
        float w = sc_chain_ref(1e-3f * (float)t, CHECK_SPIN_ITERS);
        if (!sc_close(h_spin[t], w))
            fail("spin_kernel", t, h_spin[t], w);
    }
    const float *w_sweep = (const float *)((char *)want + o_sweep);
    for (size_t i = 0; i < 4 * n_sweep4; ++i) {
        float x = w_sweep[i];
        for (int p = 0; p < sweep_passes; ++p)
            x = fmaf(x, 0.5f, 1.0f);
        if (!sc_close(h_sweep[i], x))
            fail("sweep_kernel", i, h_sweep[i], x);
    }
    const float *w_cold = (const float *)((char *)want + o_cold);
    for (size_t i = 0; cold && i < 4 * n_cold4; ++i) {
        float x = w_cold[i];
        for (int p = 0; p < sweep_passes; ++p)
            x = fmaf(x, 0.5f, 1.0f);
        if (!sc_close(h_cold[i], x))
            fail("cold_sweep_kernel", i, h_cold[i], x);
    }
    const float *w_in = (const float *)((char *)want + o_in);
    const float *w_acc = (const float *)((char *)want + o_acc);
    for (int i = 0; i < n_step; ++i) {
        float o = sc_chain_ref(w_in[i] + 0.125f, CHECK_STEP_ITERS);
        if (!sc_close(h_out[i], o))
            fail("step_kernel", i, h_out[i], o);
        float a = w_acc[i] + (o - w_in[i]);
        if (!sc_close(h_acc[i], a))
            fail("accumulate_kernel", i, h_acc[i], a);
    }
    const float *w_scale = (const float *)((char *)want + o_scale);
    for (size_t i = 0; i < n_scale; ++i) {
        float x = fmaf(w_scale[i], 0.5f, 1.0f);
        if (!sc_close(h_scale[i], x))
            fail("scale_kernel", i, h_scale[i], x);
    }
    free(want);

    c.cycles_per_iter = sc_spin_cycles_per_iter(h_cycles);
    c.clock_khz = sc_clock_khz();
    printf("# reference check: spin_kernel sweep_kernel%s step_kernel accumulate_kernel "
           "scale_kernel ok\n",
           cold ? " cold_sweep_kernel" : "");
    printf("# spin: %.2f cycles/iter at %d MHz\n", c.cycles_per_iter, c.clock_khz / 1000);
}

static long long iters_us(const Ctx &c, double us)
{
    return sc_iters_for_us(us, c.cycles_per_iter, c.clock_khz);
}

// lazy-cold checks cold_sweep_kernel after its measured launches (before them it must never
// have run). Its own small batch, in yet another launch shape.
static void check_cold_after(Ctx &c)
{
    const size_t n4 = 3 * 128 * 2 + 5;
    float *h = (float *)c.h_pin;
    for (size_t i = 0; i < 4 * n4; ++i)
        h[i] = (float)(i % 89) * 0.5f;
    SC_CHECK(cudaMemcpyAsync(c.d_scratch, h, 4 * n4 * sizeof(float), cudaMemcpyHostToDevice, c.a));
    launch_cold_sweep(3, 128, c.a, (float4 *)c.d_scratch, n4, 3);
    SC_CHECK(cudaMemcpyAsync(h, c.d_scratch, 4 * n4 * sizeof(float), cudaMemcpyDeviceToHost, c.a));
    SC_CHECK(cudaStreamSynchronize(c.a));
    for (size_t i = 0; i < 4 * n4; ++i) {
        float x = (float)(i % 89) * 0.5f;
        for (int p = 0; p < 3; ++p)
            x = fmaf(x, 0.5f, 1.0f);
        if (!sc_close(h[i], x))
            fail("cold_sweep_kernel", i, h[i], x);
    }
    printf("# reference check (after the measurement): cold_sweep_kernel ok\n");
}

// --- measurement frame --------------------------------------------------------------------

static double g_t0;

static void measure_begin(const Ctx &c)
{
    SC_CHECK(cudaDeviceSynchronize());  // waits for nothing: setup ended synchronized
    nvtxRangePushA(k_modes[c.mode].name);
    g_t0 = sc_now_ms();
}

static double measure_end(const Ctx &c)
{
    SC_CHECK(cudaDeviceSynchronize());
    double ms = sc_now_ms() - g_t0;
    nvtxRangePop();
    printf("mode=%s steps=%d ms=%.3f\n", k_modes[c.mode].name, c.steps, ms);
    fflush(stdout);
    return ms;
}

// --- malloc-in-loop / malloc-before-loop --------------------------------------------------

// Each step: a 1 ms spin on A (work in flight on another stream), a short step kernel on B
// that writes a workspace, and its sum into acc. In the loop the workspace is cudaMalloc'd
// and cudaFree'd every step: cudaFree waits for the whole device, so every step drains A's
// spin and the host cannot queue the next step meanwhile. Before the loop: allocated once,
// the host queues every step at once and B's kernels run beside A's spins.
static void mode_malloc(Ctx &c, bool in_loop)
{
    const float *in = c.step_in;
    double free_ms = 0, free_max = 0;
    measure_begin(c);
    for (int s = 0; s < c.steps; ++s) {
        float *tmp = c.tmp;
        if (in_loop)
            SC_CHECK(cudaMalloc(&tmp, TMP_BYTES));
        launch_spin(c, c.a, c.it_malloc_spin);
        step_kernel<<<STEP_BLOCKS, STEP_THREADS, 0, c.b>>>(tmp, in, STEP_N, c.it_malloc_step,
                                                            0.01f * (float)s);
        SC_CHECK_LAUNCH();
        accumulate_kernel<<<STEP_BLOCKS, STEP_THREADS, 0, c.b>>>(c.acc, tmp, in, STEP_N);
        SC_CHECK_LAUNCH();
        if (in_loop) {
            double t = sc_now_ms();
            SC_CHECK(cudaFree(tmp));
            t = sc_now_ms() - t;
            free_ms += t;
            free_max = t > free_max ? t : free_max;
        }
    }
    float *h_acc = (float *)c.h_pin;
    SC_CHECK(cudaMemcpyAsync(h_acc, c.acc, STEP_N * sizeof(float), cudaMemcpyDeviceToHost, c.b));
    measure_end(c);
    if (in_loop) {
        double spin_ms = MALLOC_SPIN_US * 1e-3;
        printf("# cudaFree: %d calls, %.3f ms blocked in all, longest %.3f ms (a spin: ~%.1f ms "
               "at peak clock): drained=%s\n",
               c.steps, free_ms, free_max, spin_ms, free_max > 0.5 * spin_ms ? "yes" : "no");
    }
    // Every 31st element against the CPU (the chains are long; all of them would take a while).
    for (int i = 0; i < STEP_N; i += 31) {
        float want = 0.0f;
        for (int s = 0; s < c.steps; ++s) {
            float x = sc_chain_ref(step_input(i) + 0.01f * (float)s, c.it_malloc_step);
            want = want + (x - step_input(i));
        }
        if (!sc_close(h_acc[i], want))
            fail("acc", i, h_acc[i], want);
    }
    printf("# verified acc ok\n");
}

// --- sync-copy / async-copy ---------------------------------------------------------------

// Each step: a 2 ms spin on A, then a small result computed and copied to the host.
// sync-copy: the result kernel on the default (legacy) stream and a synchronous cudaMemcpy
// into pageable memory, the way most programs read a scalar back. Whether that copy waits for
// A's spin is what the program measures and prints (drained=yes/no): a 128-byte copy takes
// microseconds on its own, so a copy that lasted half a spin waited for it.
// async-copy: the result kernel on B, cudaMemcpyAsync into pinned memory on B, an event after
// it; the host waits for that event once, at the end.
static void mode_copy(Ctx &c, bool sync)
{
    double copy_max = 0, copy_ms = 0;
    cudaEvent_t done;
    SC_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    measure_begin(c);
    for (int s = 0; s < c.steps; ++s) {
        launch_spin(c, c.a, c.it_copy_spin);
        float *d_res = c.result + (size_t)s * RESULT_N;
        cudaStream_t rs = sync ? (cudaStream_t)0 : c.b;
        step_kernel<<<1, RESULT_N, 0, rs>>>(d_res, c.step_in, RESULT_N, c.it_copy_result,
                                            0.5f * (float)s);
        SC_CHECK_LAUNCH();
        if (sync) {
            double t = sc_now_ms();
            SC_CHECK(cudaMemcpy(c.h_result + (size_t)s * RESULT_N, d_res,
                                RESULT_N * sizeof(float), cudaMemcpyDeviceToHost));
            t = sc_now_ms() - t;
            copy_ms += t;
            copy_max = t > copy_max ? t : copy_max;
        } else {
            SC_CHECK(cudaMemcpyAsync(c.h_result + (size_t)s * RESULT_N, d_res,
                                     RESULT_N * sizeof(float), cudaMemcpyDeviceToHost, c.b));
            SC_CHECK(cudaEventRecord(done, c.b));
        }
    }
    if (!sync)
        SC_CHECK(cudaEventSynchronize(done));  // the results are on the host from here on
    measure_end(c);
    if (sync) {
        double spin_ms = COPY_SPIN_US * 1e-3;
        printf("# cudaMemcpy: %d calls, %.3f ms blocked in all, longest %.3f ms (a spin: ~%.1f "
               "ms at peak clock): drained=%s\n",
               c.steps, copy_ms, copy_max, spin_ms, copy_max > 0.5 * spin_ms ? "yes" : "no");
    }
    for (int s = 0; s < c.steps; ++s)
        for (int i = 0; i < RESULT_N; ++i) {
            float want = sc_chain_ref(step_input(i) + 0.5f * (float)s, c.it_copy_result);
            float got = c.h_result[(size_t)s * RESULT_N + i];
            if (!sc_close(got, want))
                fail("result", (size_t)s * RESULT_N + i, got, want);
        }
    printf("# verified %d results ok\n", c.steps);
}

// --- device-sync-per-step / query-poll / events -------------------------------------------

// A step: a short kernel on A and one on B (independent), then on A, after B's through an
// event, acc += a - b. device-sync-per-step: cudaDeviceSynchronize after each step; the GPU
// has nothing to run from the moment a step ends until the host has launched the next one.
// query-poll: the same, waiting by polling cudaStreamQuery(A) until it is done. events: the
// only cross-step hazard (B's next kernel overwrites what this step's sum reads) is an event
// edge too, and the host synchronizes once, at the end.
static void mode_steps(Ctx &c)
{
    cudaEvent_t ev_a, ev_b;
    SC_CHECK(cudaEventCreateWithFlags(&ev_a, cudaEventDisableTiming));
    SC_CHECK(cudaEventCreateWithFlags(&ev_b, cudaEventDisableTiming));
    const float salt_a = 0.25f, salt_b = 0.5f;
    long long queries = 0;
    measure_begin(c);
    for (int s = 0; s < c.steps; ++s) {
        if (c.mode == M_EVENTS && s > 0)
            SC_CHECK(cudaStreamWaitEvent(c.b, ev_a, 0));
        step_kernel<<<STEP_BLOCKS, STEP_THREADS, 0, c.a>>>(c.step_a, c.step_in, STEP_N,
                                                            c.it_step, salt_a);
        SC_CHECK_LAUNCH();
        step_kernel<<<STEP_BLOCKS, STEP_THREADS, 0, c.b>>>(c.step_b, c.step_in, STEP_N,
                                                            c.it_step, salt_b);
        SC_CHECK_LAUNCH();
        SC_CHECK(cudaEventRecord(ev_b, c.b));
        SC_CHECK(cudaStreamWaitEvent(c.a, ev_b, 0));
        accumulate_kernel<<<STEP_BLOCKS, STEP_THREADS, 0, c.a>>>(c.acc, c.step_a, c.step_b,
                                                                  STEP_N);
        SC_CHECK_LAUNCH();
        if (c.mode == M_EVENTS) {
            SC_CHECK(cudaEventRecord(ev_a, c.a));
        } else if (c.mode == M_DEVICE_SYNC) {
            SC_CHECK(cudaDeviceSynchronize());
        } else {
            cudaError_t e;
            do {
                e = cudaStreamQuery(c.a);
                ++queries;
            } while (e == cudaErrorNotReady);
            SC_CHECK(e);
        }
    }
    float *h_acc = (float *)c.h_pin;
    SC_CHECK(cudaMemcpyAsync(h_acc, c.acc, STEP_N * sizeof(float), cudaMemcpyDeviceToHost, c.a));
    measure_end(c);
    if (c.mode == M_QUERY_POLL)
        printf("# cudaStreamQuery: %lld calls, %.1f per step\n", queries,
               (double)queries / c.steps);
    for (int i = 0; i < STEP_N; i += 7) {
        float a = sc_chain_ref(step_input(i) + salt_a, c.it_step);
        float b = sc_chain_ref(step_input(i) + salt_b, c.it_step);
        float want = 0.0f;
        for (int s = 0; s < c.steps; ++s)
            want = want + (a - b);
        if (!sc_close(h_acc[i], want))
            fail("acc", i, h_acc[i], want);
    }
    printf("# verified acc ok\n");
}

// --- lazy-cold / lazy-warm ----------------------------------------------------------------

// GPU-FACTS.md's experiment: a 3 ms spin on A, then four short sweeps on B. Warm, the sweeps
// run beside the spin. Cold (the first launch of cold_sweep_kernel ever, under the default
// CUDA_MODULE_LOADING=LAZY), loading the kernel holds them back until the spin has ended.
// Two rounds, joined: the first is the cold one in lazy-cold, the second is warm in every
// mode (the same program showing the fix, and a later launch that did overlap, which tells
// a load that held the kernel back from a kernel that could not have run earlier anyway).
// The program measures each round with two timing events: overlapped=yes/no (first round),
// warm_overlapped=yes/no (second).
static void lazy_round(Ctx &c, int blocks, cudaEvent_t spin_end, cudaEvent_t sweeps_end)
{
    launch_spin(c, c.a, c.it_lazy_spin);
    SC_CHECK(cudaEventRecord(spin_end, c.a));
    for (int k = 0; k < LAZY_SWEEPS; ++k)
        launch_cold_sweep(blocks, SWEEP_THREADS, c.b, c.big, c.big_n4, LAZY_PASSES);
    SC_CHECK(cudaEventRecord(sweeps_end, c.b));
    join(c, c.a, c.b);
}

static void print_round(const char *round, const char *key, cudaEvent_t spin_end,
                        cudaEvent_t sweeps_end)
{
    float ms = 0;
    SC_CHECK(cudaEventElapsedTime(&ms, spin_end, sweeps_end));
    printf("# %s round: the sweeps ended %.3f ms %s the spin ended: %s=%s\n", round,
           ms < 0 ? -ms : ms, ms < 0 ? "before" : "after", key, ms < 0 ? "yes" : "no");
}

static void mode_lazy(Ctx &c)
{
    const int blocks = 2 * c.prop.multiProcessorCount;  // no occupancy query: it would load it
    cudaEvent_t ev[4];
    for (cudaEvent_t &e : ev)
        SC_CHECK(cudaEventCreate(&e));
    measure_begin(c);
    lazy_round(c, blocks, ev[0], ev[1]);
    lazy_round(c, blocks, ev[2], ev[3]);
    measure_end(c);
    print_round("first", "overlapped", ev[0], ev[1]);
    print_round("second", "warm_overlapped", ev[2], ev[3]);
    if (c.mode == M_LAZY_COLD)
        check_cold_after(c);
}

// --- no-room / room -----------------------------------------------------------------------

// A sweep on A with as many blocks as the device holds (every SM full for the whole kernel,
// the blocks never retire early: grid-stride), then a small kernel (a 100 us spin, 8 blocks)
// on B. The host launches the small kernel only once the sweep is on the device (block 0
// writes a flag into mapped host memory) and a little later, so it finds no room and waits
// until the sweep ends. room: the sweep grid is half the device's capacity, the small kernel
// runs beside it. First each kernel runs once alone (in both modes), so the analyzer has
// their solo durations.
static void mode_room(Ctx &c, bool fill)
{
    const int blocks = fill ? c.fill_blocks : c.fill_blocks / 2;
    const int reps = c.steps;
    cudaEvent_t ready[16], done[16];
    if (reps > 16) {
        fprintf(stderr, "no-room/room: at most 16 repetitions\n");
        exit(2);
    }
    for (int r = 0; r < reps; ++r) {
        SC_CHECK(cudaEventCreate(&ready[r]));
        SC_CHECK(cudaEventCreate(&done[r]));
    }
    measure_begin(c);
    launch_sweep(c, c.a, blocks, NOROOM_PASSES, nullptr, 0);
    join(c, c.a, c.b);
    launch_spin(c, c.b, c.it_small);
    join(c, c.a, c.b);
    for (int r = 0; r < reps; ++r) {
        launch_sweep(c, c.a, blocks, NOROOM_PASSES, c.started_d, r + 1);
        double deadline = sc_now_ms() + 10000.0;
        while (*(volatile int *)c.started_h != r + 1) {
            if (sc_now_ms() > deadline) {
                fprintf(stderr, "no-room: the sweep never started (mapped flag %d)\n",
                        *(volatile int *)c.started_h);
                exit(1);
            }
        }
        busy_wait_us(50.0);  // the rest of the grid is dispatched within microseconds
        SC_CHECK(cudaEventRecord(ready[r], c.b));
        launch_spin(c, c.b, c.it_small);
        SC_CHECK(cudaEventRecord(done[r], c.b));
        join(c, c.a, c.b);
    }
    measure_end(c);
    float worst = 0;
    for (int r = 0; r < reps; ++r) {
        float ms = 0;
        SC_CHECK(cudaEventElapsedTime(&ms, ready[r], done[r]));
        worst = ms > worst ? ms : worst;
    }
    printf("# sweep %d blocks x %d threads (the device holds %d), small kernel %d x %d: "
           "ready to done at most %.3f ms (~%.3f ms alone at peak clock)\n",
           blocks, SWEEP_THREADS, c.fill_blocks, SPIN_BLOCKS, SPIN_THREADS, worst,
           NOROOM_SMALL_US * 1e-3);
}

// --- blocking / nonblocking / launch-blocking ---------------------------------------------

// A 5 ms spin and four sweeps per repetition. blocking: the spin on a cudaStreamCreate stream
// and the sweeps on the legacy stream, which waits for it (and it for them). blocking-fixed:
// the same program with the fix blocking-stream names, the spin's stream non-blocking (A), so
// the legacy-stream sweeps run beside the spins. nonblocking and launch-blocking: A and B,
// both non-blocking, joined every repetition; the sweeps run inside the spin, unless
// CUDA_LAUNCH_BLOCKING=1 makes every launch wait for the kernel before returning.
//
// After the join either stream may reach the device first. When a full-device sweep gets
// there before the spin, the spin waits for room and then shares SMs with the sweeps, and
// both slow down (on the H200 the spin ran 9.5 ms instead of 5 in such a repetition, the
// sweeps 1.5 ms instead of 0.8): the nonblocking twin keeps that, a no-room killer of its
// own, priced against launch-blocking run without CUDA_LAUNCH_BLOCKING. launch-blocking measures what CUDA_LAUNCH_BLOCKING costs, so its
// sweeps leave room for the spin's blocks, and the order no longer decides the run's
// length (with full sweeps its plain runs took 15.2 to 22.8 ms).
static void mode_overlap(Ctx &c)
{
    const bool legacy_sweeps = c.mode == M_BLOCKING || c.mode == M_BLOCKING_FIXED;
    cudaStream_t spin_s = c.mode == M_BLOCKING ? c.blocking : c.a;
    cudaStream_t sweep_s = legacy_sweeps ? (cudaStream_t)0 : c.b;
    const int sweep_blocks =
        c.mode == M_LAUNCH_BLOCKING ? c.fill_blocks - SPIN_BLOCKS : c.fill_blocks;
    measure_begin(c);
    for (int r = 0; r < c.steps; ++r) {
        launch_spin(c, spin_s, c.it_overlap_spin);
        for (int k = 0; k < OVERLAP_SWEEPS; ++k)
            launch_sweep(c, sweep_s, sweep_blocks, OVERLAP_PASSES, nullptr, 0);
        if (!legacy_sweeps)
            join(c, c.a, c.b);
    }
    measure_end(c);
}

// --- pageable-2d / pageable-driver / pinned-2d --------------------------------------------

// Four 8 MiB chunks, each copied to the device on A and scaled there by a short kernel. From
// pageable memory the "async" copy stages through a driver buffer while the host waits, and
// the device has nothing to run meanwhile; from pinned memory it is a DMA the host does not
// wait for. Row 0 and the last row of every chunk are read back (pinned) and checked.
static void mode_pageable(Ctx &c)
{
    const size_t row_bytes = WIDTH * sizeof(float);
    const int blocks = 4 * c.prop.multiProcessorCount;
    float *h_back = (float *)c.h_pin;
    measure_begin(c);
    for (int ch = 0; ch < CHUNKS; ++ch) {
        float *dst = c.chunks + ch * CHUNK_FLOATS;
        const char *src = c.h_chunks + (size_t)ch * ROWS * c.h_pitch;
        if (c.mode == M_PAGEABLE_DRIVER) {
            CUresult r = cuMemcpyHtoDAsync((CUdeviceptr)dst, src, ROWS * row_bytes, (CUstream)c.a);
            if (r != CUDA_SUCCESS) {
                const char *msg = nullptr;
                cuGetErrorString(r, &msg);
                fprintf(stderr, "cuMemcpyHtoDAsync failed: %s (%d)\n", msg ? msg : "?", (int)r);
                exit(1);
            }
        } else {
            SC_CHECK(cudaMemcpy2DAsync(dst, row_bytes, src, c.h_pitch, row_bytes, ROWS,
                                       cudaMemcpyHostToDevice, c.a));
        }
        scale_kernel<<<blocks, SWEEP_THREADS, 0, c.a>>>(dst, CHUNK_FLOATS, 0.5f, 1.0f);
        SC_CHECK_LAUNCH();
    }
    for (int ch = 0; ch < CHUNKS; ++ch) {
        const float *d = c.chunks + ch * CHUNK_FLOATS;
        SC_CHECK(cudaMemcpyAsync(h_back + (2 * ch) * WIDTH, d, row_bytes, cudaMemcpyDeviceToHost,
                                 c.a));
        SC_CHECK(cudaMemcpyAsync(h_back + (2 * ch + 1) * WIDTH, d + (ROWS - 1) * WIDTH, row_bytes,
                                 cudaMemcpyDeviceToHost, c.a));
    }
    measure_end(c);
    for (int ch = 0; ch < CHUNKS; ++ch)
        for (int half = 0; half < 2; ++half) {
            size_t row = (size_t)ch * ROWS + (half ? ROWS - 1 : 0);
            for (size_t x = 0; x < WIDTH; ++x) {
                float want = fmaf(chunk_value(row * WIDTH + x), 0.5f, 1.0f);
                float got = h_back[(2 * ch + half) * WIDTH + x];
                if (!sc_close(got, want))
                    fail("chunk", row * WIDTH + x, got, want);
            }
        }
    printf("# copied %d chunks of %zu MiB, verified ok\n", CHUNKS,
           CHUNK_FLOATS * sizeof(float) >> 20);
}

// --- main ---------------------------------------------------------------------------------

static void usage(FILE *f)
{
    fprintf(f, "usage: killers MODE [--steps N]\n");
    for (int i = 0; i < M_COUNT; ++i)
        fprintf(f, "  %-22s %s (steps %d)\n", k_modes[i].name, k_modes[i].what,
                k_modes[i].default_steps);
}

int main(int argc, char **argv)
{
    const char *name = nullptr;
    int steps = 0;
    int status = sc_parse_args(argc, argv, "--steps", &steps, &name, true, usage);
    if (status >= 0)
        return status;
    int which = sc_lookup(name, k_modes, M_COUNT, "mode", usage);
    if (which < 0)
        return 2;

    Ctx c;
    memset(&c, 0, sizeof c);
    c.mode = (ModeId)which;
    c.steps = steps > 0 ? steps : k_modes[which].default_steps;

    // The primary context is created here, by a call streamcheck does not time: a context
    // takes ~100 ms to create, and inside the first timed call it would make up most of the
    // run that findings' shares are measured against.
    SC_CHECK(cudaSetDevice(0));
    SC_CHECK(cudaGetDeviceProperties(&c.prop, 0));
    SC_CHECK(cudaStreamCreateWithFlags(&c.a, cudaStreamNonBlocking));
    SC_CHECK(cudaStreamCreateWithFlags(&c.b, cudaStreamNonBlocking));
    SC_CHECK(cudaEventCreateWithFlags(&c.join_x, cudaEventDisableTiming));
    SC_CHECK(cudaEventCreateWithFlags(&c.join_y, cudaEventDisableTiming));
    printf("# device: %s, %d SMs, cc %d.%d; mode %s: %s\n", c.prop.name,
           c.prop.multiProcessorCount, c.prop.major, c.prop.minor, k_modes[which].name,
           k_modes[which].what);

    allocate(c);
    check_and_calibrate(c, c.mode != M_LAZY_COLD);
    c.it_malloc_spin = iters_us(c, MALLOC_SPIN_US);
    c.it_malloc_step = iters_us(c, MALLOC_STEP_US);
    c.it_copy_spin = iters_us(c, COPY_SPIN_US);
    c.it_copy_result = iters_us(c, COPY_RESULT_US);
    c.it_step = iters_us(c, STEP_US);
    c.it_lazy_spin = iters_us(c, LAZY_SPIN_US);
    c.it_small = iters_us(c, NOROOM_SMALL_US);
    c.it_overlap_spin = iters_us(c, OVERLAP_SPIN_US);

    switch (c.mode) {
    case M_MALLOC_IN_LOOP: mode_malloc(c, true); break;
    case M_MALLOC_BEFORE_LOOP: mode_malloc(c, false); break;
    case M_SYNC_COPY: mode_copy(c, true); break;
    case M_ASYNC_COPY: mode_copy(c, false); break;
    case M_DEVICE_SYNC:
    case M_QUERY_POLL:
    case M_EVENTS: mode_steps(c); break;
    case M_LAZY_COLD:
    case M_LAZY_WARM: mode_lazy(c); break;
    case M_NO_ROOM: mode_room(c, true); break;
    case M_ROOM: mode_room(c, false); break;
    case M_BLOCKING:
    case M_BLOCKING_FIXED:
    case M_NONBLOCKING:
    case M_LAUNCH_BLOCKING: mode_overlap(c); break;
    case M_PAGEABLE_2D:
    case M_PAGEABLE_DRIVER:
    case M_PINNED_2D: mode_pageable(c); break;
    default: usage(stderr); return 2;
    }
    // Buffers, streams and events are left to process exit: frees here would add calls after
    // the measured part that only clutter the report.
    return 0;
}
