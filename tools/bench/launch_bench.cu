// launch_bench: the host cost of one CUDA call class, for tools/bench/overhead, which runs it
// plain, under the CUPTI floor (libcupti_floor.so) and under streamcheck.
//
//   launch_bench [N]                   N empty <<<1,1>>> launches (default 300000), as before
//   launch_bench MODE [N]              N calls of one class (default 100000):
//     launch        empty <<<1,1>>> launches on a non-blocking stream
//     launch-shapes the same, the grid going round 400 sizes (<<<1..400,1>>>): 400 kernel
//                   shapes in turn, as a large model's kernels are (the trace declares each
//                   shape once a buffer)
//     event-record  cudaEventRecord on a non-blocking stream
//     event-query   cudaEventQuery of a completed event
//     stream-query  cudaStreamQuery of an idle stream
//     wait-event    cudaStreamWaitEvent on a completed event
//     memcpy-async  cudaMemcpyAsync of 256 bytes from pinned memory to the device
//     nvtx          nvtxRangePushA("step") + nvtxRangePop(): N pairs
//     nvtx-names    the same with a new name each time ("step 17"), written into one buffer
//   launch_bench burst [THREADS [ROUNDS]]  THREADS new threads (default 16) make their first
//                                      launch at one moment, on their per-thread default
//                                      stream; ROUNDS times (default 1), each round's threads
//                                      new ones, started once the last round's have exited
//
// Per-call modes print `mode=M calls=N seconds=S us_per_call=U` (launch also the old
// `launches=N seconds=S launches_per_s=R`); the time runs from the first call to the last
// call's work being drained. Calls that queue work are drained every SC_DRAIN calls (the same
// in every run) so that a full queue never blocks the host. burst prints the first and second
// launch of each thread, over every thread of every round: `mode=burst threads=T rounds=R
// first_us_median=.. first_us_p90=.. first_us_max=.. second_us_median=.. span_us=..` (span:
// a round's first thread's start to its last one's return, the median over rounds), and the
// first round's alone: `round1_us_median=.. round1_us_max=..` (the process's first threads,
// the driver's per-thread setup paid for the first time, are slower than the rounds after
// them). A round
// is a thread pool starting up; many rounds in one process give a median that one run's 16
// threads, queued behind each other in the driver in whatever order they came, do not.
// Context creation, module loading and the tracer's start-up happen before any timing.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
                    cudaGetErrorString(err_));                                           \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

enum { SC_DRAIN = 1024, SC_COPY_BYTES = 256 };

__global__ void empty_kernel(void) {}

enum { SC_SHAPES = 400 };     /* launch-shapes: the grid sizes it goes round */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(void)
{
    fprintf(stderr, "usage: launch_bench [N] | launch_bench MODE [N] | launch_bench burst [THREADS [ROUNDS]]\n"
                    "MODE: launch event-record event-query stream-query wait-event memcpy-async "
                    "nvtx nvtx-names\n");
    exit(2);
}

static long parse_count(const char *s)
{
    char *end = nullptr;
    long n = strtol(s, &end, 10);
    if (*end != '\0' || n < 1) usage();
    return n;
}

// ---- one call class, N times ------------------------------------------------------------

struct Bench {
    cudaStream_t s, s2;
    cudaEvent_t ev;
    void *pinned, *dev;
};

static void setup(Bench *b)
{
    CHECK(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b->s2, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&b->ev, cudaEventDisableTiming));
    CHECK(cudaMallocHost(&b->pinned, SC_COPY_BYTES));
    CHECK(cudaMalloc(&b->dev, SC_COPY_BYTES));
    memset(b->pinned, 1, SC_COPY_BYTES);
    // Warm-up: every call class once or more, so that lazy setup (context, module, the
    // tracer's first call of each kind) stays out of the timed loop.
    for (int i = 0; i < 1000; ++i)
        empty_kernel<<<1, 1, 0, b->s>>>();
    CHECK(cudaGetLastError());
    for (int i = 0; i < 100; ++i) {
        CHECK(cudaEventRecord(b->ev, b->s));
        CHECK(cudaStreamWaitEvent(b->s2, b->ev, 0));
        CHECK(cudaMemcpyAsync(b->dev, b->pinned, SC_COPY_BYTES, cudaMemcpyHostToDevice, b->s));
        nvtxRangePushA("warm-up");
        nvtxRangePop();
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventQuery(b->ev));
    CHECK(cudaStreamQuery(b->s));
}

static void drain(Bench *b)
{
    CHECK(cudaStreamSynchronize(b->s));
    CHECK(cudaStreamSynchronize(b->s2));
}

