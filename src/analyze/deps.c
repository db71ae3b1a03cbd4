#include "analyze/deps.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/work_order.h"

#include "trace/grow.h"
#include "trace/sort.h"

/* (context, handle, per-thread) -> stream id */
struct sc_handle_entry {
    uint32_t context_id;
    uint32_t per_thread;
    uint64_t handle;
    uint32_t stream_id;
};
typedef struct sc_handle_entry sc_handle_entry;

typedef struct sc_corr_stream {
    uint32_t correlation_id, stream_id;
} sc_corr_stream;

static int sc_cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int sc_corr_cmp(const void *pa, const void *pb)
{
    const sc_corr_stream *a = pa, *b = pb;
    return sc_cmp_u64(a->correlation_id, b->correlation_id);
}

static int sc_handle_cmp(const void *pa, const void *pb)
{
    const sc_handle_entry *a = pa, *b = pb;
    if (a->context_id != b->context_id) return sc_cmp_u64(a->context_id, b->context_id);
    if (a->per_thread != b->per_thread) return sc_cmp_u64(a->per_thread, b->per_thread);
    return sc_cmp_u64(a->handle, b->handle);
}

static int sc_edge_cmp(const void *pa, const void *pb)
{
    const sc_dep_edge *a = pa, *b = pb;
    if (a->context_id != b->context_id) return sc_cmp_u64(a->context_id, b->context_id);
    if (a->to_stream != b->to_stream) return sc_cmp_u64(a->to_stream, b->to_stream);
    return sc_cmp_u64(a->wait_ns, b->wait_ns);
}

/* The stream id of every correlation id that produced device work. */
static sc_corr_stream *sc_corr_streams(const sc_trace *t, size_t *n)
{
    size_t cap = sc_work_count(t), k = 0;
    sc_corr_stream *m = malloc((cap ? cap : 1) * sizeof *m);
    if (!m) return NULL;
    for (size_t i = 0; i < t->n_kernels; i++)
        m[k++] = (sc_corr_stream){t->kernels[i].rec.correlation_id,
                                  sc_kernel_stream(t, &t->kernels[i])};
    for (size_t i = 0; i < t->n_copies; i++)
        m[k++] = (sc_corr_stream){t->copies[i].correlation_id,
                                  sc_copy_stream(t, &t->copies[i])};
    for (size_t i = 0; i < t->n_memsets; i++)
        m[k++] = (sc_corr_stream){t->memsets[i].correlation_id,
                                  sc_memset_stream(t, &t->memsets[i])};
    sc_sort(m, k, sizeof *m, sc_corr_cmp);
    *n = k;
    return m;
}

static bool sc_corr_lookup(const sc_corr_stream *m, size_t n, uint32_t corr, uint32_t *stream)
{
    sc_corr_stream key = {corr, 0};
    const sc_corr_stream *e = corr && n ? bsearch(&key, m, n, sizeof key, sc_corr_cmp) : NULL;
    if (e) *stream = e->stream_id;
    return e != NULL;
}

/* The stream of each correlation id that produced device work, asked once per call with a
 * stream: a table by id when the ids are dense (at most two slots per piece of work) and
 * each names one stream, else the sorted list (sc_corr_streams) and a binary search. With
 * one stream per id, any entry bsearch meets gives the table's answer. */
typedef struct sc_corr_map {
    sc_corr_stream *sorted;     /* the list, when there is no table */
    size_t n_sorted;
    uint32_t *stream;           /* the table: by id - min, where has[] says */
    uint8_t *has;
    uint32_t min;
    size_t span;
} sc_corr_map;

static void sc_corr_map_free(sc_corr_map *m)
{
    free(m->sorted);
    free(m->stream);
    free(m->has);
    memset(m, 0, sizeof *m);
}

/* Notes (corr, stream) in the table; false when the id already names another stream. */
static bool sc_corr_map_note(sc_corr_map *m, uint32_t corr, uint32_t stream)
{
    if (corr == 0)
        return true;    /* 0 means "no call": never looked up */
    size_t at = corr - m->min;
    if (m->has[at])
        return m->stream[at] == stream;
    m->has[at] = 1;
    m->stream[at] = stream;
    return true;
}

