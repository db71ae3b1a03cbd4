/* Finding and opening libcupti at run time. The library has no DT_NEEDED entry on CUPTI
 * (nor on libcuda or libcudart): where CUDA is absent it must still load and stay inert. */
#ifndef SC_PRELOAD_CUPTI_LOADER_H
#define SC_PRELOAD_CUPTI_LOADER_H

#include <cupti.h>
#include <stddef.h>

/* The CUPTI functions streamcheck calls, typed from cupti.h's own prototypes. */
typedef struct sc_cupti {
    void *handle;
    char path[4096];
    uint32_t version;
    __typeof__(&cuptiSubscribe) Subscribe;
    __typeof__(&cuptiUnsubscribe) Unsubscribe;
    __typeof__(&cuptiEnableCallback) EnableCallback;
    __typeof__(&cuptiEnableDomain) EnableDomain;
    __typeof__(&cuptiActivityEnable) ActivityEnable;
    __typeof__(&cuptiActivityDisable) ActivityDisable;
    __typeof__(&cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks;
    __typeof__(&cuptiActivityFlushAll) ActivityFlushAll;
    __typeof__(&cuptiActivityGetNextRecord) ActivityGetNextRecord;
    __typeof__(&cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords;
    __typeof__(&cuptiGetTimestamp) GetTimestamp;
    __typeof__(&cuptiGetResultString) GetResultString;
    __typeof__(&cuptiGetVersion) GetVersion;
    __typeof__(&cuptiActivityFlushPeriod) ActivityFlushPeriod;  /* optional: may be NULL */
    __typeof__(&cuptiActivitySetAttribute) ActivitySetAttribute;  /* optional: may be NULL */
    /* optional: may be NULL */
    __typeof__(&cuptiActivityConfigureUnifiedMemoryCounter) ActivityConfigureUnifiedMemoryCounter;
} sc_cupti;

extern sc_cupti sc_cupti_api;

/* Opens CUPTI: an already loaded copy first (PyTorch brings its own), then
 * STREAMCHECK_CUPTI, the loader's search path, the toolkit streamcheck was built with and
 * /usr/local/cuda. Returns 0, or -1 with the reason in err. */
int sc_cupti_load(const char *override_path, char *err, size_t err_size);

/* CUPTI's text for a result code (never NULL). */
const char *sc_cupti_error(CUptiResult result);

#endif
