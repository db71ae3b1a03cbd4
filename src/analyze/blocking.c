/* What a host-blocking call cost the device: see blocking.h for the definitions. */
#include "analyze/blocking.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap.h"
#include "analyze/work.h"
#include "analyze/work_order.h"
#include "trace/grow.h"
#include "trace/sort_u64.h"

#define SC_BLOCKING_DISTINCT 256    /* distinct drained streams counted per call */

/* ---- building the index --------------------------------------------------------------- */

/* The entry of the work at a sc_work_at() position, made from the trace where it is read (the
 * index holds none: it held 40 bytes a piece of work, at the replay's peak of memory). Inline
 * and reading only the fields an entry has: the measures make one per piece of work they step
 * over. */
static inline __attribute__((always_inline)) sc_blocking_work
sc_work_entry(const sc_ctx *ctx, uint32_t position)
{
    sc_work w = sc_work_at(ctx->trace, position);
    uint64_t start = w.start_ns, end = w.end_ns;
    uint32_t stream = w.stream_id, corr = w.correlation_id;
    const sc_api_call *call = sc_ctx_call(ctx, corr);
    uint64_t issue = call && call->rec.start_ns < start ? call->rec.start_ns : start;
    return (sc_blocking_work){issue, start, end, stream, corr,
                              call ? sc_call_tid(ctx->trace, call) : 0, position};
}

/* The work's issue (sc_blocking_work.issue_ns) alone. */
static inline uint64_t sc_work_issue(const sc_ctx *ctx, uint32_t position)
{
    sc_work w = sc_work_at(ctx->trace, position);
    uint64_t start = w.start_ns;
    uint32_t corr = w.correlation_id;
    const sc_api_call *call = sc_ctx_call(ctx, corr);
    return call && call->rec.start_ns < start ? call->rec.start_ns : start;
}

static void sc_scope_free(sc_blocking_scope *s)
{
    sc_busy_free(&s->busy);
    memset(s, 0, sizeof(*s));
}

/* A scope over a view of the shared order, and its busy list (merged in start order). */
static int sc_scope_make(const sc_ctx *ctx, sc_blocking_scope *s, const sc_work_view *v,
                         uint32_t device, bool all)
{
    *s = (sc_blocking_scope){.by_end = v->by_end, .by_start = v->by_start, .n = v->n,
                             .device = device, .all = all};
    const sc_trace *t = ctx->trace;
    const uint32_t *by_start = v->by_start;
    sc_busy_list *b = &s->busy;
    /* the last interval's end is kept in a local while work joins it (most work does), and
     * written when the next interval opens: the list's own fields would be loaded again at
     * every piece; empty work adds nothing, as sc_busy_append drops it */
    uint64_t last_end = 0;
    for (size_t i = 0; i < v->n; i++) {
        uint32_t p = by_start[i];
        uint64_t start, end;
        sc_work_span_at(t, p, &start, &end);
        if (end <= start)
            continue;
        if (b->n && last_end >= start) {
            if (end > last_end)
                last_end = end;
            continue;
        }
        if (b->n)
            b->ivals[b->n - 1].end_ns = last_end;
        if (sc_busy_append(b, start, end) != 0)
            return -1;
        last_end = end;
    }
    if (b->n)
        b->ivals[b->n - 1].end_ns = last_end;
    return 0;
}

static void sc_context_note(sc_blocking_index *ix, uint32_t context_id, uint32_t device)
{
    for (size_t i = 0; i < ix->n_contexts; i++)
        if (ix->contexts[i].context_id == context_id)
            return;     /* a context belongs to one device: the first sighting is enough */
    if (ix->n_contexts == ix->cap_contexts) {
        size_t cap = ix->cap_contexts ? 2 * ix->cap_contexts : 8;
        sc_blocking_context *p = realloc(ix->contexts, cap * sizeof *p);
        if (!p) {
            ix->failed = true;
            return;
        }
        ix->contexts = p;
        ix->cap_contexts = cap;
    }
    ix->contexts[ix->n_contexts++] = (sc_blocking_context){context_id, device};
}

/* With one device the all-devices scope would be a copy of it: it is built only for more. */
static bool sc_index_has_all(const sc_blocking_index *ix)
{
    return ix->ctx->analysis->n_devices != 1;
}

/* ---- where a walk of calls in start order stands ---------------------------------------- */

/* A position in one of the orders a measure reads: the first element at which "ends after t"
 * (by_end, the busy intervals) or "starts at or after t" (by_start) holds, for the time t it
 * was sought for. UINT64_MAX: sought for no time yet, at the order's end. */
