/* Per-thread default streams (nvcc --default-stream per-thread, or cudaStreamPerThread named
 * explicitly): see streams.h.
 *
 * CUPTI's STREAM record does not say that a stream is some thread's default stream; the
 * calls that issued its work do. A _ptsz/_ptds call (SC_API_PER_THREAD) that passes stream
 * handle 0, or any call that passes cudaStreamPerThread (0x2), sends its work to the calling
 * thread's per-thread stream. A call that passes cudaStreamLegacy (0x1), or handle 0 without
 * the per-thread variant, sends it to the legacy stream. A synchronous cudaMemcpy/cudaMemset
 * takes no stream argument and goes to the default stream of its variant.
 *
 * A stream is per-thread when some of its work named the per-thread stream and none of it
 * named the legacy stream: a contradiction (which would mean a misread handle) leaves the
 * stream as its flag says.
 */
#include "analyze/streams.h"

#include <stdlib.h>

#define SC_HANDLE_LEGACY 0x1u       /* cudaStreamLegacy */
#define SC_HANDLE_PER_THREAD 0x2u   /* cudaStreamPerThread */

enum sc_default_named { SC_NAMED_OTHER = 0, SC_NAMED_PER_THREAD, SC_NAMED_LEGACY };

static enum sc_default_named sc_per_thread_named(const sc_trace *t, const sc_api_call *call)
{
    uint64_t stream = sc_call_stream_handle(t, call);
    uint8_t cls = sc_call_class_id(t, call);
    bool per_thread_variant = (sc_call_flags(t, call) & SC_API_PER_THREAD) != 0;
    bool sync_default = stream == SC_STREAM_NONE &&
                        (cls == SC_CALL_MEMCPY || cls == SC_CALL_MEMSET);
    if (stream == SC_HANDLE_PER_THREAD)
        return SC_NAMED_PER_THREAD;
    if (stream == SC_HANDLE_LEGACY)
        return SC_NAMED_LEGACY;
    if (stream == 0 || sync_default)
        return per_thread_variant ? SC_NAMED_PER_THREAD : SC_NAMED_LEGACY;
    return SC_NAMED_OTHER;  /* a created stream, or a launch whose stream was not recorded */
}

/* Marks the stream at slot with what the call of correlation id corr named. */
static inline void sc_per_thread_note(const sc_ctx *ctx, uint8_t *named, size_t slot, uint32_t corr)
{
    const sc_api_call *call = sc_ctx_call(ctx, corr);
    if (!call)
        return;
    enum sc_default_named k = sc_per_thread_named(ctx->trace, call);
    if (k == SC_NAMED_PER_THREAD)
        named[slot] |= 1u;
    else if (k == SC_NAMED_LEGACY)
        named[slot] |= 2u;
}

int sc_streams_mark_per_thread(const sc_ctx *ctx, sc_stream_summary *s, size_t n,
                               const sc_stream_slots *slots)
{
    const sc_trace *t = ctx->trace;
    /* Only a per-thread variant or the handle cudaStreamPerThread names the per-thread stream
     * (sc_per_thread_named); most programs make neither call, and then no stream is
     * per-thread: one look at the calls' extras, which hold their flags and streams, spares
     * the walk over every piece of work (an extra no call kept any more can only send it
     * there for nothing). */
    unsigned flags = 0;
    bool handle = false;
    for (size_t i = 0; i < t->n_call_extras; i++) {
        flags |= t->call_extras[i].flags;
        handle |= t->call_extras[i].stream == SC_HANDLE_PER_THREAD;
    }
    if (!(flags & SC_API_PER_THREAD) && !handle) {
        for (size_t i = 0; i < n; i++)
            s[i].per_thread = false;
        return 0;
    }
    uint8_t *named = calloc(n ? n : 1, sizeof(*named));    /* bit 0 per-thread, bit 1 legacy */
    if (!named)
        return -1;
    /* each record array walked on its own, the stream read from the work's slot: no work
     * view made and no stream searched per piece */
    size_t w = 0;
#define SC_SLOT_AT(i) (slots->slot8 ? (size_t)slots->slot8[i] : (size_t)slots->slot32[i])
    for (size_t i = 0; i < t->n_kernels; i++, w++)
        sc_per_thread_note(ctx, named, SC_SLOT_AT(w), t->kernels[i].rec.correlation_id);
    for (size_t i = 0; i < t->n_copies; i++, w++)
        sc_per_thread_note(ctx, named, SC_SLOT_AT(w), t->copies[i].correlation_id);
    for (size_t i = 0; i < t->n_memsets; i++, w++)
        sc_per_thread_note(ctx, named, SC_SLOT_AT(w), t->memsets[i].correlation_id);
#undef SC_SLOT_AT
    for (size_t i = 0; i < n; i++)
        s[i].per_thread = named[i] == 1u;
    free(named);
    return 0;
}
