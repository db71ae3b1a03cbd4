/* One time order of the device work (kernels, copies and memsets as sc_work_at() positions,
 * work.h), built once per analysis before the indexes that read it: the devices' overlap
 * sweeps it, the blocking index (blocking.h) searches it where it held three sorted copies of
 * every piece of work, and the launches (launches.h) walk the work of each call from it in
 * issue order instead of sorting every piece of work by its call's start.
 *
 * Positions are 32 bits. The orders are:
 *   by_start  every position by (start, position): the trace's three lists are each in start
 *             order (the loader sorts them stably), so this is their merge, not a sort;
 *   by_end    every position by (end, start, position), the end as sc_work_at() clamps it:
 *             the ends taken in start order, sorted as keys (order_by_time.h);
 *   a call's work: per trace->calls entry, the first of the work it issued (sc_ctx_call of
 *             the work's correlation id) in by_start order, and per position the next one;
 *             work with no call is marked instead, so a walk in start order finds it;
 *             whether each call's chain names one stream is noted (calls_one_stream).
 * With more than one device each device's work has both orders of its own (the whole orders
 * filtered), so that a device's sweep or search never steps over another's work. */
#ifndef SC_ANALYZE_WORK_ORDER_H
#define SC_ANALYZE_WORK_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"
#include "analyze/work.h"

#define SC_WORK_END UINT32_MAX          /* no next work of the call / no work of the call */
#define SC_WORK_NO_CALL (UINT32_MAX - 1) /* in call_next: the work has no call */

/* A set of work in both orders: every device's together, or one device's. */
typedef struct sc_work_view {
    const uint32_t *by_start, *by_end;
    size_t n;
} sc_work_view;

typedef struct sc_work_order {
    uint32_t *by_start;         /* n positions by (start, position) */
    uint32_t *by_end;           /* n positions by (end, start, position) */
    uint32_t *call_first;       /* per trace->calls entry: its first work, or SC_WORK_END */
    uint32_t *call_next;        /* per position: the next work of its call, SC_WORK_END after
                                   the last, SC_WORK_NO_CALL for work without a call */
    sc_work_view all;           /* the whole orders */
    sc_work_view *devices;      /* per analysis->devices entry */
    uint32_t *dev_start, *dev_end;  /* the devices' orders, one after another (more than one
                                       device only; else each device's view is all) */
    size_t n, n_devices;
    bool calls_one_stream;      /* each call's work lies on one stream (its chain names one
                                   stream id): a call's first work tells its stream */
} sc_work_order;

/* Builds the order of ctx->trace's work for the devices of ctx->analysis (filled before), with
 * the calls found through ctx's correlation index. Returns 0, or -1 when out of memory or when
 * the work or the calls are too many for 32-bit positions (*o is then safe to free). */
int sc_work_order_build(const sc_ctx *ctx, sc_work_order *o);
void sc_work_order_free(sc_work_order *o);

/* The work of the analysis->devices entry d. */
static inline const sc_work_view *sc_work_order_device(const sc_work_order *o, size_t d)
{
    return &o->devices[d];
}

#endif
