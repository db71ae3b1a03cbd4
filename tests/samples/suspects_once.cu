// The kernel of lazy-once, in a translation unit (so a CUDA module) of its own: under lazy
// loading (CUDA_MODULE_LOADING=LAZY, the default) neither it nor its module is loaded before
// its first launch, which lazy-once makes its only one. Nothing else touches it: no occupancy
// query, no attribute query, no check launch (each would load it).
#include "suspects.h"

// out[i] = the chain from in[i] + salt: the step of sample_spin.cuh's sc_chain_step, written
// out here because that header defines spin_kernel, which lives in suspects_kernels.cu.
__global__ void once_kernel(float *out, const float *in, int n, long long iters, float salt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i] + salt;
        for (long long k = 0; k < iters; ++k)
            x = fmaf(x, 0.999f, 1e-3f);
        out[i] = x;
    }
}

void launch_once(cudaStream_t s, float *out, const float *in, long long iters, float salt)
{
    once_kernel<<<ONCE_BLOCKS, ONCE_THREADS, 0, s>>>(out, in, ONCE_N, iters, salt);
    SC_CHECK_LAUNCH();
}
