/* Rule "peer-access": copies between devices that went through host memory because peer
 * access between them was off (peer_copy.h: how such a copy shows in the trace).
 *
 * cudaMemcpyPeer(Async) works without cudaDeviceEnablePeerAccess, but then the driver stages
 * the copy through host memory: a slow call on the host, and on the devices a device-to-host
 * copy, a long wait while the driver stages, and a host-to-device copy. With peer access on,
 * the same call is an ordinary async copy over the link between the devices.
 *
 * An instance is a staged copy: its two halves (the call's correlation id). waited = from
 * the later of the call's start and the end of the previous staged copy of the same stream
 * to the end of its last half. The fix turns peer access on: the call returns at once and
 * the copy runs direct at the peer rate (SC_FIX_PINNED on each half: replay.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/peer_copy.h"
#include "analyze/rules.h"
#include "streamcheck/units.h"

static const char *const sc_peer_fix =
    "enable peer access between the devices, both ways (cudaDeviceEnablePeerAccess on each "
    "for the other), so that peer copies go directly over the link";

typedef struct sc_peer_totals {
    uint64_t count, bytes, staged_ns, direct_ns;
    uint32_t src, dst;
} sc_peer_totals;

#define SC_PEER_HALF_LOOKAHEAD 256u  /* copies after the first half to look for the second */

/* The other half of staged copy c (same correlation id), or SIZE_MAX: the host-to-device
 * half starts after the device-to-host one (copies are sorted by start), soon after. */
static size_t sc_peer_other_half(const sc_trace *t, size_t c)
{
    for (size_t k = c + 1; k < t->n_copies && k <= c + SC_PEER_HALF_LOOKAHEAD; k++)
        if (t->copies[k].correlation_id == t->copies[c].correlation_id &&
            sc_copy_peer_staged(sc_copy_shape_of(t, &t->copies[k])))
            return k;
    return SIZE_MAX;
}

int sc_rule_peer_access(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    const sc_trace *t = ctx->trace;
    sc_finding_builder b;
    sc_peer_totals tot = {0};
    int rc = 0;
    uint64_t prev_end = 0;          /* the previous staged copy's end, on its stream */
    uint32_t prev_stream = UINT32_MAX, prev_device = UINT32_MAX;
    sc_peer_rate rate = {0};
    sc_finding_begin(&b, "peer-access", sc_peer_fix);
    for (size_t c = 0; rc == 0 && c < t->n_copies; c++) {     /* copies are sorted by start */
        const sc_copy_shape *s = sc_copy_shape_of(t, &t->copies[c]);
        if (!sc_copy_peer_staged(s) || s->copy_kind != 2)
            continue;   /* the device-to-host half names the copy */
        const sc_rec_memcpy m_rec = sc_copy_record(t, &t->copies[c]), *m = &m_rec;
        size_t other = sc_peer_other_half(t, c);
        const sc_copy *h = other != SIZE_MAX ? &t->copies[other] : NULL;
        uint64_t end = h && h->end_ns > m->end_ns ? h->end_ns : m->end_ns;
        const sc_api_call *call = sc_ctx_call(ctx, m->correlation_id);
        uint64_t from = call ? call->rec.start_ns : m->start_ns;
        if (prev_stream == m->stream_id && prev_device == m->device && prev_end > from)
            from = prev_end;
        prev_end = end;
        prev_stream = m->stream_id;
        prev_device = m->device;
        if (tot.count == 0 &&   /* the rate once: the trace's peer copies, or the default */
            sc_peer_rate_measure(t, sc_ctx_device_info(ctx, m->device), &rate) != 0) {
            rc = -1;
            break;
        }
        uint64_t direct = sc_peer_direct_ns(&rate, m);
        sc_instance inst;
        memset(&inst, 0, sizeof inst);
        inst.start_ns = from;
        inst.end_ns = end > from ? end : from;
        inst.cost_ns = inst.end_ns - inst.start_ns;
        inst.call = call;
        uint32_t dst = h ? sc_copy_device(t, h) : m->device;
        char b1[SC_FMT_SIZE], t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
        sc_text_append(&inst.text,
                       "%s from device %u to device %u went through host memory: %s, direct "
                       "~%s (%s)",
                       sc_fmt_bytes((double)m->bytes, b1), m->device, dst,
                       sc_fmt_ns(inst.cost_ns, t1), sc_fmt_ns(direct, t2), rate.basis);
        sc_instance_evidence(&inst, "bytes", (double)m->bytes, "bytes");
        sc_instance_evidence(&inst, "staged_us", sc_ns_to_us(inst.cost_ns), "us");
        sc_instance_evidence(&inst, "direct_estimate_us", sc_ns_to_us(direct), "us");
        sc_instance_evidence(&inst, "peer_rate_measured", rate.measured ? 1.0 : 0.0, "");
        sc_instance_evidence(&inst, "src_device", m->device, "");
        sc_instance_evidence(&inst, "dst_device", dst, "");
        tot.count++;
        tot.bytes += m->bytes;
        tot.staged_ns += inst.cost_ns;
        tot.direct_ns += direct;
        tot.src = m->device;
        tot.dst = dst;
        rc = sc_finding_add(&b, &inst);
        if (rc == 0)    /* the fix: peer access on, both halves one direct copy */
            rc = sc_finding_fix(&b, SC_FIX_PINNED, c);
        if (rc == 0 && other != SIZE_MAX)
            rc = sc_finding_fix(&b, SC_FIX_PINNED, other);
    }
    if (rc == 0 && tot.count > 0) {
        char b1[SC_FMT_SIZE], t1[SC_FMT_SIZE], t2[SC_FMT_SIZE];
        sc_text_append(&b.finding.title,
                       "%llu peer cop%s (%s) went through host memory: peer access between "
                       "devices %u and %u is off; %s staged, ~%s direct",
                       (unsigned long long)tot.count, tot.count == 1 ? "y" : "ies",
                       sc_fmt_bytes((double)tot.bytes, b1), tot.src, tot.dst,
                       sc_fmt_ns(tot.staged_ns, t1), sc_fmt_ns(tot.direct_ns, t2));
        sc_finding_total(&b, "count", (double)tot.count, "count");
        sc_finding_total(&b, "bytes", (double)tot.bytes, "bytes");
        sc_finding_total(&b, "staged_us", sc_ns_to_us(tot.staged_ns), "us");
        sc_finding_total(&b, "direct_estimate_us", sc_ns_to_us(tot.direct_ns), "us");
        rc = sc_finding_finish(&b, ctx, out);
    } else {
        sc_finding_discard(&b);
    }
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "peer-access: out of memory");
    return rc;
}
