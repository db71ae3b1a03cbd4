// cross-thread-free / cross-thread-async / cross-thread-before: an implicit sync across
// threads. Thread 1 queues 40 spins of ~170 us on non-blocking stream A and waits for them.
// Thread 2, once they are queued, loops: get a 64 MiB workspace, a short kernel on its own
// non-blocking stream B that writes it and one that sums it into an accumulator, give the
// workspace back.
//   cross-thread-free    cudaMalloc / cudaFree: measured on an H200 (GPU-FACTS.md), each
//                        cudaFree blocked 350-510 us while thread 1's spins ran, 70-85 us
//                        after: thread 2 cannot issue its next step meanwhile, B starves.
//   cross-thread-async   cudaMallocAsync / cudaFreeAsync on B (the pool keeps its memory and
//                        is grown once in the setup, as a long-running program's would be).
//   cross-thread-before  allocated once before the loop.
// Thread 2 times its own calls and says which of them ran while thread 1's spins did
// (waited=yes: those took more than twice as long as the ones after).
#include <atomic>
#include <thread>

#include "suspects.h"

static const double T1_KERNEL_US = 170.0, T2_STEP_US = 50.0;
enum { T1_KERNELS = 40 };
static const size_t WORKSPACE_BYTES = 64u << 20;

struct Cross {
    const Ctx *c;
    int variant;
    float *spin_out, *acc, *before;
    long long it_t1, it_t2;
    std::atomic<bool> queued{false};
    double t0_ms = 0, t1_done_ms = 0, t2_done_ms = 0;
    std::vector<double> get_start, put_start;  // host times the calls began
    Durations get_ms, put_ms;
};

static float step_salt(int s)
{
    return 0.01f * (float)s;
}

// --- thread 1 --------------------------------------------------------------------------------

static void queue_spins(Cross *x)
{
    for (int k = 0; k < T1_KERNELS; ++k)
        launch_spin(x->c->a, SPIN_BLOCKS, SPIN_THREADS, x->spin_out, x->it_t1);
    x->queued.store(true, std::memory_order_release);
    SC_CHECK(cudaStreamSynchronize(x->c->a));
    x->t1_done_ms = sc_now_ms();
}

// --- thread 2 --------------------------------------------------------------------------------

static float *workspace_get(Cross *x)
{
    float *p = x->before;
    double t = sc_now_ms();
    if (x->variant == CROSS_FREE)
        SC_CHECK(cudaMalloc(&p, WORKSPACE_BYTES));
    else if (x->variant == CROSS_ASYNC)
        SC_CHECK(cudaMallocAsync(&p, WORKSPACE_BYTES, x->c->b));
    else
        return p;
    x->get_start.push_back(t);
    x->get_ms.add(sc_now_ms() - t);
    return p;
}

static void workspace_put(Cross *x, float *p)
{
    double t = sc_now_ms();
    if (x->variant == CROSS_FREE)
        SC_CHECK(cudaFree(p));
    else if (x->variant == CROSS_ASYNC)
        SC_CHECK(cudaFreeAsync(p, x->c->b));
    else
        return;
    x->put_start.push_back(t);
    x->put_ms.add(sc_now_ms() - t);
}

static void loop_steps(Cross *x)
{
    const Ctx &c = *x->c;
    while (!x->queued.load(std::memory_order_acquire)) {
    }
    for (int s = 0; s < c.steps; ++s) {
        float *p = workspace_get(x);
        launch_step(c.b, p, c.step_in, STEP_N, x->it_t2, step_salt(s));
        launch_accumulate(c.b, x->acc, p, c.step_in, STEP_N);
        workspace_put(x, p);
    }
    x->t2_done_ms = sc_now_ms();
}

// --- setup, report, verification -------------------------------------------------------------