typedef struct sc_seek {
    uint64_t t;
    size_t at;
} sc_seek;

/* Moves a seek to time t in an order of n elements, `before(i)` an expression of i that holds
 * while element i comes before t's place (what holds at i holds before it). A later t is
 * sought forward from where the seek stands, an earlier one back: by probes 1, 2, 4, ... away
 * and halving the last step, so a call a few pieces of work after (or before) the one before
 * finds its place in a few probes, one far from it in twice the log of the distance. A seek
 * that stands nowhere yet searches the whole order in halves. */
#define SC_SEEK(seek, n, time, before)                                                         \
    do {                                                                                       \
        size_t sk_lo_ = 0, sk_hi_ = (seek).at, sk_step_ = 1;                                   \
        if ((seek).t == UINT64_MAX) {                                                          \
            sk_hi_ = (n);                                                                      \
        } else if ((time) >= (seek).t) {    /* the answer is at or after at */                 \
            sk_lo_ = (seek).at;                                                                \
            sk_hi_ = (n);                                                                      \
            for (size_t sk_p_ = sk_lo_; sk_p_ < (n); sk_p_ += sk_step_, sk_step_ <<= 1) {      \
                if (!(before(sk_p_))) {                                                        \
                    sk_hi_ = sk_p_;                                                            \
                    break;                                                                     \
                }                                                                              \
                sk_lo_ = sk_p_ + 1;                                                            \
            }                                                                                  \
        } else {                            /* at or before at */                              \
            while (sk_hi_ > 0) {                                                               \
                size_t sk_p_ = sk_hi_ > sk_step_ ? sk_hi_ - sk_step_ : 0;                      \
                if (before(sk_p_)) {                                                           \
                    sk_lo_ = sk_p_ + 1;                                                        \
                    break;                                                                     \
                }                                                                              \
                sk_hi_ = sk_p_;                                                                \
                sk_step_ <<= 1;                                                                \
            }                                                                                  \
        }                                                                                      \
        while (sk_lo_ < sk_hi_) {                                                              \
            size_t sk_mid_ = sk_lo_ + (sk_hi_ - sk_lo_) / 2;                                   \
            if (before(sk_mid_))                                                               \
                sk_lo_ = sk_mid_ + 1;                                                          \
            else                                                                               \
                sk_hi_ = sk_mid_;                                                              \
        }                                                                                      \
        (seek) = (sc_seek){(time), sk_lo_};                                                    \
    } while (0)

/* Where the last measure in a scope left its three orders. */
struct sc_blocking_place {
    sc_seek end;        /* by_end, at the last wait point: where the drained walk stopped */
    sc_seek busy;       /* the busy intervals, at the last call's end */
    sc_seek start;      /* by_start, at the last starve's next work */
};

/* The place of a measure with no measure before it. */
static sc_blocking_place sc_place_none(const sc_blocking_scope *s)
{
    return (sc_blocking_place){{UINT64_MAX, s->n}, {UINT64_MAX, s->busy.n}, {UINT64_MAX, s->n}};
}

static const sc_blocking_scope *sc_scope_of(const sc_blocking_index *ix, uint32_t context_id);

/* Per scope, where the last call's start lies in by_end (a seek, SC_SEEK), and per by_end
 * position the earliest issue of it and all after (min_issue_from: made for the own times'
 * walk and freed after it, nothing else reads it). */
typedef struct sc_end_cursor {
    sc_seek seek;
    uint64_t *min_issue_from;
} sc_end_cursor;

/* The scope of the context of the call before (the calls of a run name a few contexts, most
 * often one, over and over). */
typedef struct sc_scope_memo {
    const sc_blocking_scope *scope;
    uint32_t context_id;
    bool used;
} sc_scope_memo;

/* Whether any work of the call's scope was in flight when it began: of the work ending after
 * that, some was issued before it. `cursors`: one per device scope, then the all-devices
 * scope's. */
static bool sc_in_flight_at(const sc_blocking_index *ix, const sc_api_call *c,
                            sc_end_cursor *cursors, sc_scope_memo *memo)
{
    uint32_t context_id = sc_call_context(ix->ctx->trace, c);
    if (!memo->used || context_id != memo->context_id) {
        memo->scope = sc_scope_of(ix, context_id);
        memo->context_id = context_id;
        memo->used = true;
    }
    const sc_blocking_scope *s = memo->scope;
    size_t k = s == &ix->all ? ix->ctx->analysis->n_devices : (size_t)(s - ix->devices);
    const sc_trace *tr = ix->ctx->trace;
    const uint32_t *by_end = s->by_end;
    uint64_t start = c->rec.start_ns;
#define SC_END_BEFORE(i) (sc_work_end_at(tr, by_end[i]) <= start)
    SC_SEEK(cursors[k].seek, s->n, start, SC_END_BEFORE);
#undef SC_END_BEFORE
    size_t i = cursors[k].seek.at;
    return i < s->n && cursors[k].min_issue_from[i] < start;
}

