/* Peer copies staged through host memory, and how fast a direct one would run.
 *
 * A copy between two devices without peer access between them (cudaDeviceEnablePeerAccess)
 * goes through host memory: CUPTI records it as two copies with the call's correlation id, a
 * device-to-host one on the source device and a host-to-device one on the destination, both
 * with device memory at either end ("DtoH device->device"), and the driver spends most of
 * the time between them, staging. Measured on two H200s joined by NVLink (NV18): 8 copies of
 * 64 MiB took 14.1 ms staged and 1.6 ms with peer access on (tests/samples/MEASURED.md).
 *
 * The direct rate: this trace's own peer copies (CUPTI's PtoP kind) of at least 1 MiB, their
 * median; else a default per device generation: 300 GB/s for compute capability 9.x (NVLink
 * 4; 341 GB/s measured there), 20 GB/s before (a PCIe link).
 */
#ifndef SC_ANALYZE_PEER_COPY_H
#define SC_ANALYZE_PEER_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

#define SC_COPY_PTOP 10u            /* CUpti_ActivityMemcpyKind */

/* One half of a peer copy staged through host memory (its shape says: sc_copy_shape_of). */
static inline bool sc_copy_peer_staged(const sc_copy_shape *m)
{
    return (m->copy_kind == 1 || m->copy_kind == 2) && m->src_kind == SC_MEM_DEVICE &&
           m->dst_kind == SC_MEM_DEVICE;
}

typedef struct sc_peer_rate {
    double bytes_per_ns;
    bool measured;
    char basis[64];             /* the rate and where it came from, in a few words */
} sc_peer_rate;

/* The direct rate for copies of `device` (its record, NULL when the trace has none).
 * Returns 0, or -1 when out of memory. */
int sc_peer_rate_measure(const sc_trace *t, const sc_device *device, sc_peer_rate *out);

/* How long a staged half would take as (part of) a direct copy: the device-to-host half
 * carries the whole copy, the host-to-device half nothing. */
uint64_t sc_peer_direct_ns(const sc_peer_rate *rate, const sc_rec_memcpy *half);

#endif
