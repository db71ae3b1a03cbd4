/* The API calls streamcheck hooks through CUPTI callbacks: one table, one entry a call,
 * saying what the call is to the analyzer (enum sc_call_class) and how to read its
 * arguments. Only these callback ids are enabled, never whole domains (GPU-FACTS.md: a
 * domain costs 0.3-0.6 us on every cheap call). The benchmark's CUPTI floor
 * (tools/bench/cupti_floor.c) is built with this file, so that it enables the very same ids. */
#ifndef SC_PRELOAD_CALLS_H
#define SC_PRELOAD_CALLS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sc_call_args {
    uint64_t stream;    /* stream handle, SC_STREAM_NONE if the call takes none */
    uint64_t bytes;
    uint64_t aux;
    uint32_t aux2;
} sc_call_args;

/* Reads the arguments from CUPTI's params struct; at_exit is true in the exit callback,
 * where output arguments (a created stream's handle) are valid. */
typedef void (*sc_extract_fn)(const void *params, bool at_exit, sc_call_args *args);

typedef struct sc_hook {
    uint16_t domain;        /* CUPTI_CB_DOMAIN_RUNTIME_API or _DRIVER_API */
    uint16_t cbid;
    uint16_t call_class;    /* enum sc_call_class */
    uint16_t flags;         /* enum sc_api_flags */
    sc_extract_fn extract;  /* NULL: no arguments worth keeping */
} sc_hook;

/* Every hooked call, for enabling them. */
const sc_hook *sc_hooks(unsigned *count);
/* The NVTX callback ids (CUPTI_CB_DOMAIN_NVTX) streamcheck enables. */
const uint32_t *sc_nvtx_hooks(unsigned *count);
/* The resource callback ids (CUPTI_CB_DOMAIN_RESOURCE) streamcheck enables. */
const uint32_t *sc_resource_hooks(unsigned *count);
/* cudaProfilerStart/Stop and cuProfilerStart/Stop, enabled for capture=profiler only. */
const sc_hook *sc_profiler_hooks(unsigned *count);
/* 1: a profiler start, -1: a stop, 0: neither. */
int sc_profiler_call(uint16_t domain, uint16_t cbid);
/* The hook of a callback, or NULL if it is not one of ours. O(1): the hot path calls it. */
const sc_hook *sc_hook_find(uint16_t domain, uint16_t cbid);
/* Builds the lookup tables; call once before enabling callbacks. */
void sc_hooks_init(void);

#endif
