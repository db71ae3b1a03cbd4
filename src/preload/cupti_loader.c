#include "preload/cupti_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

sc_cupti sc_cupti_api;

#ifndef SC_TOOLKIT_LIB_DIRS
#define SC_TOOLKIT_LIB_DIRS ""
#endif

static void *sc_try_open(const char *path, int extra_flags)
{
    return dlopen(path, RTLD_NOW | RTLD_LOCAL | extra_flags);
}

static void *sc_open_cupti(const char *override_path)
{
    static const char *const sonames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
    void *h;
    for (size_t i = 0; i < sizeof sonames / sizeof *sonames; i++)
        if ((h = sc_try_open(sonames[i], RTLD_NOLOAD))) return h;
    if (override_path && *override_path) return sc_try_open(override_path, 0);
    for (size_t i = 0; i < sizeof sonames / sizeof *sonames; i++)
        if ((h = sc_try_open(sonames[i], 0))) return h;
    /* Toolkit folders, ':'-separated, fixed at build time, then the usual install. */
    char dirs[2048];
    snprintf(dirs, sizeof dirs, "%s:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64",
             SC_TOOLKIT_LIB_DIRS);
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char path[4096];
        snprintf(path, sizeof path, "%s/libcupti.so", d);
        if ((h = sc_try_open(path, 0))) return h;
    }
    return NULL;
}

#define SC_BIND(field, symbol)                                          \
    do {                                                                \
        *(void **)&sc_cupti_api.field = dlsym(sc_cupti_api.handle, #symbol); \
        if (!sc_cupti_api.field) missing = #symbol;                     \
    } while (0)

static int sc_cupti_load_locked(const char *override_path, char *err, size_t err_size);

int sc_cupti_load(const char *override_path, char *err, size_t err_size)
{
    /* NVTX's first call (nvtx.c) and cuInit may come from two threads at once. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    int rc = sc_cupti_api.handle && sc_cupti_api.GetTimestamp
                 ? 0 : sc_cupti_load_locked(override_path, err, err_size);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int sc_cupti_load_locked(const char *override_path, char *err, size_t err_size)
{
    memset(&sc_cupti_api, 0, sizeof sc_cupti_api);
    sc_cupti_api.handle = sc_open_cupti(override_path);
    if (!sc_cupti_api.handle) {
        snprintf(err, err_size,
                 "libcupti not found (set STREAMCHECK_CUPTI to the path of libcupti.so)");
        return -1;
    }
    struct link_map *lm = NULL;
    if (dlinfo(sc_cupti_api.handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
        snprintf(sc_cupti_api.path, sizeof sc_cupti_api.path, "%s", lm->l_name);
    const char *missing = NULL;
    SC_BIND(Subscribe, cuptiSubscribe);
    SC_BIND(Unsubscribe, cuptiUnsubscribe);
    SC_BIND(EnableCallback, cuptiEnableCallback);
    SC_BIND(EnableDomain, cuptiEnableDomain);
    SC_BIND(ActivityEnable, cuptiActivityEnable);
    SC_BIND(ActivityDisable, cuptiActivityDisable);
    SC_BIND(ActivityRegisterCallbacks, cuptiActivityRegisterCallbacks);
    SC_BIND(ActivityFlushAll, cuptiActivityFlushAll);
    SC_BIND(ActivityGetNextRecord, cuptiActivityGetNextRecord);
    SC_BIND(ActivityGetNumDroppedRecords, cuptiActivityGetNumDroppedRecords);
    SC_BIND(GetTimestamp, cuptiGetTimestamp);
    SC_BIND(GetResultString, cuptiGetResultString);
    SC_BIND(GetVersion, cuptiGetVersion);
    *(void **)&sc_cupti_api.ActivityFlushPeriod = dlsym(sc_cupti_api.handle, "cuptiActivityFlushPeriod");
    *(void **)&sc_cupti_api.ActivitySetAttribute = dlsym(sc_cupti_api.handle, "cuptiActivitySetAttribute");
    *(void **)&sc_cupti_api.ActivityConfigureUnifiedMemoryCounter =
        dlsym(sc_cupti_api.handle, "cuptiActivityConfigureUnifiedMemoryCounter");
    if (missing) {
        snprintf(err, err_size, "%s lacks %s", sc_cupti_api.path, missing);
        return -1;
    }
    /* Activity record layouts (Kernel10, Memcpy6, ...) are those of the headers we were
     * built with; an older CUPTI would hand us shorter records. */
    if (sc_cupti_api.GetVersion(&sc_cupti_api.version) != CUPTI_SUCCESS ||
        sc_cupti_api.version < CUPTI_API_VERSION) {
        snprintf(err, err_size, "%s is CUPTI API version %u; streamcheck needs %u or newer",
                 sc_cupti_api.path, sc_cupti_api.version, (unsigned)CUPTI_API_VERSION);
        return -1;
    }
    return 0;
}

const char *sc_cupti_error(CUptiResult result)
{
    const char *s = NULL;
    if (sc_cupti_api.GetResultString && sc_cupti_api.GetResultString(result, &s) == CUPTI_SUCCESS && s)
        return s;
    return "unknown CUPTI error";
}
