/* libsc_fake_calls.so: a few CUDA calls through the fake CUPTI (fake_cupti.c), callable from
 * Python with ctypes, so that the Python call sites of a program can be tested without a GPU
 * (test_python.py). Loaded with ctypes.PyDLL a call holds the GIL, as a call from a C
 * extension does; with ctypes.CDLL it releases it, as PyTorch does around its CUDA work. */
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <generated_nvtx_meta.h>

#include "fake_cupti.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

static const char *const kernels[] = {"_Z5firstv", "_Z6secondv"};

/* What cuInit does: starts streamcheck (LD_PRELOAD=libstreamcheck.so). 0 when it is not
 * preloaded. */
FAKE_EXPORT int sc_fake_start(void)
{
    int (*init)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "InitializeInjection");
    return init ? init() : 0;
}

/* A launch of kernel k (0 or 1) on a stream; returns its correlation id. */
FAKE_EXPORT uint32_t sc_fake_launch(int k, uint64_t stream)
{
    cudaLaunchKernel_v7000_params p = {.func = kernels[k & 1],
                                       .stream = (cudaStream_t)(uintptr_t)stream};
    return fake_cupti_call(CUPTI_CB_DOMAIN_RUNTIME_API,
                           CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel",
                           &p, kernels[k & 1], (uint32_t)stream);
}

/* A cudaDeviceSynchronize; returns its correlation id. */
FAKE_EXPORT uint32_t sc_fake_device_sync(void)
{
    return fake_cupti_call(CUPTI_CB_DOMAIN_RUNTIME_API,
                           CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
                           "cudaDeviceSynchronize", NULL, NULL, 0);
}

static void *sc_fake_thread_main(void *arg)
{
    nvtxRangePushA_params push = {.message = "MmBackward0"};
    fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangePushA, "nvtxRangePushA", &push, NULL);
    *(uint32_t *)arg = sc_fake_launch(0, 11);
    sc_fake_device_sync();
    fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangePop, "nvtxRangePop", NULL, NULL);
    return NULL;
}

/* A launch and a device synchronization from a thread of its own that never runs Python,
 * inside an NVTX range "MmBackward0" (as autograd's worker thread runs a backward operation
 * under torch.autograd.profiler.emit_nvtx()); returns the launch's correlation id. */
FAKE_EXPORT uint32_t sc_fake_launch_from_native_thread(void)
{
    uint32_t correlation = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, sc_fake_thread_main, &correlation) != 0) return 0;
    pthread_join(t, NULL);
    return correlation;
}

/* The streams of sc_fake_trap, as CUPTI's STREAM records: 7 the legacy NULL stream, 13 made
 * by cudaStreamCreate (blocking), 15 non-blocking. Once per process. */
FAKE_EXPORT void sc_fake_streams(void)
{
    static atomic_flag done = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&done)) return;
    fake_cupti_stream(7, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL);
    fake_cupti_stream(13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT);
    fake_cupti_stream(15, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING);
}

static uint32_t sc_fake_launch_timed(int k, uint64_t handle, uint32_t stream, uint64_t start,
                                     uint64_t end)
{
    cudaLaunchKernel_v7000_params p = {.func = kernels[k & 1],
                                       .stream = (cudaStream_t)(uintptr_t)handle};
    fake_cupti_next_kernel(start, end);
    return fake_cupti_call(CUPTI_CB_DOMAIN_RUNTIME_API,
                           CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel",
                           &p, kernels[k & 1], stream);
}

/* The classic trap, which the analyzer calls an error: a kernel of `us` microseconds on
 * blocking stream 13, then one on the legacy stream issued while it runs, which therefore
 * waits for it, then a cudaDeviceSynchronize that waits for both (so the host's later work
 * waits too, and the barrier costs the run `us`). */
FAKE_EXPORT void sc_fake_trap(uint64_t us)
{
    sc_fake_streams();
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    uint64_t spin_end = t + 10000 + us * 1000;
    sc_fake_launch_timed(0, 13, 13, t + 10000, spin_end);
    sc_fake_launch_timed(1, 0, 7, spin_end, spin_end + us * 1000);
    fake_cupti_next_call_ends(spin_end + us * 1000);
    sc_fake_device_sync();
}

/* A kernel of `us` microseconds on non-blocking stream 15: serializes with nothing. Nothing
 * waits for it either (a synchronize that waits is a host-sync finding of its own): the
 * caller lets its time pass before the next test. */
FAKE_EXPORT void sc_fake_clean(uint64_t us)
{
    sc_fake_streams();
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    sc_fake_launch_timed(0, 15, 15, t + 10000, t + 10000 + us * 1000);
}