/* Widens [lo, hi] to a nonzero id. */
static void sc_corr_range(uint32_t id, uint32_t *lo, uint32_t *hi)
{
    if (id == 0)
        return;
    *lo = id < *lo ? id : *lo;
    *hi = id > *hi ? id : *hi;
}

/* The table; 1 when built, 0 when the ids are too sparse or name several streams, -1
 * without memory. */
static int sc_corr_table(const sc_trace *t, sc_corr_map *m)
{
    size_t n = sc_work_count(t);
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < t->n_kernels; i++)
        sc_corr_range(t->kernels[i].rec.correlation_id, &lo, &hi);
    for (size_t i = 0; i < t->n_copies; i++)
        sc_corr_range(t->copies[i].correlation_id, &lo, &hi);
    for (size_t i = 0; i < t->n_memsets; i++)
        sc_corr_range(t->memsets[i].correlation_id, &lo, &hi);
    if (lo > hi || (size_t)(hi - lo) + 1 > 2 * n + 1024)
        return 0;
    m->min = lo;
    m->span = (size_t)(hi - lo) + 1;
    m->stream = malloc(m->span * sizeof *m->stream);
    m->has = calloc(m->span, 1);
    if (!m->stream || !m->has) {
        sc_corr_map_free(m);
        return -1;
    }
    bool one = true;
    for (size_t i = 0; one && i < t->n_kernels; i++)
        one = sc_corr_map_note(m, t->kernels[i].rec.correlation_id,
                               sc_kernel_stream(t, &t->kernels[i]));
    for (size_t i = 0; one && i < t->n_copies; i++)
        one = sc_corr_map_note(m, t->copies[i].correlation_id,
                               sc_copy_stream(t, &t->copies[i]));
    for (size_t i = 0; one && i < t->n_memsets; i++)
        one = sc_corr_map_note(m, t->memsets[i].correlation_id,
                               sc_memset_stream(t, &t->memsets[i]));
    if (!one)
        sc_corr_map_free(m);
    return one;
}

static int sc_corr_map_build(const sc_trace *t, sc_corr_map *m)
{
    memset(m, 0, sizeof *m);
    int table = sc_corr_table(t, m);
    if (table != 0)
        return table < 0 ? -1 : 0;
    m->sorted = sc_corr_streams(t, &m->n_sorted);
    return m->sorted ? 0 : -1;
}

static bool sc_corr_map_lookup(const sc_corr_map *m, uint32_t corr, uint32_t *stream)
{
    if (!m->has)
        return sc_corr_lookup(m->sorted, m->n_sorted, corr, stream);
    size_t at = (size_t)corr - m->min;
    if (corr == 0 || corr < m->min || at >= m->span || !m->has[at])
        return false;
    *stream = m->stream[at];
    return true;
}

/* Where a call's stream (the stream its correlation id's work ran on) is learned: the deps'
 * own index of every piece of work's correlation id (sc_corr_map), or the shared order's
 * chain of each call's work (work_order.h), whose first piece names the stream when every
 * call's work lies on one. */
typedef struct sc_call_streams {
    const sc_corr_map *map;         /* the index, or NULL: the chains */
    const sc_ctx *ctx;
    const sc_work_order *order;
} sc_call_streams;

/* The stream of the work of c's correlation id. Through the chains: the work of an id hangs
 * on the call sc_ctx_call gives for it (the runtime call of a runtime and driver pair), so
 * another call of the id (the driver's) asks that call's chain; an id with no work, or 0 (no
 * call), has none. With one stream per call's work this is what the index answers. */
static inline __attribute__((always_inline)) bool
sc_call_stream(const sc_trace *t, const sc_call_streams *cs, size_t i, uint32_t *stream)
{
    const sc_api_call *c = &t->calls[i];
    if (cs->map)
        return sc_corr_map_lookup(cs->map, c->rec.correlation_id, stream);
    uint32_t p = cs->order->call_first[i];    /* by index: no division of a pointer gap */
    if (p == SC_WORK_END) {
        uint32_t first = sc_ctx_call_at(cs->ctx, c->rec.correlation_id);
        if (first == UINT32_MAX || first == i || (p = cs->order->call_first[first]) == SC_WORK_END)
            return false;
    }
    *stream = sc_work_stream_at(t, p);
    return true;
}

