// pipeline: a four-chunk copy -> compute -> copy pipeline on four non-blocking streams.
// From pinned host memory the copies of one chunk overlap the kernel and the copies of
// the others; from pageable memory each "async" copy is staged through a driver buffer and
// blocks the host, so the pipeline degrades to one step after another. streamcheck should
// report pageable-async for the second and nothing for the first.
//
//   pipeline pinned|pageable [--reps N]
//
// The kernel is checked against a CPU reference on a tiny input first (also its warm-up
// launch), and every output element is verified on the host at the end.
#include <nvtx3/nvToolsExt.h>

#include <string.h>

#include "sample_util.h"

enum {
    CHUNKS = 4,
    THREADS = 256,
    WORK = 256,     // dependent FMAs per element: a kernel that is not free next to the copies
    PERIOD = 9973,  // inputs repeat with a prime period, so no chunk boundary lines up with it
};
static const size_t CHUNK_BYTES = 32u << 20;

__global__ void process_kernel(const float *__restrict__ in, float *__restrict__ out, size_t n,
                               int work)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = in[i];
        for (int k = 0; k < work; ++k)
            v = fmaf(v, 0.99f, 0.01f);
        out[i] = v;
    }
}

static float process_ref(float v, int work)
{
    for (int k = 0; k < work; ++k)
        v = fmaf(v, 0.99f, 0.01f);
    return v;
}

static float input_value(size_t i)
{
    return (float)(i % PERIOD) * 1e-3f;
}

// Tiny run (2 blocks, so the grid-stride loop wraps) compared with the CPU; it is also the
// kernel's warm-up, so lazy module loading does not land in the measured pipeline.
static void check_kernel(cudaStream_t s)
{
    const size_t n = 2 * THREADS * 3 + 5;
    float *h = nullptr, *d = nullptr;
    SC_CHECK(cudaMallocHost(&h, 2 * n * sizeof(float)));
    SC_CHECK(cudaMalloc(&d, 2 * n * sizeof(float)));
    for (size_t i = 0; i < n; ++i)
        h[i] = input_value(i * 7);
    SC_CHECK(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s));
    process_kernel<<<2, THREADS, 0, s>>>(d, d + n, n, WORK);
    SC_CHECK_LAUNCH();
    SC_CHECK(cudaMemcpyAsync(h + n, d + n, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    SC_CHECK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < n; ++i) {
        float want = process_ref(h[i], WORK);
        if (!sc_close(h[n + i], want)) {
            fprintf(stderr,
                    "reference check FAILED: process_kernel element %zu = %.9g, CPU says %.9g\n",
                    i, h[n + i], want);
            exit(1);
        }
    }
    SC_CHECK(cudaFreeHost(h));
    SC_CHECK(cudaFree(d));
    printf("# reference check: process_kernel ok\n");
}

// Every output element against a table of the PERIOD distinct results.
static void verify(const float *out, size_t n)
{
    static float table[PERIOD];
    for (int v = 0; v < PERIOD; ++v)
        table[v] = process_ref(input_value(v), WORK);
    for (size_t i = 0; i < n; ++i) {
        if (!sc_close(out[i], table[i % PERIOD])) {
            fprintf(stderr, "verification FAILED: element %zu (chunk %zu) = %.9g, expected %.9g\n",
                    i, i / (n / CHUNKS), out[i], table[i % PERIOD]);
            exit(1);
        }
    }
    printf("# verified %zu elements ok\n", n);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pipeline pinned|pageable [--reps N]\n");
}

int main(int argc, char **argv)
{
    const char *mode = nullptr;
    int reps = 1;
    // No -h/--help here: any argument starting with '-' other than --reps is a bad one.
    int status = sc_parse_args(argc, argv, "--reps", &reps, &mode, false, usage);
    if (status >= 0)
        return status;
    if (mode == nullptr || (strcmp(mode, "pinned") != 0 && strcmp(mode, "pageable") != 0)) {
        usage(stderr);
        return 2;
    }
    const bool pinned = strcmp(mode, "pinned") == 0;

    cudaDeviceProp prop;
    SC_CHECK(cudaGetDeviceProperties(&prop, 0));
    int per_sm = 0;
    SC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, process_kernel, THREADS, 0));
    const int blocks = per_sm * prop.multiProcessorCount;

    cudaStream_t streams[CHUNKS];
    for (int i = 0; i < CHUNKS; ++i)
        SC_CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));

    const size_t chunk_n = CHUNK_BYTES / sizeof(float);
    const size_t n = chunk_n * CHUNKS;
    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    if (pinned) {
        SC_CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
        SC_CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
    } else {
        h_in = (float *)malloc(n * sizeof(float));
        h_out = (float *)malloc(n * sizeof(float));
        if (h_in == nullptr || h_out == nullptr) {
            fprintf(stderr, "out of host memory\n");
            return 1;
        }
    }
    // Written (so faulted in) before the measured part, pageable or not.
    for (size_t i = 0; i < n; ++i)
        h_in[i] = input_value(i);
    memset(h_out, 0, n * sizeof(float));
    SC_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    SC_CHECK(cudaMalloc(&d_out, n * sizeof(float)));

    printf("# device: %s, %d SMs; kernel %d blocks x %d threads, %d FMAs/element\n", prop.name,
           prop.multiProcessorCount, blocks, THREADS, WORK);
    check_kernel(streams[0]);

    char range[32];
    snprintf(range, sizeof range, "pipeline-%s", mode);
    SC_CHECK(cudaDeviceSynchronize());
    nvtxRangePushA(range);
    double t0 = sc_now_ms();
    for (int r = 0; r < reps; ++r) {
        // Depth-first issue, one chunk per stream: the hardware queues let chunk i's kernel
        // run while chunk i+1 is copied in and chunk i-1 is copied out.
        for (int c = 0; c < CHUNKS; ++c) {
            size_t off = c * chunk_n;
            SC_CHECK(cudaMemcpyAsync(d_in + off, h_in + off, CHUNK_BYTES, cudaMemcpyHostToDevice,
                                     streams[c]));
            process_kernel<<<blocks, THREADS, 0, streams[c]>>>(d_in + off, d_out + off, chunk_n,
                                                               WORK);
            SC_CHECK_LAUNCH();
            SC_CHECK(cudaMemcpyAsync(h_out + off, d_out + off, CHUNK_BYTES,
                                     cudaMemcpyDeviceToHost, streams[c]));
        }
    }
    SC_CHECK(cudaDeviceSynchronize());
    double ms = sc_now_ms() - t0;
    nvtxRangePop();

    printf("pipeline=%s chunks=%d chunk_mib=%zu reps=%d ms=%.3f ms_per_rep=%.3f\n", mode, CHUNKS,
           CHUNK_BYTES >> 20, reps, ms, ms / reps);
    fflush(stdout);
    verify(h_out, n);
    // Memory is left to process exit: frees here would only add implicit syncs to the report.
    return 0;
}