/* The cursors of sc_in_flight_at, each with its scope's min_issue_from. NULL without memory. */
static sc_end_cursor *sc_cursors_make(const sc_blocking_index *ix)
{
    size_t n_dev = ix->ctx->analysis->n_devices;
    sc_end_cursor *cursors = calloc(n_dev + 1, sizeof(*cursors));
    for (size_t k = 0; cursors && k <= n_dev; k++) {
        const sc_blocking_scope *s = k < n_dev ? &ix->devices[k] : &ix->all;
        uint64_t *m = malloc((s->n ? s->n : 1) * sizeof *m);
        cursors[k].seek = (sc_seek){UINT64_MAX, s->n};
        cursors[k].min_issue_from = m;
        if (!m) {
            for (size_t j = 0; j < k; j++)
                free(cursors[j].min_issue_from);
            free(cursors);
            return NULL;
        }
        for (size_t i = s->n; i-- > 0;) {
            uint64_t issue = sc_work_issue(ix->ctx, s->by_end[i]);
            m[i] = i + 1 < s->n && m[i + 1] < issue ? m[i + 1] : issue;
        }
    }
    return cursors;
}

static void sc_cursors_free(const sc_blocking_index *ix, sc_end_cursor *cursors)
{
    for (size_t k = 0; cursors && k <= ix->ctx->analysis->n_devices; k++)
        free(cursors[k].min_issue_from);
    free(cursors);
}

/* The in-flight test of calls taken in start order, by one sweep, where the trace's calls lie
 * in start order (as the loader leaves them): what was issued before a call's start S is the
 * work that started before S and the work of the calls that started before S (the issue of a
 * piece is its call's start, or its own start when that is sooner or it has no call), so the
 * work in flight at S is there when the latest end of those, per scope, is after S. The calls
 * are passed as S reaches them, each one's work from its chain (work_order.h); each scope's
 * by_start is read as far as S when a call of the scope asks. No array per piece of work (the
 * earliest issue from each by_end position on was 8 bytes a piece, each with its call looked
 * up). */
typedef struct sc_flight_sweep {
    uint64_t *latest;   /* per scope (the devices', then all devices'): the latest end issued */
    size_t *read;       /* per scope: its by_start read up to here */
    size_t calls;       /* the calls passed */
} sc_flight_sweep;

static int sc_sweep_begin(const sc_blocking_index *ix, sc_flight_sweep *sw)
{
    size_t n = ix->ctx->analysis->n_devices + 1;
    sw->latest = calloc(n, sizeof *sw->latest);
    sw->read = calloc(n, sizeof *sw->read);
    sw->calls = 0;
    return sw->latest && sw->read ? 0 : -1;
}

static void sc_sweep_end(sc_flight_sweep *sw)
{
    free(sw->latest);
    free(sw->read);
}

static bool sc_sweep_in_flight(const sc_blocking_index *ix, sc_flight_sweep *sw,
                               const sc_api_call *c, sc_scope_memo *memo)
{
    const sc_ctx *ctx = ix->ctx;
    const sc_trace *t = ctx->trace;
    const sc_analysis *a = ctx->analysis;
    const sc_work_order *o = ix->order;
    size_t n_dev = a->n_devices;
    bool has_all = sc_index_has_all(ix);
    uint64_t start = c->rec.start_ns;
    size_t i_call = sw->calls;
    if (n_dev <= 1) {   /* one scope: the ends alone */
        uint64_t latest = sw->latest[0];
        for (; i_call < t->n_calls && t->calls[i_call].rec.start_ns < start; i_call++)
            for (uint32_t p = o->call_first[i_call]; p != SC_WORK_END; p = o->call_next[p]) {
                uint64_t e = sc_work_end_at(t, p);
                latest = e > latest ? e : latest;
            }
        sw->latest[0] = latest;
    } else {
        for (; i_call < t->n_calls && t->calls[i_call].rec.start_ns < start; i_call++)
            for (uint32_t p = o->call_first[i_call]; p != SC_WORK_END; p = o->call_next[p]) {
                sc_work w = sc_work_at(t, p);
                size_t d = sc_device_index(a, w.device);
                if (w.end_ns > sw->latest[d])
                    sw->latest[d] = w.end_ns;
                if (has_all && w.end_ns > sw->latest[n_dev])
                    sw->latest[n_dev] = w.end_ns;
            }
    }
    sw->calls = i_call;
    uint32_t context_id = sc_call_context(ix->ctx->trace, c);
    if (!memo->used || context_id != memo->context_id) {
        memo->scope = sc_scope_of(ix, context_id);
        memo->context_id = context_id;
        memo->used = true;
    }
    const sc_blocking_scope *s = memo->scope;
    size_t k = s == &ix->all ? n_dev : (size_t)(s - ix->devices);
    uint64_t latest = sw->latest[k];
    size_t i = sw->read[k];
    for (; i < s->n; i++) {
        uint64_t ws, we;
        sc_work_span_at(t, s->by_start[i], &ws, &we);
        if (ws >= start)
            break;
        if (we > latest)
            latest = we;
    }
    sw->read[k] = i;
    sw->latest[k] = latest;
    return latest > start;
}

