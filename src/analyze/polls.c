/* Polling loops: see polls.h. */
#include "analyze/polls.h"

#include <stdbool.h>
#include <stdlib.h>

#include "analyze/blocking.h"
#include "trace/grow.h"
#include "trace/sort.h"

static bool sc_is_query(uint16_t c)
{
    return c == SC_CALL_STREAM_QUERY || c == SC_CALL_EVENT_QUERY;
}

/* A thread's run of queries so far. */
typedef struct sc_poll_run {
    uint32_t tid;
    size_t first, last;
    uint64_t queries;
} sc_poll_run;

static uint64_t sc_query_handle(const sc_trace *t, const sc_api_call *c)
{
    return sc_call_class_id(t, c) == SC_CALL_STREAM_QUERY ? sc_call_stream_handle(t, c)
                                                          : sc_call_aux(t, c);
}

static int sc_poll_close(sc_poll_run *run, sc_poll_loop **loops, size_t *n, size_t *cap)
{
    if (run->queries >= SC_POLL_MIN_QUERIES) {
        if (!SC_GROW(*loops, *cap, *n + 1, 16))
            return -1;
        (*loops)[(*n)++] = (sc_poll_loop){run->first, run->last, run->queries};
    }
    run->queries = 0;
    return 0;
}

static int sc_loop_cmp(const void *pa, const void *pb)
{
    const sc_poll_loop *x = pa, *y = pb;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Whether the thread made a call (not an inner one) between calls `after` and `before`: one
 * would have ended its run of queries. Asked only of a query that would go on with the run
 * before it, so the calls looked at lie within a run's gaps. */
static bool sc_thread_called(const sc_ctx *ctx, size_t after, size_t before, uint32_t tid)
{
    const sc_trace *t = ctx->trace;
    for (size_t i = after + 1; i < before; i++)
        if (sc_call_tid(t, &t->calls[i]) == tid && !sc_blocking_is_inner(ctx, &t->calls[i]))
            return true;
    return false;
}

/* The queries are among the calls that may hold the host (blocking.h), in call order: the
 * walk reads those, not every call, and looks between two queries of a thread only when the
 * later one would go on with the run. */
int sc_polls_find(const sc_ctx *ctx, sc_poll_loop **out, size_t *n_out)
{
    const sc_trace *t = ctx->trace;
    const sc_blocking_index *ix = ctx->blocking;
    sc_poll_run *runs = NULL;   /* one per thread seen: threads are few */
    size_t n_runs = 0, n = 0, cap = 0;
    sc_poll_loop *loops = NULL;
    int rc = 0;
    for (size_t k = 0; k < ix->n_holding && rc == 0; k++) {  /* calls are sorted by start */
        size_t i = ix->holding[k];
        const sc_api_call *call = &t->calls[i];
        uint8_t cls = sc_call_class_id(t, call);
        if (!sc_is_query(cls) || sc_blocking_is_inner(ctx, call))
            continue;
        uint32_t tid = sc_call_tid(t, call);
        size_t r = 0;
        while (r < n_runs && runs[r].tid != tid)
            r++;
        if (r == n_runs) {
            sc_poll_run *p = realloc(runs, (n_runs + 1) * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            runs = p;
            runs[n_runs++] = (sc_poll_run){.tid = tid};
        }
        sc_poll_run *run = &runs[r];
        const sc_api_call *prev = run->queries ? &t->calls[run->last] : NULL;
        bool goes_on = prev && cls == sc_call_class_id(t, prev) &&
                       sc_query_handle(t, call) == sc_query_handle(t, prev) &&
                       call->rec.start_ns < sc_call_end(t, prev) + SC_POLL_GAP_NS &&
                       !sc_thread_called(ctx, run->last, i, tid);
        if (goes_on) {
            run->last = i;
            run->queries++;
            continue;
        }
        if (run->queries)
            rc = sc_poll_close(run, &loops, &n, &cap);
        *run = (sc_poll_run){tid, i, i, 1};
    }
    for (size_t k = 0; k < n_runs && rc == 0; k++)
        rc = sc_poll_close(&runs[k], &loops, &n, &cap);
    free(runs);
    if (rc != 0) {
        free(loops);
        return -1;
    }
    if (n > 1)
        sc_sort(loops, n, sizeof *loops, sc_loop_cmp);
    *out = loops;
    *n_out = n;
    return 0;
}