/* The stream created by a stream-creating call: the last STREAM record of its correlation
 * id (a first call also creates CUDA's internal streams, with lower ids). */
static bool sc_created_stream(const sc_trace *t, const sc_api_call *c, uint32_t *stream)
{
    bool found = false;
    for (size_t i = 0; i < t->n_streams; i++) {
        const sc_rec_stream *s = &t->streams[i];
        if (s->correlation_id == c->rec.correlation_id && (!found || s->stream_id > *stream)) {
            *stream = s->stream_id;
            found = true;
        }
    }
    return found;
}

/* Every call with a stream argument gave an entry: a stream's handle appears once per call.
 * When each key (context, per-thread, handle) names one stream, one entry per key is kept:
 * a lookup (bsearch) finds the same stream in either list. When some key names several
 * (a handle reused after its stream was destroyed), which equal entry bsearch meets decides
 * the answer, so the list is kept as it is. Returns the count kept. */
static size_t sc_handles_unique(sc_handle_entry *h, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (sc_handle_cmp(&h[i - 1], &h[i]) == 0 && h[i - 1].stream_id != h[i].stream_id)
            return n;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || sc_handle_cmp(&h[kept - 1], &h[i]) != 0)
            h[kept++] = h[i];
    return kept;
}

/* The entry a call gives: its stream handle's key and the stream it names; false for a call
 * that names none the trace can tell. Inline: it is asked once per call. */
static inline __attribute__((always_inline)) bool
sc_handle_of(const sc_trace *t, const sc_call_streams *cs, size_t i, sc_handle_entry *out)
{
    const sc_api_call *c = &t->calls[i];
    const sc_call_extra *x = sc_call_extra_of(t, c);    /* its fields, read once */
    uint32_t stream = 0;
    sc_handle_entry e = {.context_id = x->context_id,
                         .per_thread = (x->flags & SC_API_PER_THREAD) != 0};
    if (x->call_class == SC_CALL_STREAM_CREATE) {
        uint64_t created = sc_call_aux(t, c);
        if (!created || !sc_created_stream(t, c, &stream)) return false;
        e.handle = created;
        e.per_thread = 0;
    } else {
        uint64_t handle = x->stream;
        if (handle == SC_STREAM_NONE || !sc_call_stream(t, cs, i, &stream))
            return false;
        e.handle = handle;
        /* Only the handle 0 means something else in a per-thread call. */
        if (e.handle != 0) e.per_thread = 0;
    }
    e.stream_id = stream;
    *out = e;
    return true;
}

/* Every call's entry, sorted by key and made unique where it can be (sc_handles_unique).
 * NULL without memory. */
static sc_handle_entry *sc_handles_all(const sc_trace *t, const sc_call_streams *cs, size_t *n)
{
    sc_handle_entry *h = malloc((t->n_calls ? t->n_calls : 1) * sizeof *h);
    if (!h)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < t->n_calls; i++)
        k += sc_handle_of(t, cs, i, &h[k]);
    sc_sort(h, k, sizeof *h, sc_handle_cmp);
    *n = sc_handles_unique(h, k);
    if (*n < k) {   /* give the rest back: one entry per call with a stream was millions */
        sc_handle_entry *fit = realloc(h, (*n ? *n : 1) * sizeof *h);
        if (fit)
            h = fit;
    }
    return h;
}

/* The distinct entries (key and stream) of the calls, by key then stream: a handful where
 * the calls are millions. A program that creates a stream per step has one per step, and
 * each insertion moves the entries after it: past SC_HANDLE_SET_MAX the set gives up and the
 * handle list is made from every call's entry (sc_handles_all), in n log n. */
enum { SC_HANDLE_SET_MAX = 1024 };

typedef struct sc_handle_set {
    sc_handle_entry *e;
    size_t n, cap;
    size_t last;        /* the entry the call before matched: most calls name it again */
    bool full;          /* more distinct entries than SC_HANDLE_SET_MAX: the set is unused */
} sc_handle_set;

