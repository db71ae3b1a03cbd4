/* What each kernel found on its device when it was issued: the other-stream work still in
 * flight, and the work ahead of it on its own stream. Shared by the rules that ask "could this
 * kernel have started earlier, and what held it back" (lazy-loading, no-room).
 *
 * Work is "issued" when its call started (the kernel's start when the trace lacks the call).
 * Work in flight at time T is work issued before T that had not ended by T. Of the
 * other-stream work in flight, only the piece that ends last matters to a newcomer: it is
 * the last one the newcomer could have been held behind. One pass per device in issue order
 * keeps the latest end of the two streams that end last (so one can always be told apart
 * from the kernel's own stream) and the latest end per stream.
 */
#ifndef SC_ANALYZE_LAUNCHES_H
#define SC_ANALYZE_LAUNCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"
#include "analyze/work.h"

typedef struct sc_launch {
    const sc_api_call *call;    /* the launch call, or NULL */
    size_t slot;                /* its stream: index into analysis->streams */
    uint64_t issue_ns;          /* call start, or the kernel's start without a call */
    uint64_t own_prev_end_ns;   /* latest end of work issued before it on its stream, or 0 */
    bool has_front;             /* other-stream work of its device was in flight at issue */
    uint64_t front_end_ns;      /* when the last of that work ended */
    size_t front_slot;          /* its stream */
    size_t front_work;          /* which work it was: a sc_work_at() position */
} sc_launch;

/* One entry per trace->kernels entry, same order. Returns 0, or -1 when out of memory. */
int sc_launches_build(const sc_ctx *ctx, sc_launch **out);

#endif
