// The kernels of the suspects sample (all but lazy-once's; the small ones shared with killers
// in sample_kernels.cuh), their launchers, their CPU references, and the check that runs each
// once before anything is measured.
#include "sample_kernels.cuh"
#include "sample_spin.cuh"
#include "suspects.h"

// --- launchers -------------------------------------------------------------------------------

void launch_spin(cudaStream_t s, int blocks, int threads, float *out, long long iters)
{
    spin_kernel<<<blocks, threads, 0, s>>>(out, iters, nullptr);
    SC_CHECK_LAUNCH();
}

void launch_step(cudaStream_t s, float *out, const float *in, int n, long long iters, float salt)
{
    step_kernel<<<STEP_BLOCKS, STEP_THREADS, 0, s>>>(out, in, n, iters, salt);
    SC_CHECK_LAUNCH();
}

void launch_accumulate(cudaStream_t s, float *acc, const float *x, const float *y, int n)
{
    accumulate_kernel<<<STEP_BLOCKS, STEP_THREADS, 0, s>>>(acc, x, y, n);
    SC_CHECK_LAUNCH();
}

void launch_scale(cudaStream_t s, float *x, size_t n, float mul, float add, int blocks)
{
    scale_kernel<<<blocks, SCALE_THREADS, 0, s>>>(x, n, mul, add);
    SC_CHECK_LAUNCH();
}

int spin_filling_blocks(const Ctx &c, int threads)
{
    return sc_filling_blocks(spin_kernel, threads, c.prop);
}

cudaError_t set_step_cache_config(cudaFuncCache config)
{
    return cudaFuncSetCacheConfig(step_kernel, config);
}

// --- CPU references --------------------------------------------------------------------------

long long iters_us(const Ctx &c, double us)
{
    return sc_iters_for_us(us, c.cycles_per_iter, c.clock_khz);
}

float step_input(int i)
{
    return (float)(i % 37) * 0.01f;
}

float chain_ref(float x, long long iters)
{
    return sc_chain_ref(x, iters);
}

float scale_ref(float x, float mul, float add)
{
    return fmaf(x, mul, add);
}

// --- the check before the measurement --------------------------------------------------------

enum {
    CHECK_ITERS = 50,
    CHK_SPIN_N = 16 * 64,  // spin_kernel<<<16, 64>>>
    CHK_STEP_N = 90,       // step and accumulate <<<3, 32>>>: the last 6 threads idle
    CHK_SCALE_N = 2000,    // scale_kernel<<<2, 128>>>: the grid-stride loop wraps
};

// The check's buffers, at the same offsets in the pinned staging and the device scratch, so
// one copy each way moves all of them.
struct CheckLayout {
    long long cycles[2];
    float spin[CHK_SPIN_N];
    float step_in[CHK_STEP_N], step_out[CHK_STEP_N], acc[CHK_STEP_N];
    float scale[CHK_SCALE_N];
    float cal[32];
    float inputs[STEP_N];  // c.step_in's values
};

static void fill_check_inputs(CheckLayout *h)
{
    for (int i = 0; i < CHK_STEP_N; ++i) {
        h->step_in[i] = step_input(3 * i + 1);
        h->acc[i] = (float)(i % 5);
    }
    for (int i = 0; i < CHK_SCALE_N; ++i)
        h->scale[i] = (float)(i % 1021) * 0.25f;
    for (int i = 0; i < STEP_N; ++i)
        h->inputs[i] = step_input(i);
}

static void enqueue_checks(CheckLayout *d, cudaStream_t s)
{
    spin_kernel<<<16, 64, 0, s>>>(d->spin, CHECK_ITERS, nullptr);
    SC_CHECK_LAUNCH();
    step_kernel<<<3, 32, 0, s>>>(d->step_out, d->step_in, CHK_STEP_N, CHECK_ITERS, 0.125f);
    SC_CHECK_LAUNCH();
    accumulate_kernel<<<3, 32, 0, s>>>(d->acc, d->step_out, d->step_in, CHK_STEP_N);
    SC_CHECK_LAUNCH();
    scale_kernel<<<2, 128, 0, s>>>(d->scale, CHK_SCALE_N, 0.5f, 1.0f);
    SC_CHECK_LAUNCH();
    sc_spin_calibrate_enqueue(d->cal, d->cycles, s);
}

static void verify_checks(const CheckLayout *h, const CheckLayout *want)
{
    for (int t = 0; t < CHK_SPIN_N; ++t)
        check("spin_kernel", t, h->spin[t], chain_ref(1e-3f * (float)t, CHECK_ITERS));
    for (int i = 0; i < CHK_STEP_N; ++i) {
        float o = chain_ref(want->step_in[i] + 0.125f, CHECK_ITERS);
        check("step_kernel", i, h->step_out[i], o);
        check("accumulate_kernel", i, h->acc[i], want->acc[i] + (o - want->step_in[i]));
    }
    for (int i = 0; i < CHK_SCALE_N; ++i)
        check("scale_kernel", i, h->scale[i], scale_ref(want->scale[i], 0.5f, 1.0f));
}

void check_and_calibrate(Ctx &c)
{
    CheckLayout *h = nullptr, *d = nullptr;
    SC_CHECK(cudaMallocHost(&h, sizeof *h));
    SC_CHECK(cudaMalloc(&d, sizeof *d));
    CheckLayout *want = (CheckLayout *)host_alloc(sizeof *want);
    fill_check_inputs(h);
    memcpy(want, h, sizeof *h);

    cudaStream_t s = c.a;
    SC_CHECK(cudaMemcpyAsync(d, h, sizeof *h, cudaMemcpyHostToDevice, s));
    enqueue_checks(d, s);
    SC_CHECK(cudaMemcpyAsync(c.step_in, d->inputs, STEP_N * sizeof(float),
                             cudaMemcpyDeviceToDevice, s));
    SC_CHECK(cudaMemcpyAsync(h, d, sizeof *h, cudaMemcpyDeviceToHost, s));
    SC_CHECK(cudaStreamSynchronize(s));

    verify_checks(h, want);
    free(want);
    c.cycles_per_iter = sc_spin_cycles_per_iter(h->cycles);
    c.clock_khz = sc_clock_khz();
    printf("# reference check: spin_kernel step_kernel accumulate_kernel scale_kernel ok\n");
    printf("# spin: %.2f cycles/iter at %d MHz\n", c.cycles_per_iter, c.clock_khz / 1000);
    // h and d are left to process exit, like every buffer of the samples.
}
