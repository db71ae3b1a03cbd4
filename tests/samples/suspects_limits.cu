// setlimit-mid-run / cacheconfig-mid-run / set-at-start: changing device configuration
// between steps. Each step: a ~300 us spin on stream A, a ~50 us kernel on stream B and its
// sum, then
//   setlimit-mid-run     cudaDeviceSetLimit(cudaLimitStackSize, ...), alternating between
//                        2048 and 1024 bytes so that every call changes it: the driver
//                        resizes the local memory every kernel may use.
//   cacheconfig-mid-run  cudaFuncSetCacheConfig(step_kernel, ...), alternating between
//                        prefer-L1 and prefer-shared.
//   set-at-start         both set once before the loop; the loop only queues.
// Each call in the loop is timed, and compared with the same call made in the setup with the
// device idle (waited=yes: the median call in the loop took longer than the idle one by more
// than half a spin, i.e. it waited for A).
#include "suspects.h"

static const double LIM_SPIN_US = 300.0, LIM_STEP_US = 50.0;
static const size_t STACK_BIG = 2048, STACK_DEFAULT = 1024;

static size_t stack_for(int s)
{
    return s % 2 == 0 ? STACK_BIG : STACK_DEFAULT;
}

static cudaFuncCache cache_for(int s)
{
    return s % 2 == 0 ? cudaFuncCachePreferL1 : cudaFuncCachePreferShared;
}

static float lim_salt(int s)
{
    return 0.04f * (float)s;
}

// The loop's call for step s (none for set-at-start), timed.
static void change_config(int variant, int s, Durations &d)
{
    double t = sc_now_ms();
    if (variant == LIMITS_SETLIMIT)
        SC_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, stack_for(s)));
    else if (variant == LIMITS_CACHECONFIG)
        SC_CHECK(set_step_cache_config(cache_for(s)));
    else
        return;
    d.add(sc_now_ms() - t);
}

// The killers: what the call costs with the device idle (a change there and back, averaged).
// The twin: the configuration set once, here.
static double setup_config(int variant)
{
    if (variant == LIMITS_AT_START) {
        SC_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, STACK_BIG));
        SC_CHECK(set_step_cache_config(cudaFuncCachePreferL1));
        return 0;
    }
    Durations idle;
    change_config(variant, 0, idle);
    change_config(variant, 1, idle);
    return idle.total() / 2;
}

static void verify_limits(const Ctx &c, const float *d_acc, const float *d_spin, long long it_step,
                          long long it_spin)
{
    float *h = nullptr;
    SC_CHECK(cudaMallocHost(&h, (STEP_N + SPIN_N) * sizeof(float)));
    SC_CHECK(cudaMemcpyAsync(h, d_acc, STEP_N * sizeof(float), cudaMemcpyDeviceToHost, c.b));
    SC_CHECK(cudaMemcpyAsync(h + STEP_N, d_spin, SPIN_N * sizeof(float), cudaMemcpyDeviceToHost,
                             c.b));
    SC_CHECK(cudaStreamSynchronize(c.b));
    for (int i = 0; i < STEP_N; i += 31) {
        float want = 0.0f;
        for (int s = 0; s < c.steps; ++s)
            want = want + (chain_ref(step_input(i) + lim_salt(s), it_step) - step_input(i));
        check("acc", i, h[i], want);
    }
    const int spin_idx[] = {0, 1, 77, SPIN_N / 2, SPIN_N - 1};
    for (int i : spin_idx)
        check("spin_kernel", i, h[STEP_N + i], chain_ref(1e-3f * (float)i, it_spin));
    result_add(h, (STEP_N + SPIN_N) * sizeof(float));
    printf("# verified acc and the spin ok\n");
}

void mode_limits(Ctx &c, int variant)
{
    const long long it_spin = iters_us(c, LIM_SPIN_US), it_step = iters_us(c, LIM_STEP_US);
    float *spin_out, *tmp, *acc;
    SC_CHECK(cudaMalloc(&spin_out, SPIN_N * sizeof(float)));
    SC_CHECK(cudaMalloc(&tmp, STEP_N * sizeof(float)));
    SC_CHECK(cudaMalloc(&acc, STEP_N * sizeof(float)));
    SC_CHECK(cudaMemsetAsync(acc, 0, STEP_N * sizeof(float), c.b));
    SC_CHECK(cudaStreamSynchronize(c.b));  // the idle calls below find nothing in flight
    const double idle_ms = setup_config(variant);
    Durations calls;

    measure_begin(c);
    for (int s = 0; s < c.steps; ++s) {
        launch_spin(c.a, SPIN_BLOCKS, SPIN_THREADS, spin_out, it_spin);
        launch_step(c.b, tmp, c.step_in, STEP_N, it_step, lim_salt(s));
        launch_accumulate(c.b, acc, tmp, c.step_in, STEP_N);
        change_config(variant, s, calls);
    }
    measure_end(c);

    if (variant == LIMITS_AT_START) {
        printf("# stack size and cache configuration set once before the loop\n");
    } else {
        bool waited = calls.median() > idle_ms + 0.5 * LIM_SPIN_US * 1e-3;
        printf("# %s: %zu calls, median %.1f us, longest %.1f us; with the device idle: %.1f us: "
               "waited=%s\n",
               variant == LIMITS_SETLIMIT ? "cudaDeviceSetLimit" : "cudaFuncSetCacheConfig",
               calls.count(), calls.median() * 1e3, calls.max() * 1e3, idle_ms * 1e3,
               waited ? "yes" : "no");
    }
    verify_limits(c, acc, spin_out, it_step, it_spin);
}
