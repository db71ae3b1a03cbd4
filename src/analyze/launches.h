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

/* 24 bytes, no padding: one per kernel (3.1M of a 10M-record trace, 70 MiB; 117 MiB at 40
 * bytes, which kept the issue and the front's end that its records tell: sc_launch_issue,
 * sc_launch_front_end), 32-bit indexes where a pointer and size_t made it 64. */
typedef struct sc_launch {
    uint64_t own_prev_end_ns;   /* latest end of work issued before it on its stream, or 0 */
    uint32_t call;              /* the launch call: index into trace->calls, or
                                   SC_LAUNCH_NO_CALL (sc_launch_call) */
    uint32_t slot;              /* its stream: index into analysis->streams */
    uint32_t front_slot;        /* the front's stream */
    uint32_t front_work;        /* the last other-stream work of its device that was in flight
                                   at issue, a sc_work_at() position; SC_LAUNCH_NO_FRONT when
                                   none was (sc_launch_has_front) */
} sc_launch;
_Static_assert(sizeof(sc_launch) == 24, "sc_launch: one per kernel, no padding");

#define SC_LAUNCH_NO_FRONT UINT32_MAX
#define SC_LAUNCH_NO_CALL UINT32_MAX

/* The launch call of a kernel, or NULL. */
static inline const sc_api_call *sc_launch_call(const sc_trace *t, const sc_launch *l)
{
    return l->call == SC_LAUNCH_NO_CALL ? NULL : &t->calls[l->call];
}

/* When kernel k (launch l, its entry) was issued: its call's start, or its own start
 * without a call. */
static inline uint64_t sc_launch_issue(const sc_trace *t, const sc_launch *l, size_t k)
{
    return l->call == SC_LAUNCH_NO_CALL ? t->kernels[k].rec.start_ns
                                        : t->calls[l->call].rec.start_ns;
}

/* Other-stream work of its device was in flight at issue (front_* say which). */
static inline bool sc_launch_has_front(const sc_launch *l)
{
    return l->front_work != SC_LAUNCH_NO_FRONT;
}

/* When the front ended (sc_launch_has_front): after the kernel's issue. */
static inline uint64_t sc_launch_front_end(const sc_trace *t, const sc_launch *l)
{
    return sc_work_end_at(t, l->front_work);
}

/* One entry per trace->kernels entry, same order. Returns 0, or -1 when out of memory or
 * when the work or the calls are too many for 32-bit indexes. */
int sc_launches_build(const sc_ctx *ctx, sc_launch **out);

#endif