/* The calls that may hold the host, in call order: a look at each call's class. *sorted: the
 * calls lie in start order. */
static int sc_holding_list(sc_blocking_index *ix, bool *sorted)
{
    const sc_trace *t = ix->ctx->trace;
    bool holding[SC_CALL_CLASS_COUNT];
    for (uint16_t cls = 0; cls < SC_CALL_CLASS_COUNT; cls++)
        holding[cls] = sc_blocking_holding_class(cls);
    *sorted = true;
    for (size_t i = 0; i < t->n_calls; i++) {
        uint16_t cls = sc_call_class_id(t, &t->calls[i]);
        if (i && t->calls[i].rec.start_ns < t->calls[i - 1].rec.start_ns)
            *sorted = false;
        if (cls < SC_CALL_CLASS_COUNT && holding[cls]) {
            if (!SC_GROW(ix->holding, ix->cap_holding, ix->n_holding + 1, 64))
                return -1;
            ix->holding[ix->n_holding++] = (uint32_t)i;
        }
    }
    return 0;
}

/* Per class of the calls that may hold the host (the only calls measured), what its calls
 * took with nothing in flight: the lower quartile of those durations (a call never takes less
 * than its own work; the quartile keeps a call slowed by something else out). 0 for a class
 * without such a call, and for the classes never measured (every call of a trace was looked
 * at before: 519k in-flight tests at 1M records for the 20k calls measured). The listed calls
 * are read once, each class's durations gathered in call order into its own stretch of d.
 * The in-flight test is the sweep's (sc_flight_sweep) where the calls lie in start order,
 * else the earliest issue from each by_end position on (sc_end_cursor). */
static int sc_own_times(sc_blocking_index *ix, bool sorted)
{
    const sc_trace *t = ix->ctx->trace;
    size_t n = ix->n_holding ? ix->n_holding : 1;
    uint8_t *cls_of = malloc(n);
    sc_flight_sweep sw = {0};
    sc_end_cursor *cursors = NULL;
    int made = !ix->n_holding ? 0 : sorted ? sc_sweep_begin(ix, &sw)
                                           : ((cursors = sc_cursors_make(ix)) ? 0 : -1);
    if (!cls_of || made != 0) {
        free(cls_of);
        sc_sweep_end(&sw);
        sc_cursors_free(ix, cursors);
        return -1;
    }
    enum { SC_NO_CLASS = 0xff };
    _Static_assert(SC_CALL_CLASS_COUNT < SC_NO_CLASS, "a class fits below the marker");
    size_t first[SC_CALL_CLASS_COUNT + 1] = {0};
    sc_scope_memo memo = {0};
    for (size_t k = 0; k < ix->n_holding; k++) {
        const sc_api_call *c = &t->calls[ix->holding[k]];
        bool own = !sc_blocking_is_inner(ix->ctx, c) &&
                   !(sorted ? sc_sweep_in_flight(ix, &sw, c, &memo)
                            : sc_in_flight_at(ix, c, cursors, &memo));
        uint8_t cls = sc_call_class_id(t, c);
        cls_of[k] = own ? cls : SC_NO_CLASS;
        if (own)
            first[cls + 1]++;
    }
    sc_sweep_end(&sw);
    sc_cursors_free(ix, cursors);
    for (size_t cls = 0; cls < SC_CALL_CLASS_COUNT; cls++)
        first[cls + 1] += first[cls];
    size_t n_own = first[SC_CALL_CLASS_COUNT];
    uint64_t *d = malloc((n_own ? n_own : 1) * sizeof(*d));
    if (!d) {
        free(cls_of);
        return -1;
    }
    size_t next[SC_CALL_CLASS_COUNT];
    memcpy(next, first, sizeof next);
    for (size_t k = 0; k < ix->n_holding; k++) {
        const sc_api_call *c = &t->calls[ix->holding[k]];
        if (cls_of[k] != SC_NO_CLASS)
            d[next[cls_of[k]]++] = sc_dur(c->rec.start_ns, sc_call_end(t, c));
    }
    for (size_t cls = 0; cls < SC_CALL_CLASS_COUNT; cls++) {
        size_t k = first[cls + 1] - first[cls];
        if (k == 0)
            continue;
        sc_sort_u64(d + first[cls], k);
        ix->own_ns[cls] = d[first[cls] + (k - 1) / 4];
    }
    free(d);
    free(cls_of);
    return 0;
}

