/* Per-stream summaries: what each stream was (flag, priority, creating call) and what ran on
 * it (overlap metrics of its kernels, copy and memset counts). */
#ifndef SC_ANALYZE_STREAMS_H
#define SC_ANALYZE_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"

/* Each piece of work's stream: its index in the summaries, per sc_work_at() position, a byte
 * a piece when the streams are fewer than SC_WORK_SLOT_NONE (slot8), else 32 bits (slot32). */
enum { SC_WORK_SLOT_NONE = 255 };
typedef struct sc_stream_slots {
    uint8_t *slot8;
    uint32_t *slot32;
} sc_stream_slots;

/* Every stream named by a STREAM record or by device work, sorted by device, stream id, then
 * context id, with what it was (flag, priority, creator, per-thread) and its copy and memset
 * counts; *slots made (the caller frees them). Its overlap metrics are taken by the devices'
 * sweeps (overlap.h: sc_overlap_streams) and set by sc_streams_set_overlap. Needs ctx->trace
 * and the correlation index. Returns 0, or -1 when out of memory. */
int sc_streams_build(const sc_ctx *ctx, sc_stream_summary **out, size_t *n_out,
                     sc_stream_slots *slots);

/* Sets each stream's overlap metrics to m[its slot], with its kernels' solo sums
 * (solo_sum_ns[slot], solo_known[slot]: the context gathers them with the devices'). */
void sc_streams_set_overlap(sc_stream_summary *s, size_t n, const sc_overlap *m,
                            const uint64_t *solo_sum_ns, const uint64_t *solo_known);
void sc_stream_slots_free(sc_stream_slots *slots);

/* Sets per_thread on the streams whose work was issued to a per-thread default stream
 * (per_thread.c), each piece of work's stream read from its slot. Called by
 * sc_streams_build() once the slots are made. Returns 0, or -1 when out of memory. */
int sc_streams_mark_per_thread(const sc_ctx *ctx, sc_stream_summary *s, size_t n,
                               const sc_stream_slots *slots);

/* Binary search in an array built by sc_streams_build(). */
const sc_stream_summary *sc_streams_find(const sc_stream_summary *streams, size_t n,
                                         uint32_t device, uint32_t context_id,
                                         uint32_t stream_id);

#endif
