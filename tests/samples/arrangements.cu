// arrangements: the same few kernels issued in arrangements that do or do not let them run
// concurrently. streamcheck's GPU tests run each arrangement and check what it reports:
// how much the kernels overlapped, and what (legacy stream, blocking stream, a grid that
// fills the device) took the overlap away.
//
//   arrangements <name> [--reps N]
//   names: spin sweep sweep2 legacy nonblocking trap two-grids all
//
// Before anything is measured, every kernel is checked against a CPU reference on a tiny
// input; that check is also each kernel's warm-up launch, so lazy module loading happens
// there and not inside a measured arrangement. Each arrangement runs inside an NVTX range
// named after it and prints one line: arrangement=NAME reps=N ms=... ms_per_rep=...
#include <nvtx3/nvToolsExt.h>

#include <string.h>

#include "sample_util.h"

// --- kernels ------------------------------------------------------------------------------

// A long chain of dependent FMAs on a few blocks: it keeps a handful of SMs busy for
// milliseconds and leaves the rest of the device free, so work on another stream *can* run
// beside it. `cycles` (optional) receives the SM cycles the loop took in thread 0, used to
// calibrate the iteration count.
__global__ void spin_kernel(float *out, long long iters, long long *cycles)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = 1e-3f * (float)gid;
    long long t0 = clock64();
    for (long long i = 0; i < iters; ++i)
        x = fmaf(x, 0.999f, 1e-3f);
    out[gid] = x;
    long long t1 = clock64();
    if (cycles != nullptr && gid == 0)
        *cycles = t1 - t0;
}

// Bandwidth sweep: `passes` read-modify-write passes over a buffer much larger than L2,
// grid-stride so any grid covers it. float4 accesses keep enough bytes in flight per SM to
// get near peak bandwidth (scalar loads reach well under half of it on HBM3). Each thread
// touches the same elements in every pass, so passes need no grid-wide barrier.
__device__ __host__ inline float4 sweep_op(float4 v)
{
    return make_float4(fmaf(v.x, 0.5f, 1.0f), fmaf(v.y, 0.5f, 1.0f), fmaf(v.z, 0.5f, 1.0f),
                       fmaf(v.w, 0.5f, 1.0f));
}

__global__ void sweep_kernel(float4 *x, size_t n4, int passes)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int p = 0; p < passes; ++p)
        for (size_t i = first; i < n4; i += stride)
            x[i] = sweep_op(x[i]);
}

// A second, different sweep (two inputs, another block size), so the two-grids arrangement
// puts two distinct grid-filling kernels side by side.
__device__ __host__ inline float4 sweep2_op(float4 y, float4 x)
{
    return make_float4(fmaf(y.x, 0.5f, x.x), fmaf(y.y, 0.5f, x.y), fmaf(y.z, 0.5f, x.z),
                       fmaf(y.w, 0.5f, x.w));
}

__global__ void sweep2_kernel(const float4 *__restrict__ x, float4 *__restrict__ y, size_t n4,
                              int passes)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int p = 0; p < passes; ++p)
        for (size_t i = first; i < n4; i += stride)
            y[i] = sweep2_op(y[i], x[i]);
}

// --- sizing -------------------------------------------------------------------------------

enum {
    SPIN_BLOCKS = 8,       // a few blocks: most SMs stay free
    SPIN_THREADS = 128,
    SWEEP_THREADS = 256,
    SWEEP2_THREADS = 512,  // differs from sweep on purpose
    SWEEP_PASSES = 6,      // 256 MiB x 6 passes x (read + write) = 3 GiB moved
    SWEEP2_PASSES = 8,     // 2 x 128 MiB, 8 passes x (2 reads + 1 write) = 3 GiB moved
    SWEEPS_PER_REP = 4,
};
static const double SPIN_TARGET_MS = 5.0;
static const size_t SWEEP_BYTES = 256u << 20;

struct Ctx {
    cudaDeviceProp prop;
    cudaStream_t a, b, c;  // non-blocking: spin, sweep, sweep2
    cudaStream_t trap;     // blocking (cudaStreamCreate), made only by the trap arrangement
    cudaEvent_t join_x, join_y;

    float *spin_out;
    long long spin_iters;

    float4 *sweep_buf;
    size_t sweep_n4;  // in float4s
    int sweep_blocks;

    float4 *sweep2_x, *sweep2_y;
    size_t sweep2_n4;
    int sweep2_blocks;
};

static void launch_spin(const Ctx &c, cudaStream_t s)
{
    spin_kernel<<<SPIN_BLOCKS, SPIN_THREADS, 0, s>>>(c.spin_out, c.spin_iters, nullptr);
    SC_CHECK_LAUNCH();
}

