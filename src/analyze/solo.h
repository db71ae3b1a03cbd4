/* Productive overlap: how long each kernel takes when it runs alone.
 *
 * Overlap only pays when the busy time is shorter than the same kernels one after another.
 * A kernel that overlapped nothing took its solo duration. A kernel that shared the device
 * takes the median duration of the instances of the same kernel (same device, same name,
 * same grid and block) that overlapped no other kernel; with no such instance it counts its
 * own duration, and its solo time is unknown.
 */
#ifndef SC_ANALYZE_SOLO_H
#define SC_ANALYZE_SOLO_H

#include <stdbool.h>
#include <stdint.h>

#include "streamcheck/trace.h"

/* overlapped[k]: kernel k ran at the same time as another kernel on its device (from the
 * overlap engine). Fills solo_ns[k] and known[k] for every trace kernel. Returns 0 or -1 when
 * out of memory. */
int sc_solo_compute(const sc_trace *trace, const bool *overlapped, uint64_t *solo_ns,
                    bool *known);

#endif
