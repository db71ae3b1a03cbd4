// libcupti_floor.so: the least a CUPTI-based tracer pays. It enables what it is told to,
// counts the activity records CUPTI hands back and discards them; its callbacks are empty.
// The overhead benchmark (tools/bench/overhead) compares streamcheck against it.
//
//   LD_PRELOAD=libcupti_floor.so ./app
//
//   CUPTI_FLOOR_KINDS      kernel (default): CONCURRENT_KERNEL only, the floor of any tracer;
//                          streamcheck: every activity kind streamcheck enables
//                          (src/preload/activity_kinds.h), with its flush period
//   CUPTI_FLOOR_CALLBACKS  0 (default): no callbacks;
//                          1 or launch: an empty callback on the kernel-launch ids;
//                          streamcheck: an empty callback on every id streamcheck enables
//                          (src/preload/calls.c, built into this library: the same table),
//                          NVTX and resource ids included; NVTX then reaches CUPTI through this
//                          library, as it reaches it through streamcheck
//   CUPTI_FLOOR_CLOCK      0 (default); cupti: each callback reads cuptiGetTimestamp once (a
//                          call's entry and exit: two reads a call, as streamcheck made before
//                          it read the CPU's counter); counter: each reads the CPU's time-stamp
//                          counter once, the least any tracer that times calls pays above the
//                          floor (src/preload/clock.h); entry: reads the counter at a call's
//                          entry only (NVTX and resource callbacks, which have no exit, at
//                          each): one read a call, the least a tracer that only notes when a
//                          call began pays
//
// KINDS=streamcheck CALLBACKS=streamcheck is "the floor" of every call class: a minimal
// client with the same callbacks and activity kinds, doing nothing in them. Whatever
// streamcheck costs above it is what streamcheck itself does.
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
#include <string.h>
#include <sys/mman.h>

#include "preload/activity_kinds.h"
#include "preload/calls.h"
#include "preload/clock.h"
#include "streamcheck/trace_format.h"

#define FLOOR_EXPORT __attribute__((visibility("default")))

static uint64_t floor_records;  // updated from CUPTI's buffer thread, read at exit
static int floor_started;

// Buffers as streamcheck gives them (activity_kinds.h): zero pages from mmap, shared by all
// threads, so that the floor does not pay CUPTI's per-thread zeroing that streamcheck avoids.
static void floor_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *p = mmap(NULL, SC_ACTIVITY_BUFFER_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *buffer = p == MAP_FAILED ? NULL : p;
    *size = *buffer != NULL ? SC_ACTIVITY_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void floor_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                   size_t size, size_t valid)
{
    (void)ctx;
    (void)stream_id;
    CUpti_Activity *record = NULL;
    uint64_t n = 0;
    // Walking the records is part of what every tracer does with a buffer; keep it.
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
        ++n;
    __atomic_fetch_add(&floor_records, n, __ATOMIC_RELAXED);
    munmap(buffer, size);
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

static __thread uint64_t floor_clock_sink;  // keeps the read from being optimized away

static void CUPTIAPI floor_cupti_clock_callback(void *userdata, CUpti_CallbackDomain domain,
                                                CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    floor_clock_sink += now;
}

static void CUPTIAPI floor_counter_callback(void *userdata, CUpti_CallbackDomain domain,
                                            CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
    floor_clock_sink += sc_clock_counter();
}

// One read a call: at the entry of a runtime or driver call, at every callback of the
// domains that have no entry and exit (NVTX, resource).
static void CUPTIAPI floor_entry_counter_callback(void *userdata, CUpti_CallbackDomain domain,
                                                  CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    (void)cbid;
    if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) &&
        ((const CUpti_CallbackData *)data)->callbackSite != CUPTI_API_ENTER)
        return;
    floor_clock_sink += sc_clock_counter();
}

static int floor_fail(const char *what, CUptiResult r)
{
    const char *msg = NULL;
    cuptiGetResultString(r, &msg);
    fprintf(stderr, "cupti_floor: %s failed: %s\n", what, msg != NULL ? msg : "?");
    return 0;
}

static const char *floor_env(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : fallback;
}

