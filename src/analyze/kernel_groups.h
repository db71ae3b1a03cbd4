/* The launches of each kernel: a trace's kernels grouped by (device, context, name), each
 * group's first launch found in one pass, and the other launches gathered only for the
 * groups a rule asks about. lazy-loading judges every kernel's first launch, but needs the
 * later ones only where the first could qualify: ordering every kernel by (device, context,
 * name, issue) to find the firsts cost a sort of every kernel, where a pass with a lookup in
 * a table of a few hundred groups does. */
#ifndef SC_ANALYZE_KERNEL_GROUPS_H
#define SC_ANALYZE_KERNEL_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/launches.h"
#include "streamcheck/trace.h"

typedef struct sc_kernel_group {
    uint32_t device, context_id, name_id;
    size_t first;               /* the kernel of its least (issue time, kernel index) */
    uint64_t first_issue;       /* its issue (sc_launch_issue): the build compares each
                                   kernel's with it */
    size_t count;               /* its launches, the first included */
    bool gather;                /* set by the caller: sc_kernel_groups_gather collects it */
    size_t members_at;          /* after gathering: where its launches start in members */
} sc_kernel_group;

typedef struct sc_kernel_groups {
    sc_kernel_group *groups;    /* ascending by (device, context_id, name_id) */
    size_t n;
    size_t *members;            /* after gathering: each gathered group's kernels together,
                                   in kernel index order, count of them at members_at */
    /* the lookup from a kernel to its group */
    uint32_t *slots;            /* a group's position + 1 per slot, 0 when empty */
    size_t cap;                 /* slots: a power of two */
} sc_kernel_groups;

/* Groups t's kernels; sc_launch_issue(t, &launches[k], k) is kernel k's issue time.
 * Returns 0, or -1 without memory (out is then empty). */
int sc_kernel_groups_build(const sc_trace *t, const sc_launch *launches, sc_kernel_groups *out);

/* Collects the kernels of the groups whose gather flag the caller set. Returns 0, or -1
 * without memory. */
int sc_kernel_groups_gather(const sc_trace *t, sc_kernel_groups *g);

void sc_kernel_groups_free(sc_kernel_groups *g);

#endif