int sc_blocking_index_build(const sc_ctx *ctx, const sc_work_order *order,
                            sc_blocking_index *ix)
{
    size_t n_dev = ctx->analysis->n_devices;
    memset(ix, 0, sizeof(*ix));
    ix->ctx = ctx;
    ix->order = order;
    ix->devices = calloc(n_dev ? n_dev : 1, sizeof(*ix->devices));
    if (!ix->devices)
        return -1;
    /* in record order (sc_work_at's: the kernels, the copies, the memsets), the context of
     * the piece before skipped (one context, the usual trace, is one note; a note of a context
     * noted before changes nothing), each list read for its two fields alone */
    const sc_trace *t = ctx->trace;
    uint32_t last = 0;
    bool noted = false;
#define SC_NOTE(rec)                                                                           \
    if (!noted || (rec).context_id != last) {                                                  \
        sc_context_note(ix, (rec).context_id, (rec).device);                                   \
        last = (rec).context_id;                                                               \
        noted = true;                                                                          \
    }
    for (size_t i = 0; n_dev && i < t->n_kernels; i++)
        SC_NOTE(*sc_kernel_shape_of(t, &t->kernels[i]));
    for (size_t i = 0; n_dev && i < t->n_copies; i++)
        SC_NOTE(*sc_copy_shape_of(t, &t->copies[i]));
    for (size_t i = 0; n_dev && i < t->n_memsets; i++)
        SC_NOTE(*sc_memset_shape_of(t, &t->memsets[i]));
#undef SC_NOTE
    if (ix->failed)
        return -1;
    for (size_t d = 0; d < n_dev; d++)
        if (sc_scope_make(ctx, &ix->devices[d], sc_work_order_device(order, d),
                          ctx->analysis->devices[d].device, false) != 0)
            return -1;
    static const sc_work_view none = {0};
    if (sc_scope_make(ctx, &ix->all, sc_index_has_all(ix) ? &order->all : &none, 0, true) != 0)
        return -1;
    bool sorted;
    return sc_holding_list(ix, &sorted) == 0 ? sc_own_times(ix, sorted) : -1;
}

void sc_blocking_index_free(sc_blocking_index *ix)
{
    if (ix->devices)
        for (size_t d = 0; d < ix->ctx->analysis->n_devices; d++)
            sc_scope_free(&ix->devices[d]);
    free(ix->devices);
    sc_scope_free(&ix->all);
    free(ix->contexts);
    free(ix->holding);
    memset(ix, 0, sizeof(*ix));
}

/* ---- measuring ------------------------------------------------------------------------ */

static const sc_blocking_scope *sc_scope_of(const sc_blocking_index *ix, uint32_t context_id)
{
    for (size_t i = 0; i < ix->n_contexts; i++) {
        if (ix->contexts[i].context_id != context_id)
            continue;
        for (size_t d = 0; d < ix->ctx->analysis->n_devices; d++)
            if (ix->ctx->analysis->devices[d].device == ix->contexts[i].device)
                return &ix->devices[d];
    }
    return sc_index_has_all(ix) ? &ix->all : &ix->devices[0];
}

/* The call's own work (its correlation id, which is the call's own: its work is the chain of
 * the call that id finds, work_order.h) in the scope: the piece that comes first by start,
 * then end, then position; false when there is none. */