static void launch_sweep(const Ctx &c, cudaStream_t s)
{
    sweep_kernel<<<c.sweep_blocks, SWEEP_THREADS, 0, s>>>(c.sweep_buf, c.sweep_n4, SWEEP_PASSES);
    SC_CHECK_LAUNCH();
}

static void launch_sweep2(const Ctx &c, cudaStream_t s)
{
    sweep2_kernel<<<c.sweep2_blocks, SWEEP2_THREADS, 0, s>>>(c.sweep2_x, c.sweep2_y,
                                                            c.sweep2_n4, SWEEP2_PASSES);
    SC_CHECK_LAUNCH();
}

// Make each of two streams wait for the other's work so far, without the host: repetitions
// then start together and do not drift into each other, and the GPU never idles between them.
static void join(const Ctx &c, cudaStream_t s1, cudaStream_t s2)
{
    SC_CHECK(cudaEventRecord(c.join_x, s1));
    SC_CHECK(cudaEventRecord(c.join_y, s2));
    SC_CHECK(cudaStreamWaitEvent(s1, c.join_y, 0));
    SC_CHECK(cudaStreamWaitEvent(s2, c.join_x, 0));
}

// --- reference checks (also the warm-up launches) -----------------------------------------

static void fail_mismatch(const char *kernel, size_t i, float got, float want)
{
    fprintf(stderr, "reference check FAILED: %s element %zu = %.9g, CPU says %.9g\n", kernel, i,
            got, want);
    exit(1);
}

// Runs each kernel once on a tiny input (a few microseconds of GPU time) on stream A and
// compares with the CPU. The small grids make the grid-stride loops wrap, so coverage and
// "each element exactly once per pass" are both checked.
static void check_kernels(const Ctx &c)
{
    const int spin_iters = 100;
    const size_t n_spin = SPIN_BLOCKS * SPIN_THREADS;
    const int blocks = 2, passes = 3;
    // In float4s; sizes that are not a multiple of the grid exercise the loop's tail.
    const size_t n1 = (size_t)blocks * SWEEP_THREADS * 3 + 17;
    const size_t n2 = (size_t)blocks * SWEEP2_THREADS * 3 + 29;
    // One block of floats: spin results, sweep input, sweep2 x and y. Every part is a
    // multiple of 4 floats, so the float4 views stay 16-byte aligned.
    const size_t n_host = n_spin + 4 * (n1 + 2 * n2);

    // Pinned staging so the copies are truly async and add no pageable-copy finding.
    float *h = nullptr, *d = nullptr;
    SC_CHECK(cudaMallocHost(&h, n_host * sizeof(float)));
    SC_CHECK(cudaMalloc(&d, n_host * sizeof(float)));
    float *h_x1 = h + n_spin, *h_x2 = h_x1 + 4 * n1, *h_y2 = h_x2 + 4 * n2;
    float *d_spin = d, *d_x1 = d + n_spin, *d_x2 = d_x1 + 4 * n1, *d_y2 = d_x2 + 4 * n2;
    for (size_t i = 0; i < 4 * n1; ++i)
        h_x1[i] = (float)(i % 97) * 0.25f;
    for (size_t i = 0; i < 4 * n2; ++i) {
        h_x2[i] = (float)(i % 89) * 0.5f;
        h_y2[i] = (float)(i % 13);
    }
    // Keep the inputs for the CPU side before the results overwrite them.
    float *want = (float *)malloc(n_host * sizeof(float));
    if (want == nullptr) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    memcpy(want, h, n_host * sizeof(float));
    float *w_x1 = want + n_spin, *w_x2 = w_x1 + 4 * n1, *w_y2 = w_x2 + 4 * n2;

    SC_CHECK(cudaMemcpyAsync(d_x1, h_x1, 4 * (n1 + 2 * n2) * sizeof(float),
                             cudaMemcpyHostToDevice, c.a));
    // Same threads, another launch shape: the analyzer takes instances of the same name and
    // shape that ran alone as a kernel's solo reference, and this tiny check must not be one.
    spin_kernel<<<2 * SPIN_BLOCKS, SPIN_THREADS / 2, 0, c.a>>>(d_spin, spin_iters, nullptr);
    SC_CHECK_LAUNCH();
    sweep_kernel<<<blocks, SWEEP_THREADS, 0, c.a>>>((float4 *)d_x1, n1, passes);
    SC_CHECK_LAUNCH();
    sweep2_kernel<<<blocks, SWEEP2_THREADS, 0, c.a>>>((const float4 *)d_x2, (float4 *)d_y2, n2,
                                                      passes);
    SC_CHECK_LAUNCH();
    SC_CHECK(cudaMemcpyAsync(h, d, n_host * sizeof(float), cudaMemcpyDeviceToHost, c.a));
    SC_CHECK(cudaStreamSynchronize(c.a));

    for (size_t t = 0; t < n_spin; ++t) {
        float x = 1e-3f * (float)t;
        for (int i = 0; i < spin_iters; ++i)
            x = fmaf(x, 0.999f, 1e-3f);
        if (!sc_close(h[t], x))
            fail_mismatch("spin_kernel", t, h[t], x);
    }
    for (size_t i = 0; i < 4 * n1; ++i) {
        float x = w_x1[i];
        for (int p = 0; p < passes; ++p)
            x = fmaf(x, 0.5f, 1.0f);
        if (!sc_close(h_x1[i], x))
            fail_mismatch("sweep_kernel", i, h_x1[i], x);
    }
    for (size_t i = 0; i < 4 * n2; ++i) {
        float y = w_y2[i];
        for (int p = 0; p < passes; ++p)
            y = fmaf(y, 0.5f, w_x2[i]);
        if (!sc_close(h_y2[i], y))
            fail_mismatch("sweep2_kernel", i, h_y2[i], y);
        if (h_x2[i] != w_x2[i])
            fail_mismatch("sweep2_kernel (input changed)", i, h_x2[i], w_x2[i]);
    }
    free(want);
    // Freed now, while nothing is in flight, so these implicit syncs cost nothing.
    SC_CHECK(cudaFreeHost(h));
    SC_CHECK(cudaFree(d));
    printf("# reference check: spin_kernel sweep_kernel sweep2_kernel ok\n");
}

