/* What managed memory did during each kernel, from CUPTI's unified-memory counters (UNIFIED
 * records: only when unified-memory tracing was on). Shared by the rule managed-faults and
 * the replay that prices its fix, so both see the same numbers.
 *
 * Demand traffic is every host-to-device migration the program did not ask for: cause
 * COHERENCE (a page fault moved the page) or the driver's own prefetch around a fault, and
 * any other cause but USER (cudaMemPrefetchAsync). A migration or a fault group belongs to
 * the kernels of its device that were running when it started; several such kernels share
 * its bytes and groups equally. A kernel's migrating time is the union of the demand
 * migrations that overlapped it, clipped to it: the part of its run spent waiting for pages.
 *
 * What a prefetch would leave: the kernel without its migrating time, plus its bytes moved
 * at the prefetch rate: this trace's own cudaMemPrefetchAsync traffic (USER migrations of at
 * least 1 MiB in all) where it has some, else the pinned host-to-device rate (pinned_rate.h).
 */
#ifndef SC_ANALYZE_UNIFIED_H
#define SC_ANALYZE_UNIFIED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"

typedef struct sc_unified_kernel {
    uint64_t bytes;             /* demand bytes migrated to its device while it ran */
    uint64_t fault_groups;      /* GPU page fault groups serviced while it ran */
    uint64_t migrating_ns;      /* union of the demand migrations, clipped to it */
    uint64_t prefetched_ns;     /* its duration had its pages been prefetched (never more
                                   than its duration) */
} sc_unified_kernel;

typedef struct sc_unified {
    sc_unified_kernel *kernels; /* per trace->kernels entry; NULL when the trace has no
                                   UNIFIED record */
    bool rate_measured;         /* the prefetch rate is this trace's own */
    double bytes_per_ns;
    char basis[96];             /* the rate and where it came from, in a few words */
} sc_unified;

/* Returns 0, or -1 when out of memory. Built once per analysis (context.c: ctx->unified);
 * the rule and the replay read it there. */
int sc_unified_measure(const sc_ctx *ctx, sc_unified *out);
void sc_unified_free(sc_unified *u);

#endif