static bool sc_own_work(const sc_blocking_index *ix, const sc_blocking_scope *s,
                        uint32_t correlation_id, sc_blocking_work *own)
{
    if (correlation_id == 0)
        return false;
    uint32_t call = sc_ctx_call_at(ix->ctx, correlation_id);
    if (call == UINT32_MAX)
        return false;
    const sc_trace *t = ix->ctx->trace;
    const sc_work_order *o = ix->order;
    bool found = false;
    sc_work best = {0};
    uint32_t best_at = 0;
    /* the chain is in (start, position) order: the first in the scope, or one of the same
     * start that ends sooner */
    for (uint32_t p = o->call_first[call]; p != SC_WORK_END; p = o->call_next[p]) {
        sc_work w = sc_work_at(t, p);
        if (!s->all && w.device != s->device)
            continue;
        if (found && w.start_ns != best.start_ns)
            break;
        if (!found || w.end_ns < best.end_ns) {
            best = w;
            best_at = p;
            found = true;
        }
    }
    if (found)
        *own = sc_work_entry(ix->ctx, best_at);
    return found;
}

/* The distinct streams a measure drained, counted once each: ids below 64 (CUPTI numbers a
 * context's streams from 1 up: the usual id) as the bits of a word, a step's test and no scan,
 * the others in a list. Together they hold the first SC_BLOCKING_DISTINCT distinct ids met;
 * a stream past those is counted each time it is met, as it always was. */
typedef struct sc_stream_set {
    uint64_t low;
    size_t n, n_high;
    uint32_t high[SC_BLOCKING_DISTINCT];
} sc_stream_set;

/* Whether the stream counts as another drained stream (and notes it while there is room). */
static inline bool sc_stream_set_add(sc_stream_set *set, uint32_t stream)
{
    if (stream < 64) {
        uint64_t bit = (uint64_t)1 << stream;
        if (set->low & bit)
            return false;
        if (set->n < SC_BLOCKING_DISTINCT) {
            set->low |= bit;
            set->n++;
        }
        return true;
    }
    for (size_t i = 0; i < set->n_high; i++)
        if (set->high[i] == stream)
            return false;
    if (set->n < SC_BLOCKING_DISTINCT) {
        set->high[set->n_high++] = stream;
        set->n++;
    }
    return true;
}

/* Counts another drained stream, keeping the smallest ids. */
static void sc_drained_stream(sc_blocking *m, uint32_t stream)
{
    m->n_streams++;
    size_t keep = m->n_streams < SC_BLOCKING_MAX_STREAMS ? m->n_streams
                                                          : SC_BLOCKING_MAX_STREAMS;
    /* insertion into the sorted head; a larger id than all kept falls off the end */
    size_t at = keep - 1;
    if (m->n_streams > SC_BLOCKING_MAX_STREAMS && stream > m->streams[at])
        return;
    while (at > 0 && m->streams[at - 1] > stream) {
        m->streams[at] = m->streams[at - 1];
        at--;
    }
    m->streams[at] = stream;
}

/* The fields of the work at a position that the drained walk reads before it knows whether it
 * needs the work's call. */
static inline __attribute__((always_inline)) void
sc_work_fields(const sc_trace *t, uint32_t position, uint64_t *start, uint64_t *end,
               uint32_t *stream, uint32_t *corr)
{
    sc_work w = sc_work_at(t, position);
    *start = w.start_ns, *end = w.end_ns, *stream = w.stream_id, *corr = w.correlation_id;
}

/* The walk of sc_measure_drained, for a caller that reads other_thread (`threads`) or not: a
 * piece that started before the call was issued before it whatever its call, so without the
 * threads its call is looked up only for work that started inside the call. */
static inline __attribute__((always_inline)) size_t
sc_drained_walk(const sc_ctx *ctx, const sc_blocking_scope *s, size_t from,
                const sc_blocking_call *c, sc_blocking *m, bool threads, size_t *last_out)
{
    const sc_trace *tr = ctx->trace;
    const uint32_t *by_end = s->by_end;
    const uint64_t start = c->start_ns, wait = m->wait_point_ns;
    const uint32_t own_corr = c->correlation_id, tid = c->tid;
    const bool skip = c->skip_own_stream && m->has_own;
    const uint32_t own_stream = m->own_stream;
    sc_stream_set streams;
    streams.low = 0, streams.n = 0, streams.n_high = 0;
    size_t n_drained = 0, last = 0;
    bool other_thread = false;
    size_t i = from;
    for (; i < s->n; i++) {
        uint64_t ws, we;
        uint32_t stream, corr;
        sc_work_fields(tr, by_end[i], &ws, &we, &stream, &corr);
        if (we > wait)
            break;
        const sc_api_call *call = ws >= start || threads ? sc_ctx_call(ctx, corr) : NULL;
        if (ws >= start && !(call && call->rec.start_ns < start))
            continue;   /* not in flight when the call began: issued at or after its start */
        if (own_corr != 0 && corr == own_corr)
            continue;   /* the call's own work */
        if (skip && stream == own_stream)
            continue;
        if (sc_stream_set_add(&streams, stream))
            sc_drained_stream(m, stream);
        n_drained++;
        last = i;       /* by_end is ascending: the last one wins */
        if (threads && call && tid) {
            uint32_t call_tid = sc_call_tid(tr, call);
            if (call_tid != tid && call_tid)
                other_thread = true;
        }
    }
    m->n_drained = n_drained;
    m->other_thread = other_thread;
    *last_out = last;
    return i;
}

