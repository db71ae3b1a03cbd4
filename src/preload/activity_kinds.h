/* The CUPTI activity kinds streamcheck enables, in one place: activity.c enables them, and
 * the benchmark's CUPTI floor (tools/bench/cupti_floor.c) enables the same ones, so that
 * "the floor" of a call class is a minimal client with streamcheck's callbacks and kinds.
 * CONCURRENT_KERNEL, never KERNEL (which serializes kernels, GPU-FACTS.md). */
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
};

#define SC_ACTIVITY_KINDS (sizeof sc_activity_kinds / sizeof *sc_activity_kinds)

#endif
