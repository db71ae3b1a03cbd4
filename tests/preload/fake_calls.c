/* libsc_fake_calls.so: a few CUDA calls through the fake CUPTI (fake_cupti.c), callable from
 * Python with ctypes, so that the Python call sites of a program can be tested without a GPU
 * (test_python.py). Loaded with ctypes.PyDLL a call holds the GIL, as a call from a C
 * extension does; with ctypes.CDLL it releases it, as PyTorch does around its CUDA work. */
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

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
    *(uint32_t *)arg = sc_fake_launch(0, 11);
    return NULL;
}

/* A launch from a thread of its own that never runs Python (as autograd's worker threads
 * do not); returns its correlation id. */
FAKE_EXPORT uint32_t sc_fake_launch_from_native_thread(void)
{
    uint32_t correlation = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, sc_fake_thread_main, &correlation) != 0) return 0;
    pthread_join(t, NULL);
    return correlation;
}
