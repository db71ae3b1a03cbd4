/* libsc_fake_cupti.so: just enough of CUPTI's API for libstreamcheck.so to run without a
 * GPU, driven by a test program (driver.c) that plays the CUDA runtime: it fires API and
 * NVTX callbacks from as many threads as it likes, and each launch it reports becomes a
 * CONCURRENT_KERNEL record handed over at the next flush, as CUPTI would.
 *
 * What it checks on its own: a callback fires only for ids the subscriber enabled, and the
 * activity buffers the library hands CUPTI are big enough and 8-byte aligned. */
#include <cupti.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_cupti.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

static CUpti_CallbackFunc fake_callback;
static void *fake_userdata;
static atomic_bool fake_subscribed;
static atomic_uchar fake_enabled[8][4096];  /* [domain][cbid] */
static CUpti_BuffersCallbackRequestFunc fake_requested;
static CUpti_BuffersCallbackCompleteFunc fake_completed;

/* Records reported since the last flush: kernels of launches, and streams. Every record
 * takes one slot, so that cuptiActivityGetNextRecord can step by a fixed size. */
typedef union fake_slot {
    CUpti_Activity any;
    CUpti_ActivityKernel10 kernel;
    CUpti_ActivityStream stream;
} fake_slot;
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_slot *fake_pending;
static size_t fake_n_pending, fake_cap_pending;
static atomic_uint fake_correlation = 1;

FAKE_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud)
{
    if (atomic_exchange(&fake_subscribed, true)) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    fake_callback = cb;
    fake_userdata = ud;
    *s = (CUpti_SubscriberHandle)&fake_callback;
    return CUPTI_SUCCESS;
}

/* FAKE_CUPTI_LATE=PATH: a line for each call of the client's that comes once its final,
 * forced flush has begun: "flush FLAG" (a flush, from any thread, during or after it) and
 * "unsubscribe". Written as it happens (the process may end by a signal right after), so
 * that a test can check what the library still asks of CUPTI while it finishes. With
 * FAKE_CUPTI_FORCED_FLUSH_MS=N the forced flush takes N ms, as a real one may. */
static atomic_bool fake_forced_began;

static void fake_late(const char *what, uint32_t flag)
{
    const char *path = getenv("FAKE_CUPTI_LATE");
    if (!path || !atomic_load(&fake_forced_began)) return;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    char line[64];
    int n = snprintf(line, sizeof line, "%s %u\n", what, flag);
    if (write(fd, line, (size_t)n) != n) fprintf(stderr, "fake_cupti: %s: short write\n", path);
    close(fd);
}

FAKE_EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s)
{
    (void)s;
    fake_late("unsubscribe", 0);
    atomic_store(&fake_subscribed, false);
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle s,
                                            CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    (void)s;
    if ((unsigned)domain >= 8 || cbid >= 4096) return CUPTI_ERROR_INVALID_PARAMETER;
    atomic_store(&fake_enabled[domain][cbid], (unsigned char)(enable != 0));
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle s,
                                          CUpti_CallbackDomain domain)
{
    (void)s;
    for (int i = 0; i < 4096; i++) atomic_store(&fake_enabled[domain][i], (unsigned char)enable);
    return CUPTI_SUCCESS;
}

static atomic_uchar fake_kinds[256];

FAKE_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
    if ((unsigned)kind < 256) atomic_store(&fake_kinds[kind], 1);
    return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) { (void)kind; return CUPTI_SUCCESS; }
/* CUPTI hands buffers over from a thread of its own too, every flush period, whatever the
 * application's threads and the client are doing. FAKE_CUPTI_FLUSH_US=N makes the fake do
 * that every N microseconds (off by default: the tests that count on when records arrive
 * keep their timing). */
static void *fake_flush_thread(void *arg)
{
    struct timespec period = {0, (long)(uintptr_t)arg * 1000};
    for (;;) {
        nanosleep(&period, NULL);
        cuptiActivityFlushAll(0);
    }
    return NULL;
}

