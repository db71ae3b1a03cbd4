// libcupti_floor.so: the least any CUPTI-based tracer pays. It enables only
// CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, counts the records CUPTI hands back and discards
// them. The overhead benchmark compares streamcheck against this floor.
//
//   LD_PRELOAD=libcupti_floor.so ./app
//   CUPTI_FLOOR_CALLBACKS=1 LD_PRELOAD=libcupti_floor.so ./app
//
// With CUPTI_FLOOR_CALLBACKS=1 it also subscribes an empty callback to the kernel-launch
// callback ids (runtime and driver), the ones streamcheck enables: what CUPTI's callback
// dispatch alone costs a launch, before a tracer does anything in the callback.
//
// It starts the way GPU-FACTS.md found reliable, also for static-cudart programs: the
// constructor only points CUDA_INJECTION64_PATH at this library, and the driver then calls
// InitializeInjection() at cuInit, where CUPTI is set up. A process that never touches
// CUDA pays nothing. At exit one line on stderr says how many records were seen.
#include <cupti.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FLOOR_BUFFER_BYTES (8u << 20)

static uint64_t floor_records;  // updated from CUPTI's buffer thread, read at exit
static int floor_started;

static void floor_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    // CUPTI wants 8-byte aligned buffers.
    *buffer = aligned_alloc(8, FLOOR_BUFFER_BYTES);
    *size = *buffer != NULL ? FLOOR_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void floor_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                   size_t size, size_t valid)
{
    (void)ctx;
    (void)stream_id;
    (void)size;
    CUpti_Activity *record = NULL;
    uint64_t n = 0;
    // Walking the records is part of what every tracer does with a buffer; keep it.
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
        ++n;
    __atomic_fetch_add(&floor_records, n, __ATOMIC_RELAXED);
    free(buffer);
}

static void floor_at_exit(void)
{
    size_t dropped = 0;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
    fprintf(stderr, "cupti_floor: records=%llu dropped=%zu\n",
            (unsigned long long)__atomic_load_n(&floor_records, __ATOMIC_RELAXED), dropped);
}

static void CUPTIAPI floor_empty_callback(void *userdata, CUpti_CallbackDomain domain,
                                          CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
}

static int floor_fail(const char *what, CUptiResult r)
{
    const char *msg = NULL;
    cuptiGetResultString(r, &msg);
    fprintf(stderr, "cupti_floor: %s failed: %s\n", what, msg != NULL ? msg : "?");
    return 0;
}

// Called by the driver at cuInit because the constructor set CUDA_INJECTION64_PATH.
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    if (__atomic_exchange_n(&floor_started, 1, __ATOMIC_ACQ_REL))
        return 1;
    CUptiResult r = cuptiActivityRegisterCallbacks(floor_buffer_requested,
                                                   floor_buffer_completed);
    if (r != CUPTI_SUCCESS)
        return floor_fail("cuptiActivityRegisterCallbacks", r);
    r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS)
        return floor_fail("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
    const char *cb = getenv("CUPTI_FLOOR_CALLBACKS");
    if (cb != NULL && cb[0] == '1') {
        static CUpti_SubscriberHandle sub;
        r = cuptiSubscribe(&sub, floor_empty_callback, NULL);
        if (r != CUPTI_SUCCESS)
            return floor_fail("cuptiSubscribe", r);
        static const CUpti_CallbackId runtime_ids[] = {
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
            CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
            CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
        };
        for (size_t i = 0; i < sizeof runtime_ids / sizeof runtime_ids[0]; i++)
            cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_ids[i]);
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
                            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    }
    atexit(floor_at_exit);
    return 1;
}

__attribute__((constructor)) static void floor_init(void)
{
    Dl_info info;
    char path[PATH_MAX];
    // Our own absolute path, so that the driver loads this same (already loaded) library
    // even if the program changes directory. An injection path the user set already wins.
    if (dladdr((void *)floor_init, &info) == 0 || info.dli_fname == NULL)
        return;
    if (realpath(info.dli_fname, path) != NULL)
        setenv("CUDA_INJECTION64_PATH", path, 0);
    else
        setenv("CUDA_INJECTION64_PATH", info.dli_fname, 0);
}
