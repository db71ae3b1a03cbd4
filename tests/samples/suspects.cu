// suspects: concurrency killers that streamcheck has no rule for yet, each with a clean twin
// that does the same GPU work without it. They are measured plain first (tools/bench/
// killer-survey, tests/samples/MEASURED.md); a rule is written only for those whose saving
// is real. The GPU tests run every mode under streamcheck.
//
//   suspects MODE [--steps N]
//
//   killer               clean twin(s)                    what the killer does
//   lazy-once            lazy-once under                  the first and only launch of a
//                        CUDA_MODULE_LOADING=EAGER        kernel beside another stream's spin
//   cross-thread-free    cross-thread-async,              cudaMalloc/cudaFree every step in one
//                        cross-thread-before              thread while another thread's stream runs
//   host-func            host-after-event                 cudaLaunchHostFunc between kernels
//   stream-callback      host-after-event                 cudaStreamAddCallback between kernels
//   priority             equal-priority                   high-priority streams starve a low one
//   managed-faults       managed-prefetch                 kernels fault managed pages in
//   peer-copy            peer-access                      peer copies with peer access off
//                                                         (two devices)
//   register-per-step    register-once                    cudaHostRegister/Unregister every step
//   setlimit-mid-run     set-at-start                     cudaDeviceSetLimit between steps
//   cacheconfig-mid-run  set-at-start                     cudaFuncSetCacheConfig between steps
//
// Setup as in killers.cu: the primary context made by cudaSetDevice (which streamcheck does
// not time), every buffer allocated and every kernel checked against a CPU reference (in a
// launch shape no measured launch uses) before the measured part; lazy-once's kernel is the
// exception, checked by its measured launch itself. Each mode verifies what the GPU computed
// against the CPU and prints `mode=NAME steps=N ms=...` (the measured range's wall time),
// `result: checksum=...` (a hash of the verified results: identical with and without
// streamcheck) and lines starting with '#', what the program measured itself (whether a call
// waited, when a kernel started).
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <string.h>

#include "suspects.h"

struct Mode {
    const char *name;
    int default_steps;
    void (*run)(Ctx &, int);
    int variant;
    const char *what;
};

static const Mode k_modes[] = {
    {"lazy-once", 1, mode_lazy_once, 0, "a spin on A, then the first and only launch of a kernel of another module on B"},
    {"cross-thread-free", 30, mode_cross_thread, CROSS_FREE, "thread 1 queues spins on A; thread 2 loops cudaMalloc, kernels on B, cudaFree"},
    {"cross-thread-async", 30, mode_cross_thread, CROSS_ASYNC, "the same with cudaMallocAsync/cudaFreeAsync on B"},
    {"cross-thread-before", 30, mode_cross_thread, CROSS_BEFORE, "the same with the workspace allocated once before the loop"},
    {"host-func", 20, mode_host_func, HOST_FUNC, "cudaLaunchHostFunc (200 us of host work) between two kernels on A, every step; B runs beside"},
    {"stream-callback", 20, mode_host_func, HOST_CALLBACK, "the same with cudaStreamAddCallback"},
    {"host-after-event", 20, mode_host_func, HOST_AFTER_EVENT, "the same host work done by the host thread after an event; A never waits for it"},
    {"priority", 20, mode_priority, PRIORITY_HIGH, "two high-priority streams of multi-wave grids beside a low-priority chain of small kernels"},
    {"equal-priority", 20, mode_priority, PRIORITY_EQUAL, "the same with every stream at the same priority"},
    {"managed-faults", 8, mode_managed, MANAGED_FAULTS, "kernels on A and B touch host-resident managed memory: page faults"},
    {"managed-prefetch", 8, mode_managed, MANAGED_PREFETCH, "the same with cudaMemPrefetchAsync before each kernel"},
    {"peer-copy", 8, mode_peer, PEER_COPY, "cudaMemcpyPeerAsync of 64 MiB from device 0 to device 1, peer access off (needs two devices)"},
    {"peer-access", 8, mode_peer, PEER_ACCESS, "the same with peer access enabled both ways"},
    {"register-per-step", 8, mode_register, REGISTER_PER_STEP, "cudaHostRegister, copy, cudaHostUnregister of a host buffer every step while A spins"},
    {"register-once", 8, mode_register, REGISTER_ONCE, "the same copies from buffers registered once before the loop"},
    {"setlimit-mid-run", 20, mode_limits, LIMITS_SETLIMIT, "cudaDeviceSetLimit(stack size) between steps while A spins"},
    {"cacheconfig-mid-run", 20, mode_limits, LIMITS_CACHECONFIG, "cudaFuncSetCacheConfig between steps while A spins"},
    {"set-at-start", 20, mode_limits, LIMITS_AT_START, "the same steps, the limit and cache configuration set once before"},
};
static const int k_mode_count = sizeof k_modes / sizeof k_modes[0];