FAKE_EXPORT CUptiResult cuptiActivityFlushPeriod(uint32_t ms)
{
    (void)ms;
    static atomic_flag started = ATOMIC_FLAG_INIT;
    const char *us = getenv("FAKE_CUPTI_FLUSH_US");
    long n = us ? atol(us) : 0;
    if (n > 0 && n < 1000000 && !atomic_flag_test_and_set(&started)) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_create(&t, &attr, fake_flush_thread, (void *)(uintptr_t)n);
        pthread_attr_destroy(&attr);
    }
    return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t *size, void *v)
{
    (void)a;
    (void)size;
    (void)v;
    return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityGetAttribute(CUpti_ActivityAttribute a, size_t *size, void *v)
{
    (void)a;
    (void)size;
    (void)v;
    return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityEnableLatencyTimestamps(uint8_t enable) { (void)enable; return CUPTI_SUCCESS; }

FAKE_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                      CUpti_BuffersCallbackCompleteFunc done)
{
    fake_requested = req;
    fake_completed = done;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
                                                  CUpti_Activity **record)
{
    uint8_t *next = *record ? (uint8_t *)*record + sizeof(fake_slot) : buffer;
    if (next + sizeof(fake_slot) > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = (CUpti_Activity *)next;
    return CUPTI_SUCCESS;
}

static atomic_int fake_flush_signal;

FAKE_EXPORT void fake_cupti_signal_in_flush(int sig)
{
    atomic_store(&fake_flush_signal, sig);
}

static void fake_signal_here(int sig)
{
    sigset_t blocked;
    pthread_sigmask(SIG_BLOCK, NULL, &blocked);
    pid_t pid = (pid_t)syscall(SYS_getpid);
    if (sigismember(&blocked, sig))
        kill(pid, sig);
    else
        syscall(SYS_tgkill, pid, (pid_t)syscall(SYS_gettid), sig);
    /* Under ThreadSanitizer, which holds a signal back until the thread next blocks: here. */
    struct timespec moment = {0, 1000000};
    nanosleep(&moment, NULL);
}

FAKE_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    fake_late("flush", flag);
    if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) {
        atomic_store(&fake_forced_began, true);
        const char *ms = getenv("FAKE_CUPTI_FORCED_FLUSH_MS");
        struct timespec wait = {0, ms ? atol(ms) * 1000000L : 0};
        for (; wait.tv_nsec >= 1000000000L; wait.tv_nsec -= 1000000000L) wait.tv_sec++;
        if (wait.tv_sec || wait.tv_nsec) nanosleep(&wait, NULL);
    }
    if ((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) && atomic_load(&fake_flush_signal)) {
        int sig = atomic_exchange(&fake_flush_signal, 0);
        if (sig) fake_signal_here(sig);
    }
    pthread_mutex_lock(&fake_lock);
    fake_slot *records = fake_pending;
    size_t n = fake_n_pending;
    fake_pending = NULL;
    fake_n_pending = fake_cap_pending = 0;
    pthread_mutex_unlock(&fake_lock);
    for (size_t done = 0; done < n && fake_requested && fake_completed;) {
        uint8_t *buffer = NULL;
        size_t size = 0, max_records = 0;
        fake_requested(&buffer, &size, &max_records);
        if (!buffer || size < sizeof *records || (uintptr_t)buffer % 8) {
            fprintf(stderr, "fake_cupti: bad activity buffer %p of %zu bytes\n", (void *)buffer, size);
            abort();
        }
        size_t fit = size / sizeof *records;
        if (fit > n - done) fit = n - done;
        memcpy(buffer, records + done, fit * sizeof *records);
        done += fit;
        fake_completed(NULL, 0, buffer, size, fit * sizeof *records);
    }
    free(records);
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
    (void)c;
    (void)s;
    *n = 0;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetTimestamp(uint64_t *t)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
    (void)r;
    *s = "fake CUPTI error";
    return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t *v)
{
    *v = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

/* NVTX's handover: nothing to hand over here. */
FAKE_EXPORT int InitializeInjectionNvtx2(void *get_export_table)
{
    (void)get_export_table;
    return 1;
}

/* FAKE_CUPTI_ENABLED=PATH: what the client enabled, written at exit, one per line:
 * "callback DOMAIN CBID", "kind KIND". */
__attribute__((destructor)) static void fake_report_enabled(void)
{
    const char *path = getenv("FAKE_CUPTI_ENABLED");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f) return;
    for (int d = 0; d < 8; d++)
        for (int c = 0; c < 4096; c++)
            if (atomic_load(&fake_enabled[d][c])) fprintf(f, "callback %d %d\n", d, c);
    for (int k = 0; k < 256; k++)
        if (atomic_load(&fake_kinds[k])) fprintf(f, "kind %d\n", k);
    fclose(f);
}