// Chooses the spin's iteration count so that it runs about SPIN_TARGET_MS at the card's peak
// clock: two short runs (one warp, ~10 us) measure SM cycles per iteration; the difference
// cancels the fixed cost around the loop.
static long long calibrate_spin(const Ctx &c)
{
    const long long short_iters = 2000, long_iters = 6000;
    long long *d_cycles = nullptr, *cycles = nullptr;
    SC_CHECK(cudaMalloc(&d_cycles, 2 * sizeof(long long)));
    // Pinned, like every host buffer here: a pageable async copy would be a finding.
    SC_CHECK(cudaMallocHost(&cycles, 2 * sizeof(long long)));
    spin_kernel<<<1, 32, 0, c.a>>>(c.spin_out, short_iters, d_cycles);
    SC_CHECK_LAUNCH();
    spin_kernel<<<1, 32, 0, c.a>>>(c.spin_out, long_iters, d_cycles + 1);
    SC_CHECK_LAUNCH();
    SC_CHECK(cudaMemcpyAsync(cycles, d_cycles, 2 * sizeof(long long), cudaMemcpyDeviceToHost,
                             c.a));
    SC_CHECK(cudaStreamSynchronize(c.a));
    double per_iter = (double)(cycles[1] - cycles[0]) / (double)(long_iters - short_iters);
    SC_CHECK(cudaFreeHost(cycles));
    SC_CHECK(cudaFree(d_cycles));

    if (!(per_iter >= 1.0 && per_iter <= 64.0)) {
        // A dependent FMA costs about 4 cycles on every recent architecture.
        fprintf(stderr, "# spin calibration implausible (%.2f cycles/iter), assuming 4\n",
                per_iter);
        per_iter = 4.0;
    }
    int clock_khz = 0;
    SC_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    if (clock_khz <= 0)
        clock_khz = 1500000;
    long long iters = (long long)(SPIN_TARGET_MS * (double)clock_khz / per_iter);
    printf("# spin: %.2f cycles/iter at %d MHz -> %lld iterations (~%.1f ms at peak clock)\n",
           per_iter, clock_khz / 1000, iters, SPIN_TARGET_MS);
    return iters;
}

// --- arrangements -------------------------------------------------------------------------

static void arr_spin(Ctx &c, int reps)
{
    for (int r = 0; r < reps; ++r)
        launch_spin(c, c.a);
}

static void arr_sweep(Ctx &c, int reps)
{
    for (int r = 0; r < reps; ++r)
        for (int k = 0; k < SWEEPS_PER_REP; ++k)
            launch_sweep(c, c.b);
}

static void arr_sweep2(Ctx &c, int reps)
{
    for (int r = 0; r < reps; ++r)
        for (int k = 0; k < SWEEPS_PER_REP; ++k)
            launch_sweep2(c, c.c);
}