static int floor_enable_kinds(void)
{
    if (strcmp(floor_env("CUPTI_FLOOR_KINDS", "kernel"), "streamcheck") != 0) {
        CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        return r == CUPTI_SUCCESS ? 1 : floor_fail("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
    }
    cuptiActivityFlushPeriod(500);  // as streamcheck sets it
    for (size_t i = 0; i < SC_ACTIVITY_KINDS; i++) {
        CUptiResult r = cuptiActivityEnable(sc_activity_kinds[i].kind);
        if (r != CUPTI_SUCCESS) floor_fail(sc_activity_kinds[i].name, r);
    }
    return 1;
}

static int floor_enable_callbacks(void)
{
    const char *which = floor_env("CUPTI_FLOOR_CALLBACKS", "0");
    if (strcmp(which, "0") == 0) return 1;
    static CUpti_SubscriberHandle sub;
    const char *clock = floor_env("CUPTI_FLOOR_CLOCK", "0");
    CUpti_CallbackFunc callback = strcmp(clock, "cupti") == 0     ? floor_cupti_clock_callback
                                  : strcmp(clock, "counter") == 0 ? floor_counter_callback
                                  : strcmp(clock, "entry") == 0   ? floor_entry_counter_callback
                                                                  : floor_empty_callback;
    CUptiResult r = cuptiSubscribe(&sub, callback, NULL);
    if (r != CUPTI_SUCCESS) return floor_fail("cuptiSubscribe", r);
    if (strcmp(which, "streamcheck") == 0) {
        unsigned n = 0;
        const sc_hook *hooks = sc_hooks(&n);
        for (unsigned i = 0; i < n; i++)
            cuptiEnableCallback(1, sub, (CUpti_CallbackDomain)hooks[i].domain, hooks[i].cbid);
        const uint32_t *ids = sc_nvtx_hooks(&n);
        for (unsigned i = 0; i < n; i++) cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_NVTX, ids[i]);
        ids = sc_resource_hooks(&n);
        for (unsigned i = 0; i < n; i++)
            cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, ids[i]);
        return 1;
    }
    // launch: the kernel-launch ids only (the old floor+cb)
    unsigned n = 0;
    const sc_hook *hooks = sc_hooks(&n);
    for (unsigned i = 0; i < n; i++)
        if (hooks[i].call_class == SC_CALL_LAUNCH)
            cuptiEnableCallback(1, sub, (CUpti_CallbackDomain)hooks[i].domain, hooks[i].cbid);
    return 1;
}

// Called by the driver at cuInit because the constructor set CUDA_INJECTION64_PATH.
FLOOR_EXPORT int InitializeInjection(void)
{
    if (__atomic_exchange_n(&floor_started, 1, __ATOMIC_ACQ_REL))
        return 1;
    for (size_t i = 0; i < SC_ACTIVITY_ATTRIBUTES; i++) {  // before the callbacks (CUPTI's rule)
        uint8_t v = sc_activity_attributes[i].value;
        size_t vs = sizeof v;
        cuptiActivitySetAttribute(sc_activity_attributes[i].attribute, &vs, &v);
    }
    CUptiResult r = cuptiActivityRegisterCallbacks(floor_buffer_requested,
                                                   floor_buffer_completed);
    if (r != CUPTI_SUCCESS)
        return floor_fail("cuptiActivityRegisterCallbacks", r);
    if (!floor_enable_kinds() || !floor_enable_callbacks())
        return 0;
    atexit(floor_at_exit);
    return 1;
}

// NVTX's first call lands here when the constructor named this library in
// NVTX_INJECTION64_PATH (CALLBACKS=streamcheck): NVTX is handed to CUPTI, as streamcheck does.
FLOOR_EXPORT int InitializeInjectionNvtx2(void *get_export_table)
{
    Dl_info info;
    if (dladdr((void *)cuptiSubscribe, &info) == 0 || info.dli_fname == NULL)
        return 0;
    void *cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    int (*init)(void *) = cupti ? (int (*)(void *))dlsym(cupti, "InitializeInjectionNvtx2") : NULL;
    return init ? init(get_export_table) : 0;
}

__attribute__((constructor)) static void floor_init(void)
{
    Dl_info info;
    char path[PATH_MAX];
    // Our own absolute path, so that the driver loads this same (already loaded) library
    // even if the program changes directory. An injection path the user set already wins.
    if (dladdr((void *)floor_init, &info) == 0 || info.dli_fname == NULL)
        return;
    const char *self = realpath(info.dli_fname, path) != NULL ? path : info.dli_fname;
    setenv("CUDA_INJECTION64_PATH", self, 0);
    if (strcmp(floor_env("CUPTI_FLOOR_CALLBACKS", "0"), "streamcheck") == 0)
        setenv("NVTX_INJECTION64_PATH", self, 0);
}
