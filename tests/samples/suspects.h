// What the files of the `suspects` sample share: its context, its measurement frame, the
// launchers of its kernels and the CPU references that check them.
//
// The kernels live in suspects_kernels.cu (and the lazy-once kernel in suspects_once.cu, a
// module of its own): a kernel can only be launched with <<<>>> from the file that defines
// it, so every mode file launches through the functions declared here.
#pragma once

#include <stdint.h>

#include <vector>

#include "sample_util.h"

enum {
    SPIN_BLOCKS = 8,  // the background spins: a few SMs, the rest of the device stays free
    SPIN_THREADS = 128,
    SPIN_N = SPIN_BLOCKS * SPIN_THREADS,
    STEP_BLOCKS = 8,  // the short per-step kernels (launch_step, launch_accumulate)
    STEP_THREADS = 128,
    STEP_N = STEP_BLOCKS * STEP_THREADS,
    SCALE_THREADS = 256,
};

struct Ctx {
    const char *mode;
    int steps;
    cudaDeviceProp prop;
    cudaStream_t a, b;  // non-blocking, made before any mode runs
    double cycles_per_iter;
    int clock_khz;
    float *step_in;  // STEP_N inputs, step_input(i), on the device
};

// --- suspects.cu: measurement frame, results -----------------------------------------------

// The measured part: a device-wide synchronize (waits for nothing after the setup), then an
// NVTX start/end range named after the mode (start/end, not push/pop: some modes issue their
// work from other threads, and such a range holds every thread's calls). measure_end
// synchronizes the device, ends the range and prints `mode=NAME steps=N ms=...`.
void measure_begin(const Ctx &c);
double measure_end(const Ctx &c);
// What the mode computed, folded into the `result: checksum=` line printed at exit. Only
// results go in (never times): the line is the same under streamcheck and without it.
void result_add(const void *p, size_t bytes);
// Prints what failed and exits 1.
[[noreturn]] void fail(const char *what, size_t i, float got, float want);
void check(const char *what, size_t i, float got, float want);
void *host_alloc(size_t bytes);  // malloc that exits on failure
void busy_wait_us(double us);

// Host durations of repeated calls, in milliseconds.
struct Durations {
    std::vector<double> ms;
    void add(double v) { ms.push_back(v); }
    size_t count() const { return ms.size(); }
    double median() const;
    double max() const;
    double total() const;
};

// --- suspects_kernels.cu: kernels and their CPU references ---------------------------------

// out[gid] = the chain from 1e-3 * gid, `iters` long, on blocks x threads.
void launch_spin(cudaStream_t s, int blocks, int threads, float *out, long long iters);
// One element per thread, STEP_BLOCKS x STEP_THREADS: out[i] = the chain from in[i] + salt.
void launch_step(cudaStream_t s, float *out, const float *in, int n, long long iters, float salt);
// acc[i] += x[i] - y[i], STEP_BLOCKS x STEP_THREADS.
void launch_accumulate(cudaStream_t s, float *acc, const float *x, const float *y, int n);
// x[i] = x[i] * mul + add, grid-stride, `blocks` x SCALE_THREADS.
void launch_scale(cudaStream_t s, float *x, size_t n, float mul, float add, int blocks);
// Blocks of launch_spin at `threads` that fill every SM.
int spin_filling_blocks(const Ctx &c, int threads);
// cudaFuncSetCacheConfig on the step kernel.
cudaError_t set_step_cache_config(cudaFuncCache config);
// Every kernel above once on a tiny input, in launch shapes no measured launch uses (so none
// counts as a measured kernel's solo run, and lazy loading of this module happens here),
// the spin calibration, and c.step_in's values: one batch on stream A, one synchronize.
void check_and_calibrate(Ctx &c);

// Iterations of the chain that take `us` at the card's peak clock (after the calibration).
long long iters_us(const Ctx &c, double us);
float step_input(int i);
float chain_ref(float x, long long iters);              // the chain, on the CPU
float scale_ref(float x, float mul, float add);         // launch_scale's element, on the CPU

// --- suspects_once.cu ----------------------------------------------------------------------

// once_kernel, in a module no other launch touches: out[i] = the chain from in[i] + salt,
// ONCE_BLOCKS x ONCE_THREADS.
enum { ONCE_BLOCKS = 4, ONCE_THREADS = 256, ONCE_N = ONCE_BLOCKS * ONCE_THREADS };
void launch_once(cudaStream_t s, float *out, const float *in, long long iters, float salt);

// --- the modes, one file per killer and its twins --------------------------------------------

void mode_lazy_once(Ctx &c, int variant);      // suspects_lazy.cu
void mode_cross_thread(Ctx &c, int variant);   // suspects_threads.cu
void mode_host_func(Ctx &c, int variant);      // suspects_hostfn.cu
void mode_priority(Ctx &c, int variant);       // suspects_priority.cu
void mode_managed(Ctx &c, int variant);        // suspects_managed.cu
void mode_peer(Ctx &c, int variant);           // suspects_peer.cu
void mode_register(Ctx &c, int variant);       // suspects_register.cu
void mode_limits(Ctx &c, int variant);         // suspects_limits.cu

// Variants of the modes that have more than one.
enum { CROSS_FREE, CROSS_ASYNC, CROSS_BEFORE };
enum { HOST_FUNC, HOST_CALLBACK, HOST_AFTER_EVENT };
enum { PRIORITY_HIGH, PRIORITY_EQUAL };
enum { MANAGED_FAULTS, MANAGED_PREFETCH };
enum { PEER_COPY, PEER_ACCESS };
enum { REGISTER_PER_STEP, REGISTER_ONCE };
enum { LIMITS_SETLIMIT, LIMITS_CACHECONFIG, LIMITS_AT_START };