/* The drained work: by_end from the first that ends after the call's start to the wait
 * point; the seek is left where the walk stopped, at the first that ends after that. The walk
 * keeps what it finds in locals, m written only for another stream (stores through m would
 * have every step load the trace's and the context's arrays again), and the last drained
 * piece is made again after it. */
static void sc_measure_drained(const sc_blocking_index *ix, const sc_blocking_scope *s,
                               sc_seek *seek, const sc_blocking_call *c, uint64_t own_ns,
                               sc_blocking *m)
{
    const sc_ctx *ctx = ix->ctx;
    const sc_trace *tr = ctx->trace;
    const uint32_t *by_end = s->by_end;
#define SC_END_BEFORE(i) (sc_work_end_at(tr, by_end[i]) <= c->start_ns)
    SC_SEEK(*seek, s->n, c->start_ns, SC_END_BEFORE);
#undef SC_END_BEFORE
    size_t last;
    size_t i = c->skip_threads ? sc_drained_walk(ctx, s, seek->at, c, m, false, &last)
                               : sc_drained_walk(ctx, s, seek->at, c, m, true, &last);
    if (m->n_drained) {
        sc_blocking_work w = sc_work_entry(ctx, by_end[last]);
        m->drained_end_ns = w.end_ns;
        m->last_stream = w.stream_id;
        m->last_work = w.work;
        m->last_tid = w.tid;
    }
    *seek = (sc_seek){m->wait_point_ns, i};
    uint64_t tol = (uint64_t)(SC_BLOCKING_TOL_SHARE * (double)m->blocked_ns);
    if (tol < SC_BLOCKING_TOL_NS)
        tol = SC_BLOCKING_TOL_NS;
    if (c->call_class < SC_CALL_CLASS_COUNT && !m->has_own)
        tol += own_ns;      /* what the call does after its wait */
    m->explained = m->n_drained > 0 && m->wait_point_ns - m->drained_end_ns <= tol;
}

/* Time from the call's return to the next work when the host could not have queued it. */
static uint64_t sc_measure_starve(const sc_blocking_index *ix, const sc_blocking_scope *s,
                                  sc_seek *seek, const sc_ival *after, uint64_t end_ns)
{
    if (after->start_ns <= end_ns)
        return 0;       /* the device was busy at the return */
    uint64_t next = after->start_ns;
    const sc_trace *t = ix->ctx->trace;
    const uint32_t *by_start = s->by_start;
#define SC_START_BEFORE(i) (sc_work_start_at(t, by_start[i]) < next)
    SC_SEEK(*seek, s->n, next, SC_START_BEFORE);
#undef SC_START_BEFORE
    for (size_t i = seek->at; i < s->n && sc_work_start_at(t, by_start[i]) == next; i++)
        if (sc_work_issue(ix->ctx, by_start[i]) < end_ns)
            return 0;   /* queued before the return: something else held it back */
    return next - end_ns;
}