static void setup(Cross *x)
{
    const Ctx &c = *x->c;
    SC_CHECK(cudaMalloc(&x->spin_out, SPIN_N * sizeof(float)));
    SC_CHECK(cudaMalloc(&x->acc, STEP_N * sizeof(float)));
    SC_CHECK(cudaMemsetAsync(x->acc, 0, STEP_N * sizeof(float), c.b));
    if (x->variant == CROSS_BEFORE)
        SC_CHECK(cudaMalloc(&x->before, WORKSPACE_BYTES));
    if (x->variant == CROSS_ASYNC) {
        // Keep what the pool holds across synchronizations, and grow it once now.
        cudaMemPool_t pool;
        SC_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
        uint64_t keep = UINT64_MAX;
        SC_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        float *p = nullptr;
        SC_CHECK(cudaMallocAsync(&p, WORKSPACE_BYTES, c.b));
        SC_CHECK(cudaFreeAsync(p, c.b));
    }
    SC_CHECK(cudaStreamSynchronize(c.b));
}

// One line per call: how long it blocked while thread 1's spins ran and after.
static void print_calls(const char *call, const std::vector<double> &start, const Durations &d,
                        double t1_done_ms)
{
    Durations during, after;
    for (size_t i = 0; i < d.count(); ++i)
        (start[i] < t1_done_ms ? during : after).add(d.ms[i]);
    bool waited = during.count() > 0 && after.count() > 0 && during.median() > 2 * after.median();
    printf("# %s(64 MiB): %zu calls; while thread 1's spins ran: %zu, median %.0f us, longest "
           "%.0f us; after: %zu, median %.0f us: waited=%s\n",
           call, d.count(), during.count(), during.median() * 1e3, during.max() * 1e3,
           after.count(), after.median() * 1e3, waited ? "yes" : "no");
}

static void report(const Cross &x)
{
    printf("# thread 1: %d spins of ~%.0f us done %.3f ms into the range; thread 2: %d steps "
           "issued by %.3f ms\n",
           T1_KERNELS, T1_KERNEL_US, x.t1_done_ms - x.t0_ms, x.c->steps, x.t2_done_ms - x.t0_ms);
    if (x.variant == CROSS_FREE) {
        print_calls("cudaMalloc", x.get_start, x.get_ms, x.t1_done_ms);
        print_calls("cudaFree", x.put_start, x.put_ms, x.t1_done_ms);
    } else if (x.variant == CROSS_ASYNC) {
        print_calls("cudaMallocAsync", x.get_start, x.get_ms, x.t1_done_ms);
        print_calls("cudaFreeAsync", x.put_start, x.put_ms, x.t1_done_ms);
    } else {
        printf("# workspace allocated once before the loop\n");
    }
}

static void verify_cross(const Cross &x)
{
    const Ctx &c = *x.c;
    float *h = nullptr;
    SC_CHECK(cudaMallocHost(&h, (SPIN_N + STEP_N) * sizeof(float)));
    SC_CHECK(cudaMemcpyAsync(h, x.spin_out, SPIN_N * sizeof(float), cudaMemcpyDeviceToHost, c.a));
    SC_CHECK(cudaMemcpyAsync(h + SPIN_N, x.acc, STEP_N * sizeof(float), cudaMemcpyDeviceToHost,
                             c.a));
    SC_CHECK(cudaStreamSynchronize(c.a));
    const int spin_idx[] = {0, 1, 77, SPIN_N / 2, SPIN_N - 1};
    for (int i : spin_idx)
        check("spin_kernel", i, h[i], chain_ref(1e-3f * (float)i, x.it_t1));
    const float *acc = h + SPIN_N;
    for (int i = 0; i < STEP_N; i += 31) {
        float want = 0.0f;
        for (int s = 0; s < c.steps; ++s)
            want = want + (chain_ref(step_input(i) + step_salt(s), x.it_t2) - step_input(i));
        check("acc", i, acc[i], want);
    }
    result_add(h, (SPIN_N + STEP_N) * sizeof(float));
    printf("# verified spins and acc ok\n");
}

void mode_cross_thread(Ctx &c, int variant)
{
    Cross x;
    x.c = &c;
    x.variant = variant;
    x.spin_out = x.acc = x.before = nullptr;
    x.it_t1 = iters_us(c, T1_KERNEL_US);
    x.it_t2 = iters_us(c, T2_STEP_US);
    setup(&x);

    measure_begin(c);
    x.t0_ms = sc_now_ms();
    std::thread t1(queue_spins, &x), t2(loop_steps, &x);
    t1.join();
    t2.join();
    measure_end(c);
    report(x);
    verify_cross(x);
}
