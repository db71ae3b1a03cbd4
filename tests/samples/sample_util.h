// Shared helpers for the bundled sample programs: error checking, host time, sizing, the
// command line.
// The samples are run unattended on a GPU machine, so every CUDA call is checked and a
// failure names the call and the line, then exits 1 (never silently measures garbage).
#pragma once

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

// The command line of a sample: one name (the first argument not starting with '-') and the
// option count_opt N, N a whole number 1..100000 stored in *count (left alone when absent).
// -h/--help prints the usage to stdout where `help` is set; otherwise it is a bad argument.
// Stops at the first bad argument. Returns -1 to go on, else main's exit status: 0 after the
// help, 2 after a bad argument (the usage, or what is wrong with N, on stderr).
static inline int sc_parse_args(int argc, char **argv, const char *count_opt, int *count,
                                const char **name, bool help, void (*usage)(FILE *))
{
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], count_opt) == 0 && i + 1 < argc) {
            char *end = nullptr;
            long v = strtol(argv[++i], &end, 10);
            if (*end != '\0' || v < 1 || v > 100000) {
                fprintf(stderr, "%s wants a positive integer\n", count_opt);
                return 2;
            }
            *count = (int)v;
        } else if (help && (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)) {
            usage(stdout);
            return 0;
        } else if (*name == nullptr && argv[i][0] != '-') {
            *name = argv[i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    return -1;
}

// The index of the entry called `name` in table[0..n) (entries with a `name` member), or -1
// after printing to stderr what is wrong (an unknown name; none given) and the usage.
template <typename Entry>
static inline int sc_lookup(const char *name, const Entry *table, int n, const char *what,
                            void (*usage)(FILE *))
{
    int which = -1;
    for (int i = 0; name != nullptr && i < n; ++i)
        if (strcmp(name, table[i].name) == 0)
            which = i;
    if (which < 0) {
        if (name != nullptr)
            fprintf(stderr, "unknown %s '%s'\n", what, name);
        usage(stderr);
    }
    return which;
}

// Relative comparison for the CPU reference checks. Kernels use explicit fmaf so host and
// device round identically; the tolerance only forgives a libm that does not fuse.
static inline int sc_close(float got, float want)
{
    float diff = got > want ? got - want : want - got;
    float mag = want < 0 ? -want : want;
    return diff <= 1e-5f * (mag > 1.0f ? mag : 1.0f);
}
