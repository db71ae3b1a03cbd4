/* The CUPTI activity kinds streamcheck enables, and how it gives CUPTI its buffers, in one
 * place: activity.c does it, and the benchmark's CUPTI floor (tools/bench/cupti_floor.c) does
 * the same, so that "the floor" of a call class is a minimal client with streamcheck's
 * callbacks, kinds and buffers. CONCURRENT_KERNEL, never KERNEL (which serializes kernels,
 * GPU-FACTS.md). */
#ifndef SC_PRELOAD_ACTIVITY_KINDS_H
#define SC_PRELOAD_ACTIVITY_KINDS_H

#include <cupti.h>

static const struct sc_activity_kind {
    CUpti_ActivityKind kind;
    const char *name;
} sc_activity_kinds[] = {
    {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE"},
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
    {CUPTI_ACTIVITY_KIND_STREAM, "STREAM"},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"},
    /* module loads on first launch (lazy-loading's evidence), a full launch queue, and what
     * tracing itself cost */
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD"},
};

#define SC_ACTIVITY_KINDS (sizeof sc_activity_kinds / sizeof *sc_activity_kinds)

/* CUPTI asks for a buffer on whichever application thread produces the record that needs
 * one, and by default zeroes it there: 8 MiB of fresh pages, 4-5 ms on the H200 machine, and
 * with per-thread buffers (CUPTI's default) under a lock that made two threads' first
 * launches run one after the other (GPU-FACTS.md, "Observer effect"). So buffers are shared
 * by all threads (PER_THREAD_ACTIVITY_BUFFER 0), and they come from mmap, whose pages are
 * zero already (ZEROED_OUT_ACTIVITY_BUFFER 1): a request costs one system call, and pages
 * are touched only as records fill them. Both attributes are set before the buffer callbacks
 * are registered and any kind is enabled (CUPTI's rule). */
#define SC_ACTIVITY_BUFFER_BYTES (8u << 20)
static const struct sc_activity_attribute {
    CUpti_ActivityAttribute attribute;
    uint8_t value;
} sc_activity_attributes[] = {
    {CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, 0},
    {CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, 1},
};

#define SC_ACTIVITY_ATTRIBUTES (sizeof sc_activity_attributes / sizeof *sc_activity_attributes)

#endif
