// Shared helpers for the bundled sample programs: error checking, host time, sizing.
// The samples are run unattended on a GPU machine, so every CUDA call is checked and a
// failure names the call and the line, then exits 1 (never silently measures garbage).
#pragma once

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SC_CHECK(call)                                                                   \
    do {                                                                                 \
        cudaError_t sc_err_ = (call);                                                    \
        if (sc_err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,    \
                    cudaGetErrorString(sc_err_), cudaGetErrorName(sc_err_));             \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

// After a <<<>>> launch: catches bad configurations at once. cudaGetLastError does not
// synchronize, so it adds no serialization to what is being measured.
#define SC_CHECK_LAUNCH() SC_CHECK(cudaGetLastError())

// Host monotonic clock in milliseconds. The arrangements are timed on the host around a
// cudaDeviceSynchronize because events on the legacy stream do not order against
// non-blocking streams (and events on one stream would add cross-stream waits).
static inline double sc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Blocks that fill the whole device for a kernel at a block size: every SM holds as many
// of them as it can at once. This is what "grid-filling" means in the samples, on any card.
template <typename Kernel>
static inline int sc_filling_blocks(Kernel kernel, int block_size, const cudaDeviceProp &prop)
{
    int per_sm = 0;
    SC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_size, 0));
    if (per_sm < 1) {
        fprintf(stderr, "occupancy: no block of %d threads fits on an SM\n", block_size);
        exit(1);
    }
    return per_sm * prop.multiProcessorCount;
}

// Relative comparison for the CPU reference checks. Kernels use explicit fmaf so host and
// device round identically; the tolerance only forgives a libm that does not fuse.
static inline int sc_close(float got, float want)
{
    float diff = got > want ? got - want : want - got;
    float mag = want < 0 ? -want : want;
    return diff <= 1e-5f * (mag > 1.0f ? mag : 1.0f);
}
