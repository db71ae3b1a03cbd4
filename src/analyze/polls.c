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

static uint64_t sc_query_handle(const sc_call_rec *c)
{
    return c->call_class == SC_CALL_STREAM_QUERY ? c->stream : c->aux;
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

int sc_polls_find(const sc_ctx *ctx, sc_poll_loop **out, size_t *n_out)
{
    const sc_trace *t = ctx->trace;
    sc_poll_run *runs = NULL;   /* one per thread seen: threads are few */
    size_t n_runs = 0, n = 0, cap = 0;
    sc_poll_loop *loops = NULL;
    int rc = 0;
    for (size_t i = 0; i < t->n_calls && rc == 0; i++) {   /* calls are sorted by start */
        const sc_api_call *call = &t->calls[i];
        if (sc_blocking_is_inner(ctx, call))
            continue;
        size_t k = 0;
        while (k < n_runs && runs[k].tid != call->rec.tid)
            k++;
        if (k == n_runs) {
            sc_poll_run *p = realloc(runs, (n_runs + 1) * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            runs = p;
            runs[n_runs++] = (sc_poll_run){.tid = call->rec.tid};
        }
        sc_poll_run *run = &runs[k];
        const sc_call_rec *prev = run->queries ? &t->calls[run->last].rec : NULL;
        bool goes_on = prev && sc_is_query(call->rec.call_class) &&
                       call->rec.call_class == prev->call_class &&
                       sc_query_handle(&call->rec) == sc_query_handle(prev) &&
                       call->rec.start_ns < prev->end_ns + SC_POLL_GAP_NS;
        if (goes_on) {
            run->last = i;
            run->queries++;
            continue;
        }
        if (run->queries)   /* a thread's calls are mostly not queries: no run to close */
            rc = sc_poll_close(run, &loops, &n, &cap);
        if (sc_is_query(call->rec.call_class))
            *run = (sc_poll_run){call->rec.tid, i, i, 1};
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
