// priority / equal-priority: stream priorities that starve the stream the run waits for.
// Stream L holds a chain of small kernels (8 blocks, ~200 us each, then a sum): the critical
// path. Two streams H1 and H2 hold bulk work beside it: grids of 4 waves of short blocks
// (~25 us each), so that between them there are nearly always blocks waiting for a slot.
//   priority        H1 and H2 at the device's greatest priority, L at its least: the block
//                   scheduler dispatches pending high-priority blocks first, so L's next
//                   kernel waits for a free slot until H1 and H2 run dry.
//   equal-priority  every stream at the least priority (the default): L's kernel, ready
//                   before the next bulk grid, gets its 8 slots in launch order.
// Whether the block scheduler behaves so on a given GPU is what this pair measures. The
// program times both sides with events: L's chain from the range's start to its end, and
// when H1 and H2 ended (starved=yes: L ended after both, more than 1.5x its own length
// after the start).
#include "suspects.h"

static const double LOW_KERNEL_US = 200.0, HIGH_BLOCK_US = 25.0;
enum { HIGH_WAVES = 4, HIGH_STREAMS = 2 };

struct Prio {
    cudaStream_t low, high[HIGH_STREAMS];
    int high_blocks;
    float *x, *acc, *high_out[HIGH_STREAMS];
    long long it_low, it_high;
    cudaEvent_t start, low_end, high_end[HIGH_STREAMS];
};

static float low_salt(int s)
{
    return 0.03f * (float)s;
}

static void setup(const Ctx &c, int variant, Prio &p)
{
    int least = 0, greatest = 0;
    SC_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    const int high = variant == PRIORITY_HIGH ? greatest : least;
    printf("# stream priorities: least %d, greatest %d; L at %d, H1 and H2 at %d\n", least,
           greatest, least, high);
    SC_CHECK(cudaStreamCreateWithPriority(&p.low, cudaStreamNonBlocking, least));
    for (int h = 0; h < HIGH_STREAMS; ++h)
        SC_CHECK(cudaStreamCreateWithPriority(&p.high[h], cudaStreamNonBlocking, high));
    p.high_blocks = HIGH_WAVES * spin_filling_blocks(c, SPIN_THREADS);
    SC_CHECK(cudaMalloc(&p.x, STEP_N * sizeof(float)));
    SC_CHECK(cudaMalloc(&p.acc, STEP_N * sizeof(float)));
    SC_CHECK(cudaMemsetAsync(p.acc, 0, STEP_N * sizeof(float), p.low));
    for (int h = 0; h < HIGH_STREAMS; ++h)
        SC_CHECK(cudaMalloc(&p.high_out[h], (size_t)p.high_blocks * SPIN_THREADS * sizeof(float)));
    p.it_low = iters_us(c, LOW_KERNEL_US);
    p.it_high = iters_us(c, HIGH_BLOCK_US);
    SC_CHECK(cudaEventCreate(&p.start));
    SC_CHECK(cudaEventCreate(&p.low_end));
    for (int h = 0; h < HIGH_STREAMS; ++h)
        SC_CHECK(cudaEventCreate(&p.high_end[h]));
    SC_CHECK(cudaStreamSynchronize(p.low));
}

// Step by step in launch order: L's kernel first, then one bulk grid on each H stream.
static void queue_all(const Ctx &c, const Prio &p)
{
    SC_CHECK(cudaEventRecord(p.start, p.low));
    for (int s = 0; s < c.steps; ++s) {
        launch_step(p.low, p.x, c.step_in, STEP_N, p.it_low, low_salt(s));
        launch_accumulate(p.low, p.acc, p.x, c.step_in, STEP_N);
        for (int h = 0; h < HIGH_STREAMS; ++h)
            launch_spin(p.high[h], p.high_blocks, SPIN_THREADS, p.high_out[h], p.it_high);
    }
    SC_CHECK(cudaEventRecord(p.low_end, p.low));
    for (int h = 0; h < HIGH_STREAMS; ++h)
        SC_CHECK(cudaEventRecord(p.high_end[h], p.high[h]));
}

static void report(const Ctx &c, const Prio &p)
{
    float low_ms = 0, high_ms = 0;
    SC_CHECK(cudaEventElapsedTime(&low_ms, p.start, p.low_end));
    for (int h = 0; h < HIGH_STREAMS; ++h) {
        float ms = 0;
        SC_CHECK(cudaEventElapsedTime(&ms, p.start, p.high_end[h]));
        high_ms = ms > high_ms ? ms : high_ms;
    }
    const double alone_ms = c.steps * LOW_KERNEL_US * 1e-3;
    printf("# L's chain (%d kernels, ~%.1f ms alone at peak clock) ended %.3f ms after the "
           "start; H1 and H2 (%d grids of %d blocks each) by %.3f ms: starved=%s\n",
           c.steps, alone_ms, low_ms, c.steps, p.high_blocks, high_ms,
           low_ms > high_ms && low_ms > 1.5 * alone_ms ? "yes" : "no");
}

static void verify_priority(const Ctx &c, const Prio &p)
{
    const size_t high_n = (size_t)p.high_blocks * SPIN_THREADS;
    float *h = nullptr;
    SC_CHECK(cudaMallocHost(&h, (STEP_N + HIGH_STREAMS * high_n) * sizeof(float)));
    SC_CHECK(cudaMemcpyAsync(h, p.acc, STEP_N * sizeof(float), cudaMemcpyDeviceToHost, p.low));
    for (int k = 0; k < HIGH_STREAMS; ++k)
        SC_CHECK(cudaMemcpyAsync(h + STEP_N + k * high_n, p.high_out[k], high_n * sizeof(float),
                                 cudaMemcpyDeviceToHost, p.low));
    SC_CHECK(cudaStreamSynchronize(p.low));
    for (int i = 0; i < STEP_N; i += 31) {
        float want = 0.0f;
        for (int s = 0; s < c.steps; ++s)
            want = want + (chain_ref(step_input(i) + low_salt(s), p.it_low) - step_input(i));
        check("acc", i, h[i], want);
    }
    for (int k = 0; k < HIGH_STREAMS; ++k)
        for (size_t i = 0; i < high_n; i += high_n / 17 + 1)
            check("high spin", i, h[STEP_N + k * high_n + i],
                  chain_ref(1e-3f * (float)i, p.it_high));
    result_add(h, (STEP_N + HIGH_STREAMS * high_n) * sizeof(float));
    printf("# verified acc and the bulk grids ok\n");
}

void mode_priority(Ctx &c, int variant)
{
    Prio p;
    setup(c, variant, p);
    measure_begin(c);
    queue_all(c, p);
    measure_end(c);
    report(c, p);
    verify_priority(c, p);
}