// --- measurement frame, results --------------------------------------------------------------

static double g_t0;
static nvtxRangeId_t g_range;

void measure_begin(const Ctx &c)
{
    SC_CHECK(cudaDeviceSynchronize());
    g_range = nvtxRangeStartA(c.mode);
    g_t0 = sc_now_ms();
}

double measure_end(const Ctx &c)
{
    SC_CHECK(cudaDeviceSynchronize());
    double ms = sc_now_ms() - g_t0;
    nvtxRangeEnd(g_range);
    printf("mode=%s steps=%d ms=%.3f\n", c.mode, c.steps, ms);
    fflush(stdout);
    return ms;
}

// FNV-1a over 32-bit words (the results are floats; a trailing partial word byte by byte).
static uint64_t g_checksum = 1469598103934665603ull;

void result_add(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    size_t words = bytes / 4;
    for (size_t i = 0; i < words; ++i) {
        uint32_t w;
        memcpy(&w, b + 4 * i, 4);
        g_checksum = (g_checksum ^ w) * 1099511628211ull;
    }
    for (size_t i = 4 * words; i < bytes; ++i)
        g_checksum = (g_checksum ^ b[i]) * 1099511628211ull;
}

void fail(const char *what, size_t i, float got, float want)
{
    fprintf(stderr, "verification FAILED: %s element %zu = %.9g, CPU says %.9g\n", what, i, got,
            want);
    exit(1);
}

void check(const char *what, size_t i, float got, float want)
{
    if (!sc_close(got, want))
        fail(what, i, got, want);
}

void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == nullptr) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

void busy_wait_us(double us)
{
    double until = sc_now_ms() + us * 1e-3;
    while (sc_now_ms() < until) {
    }
}

double Durations::median() const
{
    if (ms.empty())
        return 0;
    std::vector<double> v = ms;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double Durations::max() const
{
    return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end());
}

double Durations::total() const
{
    double t = 0;
    for (double v : ms)
        t += v;
    return t;
}

// --- main ------------------------------------------------------------------------------------

static void usage(FILE *f)
{
    fprintf(f, "usage: suspects MODE [--steps N]\n");
    for (int i = 0; i < k_mode_count; ++i)
        fprintf(f, "  %-20s %s (steps %d)\n", k_modes[i].name, k_modes[i].what,
                k_modes[i].default_steps);
}

int main(int argc, char **argv)
{
    const char *name = nullptr;
    int steps = 0;
    int status = sc_parse_args(argc, argv, "--steps", &steps, &name, true, usage);
    if (status >= 0)
        return status;
    int which = sc_lookup(name, k_modes, k_mode_count, "mode", usage);
    if (which < 0)
        return 2;
    const Mode &m = k_modes[which];

    Ctx c;
    memset(&c, 0, sizeof c);
    c.mode = m.name;
    c.steps = steps > 0 ? steps : m.default_steps;

    // The primary context is made here, by a call streamcheck does not time (killers.cu).
    SC_CHECK(cudaSetDevice(0));
    SC_CHECK(cudaGetDeviceProperties(&c.prop, 0));
    SC_CHECK(cudaStreamCreateWithFlags(&c.a, cudaStreamNonBlocking));
    SC_CHECK(cudaStreamCreateWithFlags(&c.b, cudaStreamNonBlocking));
    SC_CHECK(cudaMalloc(&c.step_in, STEP_N * sizeof(float)));
    printf("# device: %s, %d SMs, cc %d.%d; mode %s: %s\n", c.prop.name,
           c.prop.multiProcessorCount, c.prop.major, c.prop.minor, m.name, m.what);

    check_and_calibrate(c);
    m.run(c, m.variant);
    printf("result: checksum=%016llx\n", (unsigned long long)g_checksum);
    // Buffers, streams and events are left to process exit: frees here would add calls after
    // the measured part that only clutter the report.
    return 0;
}
