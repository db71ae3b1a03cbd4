/* Chrome/Perfetto trace export: see chrome.h for the layout.
 *
 * Events are printed one by one as they are produced, so a trace of a million kernels never
 * becomes a document in memory. Every string from the traced program (kernel, range and call
 * names, call sites, finding texts) is encoded by jansson; kernel and range names are encoded
 * once per distinct name and cached. Numbers are printed directly: times as integer
 * nanoseconds split into "microseconds.nanoseconds", exact, with no floating point. */
#include "report/chrome.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/demangle.h"
#include "report/host_calls.h"
#include "report/json_str.h"
#include "report/names.h"
#include "report/text.h"
#include "report/units.h"
#include "trace/grow.h"

#define SITE_MAX 512
#define TID_FINDINGS 1u         /* host process: the findings track; threads follow */

/* ---- strings ------------------------------------------------------------------------ */

/* A malloc'd JSON string literal (quotes included); NULL when out of memory. */
static char *escape(const char *s)
{
    json_t *j = sc_json_lossy_string(s ? s : "?");
    if (!j)
        return NULL;
    char *out = json_dumps(j, JSON_ENCODE_ANY);
    json_decref(j);
    return out;
}

/* Encoded names keyed by the trace's string pointer (the loader interns each name once). */
typedef struct name_slot {
    const char *key;
    int kind;                   /* 0: as is, 1: short kernel name */
    char *json;
} name_slot;

typedef struct name_cache {
    name_slot *slots;
    size_t cap, n;
} name_cache;

static size_t slot_hash(const char *key, int kind, size_t cap)
{
    uint64_t h = ((uint64_t)(uintptr_t)key >> 3) * 0x9E3779B97F4A7C15ull + (uint64_t)kind;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static int cache_grow(name_cache *c)
{
    size_t cap = c->cap ? 2 * c->cap : 1024;
    name_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->slots[i].json)
            continue;
        size_t h = slot_hash(c->slots[i].key, c->slots[i].kind, cap);
        while (slots[h].json)
            h = (h + 1) & (cap - 1);
        slots[h] = c->slots[i];
    }
    free(c->slots);
    c->slots = slots;
    c->cap = cap;
    return 0;
}

static void cache_free(name_cache *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->slots[i].json);
    free(c->slots);
    memset(c, 0, sizeof *c);
}

/* ---- the writer --------------------------------------------------------------------- */

typedef struct writer {
    FILE *out;
    const sc_chrome_options *opt;
    size_t n_events;
    uint64_t next_async_id;
    name_cache names;
    bool oom;
} writer;

static const char *cached_name(writer *w, const char *name, int kind)
{
    if (!name)
        name = "?";
    if (2 * (w->names.n + 1) > w->names.cap && cache_grow(&w->names) != 0) {
        w->oom = true;
        return "\"?\"";
    }
    size_t h = slot_hash(name, kind, w->names.cap);
    while (w->names.slots[h].json) {
        if (w->names.slots[h].key == name && w->names.slots[h].kind == kind)
            return w->names.slots[h].json;
        h = (h + 1) & (w->names.cap - 1);
    }
    char *shown = kind == 1 ? sc_demangle_kernel(name) : NULL;   /* whole: JSON is data */
    char *json = escape(shown ? shown : name);
    free(shown);
    if (!json) {
        w->oom = true;
        return "\"?\"";
    }
    w->names.slots[h] = (name_slot){name, kind, json};
    w->names.n++;
    return json;
}

/* Starts one element of traceEvents. */
static void event(writer *w, const char *fmt, ...)
{
    fputs(w->n_events++ ? ",\n" : "\n", w->out);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(w->out, fmt, ap);
    va_end(ap);
}

/* Writes an encoded string (or null) as the rest of a member. */
static void put_string(writer *w, const char *s)
{
    char *json = escape(s);
    if (!json) {
        w->oom = true;
        fputs("null", w->out);
        return;
    }
    fputs(json, w->out);
    free(json);
}

