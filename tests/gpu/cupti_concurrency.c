// libcupti_concurrency.so: a minimal CUPTI client that measures, on its own, how concurrent a
// program's kernels were: the observer-effect test (test_observer.py) holds streamcheck's
// report of a program to what this client measures of the same program.
//
//   LD_PRELOAD=libcupti_concurrency.so ./app
//
// It enables CONCURRENT_KERNEL activity and an empty callback on the kernel-launch ids (the
// client of GPU-FACTS.md's observer-effect measurement), keeps each kernel's device, start
// and end, and at exit prints one line per device on stderr:
//
//   cupti_concurrency: device=0 kernels=N kernel_ns=S busy_ns=B concurrency=C overlap_pairs=P
//       comm_kernels=K comm_busy_ns=CB comm_overlapped_ns=CO
//
// concurrency = summed kernel time / busy time (the union of the kernel intervals), the
// definition streamcheck reports per device; overlap_pairs: kernels on different streams
// that ran at the same time, counted once per pair. NCCL's kernels (a name with "nccl" and
// "Kernel" in it) are communication and left out of those; comm_busy_ns is the union of
// their intervals, comm_overlapped_ns the part of it that a compute kernel covered (the
// multi-rank test holds streamcheck's communication overlap to it).
#include <cupti.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CC_BUFFER_BYTES (8u << 20)
#define CC_EXPORT __attribute__((visibility("default")))

typedef struct cc_kernel {
    uint64_t start, end;
    uint32_t device, stream;
    int comm;   // an NCCL kernel
} cc_kernel;

static pthread_mutex_t cc_lock = PTHREAD_MUTEX_INITIALIZER;
static cc_kernel *cc_kernels;
static size_t cc_n, cc_cap;
static int cc_started;

static void cc_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, CC_BUFFER_BYTES);
    *size = *buffer != NULL ? CC_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void cc_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
                                size_t valid)
{
    (void)ctx;
    (void)stream_id;
    (void)size;
    CUpti_Activity *record = NULL;
    pthread_mutex_lock(&cc_lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
        if (cc_n == cc_cap) {
            size_t cap = cc_cap ? 2 * cc_cap : 4096;
            cc_kernel *p = realloc(cc_kernels, cap * sizeof *p);
            if (!p) break;
            cc_kernels = p;
            cc_cap = cap;
        }
        int comm = k->name && strstr(k->name, "nccl") && strstr(k->name, "Kernel");
        cc_kernels[cc_n++] = (cc_kernel){k->start, k->end < k->start ? k->start : k->end,
                                         k->deviceId, k->streamId, comm};
    }
    pthread_mutex_unlock(&cc_lock);
    free(buffer);
}

