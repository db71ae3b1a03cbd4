// graph_bench: the host cost of the same kernels launched one by one and from a CUDA graph.
// NODES empty <<<1,1>>> kernels on one non-blocking stream, in order: either captured once
// into a graph that is launched ROUNDS times, or launched ROUNDS x NODES times directly.
// Timed on the host from the first launch to the stream being drained (the device runs a
// graph's kernels faster than the host issues them one by one, and tracing slows both), and
// to the last launch call's return (the host's share). The graph-overhead script runs both
// modes plain, under the CUPTI floor and under streamcheck.
//
//   graph_bench graph|direct [NODES [ROUNDS]]     (default 100 1000)
//   prints: mode=M nodes=N rounds=R kernels=K seconds=S us_per_kernel=U issue_us_per_kernel=I
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static long count_arg(const char *s)
{
    char *end = nullptr;
    long v = strtol(s, &end, 10);
    return *end == '\0' && v >= 1 ? v : -1;
}

static void launch_nodes(cudaStream_t s, long nodes)
{
    for (long i = 0; i < nodes; ++i)
        empty_kernel<<<1, 1, 0, s>>>();
}

int main(int argc, char **argv)
{
    long nodes = 100, rounds = 1000;
    bool graph = argc > 1 && strcmp(argv[1], "graph") == 0;
    if (argc < 2 || argc > 4 || (!graph && strcmp(argv[1], "direct") != 0) ||
        (argc > 2 && (nodes = count_arg(argv[2])) < 0) ||
        (argc > 3 && (rounds = count_arg(argv[3])) < 0)) {
        fprintf(stderr, "usage: graph_bench graph|direct [NODES [ROUNDS]]\n");
        return 2;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // Both modes build the graph and run it once, and launch the kernels once directly:
    // context creation, module loading and the tracer's start-up stay out of the timed loop
    // and are the same for both.
    cudaGraph_t g;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    launch_nodes(s, nodes);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    CHECK(cudaGraphLaunch(exec, s));
    launch_nodes(s, nodes);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));

    double t0 = now_s();
    for (long r = 0; r < rounds; ++r) {
        if (graph)
            CHECK(cudaGraphLaunch(exec, s));
        else
            launch_nodes(s, nodes);
    }
    double issued = now_s() - t0;
    CHECK(cudaStreamSynchronize(s));
    double secs = now_s() - t0;
    // Checked once after the loop: a per-launch check would add its own cost to each launch.
    CHECK(cudaGetLastError());

    long kernels = nodes * rounds;
    printf("mode=%s nodes=%ld rounds=%ld kernels=%ld seconds=%.6f us_per_kernel=%.4f "
           "issue_us_per_kernel=%.4f\n", graph ? "graph" : "direct", nodes, rounds, kernels,
           secs, secs * 1e6 / kernels, issued * 1e6 / kernels);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