/* One measure, from the place the scope's last measure left (sc_place_none: none). */
static void sc_measure_at(const sc_blocking_index *ix, const sc_blocking_scope *s,
                          sc_blocking_place *p, const sc_blocking_call *c, sc_blocking *m)
{
    memset(m, 0, sizeof(*m));
    uint64_t end = c->end_ns > c->start_ns ? c->end_ns : c->start_ns;
    m->blocked_ns = end - c->start_ns;
    m->wait_point_ns = end;
    sc_blocking_work own;
    if (sc_own_work(ix, s, c->correlation_id, &own)) {
        m->has_own = true;
        m->own_stream = own.stream_id;
        if (own.start_ns >= c->start_ns && own.start_ns < end)
            m->wait_point_ns = own.start_ns;
    }
    sc_measure_drained(ix, s, &p->end, c,
                       c->call_class < SC_CALL_CLASS_COUNT ? ix->own_ns[c->call_class] : 0, m);
    /* the idle time inside the call: the busy intervals from the first that ends after its
     * start, as sc_busy_uncovered sums them; the one in progress at its end or the first
     * after it (the first that ends after the end) is the last of them or the next one, the
     * intervals being disjoint */
    const sc_busy_list *b = &s->busy;
    const sc_ival *iv = b->ivals;
    uint64_t start = c->start_ns;
#define SC_BUSY_BEFORE(i) (iv[i].end_ns <= start)
    SC_SEEK(p->busy, b->n, start, SC_BUSY_BEFORE);
#undef SC_BUSY_BEFORE
    size_t i = p->busy.at;
    uint64_t covered = 0;
    for (; i < b->n && iv[i].start_ns < end; i++) {
        uint64_t x = iv[i].start_ns > start ? iv[i].start_ns : start;
        uint64_t y = iv[i].end_ns < end ? iv[i].end_ns : end;
        covered += sc_dur(x, y);
    }
    m->idle_ns = m->blocked_ns - covered;
    size_t a = i > p->busy.at && iv[i - 1].end_ns > end ? i - 1 : i;
    p->busy = (sc_seek){end, a};
    const sc_ival *after = a < b->n ? &iv[a] : NULL;
    m->followed = after != NULL;
    uint64_t lost;
    if (after) {
        m->starve_ns = sc_measure_starve(ix, s, &p->start, after, end);
        lost = m->idle_ns + m->starve_ns;
    } else {
        /* nothing left to run: only gaps that work inside the call closed were lost */
        uint64_t last = b->n ? iv[b->n - 1].end_ns : 0;
        lost = last > start ? sc_busy_uncovered(b, start, last) : 0;
    }
    m->cost_ns = lost < m->blocked_ns ? lost : m->blocked_ns;
}

void sc_blocking_measure(const sc_blocking_index *ix, const sc_blocking_call *c,
                         sc_blocking *m)
{
    const sc_blocking_scope *s = sc_scope_of(ix, c->context_id);
    sc_blocking_place p = sc_place_none(s);
    sc_measure_at(ix, s, &p, c, m);
}

int sc_blocking_walk_begin(const sc_blocking_index *ix, sc_blocking_walk *w)
{
    size_t n_dev = ix->ctx->analysis->n_devices;
    *w = (sc_blocking_walk){.ix = ix};
    w->places = malloc((n_dev + 1) * sizeof *w->places);
    if (!w->places)
        return -1;
    for (size_t k = 0; k <= n_dev; k++)
        w->places[k] = sc_place_none(k < n_dev ? &ix->devices[k] : &ix->all);
    return 0;
}

void sc_blocking_walk_end(sc_blocking_walk *w)
{
    free(w->places);
    memset(w, 0, sizeof(*w));
}

void sc_blocking_measure_next(sc_blocking_walk *w, const sc_blocking_call *c, sc_blocking *m)
{
    const sc_blocking_index *ix = w->ix;
    if (!w->has_scope || c->context_id != w->context_id) {
        w->scope = sc_scope_of(ix, c->context_id);
        w->context_id = c->context_id;
        w->has_scope = true;
    }
    const sc_blocking_scope *s = w->scope;
    size_t k = s == &ix->all ? ix->ctx->analysis->n_devices : (size_t)(s - ix->devices);
    sc_measure_at(ix, s, &w->places[k], c, m);
}

bool sc_blocking_sync_class(uint16_t call_class)
{
    return call_class == SC_CALL_DEVICE_SYNC || call_class == SC_CALL_STREAM_SYNC ||
           call_class == SC_CALL_EVENT_SYNC;
}

bool sc_blocking_holding_class(uint16_t call_class)
{
    return sc_blocking_sync_class(call_class) || sc_blocking_implicit_class(call_class) ||
           call_class == SC_CALL_STREAM_QUERY || call_class == SC_CALL_EVENT_QUERY;
}

bool sc_blocking_implicit_class(uint16_t call_class)
{
    switch (call_class) {
    case SC_CALL_MALLOC: case SC_CALL_FREE: case SC_CALL_HOST_ALLOC: case SC_CALL_HOST_FREE:
    case SC_CALL_HOST_REGISTER: case SC_CALL_HOST_UNREGISTER: case SC_CALL_MEMCPY:
    case SC_CALL_MEMSET: case SC_CALL_SET_LIMIT:
        return true;
    default:
        return false;
    }
}

void sc_blocking_streams_text(const sc_blocking *m, char *buf, size_t size)
{
    size_t used = 0, shown = m->n_streams < SC_BLOCKING_MAX_STREAMS ? m->n_streams
                                                                     : SC_BLOCKING_MAX_STREAMS;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < shown && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%u", i ? ", " : "", m->streams[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (m->n_streams > shown && used < size)
        snprintf(buf + used, size - used, ", ... (%zu streams)", m->n_streams);
}