static int cc_by_start(const void *a, const void *b)
{
    const cc_kernel *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

// Time in [start, end) on device `dev` that a compute kernel covered: kernels [first, last)
// are that device's, sorted by start; quadratic, for the small programs the tests run.
static uint64_t cc_compute_covered(size_t first, size_t last, uint64_t start, uint64_t end)
{
    uint64_t covered = 0, at = start;   // covered up to `at`
    for (size_t j = first; j < last && at < end; j++) {
        const cc_kernel *c = &cc_kernels[j];
        if (c->comm || c->end <= at || c->start >= end) continue;
        uint64_t from = c->start > at ? c->start : at, to = c->end < end ? c->end : end;
        covered += to - from;
        at = to;
    }
    return covered;
}

// Communication on device kernels [first, last): the union of the NCCL kernels' intervals,
// and how much of it compute kernels covered.
static void cc_comm(size_t first, size_t last, size_t *count, uint64_t *busy, uint64_t *hidden)
{
    uint64_t from = 0, to = 0;
    *count = 0;
    *busy = *hidden = 0;
    for (size_t j = first; j <= last; j++) {
        const cc_kernel *k = j < last ? &cc_kernels[j] : NULL;
        if (k && !k->comm) continue;
        if (!k || k->start >= to) {     // a stretch of communication ends
            if (to > from) {
                *busy += to - from;
                *hidden += cc_compute_covered(first, last, from, to);
            }
            if (!k) break;
            from = k->start;
            to = k->end;
        } else if (k->end > to) {
            to = k->end;
        }
        ++*count;
    }
}

static void cc_at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&cc_lock);
    qsort(cc_kernels, cc_n, sizeof *cc_kernels, cc_by_start);
    for (size_t i = 0; i < cc_n;) {
        uint32_t dev = cc_kernels[i].device;
        uint64_t sum = 0, busy = 0, cover_start = 0, cover_end = 0, pairs = 0;
        size_t first = i, n = 0;
        for (; i < cc_n && cc_kernels[i].device == dev; i++) {
            const cc_kernel *k = &cc_kernels[i];
            if (k->comm) continue;
            n++;
            sum += k->end - k->start;
            if (k->start >= cover_end) {  // a gap: close the covered stretch
                busy += cover_end > cover_start ? cover_end - cover_start : 0;
                cover_start = k->start;
            }
            if (k->end > cover_end) cover_end = k->end;
            // earlier kernels (sorted by start) still running when this one starts; quadratic,
            // so only for the small programs the tests run
            for (size_t j = first; i - first < 20000 && j < i; j++)
                if (!cc_kernels[j].comm && cc_kernels[j].end > k->start &&
                    cc_kernels[j].stream != k->stream)
                    pairs++;
        }
        busy += cover_end > cover_start ? cover_end - cover_start : 0;
        size_t comm_n;
        uint64_t comm_busy, comm_hidden;
        cc_comm(first, i, &comm_n, &comm_busy, &comm_hidden);
        fprintf(stderr,
                "cupti_concurrency: device=%u kernels=%zu kernel_ns=%llu busy_ns=%llu "
                "concurrency=%.4f overlap_pairs=%llu comm_kernels=%zu comm_busy_ns=%llu "
                "comm_overlapped_ns=%llu\n",
                dev, n, (unsigned long long)sum, (unsigned long long)busy,
                busy ? (double)sum / (double)busy : 0.0, (unsigned long long)pairs, comm_n,
                (unsigned long long)comm_busy, (unsigned long long)comm_hidden);
    }
    pthread_mutex_unlock(&cc_lock);
}

static void CUPTIAPI cc_empty_callback(void *userdata, CUpti_CallbackDomain domain,
                                       CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
}

static int cc_fail(const char *what, CUptiResult r)
{
    const char *msg = NULL;
    cuptiGetResultString(r, &msg);
    fprintf(stderr, "cupti_concurrency: %s failed: %s\n", what, msg != NULL ? msg : "?");
    return 0;
}

CC_EXPORT int InitializeInjection(void)
{
    if (__atomic_exchange_n(&cc_started, 1, __ATOMIC_ACQ_REL)) return 1;
    CUptiResult r = cuptiActivityRegisterCallbacks(cc_buffer_requested, cc_buffer_completed);
    if (r != CUPTI_SUCCESS) return cc_fail("cuptiActivityRegisterCallbacks", r);
    r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) return cc_fail("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
    static CUpti_SubscriberHandle sub;
    r = cuptiSubscribe(&sub, cc_empty_callback, NULL);
    if (r != CUPTI_SUCCESS) return cc_fail("cuptiSubscribe", r);
    static const CUpti_CallbackId runtime_ids[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    };
    for (size_t i = 0; i < sizeof runtime_ids / sizeof *runtime_ids; i++)
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_ids[i]);
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    // Registered at cuInit, after the CUDA runtime's exit handlers: runs before them.
    atexit(cc_at_exit);
    return 1;
}

__attribute__((constructor)) static void cc_init(void)
{
    Dl_info info;
    char path[PATH_MAX];
    if (dladdr((void *)cc_init, &info) == 0 || info.dli_fname == NULL) return;
    setenv("CUDA_INJECTION64_PATH", realpath(info.dli_fname, path) ? path : info.dli_fname, 0);
}
