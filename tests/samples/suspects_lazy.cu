// lazy-once: a ~2.5 ms spin on stream A (8 blocks: the device stays mostly free), then the
// first and only launch of once_kernel (4 blocks of 256, ~1 ms) on stream B. Measured on an
// H200 (GPU-FACTS.md): under the default CUDA_MODULE_LOADING=LAZY such a kernel started
// 3.6 us after A's kernel ended; under EAGER it started during it. There is no later launch
// of the kernel to compare with, which is what the lazy-loading rule needs to tell a module
// load from a kernel that could not have run earlier anyway: this mode is the case the rule
// must get from direct evidence. The clean twin is the same program under
// CUDA_MODULE_LOADING=EAGER.
//
// The program reads the answer from two timing events: one after A's spin, one after B's
// kernel. B's kernel ending before A's spin did means it started during it
// (started_during=yes): it runs ~1 ms of the spin's ~2.5 ms.
#include "suspects.h"

static const double LAZY_SPIN_US = 2500.0, ONCE_US = 1000.0;
static const float ONCE_SALT = 0.375f;
static_assert((int)ONCE_N <= (int)STEP_N, "once_kernel reads its inputs from c.step_in");

static void verify_lazy(const float *spin_out, const float *once_out, long long it_spin,
                        long long it_once)
{
    // The chains are long: a sample of the elements, first and last included.
    const int spin_idx[] = {0, 1, 77, SPIN_N / 2, SPIN_N - 1};
    for (int i : spin_idx)
        check("spin_kernel", i, spin_out[i], chain_ref(1e-3f * (float)i, it_spin));
    for (int i = 0; i < ONCE_N; i += 31)
        check("once_kernel", i, once_out[i], chain_ref(step_input(i) + ONCE_SALT, it_once));
    check("once_kernel", ONCE_N - 1, once_out[ONCE_N - 1],
          chain_ref(step_input(ONCE_N - 1) + ONCE_SALT, it_once));
}

void mode_lazy_once(Ctx &c, int)
{
    const long long it_spin = iters_us(c, LAZY_SPIN_US), it_once = iters_us(c, ONCE_US);
    float *d_spin, *d_once, *h_out;
    SC_CHECK(cudaMalloc(&d_spin, SPIN_N * sizeof(float)));
    SC_CHECK(cudaMalloc(&d_once, ONCE_N * sizeof(float)));
    SC_CHECK(cudaMallocHost(&h_out, (SPIN_N + ONCE_N) * sizeof(float)));
    cudaEvent_t spin_end, once_end;
    SC_CHECK(cudaEventCreate(&spin_end));
    SC_CHECK(cudaEventCreate(&once_end));

    measure_begin(c);
    launch_spin(c.a, SPIN_BLOCKS, SPIN_THREADS, d_spin, it_spin);
    SC_CHECK(cudaEventRecord(spin_end, c.a));
    double call_ms = sc_now_ms();
    launch_once(c.b, d_once, c.step_in, it_once, ONCE_SALT);
    call_ms = sc_now_ms() - call_ms;
    SC_CHECK(cudaEventRecord(once_end, c.b));
    measure_end(c);

    float after_ms = 0;
    SC_CHECK(cudaEventElapsedTime(&after_ms, spin_end, once_end));
    printf("# once_kernel's launch call took %.1f us on the host\n", call_ms * 1e3);
    printf("# once_kernel (~%.1f ms at peak clock) ended %.3f ms %s A's spin (~%.1f ms) ended: "
           "started_during=%s\n",
           ONCE_US * 1e-3, after_ms < 0 ? -after_ms : after_ms, after_ms < 0 ? "before" : "after",
           LAZY_SPIN_US * 1e-3, after_ms < 0 ? "yes" : "no");

    SC_CHECK(cudaMemcpyAsync(h_out, d_spin, SPIN_N * sizeof(float), cudaMemcpyDeviceToHost, c.a));
    SC_CHECK(cudaMemcpyAsync(h_out + SPIN_N, d_once, ONCE_N * sizeof(float),
                             cudaMemcpyDeviceToHost, c.a));
    SC_CHECK(cudaStreamSynchronize(c.a));
    verify_lazy(h_out, h_out + SPIN_N, it_spin, it_once);
    result_add(h_out, (SPIN_N + ONCE_N) * sizeof(float));
    printf("# verified spin_kernel and once_kernel ok\n");
}
