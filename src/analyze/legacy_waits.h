/* Who waited for whom across the legacy stream: the serialization measure shared by the
 * rules legacy-stream (charged to the legacy operations) and blocking-stream (charged to the
 * streams that synchronize with the legacy stream).
 *
 * The legacy stream synchronizes with every stream that syncs with it (stream_kind.h: a
 * blocking stream or a per-thread default stream of its device): work issued to it waits for
 * such work already in flight, and such work issued after it waits for it. Non-blocking
 * streams are unaffected.
 *
 * One pass over the legacy and syncing work of each device in issue order. The state is the
 * latest end of each side issued so far (the only in-flight item a newcomer can wait for is
 * the one that ends last) and the last end per stream (a wait covered by the item's own
 * stream being busy is not the legacy stream's fault).
 */
#ifndef SC_ANALYZE_LEGACY_WAITS_H
#define SC_ANALYZE_LEGACY_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"

#define SC_LEGACY_TOLERANCE_NS 1000u    /* clock noise between "ended" and "started" */
#define SC_LEGACY_NONE ((size_t)-1)

/* One operation on the legacy stream or on a stream that syncs with it. */
typedef struct sc_legacy_op {
    uint64_t issue_ns, start_ns, end_ns;
    const sc_api_call *call;    /* the issuing call, or NULL (issue_ns is then start_ns) */
    size_t slot;                /* its stream: index into analysis->streams */
    uint32_t device;
    uint8_t legacy;             /* 1: legacy stream, 0: a stream that syncs with it */
    uint8_t work;               /* sc_work_kind (work.h) */
    size_t order;               /* record order, for ties */
    uint64_t wait_ns;           /* how long it waited for the other side */
    size_t waited_on;           /* position in ops of the item it waited for, or SC_LEGACY_NONE */
    uint64_t caused_ns;         /* legacy ops: waits of syncing-stream work behind it */
} sc_legacy_op;

typedef struct sc_legacy_waits {
    sc_legacy_op *ops;          /* sorted by device, issue time, start time, record order */
    size_t n;
} sc_legacy_waits;

/* Collects and measures. Returns 0, or -1 when out of memory (w is then empty). */
int sc_legacy_waits_compute(const sc_ctx *ctx, sc_legacy_waits *w);
void sc_legacy_waits_free(sc_legacy_waits *w);

/* The syncing (non-legacy) stream a wait involved, as a slot in analysis->streams: the
 * waited-for op's for a legacy op, the op's own otherwise. Only for ops with wait_ns > 0. */
size_t sc_legacy_waits_blocking_slot(const sc_legacy_waits *w, const sc_legacy_op *op);

#endif
