// The small kernels the killer samples share (killers.cu, suspects_kernels.cu): a short chain
// per element, an accumulation, a grid-stride scale. Include it in one file of a program: the
// kernels are defined here, under the names the traces and fixtures carry.
#pragma once

#include "sample_spin.cuh"

// One element per thread: out[i] = the chain from in[i] + salt. A short kernel on a few SMs.
__global__ void step_kernel(float *out, const float *in, int n, long long iters, float salt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i] + salt;
        for (long long k = 0; k < iters; ++k)
            x = sc_chain_step(x);
        out[i] = x;
    }
}

// acc[i] += x[i] - y[i] (no multiply, so nothing to contract: the host adds identically).
__global__ void accumulate_kernel(float *acc, const float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] = acc[i] + (x[i] - y[i]);
}

// x[i] = x[i] * s + t, grid-stride: the consumer of each copied chunk.
__global__ void scale_kernel(float *x, size_t n, float s, float t)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = fmaf(x[i], s, t);
}
