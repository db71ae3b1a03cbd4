// per_thread: built with `nvcc --default-stream per-thread`, where a launch or copy that
// names no stream goes to the calling thread's own default stream, not to the legacy NULL
// stream. streamcheck must tell the two apart.
//
//   per_thread unstreamed     two host threads launch spins naming no stream (each thread's
//                             per-thread stream), while a cudaStreamCreate (blocking) stream
//                             runs spins too: nothing touches the legacy stream, nothing
//                             serializes, all three streams overlap. No legacy-stream finding.
//   per_thread legacy-named   a spin on a cudaStreamCreate stream, then a launch that names
//                             cudaStreamLegacy: the legacy stream waits for the blocking
//                             stream (and it for the legacy stream), every repetition.
//                             legacy-stream (serializing).
//
// Setup as in killers.cu: the context made by cudaSetDevice (not timed by streamcheck), the
// spin checked against the CPU in another launch shape and calibrated in one batch with one
// synchronize. Prints `mode=NAME ms=...`; lines starting with '#' are diagnostics.
#include <nvtx3/nvToolsExt.h>

#include <string.h>
#include <thread>

#include "sample_spin.cuh"

enum {
    SPIN_BLOCKS = 8,
    SPIN_THREADS = 128,
    SPIN_N = SPIN_BLOCKS * SPIN_THREADS,
    LEGACY_BLOCKS = 4,      // the launch on cudaStreamLegacy: another shape, same kernel
    LEGACY_THREADS = 256,
    THREADS = 2,            // host threads in `unstreamed`
    REPS = 3,
    CHECK_ITERS = 100,
};
static const double SPIN_US = 2000.0;
static const double LEGACY_US = 500.0;

static long long g_iters_spin, g_iters_legacy;

static void check_spin(float *out, long long iters, int n, const char *what)
{
    // The chains are long: a few elements against the CPU, first and last included.
    const int idx[] = {0, 1, 77, n / 2, n - 1};
    for (int i : idx) {
        float want = sc_chain_ref(1e-3f * (float)i, iters);
        if (!sc_close(out[i], want)) {
            fprintf(stderr, "verification FAILED: %s element %d = %.9g, CPU says %.9g\n", what, i,
                    out[i], want);
            exit(1);
        }
    }
}

// The reference check (another launch shape than any measured spin) and the calibration, on
// this thread's default stream, one synchronize.
static void check_and_calibrate(double *cycles_per_iter)
{
    const int n_check = 16 * 64;
    float *h = nullptr, *d = nullptr;
    SC_CHECK(cudaMallocHost(&h, (n_check + 64) * sizeof(float) + 4 * sizeof(long long)));
    SC_CHECK(cudaMalloc(&d, (n_check + 64) * sizeof(float) + 4 * sizeof(long long)));
    long long *d_cycles = (long long *)(d + n_check + 64), *h_cycles = (long long *)(h + n_check + 64);
    spin_kernel<<<16, 64>>>(d, CHECK_ITERS, nullptr);  // no stream: this thread's own
    SC_CHECK_LAUNCH();
    sc_spin_calibrate_enqueue(d + n_check, d_cycles, cudaStreamPerThread);
    SC_CHECK(cudaMemcpyAsync(h, d, (n_check + 64) * sizeof(float) + 4 * sizeof(long long),
                             cudaMemcpyDeviceToHost, cudaStreamPerThread));
    SC_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    for (int i = 0; i < n_check; ++i) {
        float want = sc_chain_ref(1e-3f * (float)i, CHECK_ITERS);
        if (!sc_close(h[i], want)) {
            fprintf(stderr, "reference check FAILED: spin_kernel element %d = %.9g, CPU says %.9g\n",
                    i, h[i], want);
            exit(1);
        }
    }
    *cycles_per_iter = sc_spin_cycles_per_iter(h_cycles);
    printf("# reference check: spin_kernel ok; %.2f cycles/iter\n", *cycles_per_iter);
    // h and d are left to process exit: freeing them would only add calls to the report.
}

