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

/* A kernel's solo duration is its own duration or its group's median, nothing else: a byte
 * per kernel says which and whether it is known, and the median is kept per kernel shape (a
 * shape is one group's), where 8 bytes a kernel held the duration itself. */
#define SC_SOLO_KNOWN 1u        /* it ran alone, or borrowed a consistent median */
#define SC_SOLO_BORROWED 2u     /* its solo duration is its shape's median (with KNOWN) */

/* overlapped[k]: kernel k ran at the same time as another kernel on its device; peak[k]: the
 * most kernels running at once while it ran, itself included (both from the overlap engine).
 * Fills solo[k] (SC_SOLO_* bits) and solo_ns[k] (the duration they stand for, for the
 * caller's sums) for every trace kernel, and shape_median[s] for every kernel shape (0 for a
 * shape no kernel has). Returns 0 or -1 when out of memory. */
int sc_solo_compute(const sc_trace *trace, const bool *overlapped, const uint32_t *peak,
                    uint8_t *solo, uint64_t *solo_ns, uint64_t *shape_median);

#endif
