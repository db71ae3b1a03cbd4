/* Per-stream summaries: what each stream was (flag, priority, creating call) and what ran on
 * it (overlap metrics of its kernels, copy and memset counts). */
#ifndef SC_ANALYZE_STREAMS_H
#define SC_ANALYZE_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"

/* Every stream named by a STREAM record or by device work, sorted by device, stream id, then
 * context id. Needs ctx->trace, the correlation index and the kernels' solo durations.
 * Where work_slot is not NULL, *work_slot is made per sc_work_at() position: the index of
 * its work's stream in *out, found once here for the launches' walk (sc_launches_build),
 * which would search again; NULL when there are SC_WORK_SLOT_NONE streams or more (a byte a
 * piece of work holds fewer). The caller frees it. Returns 0, or -1 when out of memory. */
enum { SC_WORK_SLOT_NONE = 255 };
int sc_streams_build(const sc_ctx *ctx, sc_stream_summary **out, size_t *n_out,
                     uint8_t **work_slot);

/* Sets per_thread on the streams whose work was issued to a per-thread default stream
 * (per_thread.c). Called by sc_streams_build(). Returns 0, or -1 when out of memory. */
int sc_streams_mark_per_thread(const sc_ctx *ctx, sc_stream_summary *s, size_t n);

/* Binary search in an array built by sc_streams_build(). */
const sc_stream_summary *sc_streams_find(const sc_stream_summary *streams, size_t n,
                                         uint32_t device, uint32_t context_id,
                                         uint32_t stream_id);

#endif
