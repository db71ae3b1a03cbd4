// The spin kernel of the killer samples (killers.cu, per_thread.cu) and its calibration: a
// chain of dependent FMAs on a few blocks that keeps a handful of SMs busy for a chosen time
// and leaves the rest of the device free. Its length is set in microseconds at the card's
// peak clock from a measured cost per iteration, so the samples behave alike on any GPU.
#pragma once

#include "sample_util.h"

// One step of every chain in these samples; host and device round it identically (fmaf).
__device__ __host__ inline float sc_chain_step(float x)
{
    return fmaf(x, 0.999f, 1e-3f);
}

static inline float sc_chain_ref(float x, long long iters)
{
    for (long long i = 0; i < iters; ++i)
        x = sc_chain_step(x);
    return x;
}

// out[gid] = the chain from 1e-3 * gid. `cycles` (optional) receives the SM cycles the loop
// took in thread 0, used to calibrate the iteration count.
__global__ void spin_kernel(float *out, long long iters, long long *cycles)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = 1e-3f * (float)gid;
    long long t0 = clock64();
    for (long long i = 0; i < iters; ++i)
        x = sc_chain_step(x);
    out[gid] = x;
    long long t1 = clock64();
    if (cycles != nullptr && gid == 0)
        *cycles = t1 - t0;
}

// Calibration: two one-warp spins of different lengths; the difference of their cycle counts
// cancels the fixed cost around the loop. Enqueue, copy `d_cycles` (2 values) back, sync, then
// call sc_spin_cycles_per_iter on the copied values.
enum { SC_CAL_SHORT = 2000, SC_CAL_LONG = 6000 };

static inline void sc_spin_calibrate_enqueue(float *scratch, long long *d_cycles, cudaStream_t s)
{
    // <<<1, 32>>>: a launch shape no measured spin uses (the analyzer's solo references are
    // instances of the same name and shape that ran alone).
    spin_kernel<<<1, 32, 0, s>>>(scratch, SC_CAL_SHORT, d_cycles);
    SC_CHECK_LAUNCH();
    spin_kernel<<<1, 32, 0, s>>>(scratch, SC_CAL_LONG, d_cycles + 1);
    SC_CHECK_LAUNCH();
}

static inline double sc_spin_cycles_per_iter(const long long *cycles)
{
    double per_iter = (double)(cycles[1] - cycles[0]) / (double)(SC_CAL_LONG - SC_CAL_SHORT);
    if (!(per_iter >= 1.0 && per_iter <= 64.0)) {
        // A dependent FMA costs about 4 cycles on every recent architecture.
        fprintf(stderr, "# spin calibration implausible (%.2f cycles/iter), assuming 4\n",
                per_iter);
        per_iter = 4.0;
    }
    return per_iter;
}

static inline int sc_clock_khz(void)
{
    int khz = 0;
    SC_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    return khz > 0 ? khz : 1500000;
}

// Iterations of the chain that take `us` microseconds at the peak clock (at least 1).
static inline long long sc_iters_for_us(double us, double cycles_per_iter, int clock_khz)
{
    long long n = (long long)(us * 1e-3 * (double)clock_khz / cycles_per_iter);
    return n > 0 ? n : 1;
}
