// host-func / stream-callback / host-after-event: host work placed *on a stream* holds back
// the stream's later work. Each step on stream A: a ~150 us kernel, ~200 us of host work
// (bookkeeping that A's later kernels do not need), a second ~150 us kernel and a sum; on
// stream B, independent of A, one ~150 us kernel and a sum.
//   host-func         the host work as cudaLaunchHostFunc on A between the two kernels: A
//                     runs nothing from the first kernel's end until the function returns.
//   stream-callback   the same with cudaStreamAddCallback.
//   host-after-event  an event after the first kernel; the host thread, once everything is
//                     queued, waits for each step's event and does the host work itself.
//                     A never waits for it: the host work overlaps A's kernels.
// Two timing events per step on A, one after the first kernel and one before the second,
// measure how long A was held between them (held=yes: longer than half the host work).
#include <atomic>

#include "suspects.h"

static const double HF_KERNEL_US = 150.0, HOST_WORK_US = 200.0;

struct HostWork {
    std::atomic<int> done{0};
};

// The host work: time on a CPU, and a count the program checks afterwards.
static void host_work(HostWork *w)
{
    busy_wait_us(HOST_WORK_US);
    w->done.fetch_add(1, std::memory_order_relaxed);
}

static void CUDART_CB host_func(void *user)
{
    host_work((HostWork *)user);
}

static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void *user)
{
    if (status != cudaSuccess) {  // no CUDA call is allowed here: say it and let main fail
        fprintf(stderr, "stream callback: the stream failed: %s\n", cudaGetErrorString(status));
        return;
    }
    host_work((HostWork *)user);
}

struct HostBufs {
    float *x, *y, *acc_a;  // A: x = chain(in + salt), y = chain(x), acc_a += y - in
    float *bx, *acc_b;     // B: bx = chain(in + salt), acc_b += bx - in
};

static float salt_a(int s) { return 0.02f * (float)s; }
static float salt_b(int s) { return 0.5f + 0.02f * (float)s; }

static void queue_step(const Ctx &c, int variant, const HostBufs &m, long long it, int s,
                       cudaEvent_t k1_end, cudaEvent_t k2_begin, HostWork *w)
{
    launch_step(c.a, m.x, c.step_in, STEP_N, it, salt_a(s));
    SC_CHECK(cudaEventRecord(k1_end, c.a));
    if (variant == HOST_FUNC)
        SC_CHECK(cudaLaunchHostFunc(c.a, host_func, w));
    else if (variant == HOST_CALLBACK)
        SC_CHECK(cudaStreamAddCallback(c.a, stream_callback, w, 0));
    SC_CHECK(cudaEventRecord(k2_begin, c.a));
    launch_step(c.a, m.y, m.x, STEP_N, it, 0.0f);
    launch_accumulate(c.a, m.acc_a, m.y, c.step_in, STEP_N);
    launch_step(c.b, m.bx, c.step_in, STEP_N, it, salt_b(s));
    launch_accumulate(c.b, m.acc_b, m.bx, c.step_in, STEP_N);
}

static void report_held(int steps, const std::vector<cudaEvent_t> &k1_end,
                        const std::vector<cudaEvent_t> &k2_begin, const HostWork &w)
{
    Durations held;
    for (int s = 0; s < steps; ++s) {
        float ms = 0;
        SC_CHECK(cudaEventElapsedTime(&ms, k1_end[s], k2_begin[s]));
        held.add(ms);
    }
    printf("# host work: done %d times (~%.0f us each); A held between its kernels: median "
           "%.1f us, longest %.1f us: held=%s\n",
           w.done.load(), HOST_WORK_US, held.median() * 1e3, held.max() * 1e3,
           held.median() * 1e3 > 0.5 * HOST_WORK_US ? "yes" : "no");
}

static void verify_host_func(const Ctx &c, const HostBufs &m, long long it, const HostWork &w)
{
    if (w.done.load() != c.steps) {
        fprintf(stderr, "verification FAILED: host work done %d times, %d steps\n", w.done.load(),
                c.steps);
        exit(1);
    }
    float *h = nullptr;
    SC_CHECK(cudaMallocHost(&h, 2 * STEP_N * sizeof(float)));
    SC_CHECK(cudaMemcpyAsync(h, m.acc_a, STEP_N * sizeof(float), cudaMemcpyDeviceToHost, c.a));
    SC_CHECK(cudaMemcpyAsync(h + STEP_N, m.acc_b, STEP_N * sizeof(float), cudaMemcpyDeviceToHost,
                             c.a));
    SC_CHECK(cudaStreamSynchronize(c.a));
    for (int i = 0; i < STEP_N; i += 63) {
        const float in = step_input(i);
        float want_a = 0.0f, want_b = 0.0f;
        for (int s = 0; s < c.steps; ++s) {
            want_a = want_a + (chain_ref(chain_ref(in + salt_a(s), it), it) - in);
            want_b = want_b + (chain_ref(in + salt_b(s), it) - in);
        }
        check("acc_a", i, h[i], want_a);
        check("acc_b", i, h[STEP_N + i], want_b);
    }
    result_add(h, 2 * STEP_N * sizeof(float));
    printf("# verified acc_a, acc_b and the host work ok\n");
}

void mode_host_func(Ctx &c, int variant)
{
    const long long it = iters_us(c, HF_KERNEL_US);
    HostBufs m;
    float **bufs[] = {&m.x, &m.y, &m.acc_a, &m.bx, &m.acc_b};
    for (float **p : bufs)
        SC_CHECK(cudaMalloc(p, STEP_N * sizeof(float)));
    SC_CHECK(cudaMemsetAsync(m.acc_a, 0, STEP_N * sizeof(float), c.a));
    SC_CHECK(cudaMemsetAsync(m.acc_b, 0, STEP_N * sizeof(float), c.a));
    std::vector<cudaEvent_t> k1_end(c.steps), k2_begin(c.steps);
    for (int s = 0; s < c.steps; ++s) {
        SC_CHECK(cudaEventCreate(&k1_end[s]));
        SC_CHECK(cudaEventCreate(&k2_begin[s]));
    }
    HostWork w;

    measure_begin(c);
    for (int s = 0; s < c.steps; ++s)
        queue_step(c, variant, m, it, s, k1_end[s], k2_begin[s], &w);
    for (int s = 0; variant == HOST_AFTER_EVENT && s < c.steps; ++s) {
        SC_CHECK(cudaEventSynchronize(k1_end[s]));
        host_work(&w);
    }
    measure_end(c);
    report_held(c.steps, k1_end, k2_begin, w);
    verify_host_func(c, m, it, w);
}