static int sc_handle_stream_cmp(const sc_handle_entry *a, const sc_handle_entry *b)
{
    int c = sc_handle_cmp(a, b);
    return c ? c : sc_cmp_u64(a->stream_id, b->stream_id);
}

/* The same key and stream: what sc_handle_stream_cmp calls 0, without its order. */
static inline bool sc_handle_same(const sc_handle_entry *a, const sc_handle_entry *b)
{
    return a->handle == b->handle && a->stream_id == b->stream_id &&
           a->context_id == b->context_id && a->per_thread == b->per_thread;
}

enum { SC_HANDLE_SET_SCAN = 8 };

/* Adds an entry unless the set holds it or is full; returns 0, or -1 without memory. A set
 * of a few entries (the usual program) is compared for equality one entry after another,
 * without the search's ordered comparisons (the entries are unique, so it finds the same);
 * the search then only places a new entry. */
static int sc_handle_set_add(sc_handle_set *s, const sc_handle_entry *e)
{
    if (s->full || (s->last < s->n && sc_handle_same(&s->e[s->last], e)))
        return 0;
    if (s->n <= SC_HANDLE_SET_SCAN)
        for (size_t i = 0; i < s->n; i++)
            if (sc_handle_same(&s->e[i], e)) {
                s->last = i;
                return 0;
            }
    size_t lo = 0, hi = s->n;  /* a new entry's place (rare), or the entry in a larger set */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = sc_handle_stream_cmp(&s->e[mid], e);
        if (c == 0) {
            s->last = mid;
            return 0;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (s->n == SC_HANDLE_SET_MAX) {
        s->full = true;
        return 0;
    }
    if (!SC_GROW(s->e, s->cap, s->n + 1, 16))
        return -1;
    memmove(s->e + lo + 1, s->e + lo, (s->n - lo) * sizeof *s->e);
    s->e[lo] = *e;
    s->n++;
    s->last = lo;
    return 0;
}

/* Whether some key of the set names two streams. */
static bool sc_handle_set_reused(const sc_handle_set *s)
{
    for (size_t i = 1; i < s->n; i++)
        if (sc_handle_cmp(&s->e[i - 1], &s->e[i]) == 0)
            return true;
    return false;
}

/* The handle list, by key, from the distinct entries of the calls (the set is taken): when
 * each key names one stream it is those entries, the list sc_handles_all makes unique,
 * without an entry per call to sort (24 bytes a call, and the sort's scratch as much again);
 * else (or when the set was full) that list. NULL without memory. */
static sc_handle_entry *sc_handles(const sc_trace *t, const sc_call_streams *cs,
                                   sc_handle_set *set, size_t *n)
{
    bool reused = set->full || sc_handle_set_reused(set);
    sc_handle_entry *distinct = set->e;
    *n = set->n;
    *set = (sc_handle_set){0};
    if (reused) {
        free(distinct);
        return sc_handles_all(t, cs, n);
    }
    return distinct ? distinct : malloc(sizeof *distinct);
}

/* The handles a lookup scans instead of searching: a program's few streams. */
enum { SC_HANDLE_SCAN_MAX = 16 };

/* The stream of the handle a call names. With a key per entry, the scan meets the entry the
 * search would (the only one of the key); with some key on several entries (a handle reused),
 * the search's path decides which, so it is kept. */
static bool sc_handle_lookup(const sc_deps *d, const sc_api_call *c, uint32_t *stream)
{
    uint64_t handle = sc_call_stream_handle(d->trace, c);
    sc_handle_entry key = {.context_id = sc_call_context(d->trace, c), .handle = handle,
                           .per_thread = handle == 0 &&
                                         (sc_call_flags(d->trace, c) & SC_API_PER_THREAD)};
    const sc_handle_entry *h = d->handles, *e = NULL;
    size_t n = d->n_handles;
    if (d->handles_scan) {
        for (size_t i = 0; i < n && !e; i++)
            if (h[i].handle == key.handle && h[i].context_id == key.context_id &&
                h[i].per_thread == key.per_thread)
                e = &h[i];
    } else if (n) {
        e = bsearch(&key, h, n, sizeof key, sc_handle_cmp);
    }
    if (e) *stream = e->stream_id;
    return e != NULL;
}

struct sc_record_ref {
    uint64_t event, start_ns;
    const sc_api_call *call;
};
typedef struct sc_record_ref sc_record_ref;

static int sc_record_cmp(const void *pa, const void *pb)
{
    const sc_record_ref *a = pa, *b = pb;
    if (a->event != b->event) return sc_cmp_u64(a->event, b->event);
    return sc_cmp_u64(a->start_ns, b->start_ns);
}

/* The latest record of `event` issued before `before`: records sorted by (event, time). */
static const sc_api_call *sc_last_record(const sc_record_ref *r, size_t n, uint64_t event,
                                         uint64_t before)
{
    size_t lo = 0, hi = n;  /* first entry not before (event, before) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].event < event || (r[mid].event == event && r[mid].start_ns < before))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && r[lo - 1].event == event ? r[lo - 1].call : NULL;
}

/* The records grouped by event without a sort, and each wait's record found by a walk of its
 * event's group instead of a search of every record. The calls are in start order (the loader
 * sorts them), so the records taken in call order are in start order, and the list sorted
 * (stably) by (event, start) is the records of each event in call order, the events
 * ascending: each record goes straight to its group's place. The waits come in start order
 * too, so the last record of an event before a wait is found by going on from where the
 * event's previous wait stopped. The events are few (a program records a few, over and over);
 * past SC_EVENT_GROUPS_MAX, or when the calls are out of start order, the sort and the
 * searches. */
enum { SC_EVENT_GROUPS_MAX = 1024 };

typedef struct sc_event_group {
    uint64_t event;
    size_t n;           /* its records */
    size_t at, end;     /* where its next record goes, then where the waits' walk is; its end */
} sc_event_group;

typedef struct sc_event_groups {
    sc_event_group *g;  /* by event */
    size_t n, cap;
    size_t last;        /* the group found before */
    bool off;           /* too many events, or records or waits out of start order */
    uint64_t record_ns, wait_ns;    /* the start of the record and of the wait before */
} sc_event_groups;

/* The group of `event`, or (*found false) where it would go. */
static inline size_t sc_event_group_find(const sc_event_groups *s, uint64_t event, bool *found)
{
    if (s->last < s->n && s->g[s->last].event == event) {
        *found = true;
        return s->last;
    }
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->g[mid].event < event)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < s->n && s->g[lo].event == event;
    return lo;
}

/* Counts a record of `event`, a new group when it is the first. Returns 0, or -1 without
 * memory. */
static int sc_event_group_add(sc_event_groups *s, uint64_t event)
{
    bool found;
    size_t at = sc_event_group_find(s, event, &found);
    if (!found) {
        if (s->n == SC_EVENT_GROUPS_MAX) {
            s->off = true;
            return 0;
        }
        if (!SC_GROW(s->g, s->cap, s->n + 1, 16))
            return -1;
        memmove(s->g + at + 1, s->g + at, (s->n - at) * sizeof *s->g);
        s->g[at] = (sc_event_group){.event = event};
        s->n++;
    }
    s->g[at].n++;
    s->last = at;
    return 0;
}

/* The distinct handle entries of the calls, how many records and waits there are, and the
 * records' events: the first of two passes over the calls (counting the waits, counting and
 * taking the records, and taking the handles were five). Returns 0, or -1 without memory. */
static int sc_deps_count(const sc_trace *t, const sc_call_streams *cs, sc_handle_set *handles,
                         sc_event_groups *ev, size_t *n_records, size_t *n_waits)
{
    *n_records = *n_waits = 0;
    /* a local copy: no store of the loop can change it, so its tests are not made again per
     * call from memory */
    const sc_call_streams l = *cs;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        sc_handle_entry e;
        if (sc_handle_of(t, &l, i, &e) && sc_handle_set_add(handles, &e) != 0)
            return -1;
        uint16_t cls = sc_call_class(t, c);     /* as written: past a byte, no class below */
        if (cls == SC_CALL_EVENT_RECORD) {
            (*n_records)++;
            if (c->rec.start_ns < ev->record_ns)
                ev->off = true;
            ev->record_ns = c->rec.start_ns;
            if (!ev->off && sc_event_group_add(ev, sc_call_aux(t, c)) != 0)
                return -1;
        } else if (cls == SC_CALL_EVENT_WAIT) {
            (*n_waits)++;
            if (c->rec.start_ns < ev->wait_ns)
                ev->off = true;
            ev->wait_ns = c->rec.start_ns;
        }
    }
    return 0;
}