/* ---- what the driver calls ----------------------------------------------------------- */

/* Set by fake_cupti_next_kernel for the calling thread's next launch; 0: not set. */
static __thread uint64_t fake_next_start, fake_next_end;
/* Set by fake_cupti_next_call_ends for the calling thread's next call; 0: not set. */
static __thread uint64_t fake_next_call_end;

static void fake_put(fake_slot record)
{
    pthread_mutex_lock(&fake_lock);
    if (fake_n_pending == fake_cap_pending) {
        size_t cap = fake_cap_pending ? 2 * fake_cap_pending : 256;
        fake_pending = realloc(fake_pending, cap * sizeof *fake_pending);
        fake_cap_pending = cap;
    }
    fake_pending[fake_n_pending++] = record;
    pthread_mutex_unlock(&fake_lock);
}

FAKE_EXPORT void fake_cupti_next_kernel(uint64_t start_ns, uint64_t end_ns)
{
    fake_next_start = start_ns;
    fake_next_end = end_ns;
}

FAKE_EXPORT void fake_cupti_next_call_ends(uint64_t end_ns)
{
    fake_next_call_end = end_ns;
}

FAKE_EXPORT void fake_cupti_stream(uint32_t stream_id, uint32_t flag)
{
    fake_put((fake_slot){.stream = {.kind = CUPTI_ACTIVITY_KIND_STREAM, .contextId = 1,
                                    .streamId = stream_id, .flag = (CUpti_ActivityStreamFlag)flag}});
}

static void fake_fire(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    if (atomic_load(&fake_subscribed) && atomic_load(&fake_enabled[domain][cbid]))
        fake_callback(fake_userdata, domain, cbid, data);
}

FAKE_EXPORT uint32_t fake_cupti_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name,
                         const void *params, const char *kernel, uint32_t stream_id)
{
    uint32_t corr = atomic_fetch_add(&fake_correlation, 1);
    uint64_t correlation_data = 0;
    int result = 0;
    CUpti_CallbackData cb = {
        .callbackSite = CUPTI_API_ENTER, .functionName = name, .functionParams = params,
        .functionReturnValue = &result, .symbolName = kernel, .contextUid = 1,
        .correlationData = &correlation_data, .correlationId = corr,
    };
    fake_fire(domain, cbid, &cb);
    uint64_t start;
    cuptiGetTimestamp(&start);
    for (uint64_t until = fake_next_call_end; start < until; cuptiGetTimestamp(&start)) {
        struct timespec nap = {0, (long)(until - start)};
        nanosleep(&nap, NULL);  /* a call that blocks, as a synchronize waits for the device */
    }
    fake_next_call_end = 0;
    cb.callbackSite = CUPTI_API_EXIT;
    fake_fire(domain, cbid, &cb);
    if (kernel) {
        uint64_t begin = start + 1000, end = start + 3000;
        if (fake_next_end) {    /* fake_cupti_next_kernel: this thread chose the times */
            begin = fake_next_start;
            end = fake_next_end;
            fake_next_end = 0;
        }
        fake_put((fake_slot){.kernel = {
            .kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .start = begin,
            .end = end, .deviceId = 0, .contextId = 1, .streamId = stream_id,
            .correlationId = corr, .gridX = 1, .gridY = 1, .gridZ = 1, .blockX = 32,
            .blockY = 1, .blockZ = 1, .name = kernel,
        }});
    }
    return corr;
}

FAKE_EXPORT void fake_cupti_nvtx(CUpti_CallbackId cbid, const char *name, const void *params,
                     const void *result)
{
    CUpti_NvtxData d = {.functionName = name, .functionParams = params,
                        .functionReturnValue = result};
    fake_fire(CUPTI_CB_DOMAIN_NVTX, cbid, &d);
}
