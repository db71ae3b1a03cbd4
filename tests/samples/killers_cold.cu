// The kernel of the killers' lazy modes, in a translation unit (so a CUDA module) of its own:
// under lazy loading (CUDA_MODULE_LOADING=LAZY, the default) neither it nor its module is
// loaded before its first launch, whether the driver loads kernel by kernel or module by
// module. killers.cu launches it only through these functions.
#include "sample_util.h"

// The same read-modify-write sweep as killers.cu's sweep_kernel, under another name.
__global__ void cold_sweep_kernel(float4 *x, size_t n4, int passes)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int p = 0; p < passes; ++p)
        for (size_t i = first; i < n4; i += stride)
            x[i] = make_float4(fmaf(x[i].x, 0.5f, 1.0f), fmaf(x[i].y, 0.5f, 1.0f),
                               fmaf(x[i].z, 0.5f, 1.0f), fmaf(x[i].w, 0.5f, 1.0f));
}

void launch_cold_sweep(int blocks, int threads, cudaStream_t s, float4 *x, size_t n4, int passes)
{
    cold_sweep_kernel<<<blocks, threads, 0, s>>>(x, n4, passes);
    SC_CHECK_LAUNCH();
}
