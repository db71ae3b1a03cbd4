/* The API calls streamcheck hooks through CUPTI callbacks: one table, one entry a call,
 * saying what the call is to the analyzer (enum sc_call_class) and how to read its
 * arguments. Only these callback ids are enabled, never whole domains (GPU-FACTS.md: a
 * domain costs 0.3-0.6 us on every cheap call). The benchmark's CUPTI floor
 * (tools/bench/cupti_floor.c) is built with this file, so that it enables the very same ids. */
#ifndef SC_PRELOAD_CALLS_H
#define SC_PRELOAD_CALLS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
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
/* Builds the lookup tables; call once before enabling callbacks. */
void sc_hooks_init(void);

/* A hooked call as the hot path (callbacks.c) reads it: its table entry and what follows
 * from it, worked out once by sc_hooks_init rather than on every call. */
typedef struct sc_hook_hot {
    const sc_hook *hook;    /* the entry: also what names the call's compact site */
    sc_extract_fn extract;
    /* sc_rec_api's domain, cbid, call_class and n_frames (0) as the one little-endian word
     * they fill: a record adds its frame count in the top 16 bits. */
    uint64_t api_word;
    /* Where a call that shares another call's sampled stack names it (sample.h):
     * SC_API_STACK_SHARED (in aux) or SC_API_STACK_SHARED_AUX2 (aux holds a handle), 0 for a
     * call that always keeps a stack of its own. */
    uint32_t share;
    uint32_t sample_tag;    /* its calls' sample key's cbid and class (sample.h) */
    uint16_t call_class;
    uint16_t flags;         /* the entry's enum sc_api_flags */
    bool launch;            /* a kernel launch: its kernel is part of its sample key */
    bool device_sync;       /* a device-wide synchronization: CUPTI's buffers follow it */
    atomic_uchar named;     /* its CALL_NAME record was written (once per process) */
} sc_hook_hot;

/* The lookup tables, indexed by domain - 1 ([0] driver, [1] runtime) and callback id. */
enum { SC_HOOK_SLOTS = 2048 };  /* above every runtime and driver callback id of CUDA 13 */
extern sc_hook_hot *sc_hook_slots[2][SC_HOOK_SLOTS];

/* The hook of a callback, or NULL if it is not one of ours. Inline, two loads: the hot path
 * calls it on every callback. */
static inline sc_hook_hot *sc_hook_find(uint32_t domain, uint32_t cbid)
{
    uint32_t d = domain - 1;    /* CUPTI_CB_DOMAIN_DRIVER_API = 1, _RUNTIME_API = 2 */
    if (d > 1 || cbid >= SC_HOOK_SLOTS) return NULL;
    return sc_hook_slots[d][cbid];
}

#endif
