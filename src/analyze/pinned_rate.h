/* How fast this trace's pinned copies ran: the yardstick for "what pinned memory would have
 * saved" (pageable-async).
 *
 * Measured, never assumed: per direction, the median rate (bytes per ns) of the async copies
 * between device and pinned host memory of at least SC_PINNED_RATE_MIN_BYTES (small copies
 * measure latency, not bandwidth). A direction without such copies has no rate, and then no
 * estimate is made: a constant per device generation would be a guess.
 */
#ifndef SC_ANALYZE_PINNED_RATE_H
#define SC_ANALYZE_PINNED_RATE_H

#include <stdbool.h>
#include <stdint.h>

#include "streamcheck/trace.h"

#define SC_PINNED_RATE_MIN_BYTES (1u << 20)

typedef struct sc_pinned_rate {
    double h2d_bytes_per_ns, d2h_bytes_per_ns;
    uint64_t h2d_samples, d2h_samples;      /* copies measured; 0: no rate */
} sc_pinned_rate;

/* Returns 0, or -1 when out of memory. */
int sc_pinned_rate_measure(const sc_trace *t, sc_pinned_rate *out);

/* The duration copy c would have had at the measured pinned rate of its direction
 * (host-to-device or device-to-host). False when that direction has no rate. */
bool sc_pinned_rate_estimate(const sc_pinned_rate *r, const sc_rec_memcpy *c, uint64_t *ns);

#endif
