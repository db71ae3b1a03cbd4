/* How fast a copy from pinned memory would run: the yardstick for "what pinned memory would
 * save" (pageable-async, and its fix in the replay).
 *
 * Measured where the trace can: per direction, the median rate (bytes per ns) of the async
 * copies between device and pinned host memory of at least SC_PINNED_RATE_MIN_BYTES (small
 * copies measure latency, not bandwidth). A direction without such copies falls back to a
 * documented default per device generation (sc_pinned_rate_for), and says so.
 */
#ifndef SC_ANALYZE_PINNED_RATE_H
#define SC_ANALYZE_PINNED_RATE_H

#include <stdbool.h>
#include <stdint.h>

#include "streamcheck/trace.h"

#define SC_PINNED_RATE_MIN_BYTES (1u << 20)

/* An async copy with pageable host memory at one end (its shape says: sc_copy_shape_of): the
 * driver stages it while the call waits. What pageable-async reports and the replay's fix
 * runs at the pinned rate. */
static inline bool sc_copy_pageable_async(const sc_copy_shape *c)
{
    return (c->flags & SC_MEMCPY_ASYNC) &&
           (c->src_kind == SC_MEM_PAGEABLE || c->dst_kind == SC_MEM_PAGEABLE);
}

typedef struct sc_pinned_rate {
    double h2d_bytes_per_ns, d2h_bytes_per_ns;
    uint64_t h2d_samples, d2h_samples;      /* copies measured; 0: no rate */
} sc_pinned_rate;

/* Returns 0, or -1 when out of memory. */
int sc_pinned_rate_measure(const sc_trace *t, sc_pinned_rate *out);

/* The duration copy c would have had at the measured pinned rate of its direction
 * (host-to-device or device-to-host). False when that direction has no rate. */
bool sc_pinned_rate_estimate(const sc_pinned_rate *r, const sc_rec_memcpy *c, uint64_t *ns);

/* The duration copy c would have from pinned memory: at the measured rate of its direction
 * when there is one, else at the default rate of a PCIe x16 link of its device's generation
 * (50 GB/s for compute capability 9.x, what an H200 measured; 25 for 8.x; 12 before), plus
 * SC_PINNED_COPY_LATENCY_NS. `device` is the copy's device record (NULL when the trace
 * has none). `basis` receives the rate and where it came from, in a few words ("11.7 GB/s
 * measured here", "50 GB/s, cc 9.x default"). Returns
 * whether the rate was measured. */
#define SC_PINNED_COPY_LATENCY_NS 2000u
bool sc_pinned_rate_for(const sc_pinned_rate *r, const sc_device *device, const sc_rec_memcpy *c,
                        uint64_t *ns, char *basis, size_t basis_size);

#endif