/* "12.345": microseconds with nanosecond decimals, exact. */
static const char *us(int64_t ns, char buf[32])
{
    if (ns < 0)
        ns = 0;
    snprintf(buf, 32, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
    return buf;
}

static void metadata(writer *w, unsigned pid, unsigned tid, const char *what, const char *name)
{
    event(w, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\",\"args\":{\"name\":", pid,
          tid, what);
    put_string(w, name);
    fputs("}}", w->out);
}

static void sort_index(writer *w, unsigned pid, unsigned tid, const char *what, long index)
{
    event(w, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\",\"args\":{\"sort_index\":%ld}}",
          pid, tid, what, index);
}

/* ---- one process: its tracks -------------------------------------------------------- */

typedef struct track {
    uint32_t device, context_id, stream_id;
    unsigned tid;
    const sc_stream_summary *stream;
} track;

typedef struct host_thread {
    uint32_t tid;
    bool ranges, calls;
    uint64_t last_call_end;     /* nested calls (a driver call inside a runtime one) skipped */
} host_thread;

/* Clock arithmetic modulo 2^64, read back as signed: the wall clock and the CUPTI clock of
 * any real trace are far below 2^63, and a damaged one must not make it undefined. */
static int64_t sc_wrap_i64(uint64_t v)
{
    int64_t out;
    memcpy(&out, &v, sizeof out);
    return out;
}

typedef struct proc {
    const sc_analysis *a;
    const sc_trace *t;
    int64_t shift;              /* exported ns = trace ns + shift */
    unsigned host_pid, first_dev_pid;
    uint32_t *devices;          /* ordinals, ascending: device pid = first_dev_pid + index */
    size_t n_devices;
    bool *device_missed;        /* work on a stream missing from the table went to tid 0 */
    track *tracks;
    size_t n_tracks;
    host_thread *threads;       /* by tid */
    size_t n_threads;
    sc_host_calls held;         /* which calls held their thread (host_calls.h) */
} proc;

static int64_t when(const proc *p, uint64_t ns)
{
    return sc_wrap_i64(ns + (uint64_t)p->shift);
}

static int add_device(proc *p, uint32_t device)
{
    size_t i = 0;
    while (i < p->n_devices && p->devices[i] < device)
        i++;
    if (i < p->n_devices && p->devices[i] == device)
        return 0;
    uint32_t *d = realloc(p->devices, (p->n_devices + 1) * sizeof *d);
    if (!d)
        return -1;
    p->devices = d;
    memmove(d + i + 1, d + i, (p->n_devices - i) * sizeof *d);
    d[i] = device;
    p->n_devices++;
    return 0;
}

static size_t device_index(const proc *p, uint32_t device)
{
    for (size_t i = 0; i < p->n_devices; i++)
        if (p->devices[i] == device)
            return i;
    return 0;   /* every device was added up front */
}

static int track_cmp(const void *pa, const void *pb)
{
    const track *x = pa, *y = pb;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->stream_id != y->stream_id)
        return x->stream_id < y->stream_id ? -1 : 1;
    return x->context_id < y->context_id ? -1 : x->context_id > y->context_id;
}

