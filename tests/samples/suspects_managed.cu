// managed-faults / managed-prefetch: kernels on two streams reading and writing managed
// memory that lives on the host. Each stream has its own managed buffer of steps x 4 MiB,
// written by the CPU in the setup (so its pages are on the host); step s scales chunk s of
// each buffer with a grid-stride kernel, one on A and one on B.
//   managed-faults    the kernels touch the pages as they are: every page migrates on a GPU
//                     page fault, and the driver services the faults of both streams' kernels
//                     one batch at a time.
//   managed-prefetch  cudaMemPrefetchAsync of the chunk to the device on the same stream
//                     before each kernel: the pages move in bulk, the kernels find them there.
// The sizes stay small (2 x steps x 4 MiB, 64 MiB by default): managed memory is never asked
// for beyond a small share of what the device has free. Each stream's part is timed with
// events, and what the kernels could read per second is printed.
#include "suspects.h"

static const size_t MANAGED_CHUNK_BYTES = 4u << 20;
static const size_t CHUNK_N = MANAGED_CHUNK_BYTES / sizeof(float);
enum { MANAGED_STREAMS = 2, MAX_MANAGED_STEPS = 16 };

struct Managed {
    cudaStream_t s[MANAGED_STREAMS];
    float *buf[MANAGED_STREAMS];
    cudaEvent_t begin[MANAGED_STREAMS], end[MANAGED_STREAMS];
    int blocks;
};

static float managed_value(int k, size_t i)
{
    return (float)((i + 7 * (size_t)k) % 1021) * 0.25f;
}

// Exits 2 where managed memory cannot be faulted in by a running kernel: there is nothing
// this mode could measure.
static void require_managed(const Ctx &c, size_t bytes)
{
    int managed = 0, concurrent = 0;
    SC_CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0));
    SC_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    size_t free_b = 0, total_b = 0;
    SC_CHECK(cudaMemGetInfo(&free_b, &total_b));
    printf("# managed memory: %s, concurrent access: %s; %zu MiB asked of %zu MiB free\n",
           managed ? "yes" : "no", concurrent ? "yes" : "no", bytes >> 20, free_b >> 20);
    if (!managed || !concurrent || bytes > free_b / 8) {
        fprintf(stderr, "%s: needs managed memory with concurrent access and %zu MiB to spare\n",
                c.mode, bytes >> 20);
        exit(2);
    }
}

static void setup(const Ctx &c, Managed &m)
{
    if (c.steps > MAX_MANAGED_STEPS) {
        fprintf(stderr, "%s: at most %d steps (managed memory stays small)\n", c.mode,
                MAX_MANAGED_STEPS);
        exit(2);
    }
    const size_t bytes = (size_t)c.steps * MANAGED_CHUNK_BYTES;
    require_managed(c, MANAGED_STREAMS * bytes);
    m.s[0] = c.a;
    m.s[1] = c.b;
    m.blocks = 4 * c.prop.multiProcessorCount;
    for (int k = 0; k < MANAGED_STREAMS; ++k) {
        SC_CHECK(cudaMallocManaged(&m.buf[k], bytes));
        for (size_t i = 0; i < (size_t)c.steps * CHUNK_N; ++i)  // first touch: the host
            m.buf[k][i] = managed_value(k, i);
        SC_CHECK(cudaEventCreate(&m.begin[k]));
        SC_CHECK(cudaEventCreate(&m.end[k]));
    }
}

static void queue_all(const Ctx &c, int variant, const Managed &m)
{
    cudaMemLocation device;
    device.type = cudaMemLocationTypeDevice;
    device.id = 0;
    for (int k = 0; k < MANAGED_STREAMS; ++k)
        SC_CHECK(cudaEventRecord(m.begin[k], m.s[k]));
    for (int s = 0; s < c.steps; ++s)
        for (int k = 0; k < MANAGED_STREAMS; ++k) {
            float *chunk = m.buf[k] + (size_t)s * CHUNK_N;
            if (variant == MANAGED_PREFETCH)
                SC_CHECK(cudaMemPrefetchAsync(chunk, MANAGED_CHUNK_BYTES, device, 0, m.s[k]));
            launch_scale(m.s[k], chunk, CHUNK_N, 0.5f, 1.0f, m.blocks);
        }
    for (int k = 0; k < MANAGED_STREAMS; ++k)
        SC_CHECK(cudaEventRecord(m.end[k], m.s[k]));
}

static void report(const Ctx &c, const Managed &m)
{
    for (int k = 0; k < MANAGED_STREAMS; ++k) {
        float ms = 0;
        SC_CHECK(cudaEventElapsedTime(&ms, m.begin[k], m.end[k]));
        double mib = (double)c.steps * (MANAGED_CHUNK_BYTES >> 20);
        printf("# stream %c: %d chunks (%.0f MiB) in %.3f ms, %.2f GB/s\n", 'A' + k, c.steps, mib,
               ms, mib * 1.048576e-3 / (ms > 0 ? ms * 1e-3 : 1e-9));
    }
}

// After the measured range: reading on the host brings the pages back (not measured).
static void verify_managed(const Ctx &c, const Managed &m)
{
    const size_t n = (size_t)c.steps * CHUNK_N;
    for (int k = 0; k < MANAGED_STREAMS; ++k) {
        for (size_t i = 0; i < n; ++i)
            check(k ? "managed B" : "managed A", i, m.buf[k][i],
                  scale_ref(managed_value(k, i), 0.5f, 1.0f));
        result_add(m.buf[k], n * sizeof(float));
    }
    printf("# verified %d x %zu MiB of managed memory ok\n", MANAGED_STREAMS,
           n * sizeof(float) >> 20);
}

void mode_managed(Ctx &c, int variant)
{
    Managed m;
    setup(c, m);
    measure_begin(c);
    queue_all(c, variant, m);
    measure_end(c);
    report(c, m);
    verify_managed(c, m);
}
