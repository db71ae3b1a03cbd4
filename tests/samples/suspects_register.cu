// register-per-step / register-once: pinning host memory inside the loop. Each step: a
// ~200 us spin on stream A (other work in flight), an 8 MiB host buffer (its own per step,
// malloc'd and filled in the setup) copied to the device on stream B and scaled there.
//   register-per-step  cudaHostRegister before the copy, and after it (an event on B, waited
//                      for) cudaHostUnregister: the pin-copy-wait-unpin pattern.
//   register-once      every buffer registered once in the setup; the loop only queues.
// Each register and unregister call is timed, and compared with the same calls made once in
// the setup with the device idle (waited=yes: the median call in the loop took longer than
// the idle one by more than half a spin, i.e. it waited for A).
#include "suspects.h"

static const size_t REG_BYTES = 8u << 20;
static const size_t REG_N = REG_BYTES / sizeof(float);
static const double REG_SPIN_US = 200.0;
enum { MAX_REG_STEPS = 16, REG_CHECK_N = 4096 };  // floats checked at each end of a chunk

struct Reg {
    char *host;   // steps x REG_BYTES, page-aligned, pageable until registered
    float *dev;   // steps x REG_N
    float *spin_out;
    std::vector<cudaEvent_t> copied;
    long long it_spin;
    int blocks;
    double idle_register_ms, idle_unregister_ms;
    Durations register_ms, unregister_ms;
};

static float reg_value(size_t i)
{
    return (float)(i % 1019) * 0.5f;
}

static float *host_chunk(const Reg &r, int s)
{
    return (float *)(r.host + (size_t)s * REG_BYTES);
}

// Registers and unregisters one more buffer of the same size, the device idle: what the calls
// cost when they wait for nothing.
static void time_idle_calls(Reg &r)
{
    char *spare = (char *)aligned_alloc(4096, REG_BYTES);
    if (spare == nullptr) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    memset(spare, 1, REG_BYTES);
    double t = sc_now_ms();
    SC_CHECK(cudaHostRegister(spare, REG_BYTES, cudaHostRegisterDefault));
    r.idle_register_ms = sc_now_ms() - t;
    t = sc_now_ms();
    SC_CHECK(cudaHostUnregister(spare));
    r.idle_unregister_ms = sc_now_ms() - t;
    free(spare);
}

static void setup(const Ctx &c, int variant, Reg &r)
{
    if (c.steps > MAX_REG_STEPS) {
        fprintf(stderr, "%s: at most %d steps\n", c.mode, MAX_REG_STEPS);
        exit(2);
    }
    r.host = (char *)aligned_alloc(4096, (size_t)c.steps * REG_BYTES);
    if (r.host == nullptr) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < (size_t)c.steps * REG_N; ++i)  // every page touched now
        ((float *)r.host)[i] = reg_value(i);
    SC_CHECK(cudaMalloc(&r.dev, (size_t)c.steps * REG_BYTES));
    SC_CHECK(cudaMalloc(&r.spin_out, SPIN_N * sizeof(float)));
    r.copied.resize(c.steps);
    for (cudaEvent_t &e : r.copied)
        SC_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    r.it_spin = iters_us(c, REG_SPIN_US);
    r.blocks = 4 * c.prop.multiProcessorCount;
    r.idle_register_ms = r.idle_unregister_ms = 0;
    if (variant == REGISTER_PER_STEP)
        time_idle_calls(r);
    else
        for (int s = 0; s < c.steps; ++s)
            SC_CHECK(cudaHostRegister(host_chunk(r, s), REG_BYTES, cudaHostRegisterDefault));
}

static void step(const Ctx &c, int variant, Reg &r, int s)
{
    float *h = host_chunk(r, s), *d = r.dev + (size_t)s * REG_N;
    launch_spin(c.a, SPIN_BLOCKS, SPIN_THREADS, r.spin_out, r.it_spin);
    if (variant == REGISTER_PER_STEP) {
        double t = sc_now_ms();
        SC_CHECK(cudaHostRegister(h, REG_BYTES, cudaHostRegisterDefault));
        r.register_ms.add(sc_now_ms() - t);
    }
    SC_CHECK(cudaMemcpyAsync(d, h, REG_BYTES, cudaMemcpyHostToDevice, c.b));
    if (variant == REGISTER_PER_STEP)
        SC_CHECK(cudaEventRecord(r.copied[s], c.b));
    launch_scale(c.b, d, REG_N, 0.5f, 1.0f, r.blocks);
    if (variant == REGISTER_PER_STEP) {
        SC_CHECK(cudaEventSynchronize(r.copied[s]));  // the copy is done: the buffer may go
        double t = sc_now_ms();
        SC_CHECK(cudaHostUnregister(h));
        r.unregister_ms.add(sc_now_ms() - t);
    }
}

static void print_calls(const char *call, const Durations &d, double idle_ms)
{
    bool waited = d.median() > idle_ms + 0.5 * REG_SPIN_US * 1e-3;
    printf("# %s(8 MiB): %zu calls, median %.0f us, longest %.0f us; with the device idle: "
           "%.0f us: waited=%s\n",
           call, d.count(), d.median() * 1e3, d.max() * 1e3, idle_ms * 1e3, waited ? "yes" : "no");
}

static void verify_register(const Ctx &c, const Reg &r)
{
    float *h = nullptr;
    const size_t per = 2 * REG_CHECK_N;
    SC_CHECK(cudaMallocHost(&h, ((size_t)c.steps * per + SPIN_N) * sizeof(float)));
    for (int s = 0; s < c.steps; ++s) {
        const float *d = r.dev + (size_t)s * REG_N;
        SC_CHECK(cudaMemcpyAsync(h + s * per, d, REG_CHECK_N * sizeof(float),
                                 cudaMemcpyDeviceToHost, c.b));
        SC_CHECK(cudaMemcpyAsync(h + s * per + REG_CHECK_N, d + REG_N - REG_CHECK_N,
                                 REG_CHECK_N * sizeof(float), cudaMemcpyDeviceToHost, c.b));
    }
    float *spin = h + (size_t)c.steps * per;
    SC_CHECK(cudaMemcpyAsync(spin, r.spin_out, SPIN_N * sizeof(float), cudaMemcpyDeviceToHost,
                             c.b));
    SC_CHECK(cudaStreamSynchronize(c.b));
    for (int s = 0; s < c.steps; ++s)
        for (size_t j = 0; j < per; ++j) {
            size_t i = (size_t)s * REG_N + (j < REG_CHECK_N ? j : REG_N - per + j);
            check("chunk", i, h[s * per + j], scale_ref(reg_value(i), 0.5f, 1.0f));
        }
    const int spin_idx[] = {0, 1, 77, SPIN_N / 2, SPIN_N - 1};
    for (int i : spin_idx)
        check("spin_kernel", i, spin[i], chain_ref(1e-3f * (float)i, r.it_spin));
    result_add(h, ((size_t)c.steps * per + SPIN_N) * sizeof(float));
    printf("# verified both ends of %d chunks and the spin ok\n", c.steps);
}

void mode_register(Ctx &c, int variant)
{
    Reg r;
    setup(c, variant, r);
    measure_begin(c);
    for (int s = 0; s < c.steps; ++s)
        step(c, variant, r, s);
    measure_end(c);
    if (variant == REGISTER_PER_STEP) {
        print_calls("cudaHostRegister", r.register_ms, r.idle_register_ms);
        print_calls("cudaHostUnregister", r.unregister_ms, r.idle_unregister_ms);
    } else {
        printf("# %d buffers of 8 MiB registered once before the loop\n", c.steps);
    }
    verify_register(c, r);
}
