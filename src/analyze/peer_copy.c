/* Peer copies: see peer_copy.h. */
#include "analyze/peer_copy.h"

#include <stdio.h>
#include <stdlib.h>

#include "trace/sort.h"

#define SC_PEER_RATE_MIN_BYTES (1u << 20)

static int sc_peer_double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

int sc_peer_rate_measure(const sc_trace *t, const sc_device *device, sc_peer_rate *out)
{
    double *rates = malloc((t->n_copies ? t->n_copies : 1) * sizeof *rates);
    if (!rates)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->n_copies; i++) {
        const sc_rec_memcpy m_rec = sc_copy_record(t, &t->copies[i]), *m = &m_rec;
        if (m->copy_kind == SC_COPY_PTOP && m->bytes >= SC_PEER_RATE_MIN_BYTES &&
            m->end_ns > m->start_ns)
            rates[n++] = (double)m->bytes / (double)(m->end_ns - m->start_ns);
    }
    if (n > 0) {
        sc_sort(rates, n, sizeof *rates, sc_peer_double_cmp);
        out->bytes_per_ns = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2.0;
        out->measured = true;
        snprintf(out->basis, sizeof out->basis, "%.0f GB/s measured here", out->bytes_per_ns);
    } else {
        uint32_t cc = device ? device->rec.cc_major : 0;
        out->bytes_per_ns = cc >= 9 ? 300.0 : 20.0;     /* GB/s is bytes per ns */
        out->measured = false;
        snprintf(out->basis, sizeof out->basis, "%.0f GB/s, cc %u.x default", out->bytes_per_ns,
                 cc);
    }
    free(rates);
    return 0;
}

uint64_t sc_peer_direct_ns(const sc_peer_rate *rate, const sc_rec_memcpy *half)
{
    if (half->copy_kind != 2 || rate->bytes_per_ns <= 0.0)
        return 0;
    return (uint64_t)((double)half->bytes / rate->bytes_per_ns + 0.5);
}
