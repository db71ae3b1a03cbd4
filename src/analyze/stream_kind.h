/* What a stream is with respect to the legacy NULL stream, the one relation between streams
 * that CUDA enforces without being asked:
 *   legacy        the legacy stream itself (STREAM flag LEGACY and not a per-thread stream)
 *   syncs         a stream that synchronizes with it: a blocking stream (cudaStreamCreate)
 *                 or a per-thread default stream (CUDA documents that it does)
 *   independent   everything else: non-blocking streams, and blocking streams among
 *                 themselves (they do not synchronize with each other)
 * A stream without a STREAM record (flag UNKNOWN) may be either side, so the rules that must
 * not claim "independent" lightly (lazy-loading, no-room) treat it as possibly both.
 */
#ifndef SC_ANALYZE_STREAM_KIND_H
#define SC_ANALYZE_STREAM_KIND_H

#include <stdbool.h>

#include "streamcheck/analysis.h"

static inline bool sc_stream_is_legacy(const sc_stream_summary *s)
{
    return s->flag == SC_STREAM_FLAG_LEGACY && !s->per_thread;
}

static inline bool sc_stream_syncs_with_legacy(const sc_stream_summary *s)
{
    return !sc_stream_is_legacy(s) && (s->flag == SC_STREAM_FLAG_BLOCKING || s->per_thread);
}

static inline bool sc_stream_kind_unknown(const sc_stream_summary *s)
{
    return s->flag == SC_STREAM_FLAG_UNKNOWN && !s->per_thread;
}

/* Two different streams that CUDA lets run side by side: no legacy/blocking pair among them,
 * counting an unknown stream as possibly either. Streams of different devices never wait for
 * each other's legacy stream, but callers compare streams of one device only. */
static inline bool sc_streams_independent(const sc_stream_summary *a, const sc_stream_summary *b)
{
    if (a == b)
        return false;
    bool a_legacy = sc_stream_is_legacy(a) || sc_stream_kind_unknown(a);
    bool b_legacy = sc_stream_is_legacy(b) || sc_stream_kind_unknown(b);
    bool a_syncs = sc_stream_syncs_with_legacy(a) || sc_stream_kind_unknown(a);
    bool b_syncs = sc_stream_syncs_with_legacy(b) || sc_stream_kind_unknown(b);
    return !(a_legacy && b_syncs) && !(b_legacy && a_syncs);
}

#endif
