// launch_bench: the host cost of a kernel launch. N empty <<<1,1>>> launches on one
// non-blocking stream, timed on the host from the first launch to the stream being drained.
// The overhead script runs it plain, under the CUPTI floor and under streamcheck.
//
//   launch_bench [N]        (default 300000)
//   prints: launches=N seconds=S launches_per_s=R
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
                    cudaGetErrorString(err_));                                           \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

__global__ void empty_kernel(void) {}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long n = 300000;
    if (argc > 1) {
        char *end = nullptr;
        n = strtol(argv[1], &end, 10);
        if (argc > 2 || *end != '\0' || n < 1) {
            fprintf(stderr, "usage: launch_bench [N]\n");
            return 2;
        }
    }
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // Warm-up: context creation, module loading and the tracer's start-up stay out of the
    // timed loop.
    for (int i = 0; i < 1000; ++i)
        empty_kernel<<<1, 1, 0, s>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));

    double t0 = now_s();
    for (long i = 0; i < n; ++i)
        empty_kernel<<<1, 1, 0, s>>>();
    CHECK(cudaStreamSynchronize(s));
    double secs = now_s() - t0;
    // Checked once after the loop: a per-launch check would add its own cost to each launch.
    CHECK(cudaGetLastError());

    printf("launches=%ld seconds=%.6f launches_per_s=%.0f\n", n, secs, n / secs);
    return 0;
}