// Runs the loop of one mode; returns false for an unknown mode.
static bool run_mode(const char *mode, long n, Bench *b)
{
    char name[32];
    if (strcmp(mode, "launch") == 0) {
        for (long i = 0; i < n; ++i)
            empty_kernel<<<1, 1, 0, b->s>>>();
    } else if (strcmp(mode, "launch-shapes") == 0) {
        for (long i = 0; i < n; ++i)
            empty_kernel<<<(unsigned)(1 + i % SC_SHAPES), 1, 0, b->s>>>();
    } else if (strcmp(mode, "event-record") == 0) {
        for (long i = 0; i < n; ++i) {
            cudaEventRecord(b->ev, b->s);
            if (i % SC_DRAIN == SC_DRAIN - 1) drain(b);
        }
    } else if (strcmp(mode, "event-query") == 0) {
        for (long i = 0; i < n; ++i)
            cudaEventQuery(b->ev);
    } else if (strcmp(mode, "stream-query") == 0) {
        for (long i = 0; i < n; ++i)
            cudaStreamQuery(b->s);
    } else if (strcmp(mode, "wait-event") == 0) {
        for (long i = 0; i < n; ++i) {
            cudaStreamWaitEvent(b->s2, b->ev, 0);
            if (i % SC_DRAIN == SC_DRAIN - 1) drain(b);
        }
    } else if (strcmp(mode, "memcpy-async") == 0) {
        for (long i = 0; i < n; ++i) {
            cudaMemcpyAsync(b->dev, b->pinned, SC_COPY_BYTES, cudaMemcpyHostToDevice, b->s);
            if (i % SC_DRAIN == SC_DRAIN - 1) drain(b);
        }
    } else if (strcmp(mode, "nvtx") == 0) {
        for (long i = 0; i < n; ++i) {
            nvtxRangePushA("step");
            nvtxRangePop();
        }
    } else if (strcmp(mode, "nvtx-names") == 0) {
        for (long i = 0; i < n; ++i) {
            snprintf(name, sizeof name, "step %ld", i);
            nvtxRangePushA(name);
            nvtxRangePop();
        }
    } else {
        return false;
    }
    drain(b);
    return true;
}

// ---- a burst of first launches ----------------------------------------------------------

struct BurstThread {
    pthread_barrier_t *barrier;
    double start, first, second, end;
};

static void *burst_thread(void *p)
{
    BurstThread *t = (BurstThread *)p;
    pthread_barrier_wait(t->barrier);
    t->start = now_s();
    empty_kernel<<<1, 1, 0, cudaStreamPerThread>>>();
    double mid = now_s();
    empty_kernel<<<1, 1, 0, cudaStreamPerThread>>>();
    t->end = now_s();
    t->first = mid - t->start;
    t->second = t->end - mid;
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    return nullptr;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static double quantile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, (size_t)(q * (double)v.size()))];
}

static void burst(int threads, int rounds)
{
    // The main thread made the context and loaded the module: what the threads pay is their
    // own first launch.
    empty_kernel<<<1, 1>>>();
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, nullptr, (unsigned)threads);
    std::vector<double> first, second, span, round1;
    for (int r = 0; r < rounds; ++r) {
        std::vector<BurstThread> t((size_t)threads);
        std::vector<pthread_t> ids((size_t)threads);
        for (int i = 0; i < threads; ++i) {
            t[i] = BurstThread{&barrier, 0, 0, 0, 0};
            pthread_create(&ids[i], nullptr, burst_thread, &t[i]);
        }
        for (int i = 0; i < threads; ++i)
            pthread_join(ids[i], nullptr);
        double lo = t[0].start, hi = t[0].end;
        for (const BurstThread &b : t) {
            first.push_back(b.first * 1e6);
            second.push_back(b.second * 1e6);
            if (r == 0) round1.push_back(b.first * 1e6);
            lo = std::min(lo, b.start);
            hi = std::max(hi, b.end);
        }
        span.push_back((hi - lo) * 1e6);
    }
    printf("mode=burst threads=%d rounds=%d first_us_median=%.1f first_us_p90=%.1f "
           "first_us_max=%.1f second_us_median=%.1f span_us=%.1f round1_us_median=%.1f "
           "round1_us_max=%.1f\n",
           threads, rounds, median(first), quantile(first, 0.9),
           *std::max_element(first.begin(), first.end()), median(second), median(span),
           median(round1), *std::max_element(round1.begin(), round1.end()));
}

int main(int argc, char **argv)
{
    const char *mode = "launch";
    long n = 300000;
    long rounds = 1;
    bool is_burst = argc >= 2 && strcmp(argv[1], "burst") == 0;
    if (argc > (is_burst ? 4 : 3)) usage();
    if (argc == 4) rounds = std::min(parse_count(argv[3]), 10000L);
    if (argc >= 2 && (argv[1][0] < '0' || argv[1][0] > '9')) {
        mode = argv[1];
        n = is_burst ? 16 : 100000;
        if (argc >= 3) n = parse_count(argv[2]);
    } else if (argc == 2) {
        n = parse_count(argv[1]);
    } else if (argc == 3) {
        usage();
    }
    if (strcmp(mode, "burst") == 0) {
        CHECK(cudaFree(0));
        burst((int)std::min(n, 1024L), (int)rounds);
        return 0;
    }
    Bench b;
    setup(&b);
    double t0 = now_s();
    if (!run_mode(mode, n, &b)) usage();
    double secs = now_s() - t0;
    // Checked once after the loop: a per-call check would add its own cost to each call.
    CHECK(cudaGetLastError());
    printf("mode=%s calls=%ld seconds=%.6f us_per_call=%.4f\n", mode, n, secs, secs * 1e6 / n);
    if (strcmp(mode, "launch") == 0)
        printf("launches=%ld seconds=%.6f launches_per_s=%.0f\n", n, secs, n / secs);
    return 0;
}
