/* Productive overlap: how long each kernel takes when it runs alone.
 *
 * Overlap only pays when the busy time is shorter than the same kernels one after another.
 * A kernel that overlapped nothing took its solo duration. A kernel that shared the device
 * takes the median duration of the instances of the same kernel (same device, same name,
 * same grid and block) that overlapped no other kernel, when that median is consistent with
 * the same work: sharing the device slows a kernel down, it does not speed it up (its own
 * duration is at least 0.9 x the median), and with at most `peak` kernels running at once
 * beside it each got about 1/peak of the device (its own duration is at most 1.5 x peak x
 * the median: contention costs a little beyond the fair share). A warm-up with a loop count of 10 and a run with 200000 share a name and a launch
 * shape but not their work: that median is refused. Without a consistent instance the
 * kernel counts its own duration, and its solo time is unknown.
 */
#ifndef SC_ANALYZE_SOLO_H
#define SC_ANALYZE_SOLO_H

#include <stdbool.h>
#include <stdint.h>

#include "streamcheck/trace.h"

/* overlapped[k]: kernel k ran at the same time as another kernel on its device; peak[k]: the
 * most kernels running at once while it ran, itself included (both from the overlap engine).
 * Fills solo_ns[k] and known[k] for every trace kernel. Returns 0 or -1 when out of memory. */
int sc_solo_compute(const sc_trace *trace, const bool *overlapped, const uint32_t *peak,
                    uint64_t *solo_ns, bool *known);

#endif
