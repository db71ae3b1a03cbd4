/* Pinned copy rates measured in the trace: see pinned_rate.h. */
#include "analyze/pinned_rate.h"

#include <stdio.h>
#include <stdlib.h>

#include "trace/sort.h"

enum { SC_COPY_HTOD = 1, SC_COPY_DTOH = 2 };    /* CUpti_ActivityMemcpyKind */

static int sc_double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* Whether c is an async copy of this direction whose host side is pinned. */
static bool sc_pinned_sample(const sc_trace *t, const sc_copy *copy, uint8_t kind)
{
    const sc_copy_shape *c = sc_copy_shape_of(t, copy);
    if (!(c->flags & SC_MEMCPY_ASYNC) || c->copy_kind != kind ||
        copy->end_ns <= copy->start_ns || c->bytes < SC_PINNED_RATE_MIN_BYTES)
        return false;
    return kind == SC_COPY_HTOD ? c->src_kind == SC_MEM_PINNED : c->dst_kind == SC_MEM_PINNED;
}

/* Median rate of one direction into *rate; *n samples (0: no rate). */
static void sc_pinned_median(const sc_trace *t, uint8_t kind, double *buf, double *rate,
                             uint64_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n_copies; i++)
        if (sc_pinned_sample(t, &t->copies[i], kind))
            buf[k++] = (double)sc_copy_bytes(t, &t->copies[i]) /
                       (double)(t->copies[i].end_ns - t->copies[i].start_ns);
    *n = k;
    *rate = 0.0;
    if (k == 0)
        return;
    sc_sort(buf, k, sizeof(*buf), sc_double_cmp);
    *rate = k % 2 ? buf[k / 2] : (buf[k / 2 - 1] + buf[k / 2]) / 2.0;
}

int sc_pinned_rate_measure(const sc_trace *t, sc_pinned_rate *out)
{
    double *buf = malloc((t->n_copies ? t->n_copies : 1) * sizeof(*buf));
    if (!buf)
        return -1;
    sc_pinned_median(t, SC_COPY_HTOD, buf, &out->h2d_bytes_per_ns, &out->h2d_samples);
    sc_pinned_median(t, SC_COPY_DTOH, buf, &out->d2h_bytes_per_ns, &out->d2h_samples);
    free(buf);
    return 0;
}

bool sc_pinned_rate_estimate(const sc_pinned_rate *r, const sc_rec_memcpy *c, uint64_t *ns)
{
    double rate = 0.0;
    if (c->copy_kind == SC_COPY_HTOD && r->h2d_samples)
        rate = r->h2d_bytes_per_ns;
    else if (c->copy_kind == SC_COPY_DTOH && r->d2h_samples)
        rate = r->d2h_bytes_per_ns;
    if (rate <= 0.0)
        return false;
    *ns = (uint64_t)((double)c->bytes / rate + 0.5);
    return true;
}

bool sc_pinned_rate_for(const sc_pinned_rate *r, const sc_device *d, const sc_rec_memcpy *c,
                        uint64_t *ns, char *basis, size_t basis_size)
{
    if (sc_pinned_rate_estimate(r, c, ns)) {
        double rate = c->copy_kind == SC_COPY_HTOD ? r->h2d_bytes_per_ns : r->d2h_bytes_per_ns;
        snprintf(basis, basis_size, "%.1f GB/s measured here", rate);
        return true;
    }
    uint32_t cc = d ? d->rec.cc_major : 0;
    double gbs = cc >= 9 ? 50.0 : cc >= 8 ? 25.0 : 12.0;   /* GB/s is bytes per ns */
    *ns = SC_PINNED_COPY_LATENCY_NS + (uint64_t)((double)c->bytes / gbs);
    if (d)
        snprintf(basis, basis_size, "%.0f GB/s, cc %u.x default", gbs, cc);
    else
        snprintf(basis, basis_size, "%.0f GB/s default, no device record", gbs);
    return false;
}