static const track *find_track(const proc *p, uint32_t device, uint32_t context_id,
                               uint32_t stream_id)
{
    track key = {device, context_id, stream_id, 0, NULL};
    return bsearch(&key, p->tracks, p->n_tracks, sizeof key, track_cmp);
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

static bool call_shown(const proc *p, const sc_api_call *c)
{
    return sc_host_call_held(&p->held, c);
}

static bool range_pushed(const sc_range *r)
{
    return r->rec.depth != UINT32_MAX;  /* start/end ranges are written with UINT32_MAX */
}

static host_thread *find_thread(const proc *p, uint32_t tid)
{
    host_thread key = {.tid = tid};
    return bsearch(&key, p->threads, p->n_threads, sizeof key, u32_cmp);
}

static unsigned thread_tid(const proc *p, const host_thread *h, bool calls)
{
    return TID_FINDINGS + 1 + 2 * (unsigned)(h - p->threads) + (calls ? 1 : 0);
}

/* The threads that get tracks, sorted by tid (host_thread starts with its tid, so u32_cmp
 * orders them). */
static int collect_threads(proc *p)
{
    const sc_trace *t = p->t;
    size_t n = 0, cap = 16;
    uint32_t *tids = malloc(cap * sizeof *tids);
    if (!tids)
        return -1;
    for (size_t pass = 0; pass < 2; pass++) {
        size_t count = pass == 0 ? t->n_ranges : t->n_calls;
        for (size_t i = 0; i < count; i++) {
            uint32_t tid;
            if (pass == 0) {
                if (!range_pushed(&t->ranges[i]))
                    continue;
                tid = t->ranges[i].rec.tid;
            } else {
                if (!call_shown(p, &t->calls[i]))
                    continue;
                tid = sc_call_tid(t, &t->calls[i]);
            }
            if (n && tids[n - 1] == tid)
                continue;
            if (!SC_GROW(tids, cap, n + 1, 16)) {
                free(tids);
                return -1;
            }
            tids[n++] = tid;
        }
    }
    qsort(tids, n, sizeof *tids, u32_cmp);
    p->threads = calloc(n ? n : 1, sizeof *p->threads);
    if (!p->threads) {
        free(tids);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (p->n_threads == 0 || p->threads[p->n_threads - 1].tid != tids[i])
            p->threads[p->n_threads++].tid = tids[i];
    free(tids);
    for (size_t i = 0; i < t->n_ranges; i++)
        if (range_pushed(&t->ranges[i]))
            find_thread(p, t->ranges[i].rec.tid)->ranges = true;
    for (size_t i = 0; i < t->n_calls; i++)
        if (call_shown(p, &t->calls[i]))
            find_thread(p, sc_call_tid(t, &t->calls[i]))->calls = true;
    return 0;
}

static int build_proc(proc *p)
{
    const sc_analysis *a = p->a;
    const sc_trace *t = p->t;
    for (size_t i = 0; i < a->n_devices; i++)
        if (add_device(p, a->devices[i].device) != 0)
            return -1;
    /* Streams with work, and the ones the program created; CUDA's own idle streams are left
     * out as in the text report. */
    p->tracks = calloc(a->n_streams ? a->n_streams : 1, sizeof *p->tracks);
    if (!p->tracks)
        return -1;
    for (size_t i = 0; i < a->n_streams; i++) {
        const sc_stream_summary *s = &a->streams[i];
        if (sc_text_stream_idle(s) && !s->created_by)
            continue;
        if (add_device(p, s->device) != 0)
            return -1;
        p->tracks[p->n_tracks++] = (track){s->device, s->context_id, s->stream_id, 0, s};
    }
    qsort(p->tracks, p->n_tracks, sizeof *p->tracks, track_cmp);
    for (size_t i = 0; i < p->n_tracks; i++)
        p->tracks[i].tid = (unsigned)i + 1;
    for (size_t i = 0; i < t->n_kernels; i++)
        if (add_device(p, sc_kernel_device(t, &t->kernels[i])) != 0)
            return -1;
    p->device_missed = calloc(p->n_devices ? p->n_devices : 1, sizeof *p->device_missed);
    if (!p->device_missed || sc_host_calls_init(&p->held, t) != 0)
        return -1;
    return collect_threads(p);
}

static void free_proc(proc *p)
{
    free(p->devices);
    free(p->device_missed);
    free(p->tracks);
    free(p->threads);
    sc_host_calls_free(&p->held);
}

/* ---- one process: metadata ---------------------------------------------------------- */

static void proc_label(const proc *p, char *buf, size_t n)
{
    const char *exe = p->t->exe && p->t->exe[0] ? sc_frame_basename(p->t->exe) : "?";
    if (p->t->has_process)
        snprintf(buf, n, "%s (pid %u)", exe, p->t->process.pid);
    else
        snprintf(buf, n, "%s", exe);
}

static void write_metadata(writer *w, const proc *p)
{
    char label[256], name[512];
    proc_label(p, label, sizeof label);

    snprintf(name, sizeof name, "%s host", label);
    metadata(w, p->host_pid, 0, "process_name", name);
    sort_index(w, p->host_pid, 0, "process_sort_index", (long)p->host_pid);
    if (p->t->status != SC_TRACE_COMPLETE) {
        snprintf(name, sizeof name, "%s trace", sc_report_status_name(p->t->status));
        event(w, "{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_labels\","
              "\"args\":{\"labels\":", p->host_pid);
        put_string(w, name);
        fputs("}}", w->out);
    }
    if (p->a->n_findings) {
        metadata(w, p->host_pid, TID_FINDINGS, "thread_name", "findings");
        sort_index(w, p->host_pid, TID_FINDINGS, "thread_sort_index", 0);
    }
    for (size_t i = 0; i < p->n_threads; i++) {
        const host_thread *h = &p->threads[i];
        bool main_thread = p->t->has_process && h->tid == p->t->process.pid;
        for (int calls = 0; calls < 2; calls++) {
            if (!(calls ? h->calls : h->ranges))
                continue;
            unsigned tid = thread_tid(p, h, calls);
            snprintf(name, sizeof name, "thread %u%s%s", h->tid, main_thread ? " (main)" : "",
                     calls ? ": blocking calls" : "");
            metadata(w, p->host_pid, tid, "thread_name", name);
            sort_index(w, p->host_pid, tid, "thread_sort_index", (long)tid);
        }
    }

    for (size_t d = 0; d < p->n_devices; d++) {
        unsigned pid = p->first_dev_pid + (unsigned)d;
        const sc_device *info = sc_trace_device(p->t, p->devices[d]);
        snprintf(name, sizeof name, "%s GPU %u%s%s", label, p->devices[d], info ? ": " : "",
                 info && info->name ? info->name : "");
        metadata(w, pid, 0, "process_name", name);
        sort_index(w, pid, 0, "process_sort_index", (long)pid);
    }
    for (size_t i = 0; i < p->n_tracks; i++) {
        const track *k = &p->tracks[i];
        unsigned pid = p->first_dev_pid + (unsigned)device_index(p, k->device);
        /* The same stream id in two contexts of one device: say which is which. */
        bool twin = (i > 0 && p->tracks[i - 1].device == k->device &&
                     p->tracks[i - 1].stream_id == k->stream_id) ||
                    (i + 1 < p->n_tracks && p->tracks[i + 1].device == k->device &&
                     p->tracks[i + 1].stream_id == k->stream_id);
        char extra[64] = "";
        if (k->stream->priority)
            snprintf(extra, sizeof extra, ", priority %d", k->stream->priority);
        if (twin)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", context %u",
                     k->context_id);
        snprintf(name, sizeof name, "stream %u (%s%s)", k->stream_id,
                 k->stream->per_thread ? "per-thread" : sc_report_stream_kind(k->stream->flag),
                 extra);
        metadata(w, pid, k->tid, "thread_name", name);
        sort_index(w, pid, k->tid, "thread_sort_index", (long)k->tid);
    }
}

/* ---- one process: device work ------------------------------------------------------- */

static unsigned work_tid(const proc *p, uint32_t device, uint32_t context_id,
                         uint32_t stream_id)
{
    const track *k = find_track(p, device, context_id, stream_id);
    if (k)
        return k->tid;
    p->device_missed[device_index(p, device)] = true;
    return 0;
}

/* Starts the "X" event of a kernel, copy or memset on its stream's track: everything up to
 * its name, which the caller writes with the rest. */
static void work_event(writer *w, const proc *p, const char *cat, uint32_t device,
                       uint32_t context_id, uint32_t stream_id, uint64_t start, uint64_t end)
{
    char ts[32], dur[32];
    unsigned pid = p->first_dev_pid + (unsigned)device_index(p, device);
    unsigned tid = work_tid(p, device, context_id, stream_id);
    event(w, "{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%s,\"dur\":%s,", cat,
          pid, tid, us(when(p, start), ts), us(end > start ? (int64_t)(end - start) : 0, dur));
}

static void write_kernel(writer *w, const proc *p, const sc_kernel *k)
{
    const sc_kernel_rec *r = &k->rec;
    const sc_kernel_shape *s = sc_kernel_shape_of(p->t, k);
    work_event(w, p, "kernel", s->device, s->context_id, s->stream_id, r->start_ns, r->end_ns);
    fprintf(w->out, "\"name\":%s,\"args\":{\"grid\":\"%dx%dx%d\",\"block\":\"%dx%dx%d\","
            "\"correlation_id\":%u}}", cached_name(w, s->name, 1), s->grid_x, s->grid_y,
            s->grid_z, s->block_x, s->block_y, s->block_z, r->correlation_id);
}

static void write_copy(writer *w, const proc *p, const sc_copy *c)
{
    const sc_rec_memcpy rec = sc_copy_record(p->t, c), *r = &rec;
    char size[SC_FMT_SIZE];
    work_event(w, p, "memcpy", r->device, r->context_id, r->stream_id, r->start_ns, r->end_ns);
    fprintf(w->out, "\"name\":\"memcpy %s\",\"args\":{\"bytes\":%" PRIu64 ",\"size\":\"%s\","
            "\"src\":\"%s\",\"dst\":\"%s\",\"async\":%s,\"correlation_id\":%u}}",
            sc_report_copy_kind(r->copy_kind, "unknown"), r->bytes,
            sc_report_fmt_bytes((double)r->bytes, size),
            sc_report_memory_kind(r->src_kind, "unknown"),
            sc_report_memory_kind(r->dst_kind, "unknown"),
            (r->flags & SC_MEMCPY_ASYNC) ? "true" : "false", r->correlation_id);
}

static void write_memset(writer *w, const proc *p, const sc_memset *m)
{
    const sc_rec_memset rec = sc_memset_record(p->t, m), *r = &rec;
    char size[SC_FMT_SIZE];
    work_event(w, p, "memset", r->device, r->context_id, r->stream_id, r->start_ns, r->end_ns);
    fprintf(w->out, "\"name\":\"memset\",\"args\":{\"bytes\":%" PRIu64 ",\"size\":\"%s\","
            "\"value\":%u,\"memory\":\"%s\",\"correlation_id\":%u}}", r->bytes,
            sc_report_fmt_bytes((double)r->bytes, size), r->value,
            sc_report_memory_kind(r->memory_kind, "unknown"), r->correlation_id);
}

/* Kernels, copies and memsets merged by start time, so each stream's events come in order. */
static void write_device_work(writer *w, const proc *p)
{
    const sc_trace *t = p->t;
    size_t k = 0, c = 0, m = 0;
    while (k < t->n_kernels || c < t->n_copies || m < t->n_memsets) {
        uint64_t tk = k < t->n_kernels ? t->kernels[k].rec.start_ns : UINT64_MAX;
        uint64_t tc = c < t->n_copies ? t->copies[c].start_ns : UINT64_MAX;
        uint64_t tm = m < t->n_memsets ? t->memsets[m].start_ns : UINT64_MAX;
        if (k < t->n_kernels && tk <= tc && tk <= tm)
            write_kernel(w, p, &t->kernels[k++]);
        else if (c < t->n_copies && tc <= tm)
            write_copy(w, p, &t->copies[c++]);
        else
            write_memset(w, p, &t->memsets[m++]);
    }
    for (size_t d = 0; d < p->n_devices; d++)
        if (p->device_missed[d])
            metadata(w, p->first_dev_pid + (unsigned)d, 0, "thread_name",
                     "streams without a stream record");
}

/* ---- one process: host side --------------------------------------------------------- */

static void put_site(writer *w, const proc *p, const sc_api_call *call)
{
    char buf[SITE_MAX];
    if (!call || (!sc_call_n_frames(p->t, call) && !sc_trace_pystack(p->t, call->rec.correlation_id))) {
        fputs("null", w->out);
        return;
    }
    put_string(w, sc_frame_site_text(w->opt->resolve, w->opt->resolve_ctx, p->t, call, buf,
                                     sizeof buf));
}

static int range_order_cmp(const void *pa, const void *pb)
{
    const sc_range *x = *(const sc_range *const *)pa, *y = *(const sc_range *const *)pb;
    if (x->rec.start_ns != y->rec.start_ns)
        return x->rec.start_ns < y->rec.start_ns ? -1 : 1;
    /* Same start: the enclosing range first, so nested "X" events open in order. */
    if (x->rec.depth != y->rec.depth)
        return x->rec.depth < y->rec.depth ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Ends a range event: its domain (null for the default one) closes its args. */
static void put_domain(writer *w, const sc_range *r)
{
    fputs(r->domain ? cached_name(w, r->domain, 0) : "null", w->out);
    fputs("}}", w->out);
}

static void write_ranges(writer *w, const proc *p)
{
    const sc_trace *t = p->t;
    if (!t->n_ranges)
        return;
    const sc_range **order = malloc(t->n_ranges * sizeof *order);
    if (!order) {
        w->oom = true;
        return;
    }
    for (size_t i = 0; i < t->n_ranges; i++)
        order[i] = &t->ranges[i];
    qsort(order, t->n_ranges, sizeof *order, range_order_cmp);
    for (size_t i = 0; i < t->n_ranges; i++) {
        const sc_range *r = order[i];
        char ts[32], dur[32], te[32];
        uint64_t end = r->rec.end_ns > r->rec.start_ns ? r->rec.end_ns : r->rec.start_ns;
        if (range_pushed(r)) {
            const host_thread *h = find_thread(p, r->rec.tid);
            event(w, "{\"ph\":\"X\",\"cat\":\"nvtx\",\"pid\":%u,\"tid\":%u,\"ts\":%s,"
                  "\"dur\":%s,\"name\":%s,\"args\":{\"domain\":", p->host_pid,
                  thread_tid(p, h, false), us(when(p, r->rec.start_ns), ts),
                  us((int64_t)(end - r->rec.start_ns), dur), cached_name(w, r->name, 0));
        } else {
            /* Start/end ranges may overlap without nesting: async events, one id each. */
            uint64_t id = ++w->next_async_id;
            event(w, "{\"ph\":\"b\",\"cat\":\"nvtx\",\"id\":\"0x%" PRIx64 "\",\"pid\":%u,"
                  "\"tid\":%u,\"ts\":%s,\"name\":%s,\"args\":{\"thread\":%u,\"domain\":", id,
                  p->host_pid, TID_FINDINGS, us(when(p, r->rec.start_ns), ts),
                  cached_name(w, r->name, 0), r->rec.tid);
            put_domain(w, r);
            event(w, "{\"ph\":\"e\",\"cat\":\"nvtx\",\"id\":\"0x%" PRIx64 "\",\"pid\":%u,"
                  "\"tid\":%u,\"ts\":%s,\"name\":%s,\"args\":{}}", id, p->host_pid,
                  TID_FINDINGS, us(when(p, end), te), cached_name(w, r->name, 0));
            continue;
        }
        put_domain(w, r);
    }
    free(order);
}

static void write_calls(writer *w, proc *p)
{
    const sc_trace *t = p->t;
    for (size_t i = 0; i < t->n_calls; i++) {
        const sc_api_call *c = &t->calls[i];
        if (!call_shown(p, c))
            continue;
        host_thread *h = find_thread(p, sc_call_tid(t, c));
        /* A driver call inside the runtime call that made it: the outer one is shown. */
        if (c->rec.start_ns < h->last_call_end)
            continue;
        uint64_t end = sc_call_end(t, c) > c->rec.start_ns ? sc_call_end(t, c) : c->rec.start_ns;
        h->last_call_end = end;
        char ts[32], dur[32];
        event(w, "{\"ph\":\"X\",\"cat\":\"cuda\",\"pid\":%u,\"tid\":%u,\"ts\":%s,\"dur\":%s,"
              "\"name\":%s,\"args\":{\"bytes\":%" PRIu64 ",\"correlation_id\":%u,"
              "\"pageable\":%s,\"stream\":",
              p->host_pid, thread_tid(p, h, true), us(when(p, c->rec.start_ns), ts),
              us((int64_t)(end - c->rec.start_ns), dur), cached_name(w, sc_call_name(t, c), 0),
              sc_call_bytes(t, c), c->rec.correlation_id,
              sc_host_call_pageable(&p->held, c->rec.correlation_id) ? "true" : "false");
        uint64_t stream = sc_call_stream_handle(t, c);
        if (stream == SC_STREAM_NONE)
            fputs("null", w->out);
        else
            fprintf(w->out, "\"0x%" PRIx64 "\"", stream);
        fputs(",\"site\":", w->out);
        put_site(w, p, c);
        fputs("}}", w->out);
    }
}

typedef struct mark {
    uint64_t ts;
    const sc_finding *f;
    const sc_instance *in;
    const char *which;          /* "first", "worst", "first and worst" */
} mark;

static int mark_cmp(const void *pa, const void *pb)
{
    const mark *x = pa, *y = pb;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->f < y->f ? -1 : x->f > y->f;
}

static void write_findings(writer *w, const proc *p)
{
    const sc_analysis *a = p->a;
    if (!a->n_findings)
        return;
    mark *marks = malloc(2 * a->n_findings * sizeof *marks);
    if (!marks) {
        w->oom = true;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < a->n_findings; i++) {
        const sc_finding *f = &a->findings[i];
        bool same = f->first.start_ns == f->worst.start_ns && f->first.call == f->worst.call;
        marks[n++] = (mark){f->first.start_ns, f, &f->first, same ? "first and worst" : "first"};
        if (!same)
            marks[n++] = (mark){f->worst.start_ns, f, &f->worst, "worst"};
    }
    qsort(marks, n, sizeof *marks, mark_cmp);
    for (size_t i = 0; i < n; i++) {
        const sc_finding *f = marks[i].f;
        char ts[32], cost[SC_FMT_SIZE], name[128];
        snprintf(name, sizeof name, "%s (%s)", f->rule ? f->rule : "?",
                 sc_severity_name(f->severity));
        event(w, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"finding\",\"pid\":%u,\"tid\":%u,"
              "\"ts\":%s,\"name\":", p->host_pid, TID_FINDINGS,
              us(when(p, marks[i].ts), ts));
        put_string(w, name);
        fputs(",\"args\":{\"rule\":", w->out);
        put_string(w, f->rule);
        fprintf(w->out, ",\"severity\":\"%s\",\"cost\":\"%s\",\"cost_ns\":%" PRIu64
                ",\"count\":%" PRIu64 ",\"instance\":\"%s\",\"instance_cost_ns\":%" PRIu64
                ",\"title\":", sc_severity_name(f->severity), sc_report_fmt_ns(f->cost_ns, cost),
                f->cost_ns, f->count, marks[i].which, marks[i].in->cost_ns);
        put_string(w, f->title);
        fputs(",\"text\":", w->out);
        put_string(w, marks[i].in->text);
        fputs(",\"fix\":", w->out);
        if (f->fix)
            put_string(w, f->fix);
        else
            fputs("null", w->out);
        fputs(",\"site\":", w->out);
        put_site(w, p, marks[i].in->site ? marks[i].in->site : marks[i].in->call);
        fputs("}}", w->out);
    }
    free(marks);
}

/* ---- the document ------------------------------------------------------------------- */

static void set_err(char *err, size_t n, const char *msg)
{
    if (err && n)
        snprintf(err, n, "%s", msg);
}

int sc_chrome_write(FILE *out, const sc_analysis *const *as, size_t n,
                    const sc_chrome_options *opt, char *err, size_t err_size)
{
    static const sc_chrome_options defaults = {0};
    writer w = {.out = out, .opt = opt ? opt : &defaults};
    proc *procs = calloc(n ? n : 1, sizeof *procs);
    if (!procs) {
        set_err(err, err_size, "out of memory");
        return -1;
    }

    /* One time line for all processes: through the wall clock each recorded at start when
     * every trace has it, else the CUPTI clock as it is (one clock per machine). */
    bool by_wall = n > 0;
    for (size_t i = 0; i < n; i++)
        by_wall = by_wall && as[i]->trace->has_process;
    bool any = false;
    int64_t origin = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_trace *t = as[i]->trace;
        uint64_t offset = by_wall ? t->process.start_unix_ns - t->process.start_ns : 0;
        procs[i].a = as[i];
        procs[i].t = t;
        procs[i].shift = sc_wrap_i64(offset);
        if (as[i]->run_end_ns == 0 && as[i]->run_start_ns == 0)
            continue;   /* no events at all */
        int64_t start = sc_wrap_i64(as[i]->run_start_ns + offset);
        if (!any || start < origin)
            origin = start;
        any = true;
    }

    int rc = 0;
    unsigned next_pid = 1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        procs[i].shift = sc_wrap_i64((uint64_t)procs[i].shift - (uint64_t)origin);
        if (build_proc(&procs[i]) != 0)
            rc = -1;
        procs[i].host_pid = next_pid++;
        procs[i].first_dev_pid = next_pid;
        next_pid += (unsigned)procs[i].n_devices;
    }
    if (rc != 0) {
        for (size_t i = 0; i < n; i++)
            free_proc(&procs[i]);
        free(procs);
        set_err(err, err_size, "out of memory");
        return -1;
    }

    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"streamcheck-report\"", out);
    if (w.opt->tool_version) {
        fputs(",\"version\":", out);
        put_string(&w, w.opt->tool_version);
    }
    fprintf(out, ",\"clock\":\"%s\",\"origin_ns\":%" PRId64 "},\"traceEvents\":[",
            by_wall ? "unix" : "cupti", origin);
    for (size_t i = 0; i < n; i++)
        write_metadata(&w, &procs[i]);
    for (size_t i = 0; i < n; i++) {
        write_device_work(&w, &procs[i]);
        write_ranges(&w, &procs[i]);
        write_calls(&w, &procs[i]);
        write_findings(&w, &procs[i]);
    }
    fputs("\n]}\n", out);

    for (size_t i = 0; i < n; i++)
        free_proc(&procs[i]);
    free(procs);
    cache_free(&w.names);
    if (w.oom) {
        set_err(err, err_size, "out of memory");
        return -1;
    }
    if (fflush(out) != 0 || ferror(out)) {
        set_err(err, err_size, errno ? strerror(errno) : "write error");
        return -1;
    }
    return 0;
}