/* The second pass: takes the records (each in its event's group, or sorted after) and notes
 * each wait in an edge of its own (wait_call only), for sc_deps_edges. */
static void sc_deps_take(const sc_trace *t, sc_deps *out, sc_event_groups *ev, size_t *n_waits)
{
    *n_waits = 0;
    if (!ev->off)
        for (size_t g = 0, at = 0; g < ev->n; g++) {
            ev->g[g].at = at;
            at += ev->g[g].n;
            ev->g[g].end = at;
        }
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        uint8_t cls = sc_call_class_id(t, c);
        if (cls == SC_CALL_EVENT_RECORD) {
            size_t at = out->n_records++;
            uint64_t event = sc_call_aux(t, c);
            if (!ev->off) {
                bool found;
                size_t g = sc_event_group_find(ev, event, &found);
                ev->last = g;
                at = ev->g[g].at++;
            }
            out->records[at] = (sc_record_ref){event, c->rec.start_ns, c};
        } else if (cls == SC_CALL_EVENT_WAIT) {
            out->edges[(*n_waits)++].wait_call = (uint32_t)i;
        }
    }
    if (ev->off)
        sc_sort(out->records, out->n_records, sizeof *out->records, sc_record_cmp);
    else
        for (size_t g = 0; g < ev->n; g++)
            ev->g[g].at = ev->g[g].end - ev->g[g].n;  /* the waits' walk starts at the first */
}