// Everything on the legacy NULL stream: one queue, so the sweeps wait for the spin.
static void arr_legacy(Ctx &c, int reps)
{
    for (int r = 0; r < reps; ++r) {
        launch_spin(c, 0);
        for (int k = 0; k < SWEEPS_PER_REP; ++k)
            launch_sweep(c, 0);
    }
}

// The fix: two non-blocking streams. The sweeps fill the SMs the spin leaves free.
static void arr_nonblocking(Ctx &c, int reps)
{
    for (int r = 0; r < reps; ++r) {
        launch_spin(c, c.a);
        for (int k = 0; k < SWEEPS_PER_REP; ++k)
            launch_sweep(c, c.b);
        join(c, c.a, c.b);
    }
}

// The trap: the spin looks independent (its own stream), but a cudaStreamCreate stream is
// blocking, so the legacy-stream sweeps wait for it and it waits for them.
static void arr_trap(Ctx &c, int reps)
{
    if (c.trap == nullptr)
        SC_CHECK(cudaStreamCreate(&c.trap));
    for (int r = 0; r < reps; ++r) {
        launch_spin(c, c.trap);
        for (int k = 0; k < SWEEPS_PER_REP; ++k)
            launch_sweep(c, 0);
    }
}

// Two grid-filling kernels on independent streams: their blocks interleave (one kernel's
// blocks start as the other's retire), but the device has no spare room, so together they
// take as long as one after the other.
static void arr_two_grids(Ctx &c, int reps)
{
    for (int r = 0; r < reps; ++r) {
        for (int k = 0; k < SWEEPS_PER_REP; ++k) {
            launch_sweep(c, c.b);
            launch_sweep2(c, c.c);
        }
        join(c, c.b, c.c);
    }
}

// Runs one arrangement inside its own NVTX range, timed on the host from an idle device to
// the device being idle again. Returns the elapsed milliseconds.
static double measure(Ctx &c, const char *name, void (*arr)(Ctx &, int), int reps)
{
    SC_CHECK(cudaDeviceSynchronize());
    nvtxRangePushA(name);
    double t0 = sc_now_ms();
    arr(c, reps);
    SC_CHECK(cudaDeviceSynchronize());
    double ms = sc_now_ms() - t0;
    nvtxRangePop();
    printf("arrangement=%s reps=%d ms=%.3f ms_per_rep=%.3f\n", name, reps, ms, ms / reps);
    fflush(stdout);
    return ms;
}

// two-grids needs the two sweeps' solo durations (the analyzer's reference for "did the
// overlap pay"), so it first runs each alone, in a range of its own, then both together.
static double measure_two_grids(Ctx &c, int reps)
{
    double solo = measure(c, "two-grids-solo-sweep", arr_sweep, reps);
    solo += measure(c, "two-grids-solo-sweep2", arr_sweep2, reps);
    double both = measure(c, "two-grids", arr_two_grids, reps);
    printf("# two-grids: together %.3f ms vs solo sum %.3f ms (speedup %.2fx; ~1.0 expected)\n",
           both, solo, solo / both);
    return both;
}

struct Arrangement {
    const char *name;
    void (*fn)(Ctx &, int);
};

static const Arrangement k_arrangements[] = {
    {"spin", arr_spin},         {"sweep", arr_sweep},
    {"sweep2", arr_sweep2},     {"legacy", arr_legacy},
    {"nonblocking", arr_nonblocking}, {"trap", arr_trap},
    {"two-grids", arr_two_grids},
};
enum { N_ARR = sizeof k_arrangements / sizeof k_arrangements[0] };

static double run_one(Ctx &c, const Arrangement &a, int reps)
{
    if (a.fn == arr_two_grids)
        return measure_two_grids(c, reps);
    return measure(c, a.name, a.fn, reps);
}

// After `all`: plausibility notes for whoever reads the output (timing is noisy, so these
// never fail the run).
static void print_expectations(const double *ms)
{
    double solo = ms[0] + ms[1];  // spin + sweep, what a serialized arrangement costs
    printf("# expect legacy ~ spin+sweep (%.3f): %.3f\n", solo, ms[3]);
    printf("# expect nonblocking < legacy: %.3f < %.3f %s\n", ms[4], ms[3],
           ms[4] < ms[3] ? "ok" : "UNEXPECTED");
    printf("# expect trap ~ legacy (serialized): %.3f vs %.3f\n", ms[5], ms[3]);
    printf("# expect sweep < spin (the sweeps fit inside the spin): %.3f < %.3f %s\n", ms[1],
           ms[0], ms[1] < ms[0] ? "ok" : "UNEXPECTED");
}

