/* Copy bandwidth per device and direction: see copy_rates.h. */
#include "analyze/copy_rates.h"

#include "analyze/peer_copy.h"

/* The direction a copy counts in on the device its record names, or -1. A peer copy's
 * record names the device whose stream issued it (CUPTI: "where the copy is occurring"). */
static int sc_copy_rate_dir(const sc_copy_shape *m)
{
    if (sc_copy_peer_staged(m))
        return -1;      /* half of a staged peer copy: device memory at both ends */
    if (m->copy_kind == 1)
        return SC_COPY_DIR_HTOD;
    if (m->copy_kind == 2)
        return SC_COPY_DIR_DTOH;
    return m->copy_kind == SC_COPY_PTOP ? SC_COPY_DIR_PEER : -1;
}

int sc_copy_rates_measure(const sc_trace *t, sc_analysis *a)
{
    for (size_t c = 0; c < t->n_copies; c++) {
        const sc_copy *x = &t->copies[c];
        const sc_copy_shape *m = sc_copy_shape_of(t, x);
        int dir = sc_copy_rate_dir(m);
        for (size_t d = 0; dir >= 0 && d < a->n_devices; d++) {
            if (a->devices[d].device != m->device)
                continue;
            sc_copy_rate *r = &a->devices[d].copy_rates[dir];
            r->count++;
            r->bytes += m->bytes;
            r->time_ns += x->end_ns > x->start_ns ? x->end_ns - x->start_ns : 0;
            break;
        }
    }
    for (size_t d = 0; d < a->n_devices; d++)
        for (int dir = 0; dir < SC_COPY_DIRS; dir++) {
            sc_copy_rate *r = &a->devices[d].copy_rates[dir];
            r->bytes_per_s = r->time_ns ? (double)r->bytes * 1e9 / (double)r->time_ns : 0.0;
        }
    return 0;
}
