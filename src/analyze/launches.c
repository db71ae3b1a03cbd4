/* What each kernel found on its device when it was issued: see launches.h. */
#include "analyze/launches.h"

#include <stdbool.h>
#include <stdlib.h>

#include "trace/order_by_time.h"
#include "trace/sort.h"

typedef struct sc_issue_item {
    uint64_t issue_ns, start_ns, end_ns;
    uint32_t device;
    size_t slot;
    size_t pos;                 /* sc_work_at() position: record order, for ties */
} sc_issue_item;

static int sc_issue_device_cmp(const void *pa, const void *pb)
{
    const sc_issue_item *x = pa, *y = pb;
    return x->device < y->device ? -1 : x->device > y->device;
}

/* the items whose order sc_issue_start_cmp reads; per thread: the report analyzes traces at
 * once (-j) */
static _Thread_local const sc_issue_item *sc_issue_view;

static int sc_issue_start_cmp(const void *pa, const void *pb)
{
    const sc_issue_item *x = &sc_issue_view[*(const uint32_t *)pa];
    const sc_issue_item *y = &sc_issue_view[*(const uint32_t *)pb];
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* Whether items a and b are of one device and issue time. */
static bool sc_issue_tied(const sc_issue_item *a, const sc_issue_item *b)
{
    return a->device == b->device && a->issue_ns == b->issue_ns;
}

/* The items in the order the front walks them: by device, issue time, start, record position,
 * as positions into items (the caller frees them), or NULL without memory. The items are
 * grouped by device by a stable sort (one pass when all ran on one device, as usual), so each
 * device's items stay in record order; each device's are ordered by their issue times as keys
 * (order_by_time.h: a tie breaks by position, which is record order), and a run of one issue
 * time by start, stably: no general sort of 48-byte items through a comparator. */
static uint32_t *sc_issue_order(sc_issue_item *items, size_t k)
{
    sc_sort(items, k, sizeof *items, sc_issue_device_cmp);
    uint32_t *order = malloc((k ? k : 1) * sizeof *order);
    uint64_t *at = malloc((k ? k : 1) * sizeof *at);
    int rc = order && at ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < k; i++)
        at[i] = items[i].issue_ns;
    for (size_t lo = 0, hi; rc == 0 && lo < k; lo = hi) {
        for (hi = lo + 1; hi < k && items[hi].device == items[lo].device; hi++)
            ;
        rc = sc_order_by_time_in(at + lo, hi - lo, order + lo);
        for (size_t j = lo; j < hi; j++)
            order[j] += (uint32_t)lo;
    }
    free(at);
    if (rc != 0) {
        free(order);
        return NULL;
    }
    sc_issue_view = items;
    for (size_t lo = 0, hi; lo < k; lo = hi) {
        for (hi = lo + 1; hi < k && sc_issue_tied(&items[order[hi]], &items[order[lo]]); hi++)
            ;
        if (hi - lo > 1)
            sc_sort(order + lo, hi - lo, sizeof *order, sc_issue_start_cmp);
    }
    return order;
}

/* The latest end of one stream's issued work; slot SIZE_MAX when empty. */
typedef struct sc_front_entry {
    uint64_t end_ns;
    size_t slot, pos;
} sc_front_entry;

/* The two streams whose issued work ends last: best, and the best of any other stream. */
typedef struct sc_front {
    sc_front_entry first, second;
} sc_front;

static void sc_front_reset(sc_front *f)
{
    f->first = f->second = (sc_front_entry){0, SIZE_MAX, 0};
}

static void sc_front_add(sc_front *f, const sc_issue_item *x)
{
    sc_front_entry e = {x->end_ns, x->slot, x->pos};
    if (f->first.slot == x->slot) {
        if (e.end_ns > f->first.end_ns)
            f->first = e;
    } else if (f->first.slot == SIZE_MAX || e.end_ns > f->first.end_ns) {
        f->second = f->first;
        f->first = e;
    } else if (f->second.slot == SIZE_MAX || e.end_ns > f->second.end_ns) {
        f->second = e;
    }
}

/* The latest-ending work issued so far on any stream but `slot`. */
static const sc_front_entry *sc_front_other(const sc_front *f, size_t slot)
{
    const sc_front_entry *e = f->first.slot != slot ? &f->first : &f->second;
    return e->slot == SIZE_MAX ? NULL : e;
}

static int sc_launches_collect(const sc_ctx *ctx, sc_issue_item **out, uint32_t **order_out,
                               size_t *n_out)
{
    const sc_trace *t = ctx->trace;
    size_t n = sc_work_count(t), k = 0;
    sc_issue_item *items = malloc((n ? n : 1) * sizeof(*items));
    if (!items)
        return -1;
    for (size_t i = 0; i < n; i++) {
        sc_work w = sc_work_at(t, i);
        const sc_stream_summary *s = sc_ctx_stream(ctx, w.device, w.context_id, w.stream_id);
        if (!s)
            continue;   /* cannot happen: every stream of the work has a summary */
        const sc_api_call *call = sc_ctx_call(ctx, w.correlation_id);
        items[k++] = (sc_issue_item){call ? call->rec.start_ns : w.start_ns, w.start_ns,
                                     w.end_ns, w.device,
                                     (size_t)(s - ctx->analysis->streams), i};
    }
    uint32_t *order = sc_issue_order(items, k);
    if (!order) {
        free(items);
        return -1;
    }
    *out = items;
    *order_out = order;
    *n_out = k;
    return 0;
}

int sc_launches_build(const sc_ctx *ctx, sc_launch **out)
{
    const sc_trace *t = ctx->trace;
    sc_issue_item *items = NULL;
    uint32_t *order = NULL;
    size_t n = 0;
    sc_launch *l = calloc(t->n_kernels ? t->n_kernels : 1, sizeof(*l));
    uint64_t *stream_end = calloc(ctx->analysis->n_streams + 1, sizeof(uint64_t));
    if (!l || !stream_end || sc_launches_collect(ctx, &items, &order, &n) != 0) {
        free(l);
        free(stream_end);
        return -1;
    }
    sc_front front;
    for (size_t i = 0; i < n; i++) {
        const sc_issue_item *x = &items[order[i]];
        if (i == 0 || x->device != items[order[i - 1]].device)
            sc_front_reset(&front);     /* stream slots are per device: stream_end needs none */
        if (x->pos < t->n_kernels) {
            sc_launch *k = &l[x->pos];
            k->call = sc_ctx_call(ctx, t->kernels[x->pos].rec.correlation_id);
            k->slot = x->slot;
            k->issue_ns = x->issue_ns;
            k->own_prev_end_ns = stream_end[x->slot];
            const sc_front_entry *o = sc_front_other(&front, x->slot);
            if (o && o->end_ns > x->issue_ns)
                *k = (sc_launch){k->call, k->slot, k->issue_ns, k->own_prev_end_ns, true,
                                 o->end_ns, o->slot, o->pos};
        }
        sc_front_add(&front, x);
        if (x->end_ns > stream_end[x->slot])
            stream_end[x->slot] = x->end_ns;
    }
    free(items);
    free(order);
    free(stream_end);
    *out = l;
    return 0;
}