// A worker of `unstreamed`: REPS spins on its own per-thread default stream (no stream named),
// then waits for that stream alone.
static void worker(float *out)
{
    for (int r = 0; r < REPS; ++r) {
        spin_kernel<<<SPIN_BLOCKS, SPIN_THREADS>>>(out, g_iters_spin, nullptr);
        SC_CHECK_LAUNCH();
    }
    SC_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

int main(int argc, char **argv)
{
    const char *mode = argc == 2 ? argv[1] : "";
    const bool unstreamed = strcmp(mode, "unstreamed") == 0;
    if (!unstreamed && strcmp(mode, "legacy-named") != 0) {
        fprintf(stderr, "usage: per_thread unstreamed|legacy-named\n");
        return 2;
    }

    // The context is made here, by a call streamcheck does not time (see killers.cu).
    SC_CHECK(cudaSetDevice(0));
    cudaDeviceProp prop;
    SC_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("# device: %s, %d SMs; per-thread default stream build; mode %s\n", prop.name,
           prop.multiProcessorCount, mode);

    cudaStream_t side;
    SC_CHECK(cudaStreamCreate(&side));  // blocking: it would serialize with the legacy stream
    float *out[THREADS + 2];            // one per worker, the side stream, the legacy launches
    for (int i = 0; i < THREADS + 2; ++i)
        SC_CHECK(cudaMalloc(&out[i], SPIN_N * sizeof(float)));
    float *h_out = nullptr;
    SC_CHECK(cudaMallocHost(&h_out, (THREADS + 2) * SPIN_N * sizeof(float)));

    double cycles_per_iter = 4.0;
    check_and_calibrate(&cycles_per_iter);
    const int khz = sc_clock_khz();
    g_iters_spin = sc_iters_for_us(SPIN_US, cycles_per_iter, khz);
    g_iters_legacy = sc_iters_for_us(LEGACY_US, cycles_per_iter, khz);

    SC_CHECK(cudaDeviceSynchronize());  // waits for nothing
    nvtxRangePushA(mode);
    double t0 = sc_now_ms();
    if (unstreamed) {
        for (int r = 0; r < REPS; ++r) {
            spin_kernel<<<SPIN_BLOCKS, SPIN_THREADS, 0, side>>>(out[THREADS], g_iters_spin,
                                                                 nullptr);
            SC_CHECK_LAUNCH();
        }
        std::thread workers[THREADS];
        for (int t = 0; t < THREADS; ++t)
            workers[t] = std::thread(worker, out[t]);
        for (int t = 0; t < THREADS; ++t)
            workers[t].join();
    } else {
        for (int r = 0; r < REPS; ++r) {
            spin_kernel<<<SPIN_BLOCKS, SPIN_THREADS, 0, side>>>(out[THREADS], g_iters_spin,
                                                                 nullptr);
            SC_CHECK_LAUNCH();
            spin_kernel<<<LEGACY_BLOCKS, LEGACY_THREADS, 0, cudaStreamLegacy>>>(
                out[THREADS + 1], g_iters_legacy, nullptr);
            SC_CHECK_LAUNCH();
        }
    }
    SC_CHECK(cudaDeviceSynchronize());
    double ms = sc_now_ms() - t0;
    nvtxRangePop();
    printf("mode=%s ms=%.3f\n", mode, ms);
    fflush(stdout);

    // What the kernels wrote, back through pinned memory on this thread's stream.
    for (int i = 0; i < THREADS + 2; ++i)
        SC_CHECK(cudaMemcpyAsync(h_out + (size_t)i * SPIN_N, out[i], SPIN_N * sizeof(float),
                                 cudaMemcpyDeviceToHost, cudaStreamPerThread));
    SC_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    if (unstreamed) {
        for (int i = 0; i <= THREADS; ++i)
            check_spin(h_out + (size_t)i * SPIN_N, g_iters_spin, SPIN_N, "spin_kernel");
    } else {
        check_spin(h_out + (size_t)THREADS * SPIN_N, g_iters_spin, SPIN_N, "spin_kernel (side)");
        check_spin(h_out + (size_t)(THREADS + 1) * SPIN_N, g_iters_legacy,
                   LEGACY_BLOCKS * LEGACY_THREADS, "spin_kernel (legacy)");
    }
    printf("# verified ok\n");
    return 0;
}