static void usage(FILE *f)
{
    fprintf(f, "usage: arrangements <name> [--reps N]\n  names: all");
    for (int i = 0; i < N_ARR; ++i)
        fprintf(f, " %s", k_arrangements[i].name);
    fprintf(f, "\n");
}

static void setup(Ctx &c)
{
    memset(&c, 0, sizeof c);
    SC_CHECK(cudaGetDeviceProperties(&c.prop, 0));
    SC_CHECK(cudaStreamCreateWithFlags(&c.a, cudaStreamNonBlocking));
    SC_CHECK(cudaStreamCreateWithFlags(&c.b, cudaStreamNonBlocking));
    SC_CHECK(cudaStreamCreateWithFlags(&c.c, cudaStreamNonBlocking));
    SC_CHECK(cudaEventCreateWithFlags(&c.join_x, cudaEventDisableTiming));
    SC_CHECK(cudaEventCreateWithFlags(&c.join_y, cudaEventDisableTiming));

    // 256 MiB is far beyond any L2; a small card gets an eighth of its memory instead.
    size_t bytes = SWEEP_BYTES;
    if (bytes > c.prop.totalGlobalMem / 8)
        bytes = c.prop.totalGlobalMem / 8;
    c.sweep_n4 = bytes / sizeof(float4);
    c.sweep2_n4 = c.sweep_n4 / 2;
    // One full wave on every SM, less one block slot for each of the spin's blocks: a sweep
    // that took every slot would leave the spin no room when both are ready at once (and,
    // started beside the spin, would need a second wave for its last blocks, doubling its
    // time). Measured on an H200 with the full 1056 blocks: the nonblocking arrangement was
    // no faster than the legacy one, concurrency 1.61x but productive speedup 0.99x, and
    // streamcheck said why (no-room). Every SM still runs sweep blocks.
    c.sweep_blocks = sc_filling_blocks(sweep_kernel, SWEEP_THREADS, c.prop) - SPIN_BLOCKS;
    c.sweep2_blocks = sc_filling_blocks(sweep2_kernel, SWEEP2_THREADS, c.prop);

    SC_CHECK(cudaMalloc(&c.spin_out, SPIN_BLOCKS * SPIN_THREADS * sizeof(float)));
    SC_CHECK(cudaMalloc(&c.sweep_buf, c.sweep_n4 * sizeof(float4)));
    SC_CHECK(cudaMalloc(&c.sweep2_x, c.sweep2_n4 * sizeof(float4)));
    SC_CHECK(cudaMalloc(&c.sweep2_y, c.sweep2_n4 * sizeof(float4)));
    // The big buffers are not initialized on purpose: a memset would add a fraction of a
    // millisecond of device work outside the measured arrangements, and the sweeps' speed
    // does not depend on the values (FP throughput on a GPU is the same for any operand).

    printf("# device: %s, %d SMs, cc %d.%d\n", c.prop.name, c.prop.multiProcessorCount,
           c.prop.major, c.prop.minor);
    printf("# spin: %d blocks x %d threads\n", SPIN_BLOCKS, SPIN_THREADS);
    printf("# sweep: %d blocks x %d threads (%d per SM), %zu MiB x %d passes\n", c.sweep_blocks,
           SWEEP_THREADS, c.sweep_blocks / c.prop.multiProcessorCount,
           c.sweep_n4 * sizeof(float4) >> 20, SWEEP_PASSES);
    printf("# sweep2: %d blocks x %d threads (%d per SM), 2 x %zu MiB x %d passes\n",
           c.sweep2_blocks, SWEEP2_THREADS, c.sweep2_blocks / c.prop.multiProcessorCount,
           c.sweep2_n4 * sizeof(float4) >> 20, SWEEP2_PASSES);
}

int main(int argc, char **argv)
{
    const char *name = nullptr;
    int reps = 3;
    int status = sc_parse_args(argc, argv, "--reps", &reps, &name, true, usage);
    if (status >= 0)
        return status;
    int which = name != nullptr && strcmp(name, "all") == 0  // N_ARR means all
                    ? N_ARR
                    : sc_lookup(name, k_arrangements, N_ARR, "arrangement", usage);
    if (which < 0)
        return 2;

    Ctx c;
    setup(c);
    check_kernels(c);
    c.spin_iters = calibrate_spin(c);

    if (which < N_ARR) {
        run_one(c, k_arrangements[which], reps);
        return 0;
    }
    double ms[N_ARR];
    for (int i = 0; i < N_ARR; ++i)
        ms[i] = run_one(c, k_arrangements[i], reps);
    print_expectations(ms);
    // Buffers and streams are left to process exit on purpose: cudaFree here would add
    // implicit-sync calls after the measured part that only clutter the report.
    return 0;
}