/* The last record of w's event before w: by the walk of its group (sc_event_groups), or the
 * search. */
static inline const sc_api_call *sc_wait_record(const sc_deps *out, sc_event_groups *ev,
                                                const sc_api_call *w)
{
    uint64_t event = sc_call_aux(out->trace, w);
    if (ev->off)
        return sc_last_record(out->records, out->n_records, event, w->rec.start_ns);
    bool found;
    size_t gi = sc_event_group_find(ev, event, &found);
    if (!found)
        return NULL;
    ev->last = gi;
    sc_event_group *g = &ev->g[gi];
    while (g->at < g->end && out->records[g->at].start_ns < w->rec.start_ns)
        g->at++;
    return g->at > g->end - g->n ? out->records[g->at - 1].call : NULL;
}

/* The edges of the waits whose record and streams the trace names, in call order, made over
 * the waits sc_deps_take noted (an edge is written at or before the wait it is read from). */
static void sc_deps_edges(const sc_trace *t, size_t n_waits, sc_event_groups *ev, sc_deps *out)
{
    for (size_t k = 0; k < n_waits; k++) {
        uint32_t i = out->edges[k].wait_call;
        const sc_api_call *w = &t->calls[i];
        const sc_api_call *r = sc_wait_record(out, ev, w);
        uint32_t from, to;
        if (!r || !sc_handle_lookup(out, r, &from) || !sc_handle_lookup(out, w, &to))
            continue;
        /* the record names its stream in its own context: the event may be another
         * device's (the handle lookup above is keyed by the record's context) */
        out->edges[out->n_edges++] = (sc_dep_edge){.context_id = sc_call_context(t, w),
                                                   .from_context = sc_call_context(t, r),
                                                   .from_stream = from, .to_stream = to,
                                                   .record_ns = r->rec.start_ns,
                                                   .wait_ns = w->rec.start_ns,
                                                   .wait_call = i};
    }
}

/* Whether the handle list is few entries with a key each, which a lookup finds by a scan. */
static bool sc_handles_scan(const sc_handle_entry *h, size_t n)
{
    if (n > SC_HANDLE_SCAN_MAX)
        return false;
    for (size_t i = 1; i < n; i++)
        if (sc_handle_cmp(&h[i - 1], &h[i]) == 0)
            return false;
    return true;
}

/* The deps, each call's stream learned from cs; a map in cs is freed once the handles are
 * made (before the records and edges are allocated). */
static int sc_deps_make(const sc_trace *t, const sc_call_streams *cs, sc_corr_map *map,
                        sc_deps *out)
{
    sc_handle_set set = {0};
    sc_event_groups ev = {0};
    size_t n_records = 0, n_waits = 0;
    out->trace = t;
    int rc = sc_deps_count(t, cs, &set, &ev, &n_records, &n_waits);
    out->handles = rc == 0 ? sc_handles(t, cs, &set, &out->n_handles) : NULL;
    if (map)
        sc_corr_map_free(map);
    free(set.e);
    out->records = malloc((n_records ? n_records : 1) * sizeof *out->records);
    out->edges = malloc((n_waits ? n_waits : 1) * sizeof *out->edges);
    if (!out->handles || !out->records || !out->edges) {
        free(ev.g);
        sc_deps_free(out);
        return -1;
    }
    out->handles_scan = sc_handles_scan(out->handles, out->n_handles);
    sc_deps_take(t, out, &ev, &n_waits);
    sc_deps_edges(t, n_waits, &ev, out);
    free(ev.g);
    sc_sort(out->edges, out->n_edges, sizeof *out->edges, sc_edge_cmp);
    return 0;
}

int sc_deps_build(const sc_trace *t, sc_deps *out)
{
    *out = (sc_deps){0};
    sc_corr_map corr;
    if (sc_corr_map_build(t, &corr) != 0)
        return -1;
    sc_call_streams cs = {.map = &corr};
    return sc_deps_make(t, &cs, &corr, out);
}

int sc_deps_build_ordered(const sc_ctx *ctx, const sc_work_order *order, sc_deps *out)
{
    if (!order->calls_one_stream)
        return sc_deps_build(ctx->trace, out);
    *out = (sc_deps){0};
    sc_call_streams cs = {.ctx = ctx, .order = order};
    return sc_deps_make(ctx->trace, &cs, NULL, out);
}

void sc_deps_free(sc_deps *deps)
{
    free(deps->edges);
    free(deps->handles);
    free(deps->records);
    *deps = (sc_deps){0};
}

void sc_deps_free_edges(sc_deps *deps)
{
    free(deps->edges);
    deps->edges = NULL;
    deps->n_edges = 0;
}

void sc_deps_free_records(sc_deps *deps)
{
    free(deps->records);
    deps->records = NULL;
    deps->n_records = 0;
}

bool sc_deps_stream_of(const sc_deps *d, const sc_api_call *call, uint32_t *stream_id)
{
    return sc_call_stream_handle(d->trace, call) != SC_STREAM_NONE &&
           sc_handle_lookup(d, call, stream_id);
}

const sc_api_call *sc_deps_last_record(const sc_deps *d, uint64_t event, uint64_t before_ns)
{
    return sc_last_record(d->records, d->n_records, event, before_ns);
}

size_t sc_deps_first_edge(const sc_deps *d, uint32_t context_id, uint32_t to, uint64_t from_ns)
{
    sc_dep_edge key = {.context_id = context_id, .to_stream = to, .wait_ns = from_ns};
    size_t lo = 0, hi = d->n_edges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc_edge_cmp(&d->edges[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool sc_deps_ordered(const sc_deps *d, uint32_t context_id, uint32_t from, uint64_t after_ns,
                     uint32_t to, uint64_t before_ns)
{
    /* The edges into `to` that were waited for before `before_ns`, latest first: the first
     * one recorded at or before `after_ns` ends the search only for that `from`, so all
     * of them are looked at; they are few per stream between two launches in practice. */
    for (size_t i = sc_deps_first_edge(d, context_id, to, before_ns); i-- > 0;) {
        const sc_dep_edge *e = &d->edges[i];
        /* a record precedes its wait: waits before after_ns cannot qualify, nor earlier ones */
        if (e->context_id != context_id || e->to_stream != to || e->wait_ns <= after_ns) break;
        if (e->from_context == context_id && e->from_stream == from && e->record_ns > after_ns)
            return true;
    }
    return false;
}
