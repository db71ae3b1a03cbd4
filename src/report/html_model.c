#include "report/html_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/demangle.h"
#include "report/host_calls.h"
#include "report/names.h"
#include "report/units.h"
#include "trace/grow.h"

#define MAX_LANES 8             /* rows for overlapping NVTX start/end ranges */

const char *const sc_html_row_type_names[] = {"process", "findings", "device", "stream",
                                             "nvtx", "thread"};

/* ---- interning: strings and event descriptors --------------------------------------- */

static uint64_t fnv1a(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static bool itab_grow(sc_html_itab *t)
{
    size_t n_slots = t->n_slots ? 2 * t->n_slots : 1024;
    uint32_t *slots = calloc(n_slots, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < t->n; i++) {
        size_t s = fnv1a(t->keys[i], t->lens[i]) & (n_slots - 1);
        while (slots[s])
            s = (s + 1) & (n_slots - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->n_slots = n_slots;
    return true;
}

/* The index of key, inserted if new (*added says which). -1 when out of memory. */
static long itab_put(sc_html_itab *t, const void *key, size_t len, bool *added)
{
    *added = false;
    if (2 * (t->n + 1) > t->n_slots && !itab_grow(t))
        return -1;
    size_t s = fnv1a(key, len) & (t->n_slots - 1);
    while (t->slots[s]) {
        size_t i = t->slots[s] - 1;
        if (t->lens[i] == len && memcmp(t->keys[i], key, len) == 0)
            return (long)i;
        s = (s + 1) & (t->n_slots - 1);
    }
    /* Grown from one capacity to one need, both come out alike; when the lengths fail,
     * t->cap stays as it was (the keys merely have unused room). */
    size_t keys_cap = t->cap, lens_cap = t->cap;
    if (!SC_GROW(t->keys, keys_cap, t->n + 1, 256) || !SC_GROW(t->lens, lens_cap, t->n + 1, 256))
        return -1;
    t->cap = keys_cap;
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return -1;
    memcpy(copy, key, len);
    t->keys[t->n] = copy;
    t->lens[t->n] = len;
    t->slots[s] = (uint32_t)(t->n + 1);
    *added = true;
    return (long)t->n++;
}

static void itab_free(sc_html_itab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->lens);
    free(t->slots);
}

/* Everything that makes two events look the same in a tooltip. Zeroed before filling, so
 * padding never differs. */
typedef struct desc_key {
    uint32_t kind, name, sub, a, b, c;
    int32_t grid[3], block[3];
    uint64_t bytes;
} desc_key;

static long intern_name(sc_html_model *c, const char *name, bool demangle)
{
    if (!name)
        name = "?";
    bool added;
    long i = itab_put(&c->names_tab, name, strlen(name), &added);
    if (i < 0) {
        c->oom = true;
        return -1;
    }
    if (!added)
        return i;
    if (!SC_GROW(c->names, c->names_cap, (size_t)i + 1, 256)) {
        c->oom = true;
        return -1;
    }
    sc_html_name *ni = &c->names[i];
    char *full = demangle ? sc_demangle(name) : NULL;
    ni->full = full ? full : strdup(name);
    ni->shortn = demangle ? sc_demangle_kernel(name) : NULL;    /* whole: the page's CSS
                                                                   ellipsizes, not the data */
    if (!ni->shortn)
        ni->shortn = strdup(name);
    if (!ni->full || !ni->shortn)
        c->oom = true;
    return i;
}

/* A descriptor index; `detail` is called only when the descriptor is new. */
static long intern_desc(sc_html_model *c, const desc_key *k, const char *detail)
{
    bool added;
    long i = itab_put(&c->descs_tab, k, sizeof *k, &added);
    if (i < 0) {
        c->oom = true;
        return -1;
    }
    if (!added)
        return i;
    if (!SC_GROW(c->descs, c->descs_cap, (size_t)i + 1, 256)) {
        c->oom = true;
        return -1;
    }
    c->descs[i] = (sc_html_desc){.kind = k->kind, .name = k->name, .sub = k->sub,
                                 .detail = strdup(detail ? detail : "")};
    if (!c->descs[i].detail)
        c->oom = true;
    return i;
}

static sc_html_row *add_row(sc_html_model *c, size_t proc, enum sc_html_row_type type, uint64_t sec,
                            uint64_t k1, uint64_t k2)
{
    if (!SC_GROW(c->rows, c->cap_rows, c->n_rows + 1, 64)) {
        c->oom = true;
        return NULL;
    }
    sc_html_row *r = &c->rows[c->n_rows++];
    memset(r, 0, sizeof *r);
    r->proc = proc;
    r->type = type;
    r->sec = sec;
    r->k1 = k1;
    r->k2 = k2;
    return r;
}

static void add_event(sc_html_model *c, sc_html_row *r, uint64_t start, uint64_t end, long desc,
                      uint32_t range)
{
    if (desc < 0)
        return;
    if (!SC_GROW(r->ev, r->cap, r->n + 1, 64)) {
        c->oom = true;
        return;
    }
    r->ev[r->n++] = (sc_html_event){.start = start, .end = end > start ? end : start,
                                    .desc = (uint32_t)desc, .range = range};
}

/* ---- names of things ---------------------------------------------------------------- */

/* The timeline's labels ("memcpy ?") mark a copy kind CUPTI did not know as "?". */
static const char *copy_kind_name(unsigned k)
{
    return k ? sc_report_copy_kind(k, "?") : "?";
}

const char *sc_html_site_text(const sc_html_options *opt, const sc_trace *t,
                              const sc_api_call *call, char *buf, size_t n)
{
    if (!call) {
        snprintf(buf, n, "-");
        return buf;
    }
    return sc_frame_site_text(opt->resolve, opt->resolve_ctx, t, call, buf, n);
}

static const char *sc_html_exe_base(const sc_trace *t)
{
    return t->exe && t->exe[0] ? sc_frame_basename(t->exe) : "?";
}

unsigned sc_html_pid_of(const sc_trace *t)
{
    return t->has_process ? t->process.pid : 0;
}

uint64_t sc_html_span_of(const sc_overlap *o)
{
    return o->last_ns > o->first_ns ? o->last_ns - o->first_ns : 0;
}

/* "app (pid 1234)": how the timeline, its data and every table name a process. */
const char *sc_html_proc_label(const sc_trace *t, char *buf, size_t n)
{
    snprintf(buf, n, "%s (pid %u)", sc_html_exe_base(t), sc_html_pid_of(t));
    return buf;
}

uint64_t sc_html_rel(const sc_html_model *c, size_t proc, uint64_t ns)
{
    return ns > c->t0[proc] ? ns - c->t0[proc] : 0;
}

void sc_html_range_findings_text(const sc_analysis *a, const sc_range_summary *rs, char *buf,
                                 size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rs->n_findings && used + 1 < n; i++) {
        char b1[SC_FMT_SIZE];
        int w = snprintf(buf + used, n - used, "%s%s x%" PRIu64 " (%s)", i ? ", " : "",
                         sc_range_finding_rule(a, &rs->findings[i]), rs->findings[i].count,
                         sc_report_fmt_ns(rs->findings[i].cost_ns, b1));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* ---- building the rows of one process ----------------------------------------------- */

static sc_html_row *find_row(sc_html_model *c, size_t first, enum sc_html_row_type type, uint32_t a,
                             uint32_t b, uint32_t d)
{
    for (size_t i = c->n_rows; i-- > first;) {
        sc_html_row *r = &c->rows[i];
        if (r->type != type)
            continue;
        if (type == SC_HTML_ROW_STREAM && r->device == a && r->context_id == b && r->stream_id == d)
            return r;
        if (type == SC_HTML_ROW_DEVICE && r->device == a)
            return r;
        if ((type == SC_HTML_ROW_NVTX || type == SC_HTML_ROW_THREAD) && r->tid == a &&
            r->depth == b)
            return r;
    }
    return NULL;
}

static void device_row(sc_html_model *c, size_t proc, size_t first, const sc_analysis *a,
                       uint32_t device)
{
    if (find_row(c, first, SC_HTML_ROW_DEVICE, device, 0, 0))
        return;
    sc_html_row *r = add_row(c, proc, SC_HTML_ROW_DEVICE, 2, device, 0);
    if (!r)
        return;
    r->device = device;
    const sc_device_summary *d = NULL;
    for (size_t i = 0; i < a->n_devices; i++)
        if (a->devices[i].device == device)
            d = &a->devices[i];
    const sc_device *info = d && d->info ? d->info : sc_trace_device(a->trace, device);
    snprintf(r->label, sizeof r->label, "device %u", device);
    snprintf(r->sub, sizeof r->sub, "%s", info && info->name ? info->name : "");
    if (d && d->overlap.kernel_count) {
        const sc_overlap *o = &d->overlap;
        char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], b3[SC_FMT_SIZE];
        snprintf(r->title, sizeof r->title,
                 "device %u %s: %" PRIu64 " kernels, busy %s of a %s span, concurrency "
                 "%.2fx, speedup %s",
                 device, info && info->name ? info->name : "", o->kernel_count,
                 sc_report_fmt_ns(o->busy_ns, b1), sc_report_fmt_ns(sc_html_span_of(o), b2),
                 o->concurrency, sc_report_fmt_speedup(o, b3));
    } else {
        snprintf(r->title, sizeof r->title, "device %u: no kernels ran", device);
    }
}

static bool stream_shown(const sc_stream_summary *s)
{
    return s->overlap.kernel_count || s->copy_count || s->memset_count || s->created_by;
}

static void stream_rows(sc_html_model *c, size_t proc, size_t first, const sc_analysis *a)
{
    for (size_t i = 0; i < a->n_streams; i++) {
        const sc_stream_summary *s = &a->streams[i];
        if (!stream_shown(s))
            continue;
        device_row(c, proc, first, a, s->device);
        sc_html_row *r = add_row(c, proc, SC_HTML_ROW_STREAM, 2, s->device, 1 + i);
        if (!r)
            return;
        r->device = s->device;
        r->context_id = s->context_id;
        r->stream_id = s->stream_id;
        const char *kind = s->per_thread ? "per-thread" : sc_report_stream_kind(s->flag);
        snprintf(r->label, sizeof r->label, "stream %u", s->stream_id);
        if (s->priority)
            snprintf(r->sub, sizeof r->sub, "%s, prio %d", kind, s->priority);
        else
            snprintf(r->sub, sizeof r->sub, "%s", kind);
        char b1[SC_FMT_SIZE], site[512];
        snprintf(
            r->title, sizeof r->title,
            "stream %u on device %u (%s%s, priority %d): %" PRIu64 " kernels, %" PRIu64
            " copies, %" PRIu64 " memsets, busy %s, concurrency %.2fx; created at %s",
            s->stream_id, s->device, kind, s->flag == SC_STREAM_FLAG_LEGACY ? " NULL stream" : "",
            s->priority, s->overlap.kernel_count, s->copy_count, s->memset_count,
            sc_report_fmt_ns(s->overlap.busy_ns, b1), s->overlap.concurrency,
            s->created_by ? sc_html_site_text(c->opt, a->trace, s->created_by, site, sizeof site)
                          : "- (implicit)");
    }
}

/* The row of device work on (device, context, stream); one is made for work on a stream
 * the analysis did not list. */
static sc_html_row *work_row(sc_html_model *c, size_t proc, size_t first, const sc_analysis *a,
                             sc_html_row **cache, uint32_t device, uint32_t ctx, uint32_t stream)
{
    sc_html_row *r = *cache;
    if (r && r->device == device && r->context_id == ctx && r->stream_id == stream)
        return r;
    r = find_row(c, first, SC_HTML_ROW_STREAM, device, ctx, stream);
    if (!r) {
        device_row(c, proc, first, a, device);
        r = add_row(c, proc, SC_HTML_ROW_STREAM, 2, device, 1000000000ull + stream);
        if (!r)
            return NULL;
        r->device = device;
        r->context_id = ctx;
        r->stream_id = stream;
        snprintf(r->label, sizeof r->label, "stream %u", stream);
        snprintf(r->sub, sizeof r->sub, "no stream record");
        snprintf(r->title, sizeof r->title, "stream %u on device %u (context %u): the trace "
                 "has no record of its creation", stream, device, ctx);
    }
    *cache = r;
    return r;
}

/* A key for an event of `kind` named `name`, zeroed first: keys are compared as bytes, so
 * the fields a kind does not use (and any padding) must not differ. false when out of
 * memory. */
static bool desc_key_init(sc_html_model *c, desc_key *key, enum sc_html_ev_kind kind,
                          const char *name, bool demangle)
{
    long ni = intern_name(c, name, demangle);
    if (ni < 0)
        return false;
    memset(key, 0, sizeof *key);
    key->kind = kind;
    key->name = (uint32_t)ni;
    return true;
}

static long kernel_desc(sc_html_model *c, const sc_trace *t, const sc_kernel *k)
{
    const sc_kernel_shape *kr = sc_kernel_shape_of(t, k);
    desc_key key;
    if (!desc_key_init(c, &key, SC_HTML_EV_KERNEL, kr->name, true))
        return -1;
    key.grid[0] = kr->grid_x, key.grid[1] = kr->grid_y, key.grid[2] = kr->grid_z;
    key.block[0] = kr->block_x, key.block[1] = kr->block_y, key.block[2] = kr->block_z;
    key.a = kr->registers_per_thread;
    key.b = kr->static_shared;
    key.c = kr->dynamic_shared;
    key.sub = kr->graph_node_id != 0;
    char detail[256];
    snprintf(detail, sizeof detail, "grid %dx%dx%d, block %dx%dx%d, %u regs, shared %u+%u B%s",
             kr->grid_x, kr->grid_y, kr->grid_z, kr->block_x, kr->block_y, kr->block_z,
             kr->registers_per_thread, kr->static_shared, kr->dynamic_shared,
             kr->graph_node_id ? ", graph node" : "");
    return intern_desc(c, &key, detail);
}

static long copy_desc(sc_html_model *c, const sc_rec_memcpy *m)
{
    char name[64];
    snprintf(name, sizeof name, "memcpy %s", copy_kind_name(m->copy_kind));
    desc_key key;
    if (!desc_key_init(c, &key, SC_HTML_EV_COPY, name, false))
        return -1;
    key.sub = m->copy_kind;
    key.a = m->src_kind;
    key.b = m->dst_kind;
    key.c = m->flags;
    key.bytes = m->bytes;
    char detail[256], b1[SC_FMT_SIZE];
    snprintf(detail, sizeof detail, "%s, %s to %s%s", sc_report_fmt_bytes((double)m->bytes, b1),
             sc_report_memory_kind(m->src_kind, "unknown"),
             sc_report_memory_kind(m->dst_kind, "unknown"),
             m->flags & SC_MEMCPY_ASYNC ? ", async" : ", synchronous");
    return intern_desc(c, &key, detail);
}

static long memset_desc(sc_html_model *c, const sc_rec_memset *m)
{
    desc_key key;
    if (!desc_key_init(c, &key, SC_HTML_EV_MEMSET, "memset", false))
        return -1;
    key.a = m->memory_kind;
    key.b = m->flags;
    key.c = m->value;
    key.bytes = m->bytes;
    char detail[256], b1[SC_FMT_SIZE];
    snprintf(detail, sizeof detail, "%s of %s memory to 0x%x%s",
             sc_report_fmt_bytes((double)m->bytes, b1),
             sc_report_memory_kind(m->memory_kind, "unknown"), m->value,
             m->flags & 1 ? ", async" : ", synchronous");
    return intern_desc(c, &key, detail);
}

static long call_desc(sc_html_model *c, const sc_trace *t, const sc_api_call *call,
                      const char *what)
{
    desc_key key;
    if (!desc_key_init(c, &key, SC_HTML_EV_CALL, sc_call_name(t, call), false))
        return -1;
    key.sub = sc_call_class(t, call);
    key.bytes = sc_call_bytes(t, call);
    char detail[256], b1[SC_FMT_SIZE];
    if (sc_call_bytes(t, call))
        snprintf(detail, sizeof detail, "%s, %s", what,
                 sc_report_fmt_bytes((double)sc_call_bytes(t, call), b1));
    else
        snprintf(detail, sizeof detail, "%s", what);
    return intern_desc(c, &key, detail);
}

static long range_desc(sc_html_model *c, const sc_range *rg)
{
    desc_key key;
    if (!desc_key_init(c, &key, SC_HTML_EV_RANGE, rg->name, false))
        return -1;
    key.a = rg->rec.domain_id;
    char detail[256];
    snprintf(detail, sizeof detail, "NVTX range%s%s", rg->domain ? ", domain " : "",
             rg->domain ? rg->domain : "");
    return intern_desc(c, &key, detail);
}

/* Kernels, copies and memsets, merged by start time so every row comes out sorted. */
static void device_work(sc_html_model *c, size_t proc, size_t first, const sc_analysis *a)
{
    const sc_trace *t = a->trace;
    size_t ik = 0, ic = 0, is = 0;
    sc_html_row *cache = NULL;
    while (!c->oom && (ik < t->n_kernels || ic < t->n_copies || is < t->n_memsets)) {
        /* what is left of each list, never a start time standing for "none": a record may
         * start at UINT64_MAX */
        bool hk = ik < t->n_kernels, hc = ic < t->n_copies, hs = is < t->n_memsets;
        uint64_t sk = hk ? t->kernels[ik].rec.start_ns : 0;
        uint64_t sc = hc ? t->copies[ic].start_ns : 0;
        uint64_t ss = hs ? t->memsets[is].start_ns : 0;
        if (hk && (!hc || sk <= sc) && (!hs || sk <= ss)) {
            const sc_kernel_rec *k = &t->kernels[ik].rec;
            const sc_kernel_shape *ks = &t->kernel_shapes[k->shape];
            sc_html_row *r =
                work_row(c, proc, first, a, &cache, ks->device, ks->context_id, ks->stream_id);
            if (r)
                add_event(c, r, k->start_ns, k->end_ns, kernel_desc(c, t, &t->kernels[ik]), 0);
            ik++;
        } else if (hc && (!hs || sc <= ss)) {
            const sc_rec_memcpy m_rec = sc_copy_record(t, &t->copies[ic]), *m = &m_rec;
            sc_html_row *r =
                work_row(c, proc, first, a, &cache, m->device, m->context_id, m->stream_id);
            if (r)
                add_event(c, r, m->start_ns, m->end_ns, copy_desc(c, m), 0);
            ic++;
        } else {
            const sc_rec_memset m_rec = sc_memset_record(t, &t->memsets[is]), *m = &m_rec;
            sc_html_row *r =
                work_row(c, proc, first, a, &cache, m->device, m->context_id, m->stream_id);
            if (r)
                add_event(c, r, m->start_ns, m->end_ns, memset_desc(c, m), 0);
            is++;
        }
    }
}

static void host_rows(sc_html_model *c, size_t proc, size_t first, const sc_analysis *a,
                      const uint32_t *range_metric)
{
    const sc_trace *t = a->trace;
    sc_html_row *cache = NULL;
    sc_host_calls held;     /* which calls held their thread (host_calls.h), as in --chrome */
    if (sc_host_calls_init(&held, t) != 0) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < t->n_calls && !c->oom; i++) {
        const sc_api_call *call = &t->calls[i];
        const char *what = sc_host_call_words(&held, call);
        uint64_t dur = sc_call_end(t, call) > call->rec.start_ns
                           ? sc_call_end(t, call) - call->rec.start_ns : 0;
        if (!what || dur < c->opt->min_call_ns)
            continue;
        uint32_t tid = sc_call_tid(t, call);
        sc_html_row *r = cache && cache->tid == tid ? cache
                 : find_row(c, first, SC_HTML_ROW_THREAD, tid, UINT32_MAX, 0);
        if (!r) {
            r = add_row(c, proc, SC_HTML_ROW_THREAD, 3, tid, UINT64_MAX);
            if (!r) {
                sc_host_calls_free(&held);
                return;
            }
            r->tid = tid;
            r->depth = UINT32_MAX;
            char b1[SC_FMT_SIZE];
            snprintf(r->label, sizeof r->label, "thread %u", tid);
            snprintf(r->sub, sizeof r->sub, "blocking calls");
            snprintf(r->title, sizeof r->title, "host thread %u: calls that held it "
                     "(synchronizations, synchronous copies and memsets, allocations, host "
                     "registration, async copies of pageable memory) lasting %s or more",
                     tid, sc_report_fmt_ns(c->opt->min_call_ns, b1));
        }
        cache = r;
        add_event(c, r, call->rec.start_ns, sc_call_end(t, call), call_desc(c, t, call, what), 0);
    }
    sc_host_calls_free(&held);
    /* Push/pop ranges: one row per thread and nesting depth. Start/end ranges (depth
     * UINT32_MAX) belong to no thread and may overlap: they go into lanes, each range into
     * the first lane free at its start. */
    uint64_t lane_end[MAX_LANES] = {0};
    for (size_t i = 0; i < t->n_ranges && !c->oom; i++) {
        const sc_range *rg = &t->ranges[i];
        bool start_end = rg->rec.depth == UINT32_MAX;
        uint32_t tid = start_end ? UINT32_MAX : rg->rec.tid, depth = rg->rec.depth;
        if (start_end) {
            depth = 0;
            while (depth + 1 < MAX_LANES && lane_end[depth] > rg->rec.start_ns)
                depth++;
            if (rg->rec.end_ns > lane_end[depth])
                lane_end[depth] = rg->rec.end_ns;
        }
        sc_html_row *r = find_row(c, first, SC_HTML_ROW_NVTX, tid, depth, 0);
        if (!r) {
            r = add_row(c, proc, SC_HTML_ROW_NVTX, start_end ? 4 : 3, tid, depth);
            if (!r)
                return;
            r->tid = tid;
            r->depth = depth;
            if (start_end) {
                snprintf(r->label, sizeof r->label, "NVTX start/end");
                snprintf(r->sub, sizeof r->sub, "lane %u", depth + 1);
                snprintf(r->title, sizeof r->title, "NVTX start/end ranges (not bound to a "
                         "thread), in lanes where they overlap; hover one for the device "
                         "work issued inside it");
            } else {
                snprintf(r->label, sizeof r->label, "thread %u NVTX", tid);
                snprintf(r->sub, sizeof r->sub, "depth %u", depth);
                snprintf(r->title, sizeof r->title, "NVTX ranges of host thread %u at "
                         "nesting depth %u; hover one for the device work issued inside it",
                         tid, depth);
            }
        }
        add_event(c, r, rg->rec.start_ns, rg->rec.end_ns, range_desc(c, rg),
                  range_metric ? range_metric[i] : 0);
    }
}

static int row_cmp(const void *pa, const void *pb)
{
    const sc_html_row *a = pa, *b = pb;
    if (a->sec != b->sec)
        return a->sec < b->sec ? -1 : 1;
    if (a->k1 != b->k1)
        return a->k1 < b->k1 ? -1 : 1;
    if (a->k2 != b->k2)
        return a->k2 < b->k2 ? -1 : 1;
    return 0;
}

void sc_html_model_add_process(sc_html_model *c, size_t proc, const sc_analysis *a,
                               const uint32_t *range_metric)
{
    const sc_trace *t = a->trace;
    size_t first = c->n_rows;
    char b1[SC_FMT_SIZE];

    sc_html_row *r = add_row(c, proc, SC_HTML_ROW_PROCESS, 0, 0, 0);
    if (!r)
        return;
    sc_html_proc_label(t, r->label, sizeof r->label);
    snprintf(r->sub, sizeof r->sub, "%s",
             sc_report_fmt_ns(a->run_end_ns > a->run_start_ns
                                  ? a->run_end_ns - a->run_start_ns : 0, b1));
    snprintf(r->title, sizeof r->title, "%s (pid %u), trace %s (%s)", t->exe ? t->exe : "?",
             sc_html_pid_of(t), t->path ? t->path : "?", sc_report_status_name(t->status));

    r = add_row(c, proc, SC_HTML_ROW_FINDINGS, 1, 0, 0);
    if (!r)
        return;
    size_t by_sev[3] = {0};
    for (size_t i = 0; i < a->n_findings; i++)
        by_sev[a->findings[i].severity <= SC_SEV_ERROR ? a->findings[i].severity : 0]++;
    snprintf(r->label, sizeof r->label, "findings");
    if (a->n_findings)
        snprintf(r->sub, sizeof r->sub, "%zu error, %zu warn, %zu note", by_sev[SC_SEV_ERROR],
                 by_sev[SC_SEV_WARNING], by_sev[SC_SEV_NOTE]);
    else
        snprintf(r->sub, sizeof r->sub, "none");
    snprintf(r->title, sizeof r->title, "markers at each finding's first and worst "
             "instance; hover one for what happened and what to change");

    for (size_t i = 0; i < a->n_devices; i++)
        device_row(c, proc, first, a, a->devices[i].device);
    stream_rows(c, proc, first, a);
    device_work(c, proc, first, a);
    host_rows(c, proc, first, a, range_metric);
    if (!c->oom)
        qsort(c->rows + first, c->n_rows - first, sizeof *c->rows, row_cmp);
}

/* ---- the model's life ---------------------------------------------------------------- */

/* Processes of one run share CUPTI's clock and one time axis (time 0: the earliest start).
 * Traces of different runs, or of different machines, can lie days apart: then each process
 * gets its own time 0, its start, rather than a timeline too long to read. */
int sc_html_model_time_zeros(sc_html_model *c, const sc_analysis *const *as, size_t n)
{
    c->t0 = calloc(n ? n : 1, sizeof *c->t0);
    if (!c->t0)
        return -1;
    uint64_t lo = UINT64_MAX, hi = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = as[i]->run_start_ns, b = as[i]->run_end_ns > a ? as[i]->run_end_ns : a;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
        longest = b - a > longest ? b - a : longest;
    }
    uint64_t together = n ? hi - lo : 0;
    c->shared = together <= 60000000000ull || together / 10 <= longest;
    c->span = c->shared ? together : longest;
    for (size_t i = 0; i < n; i++)
        c->t0[i] = c->shared ? lo : as[i]->run_start_ns;
    return 0;
}

void sc_html_model_free(sc_html_model *c)
{
    for (size_t i = 0; i < c->names_tab.n; i++) {
        free(c->names[i].shortn);
        free(c->names[i].full);
    }
    free(c->names);
    for (size_t i = 0; i < c->descs_tab.n; i++)
        free(c->descs[i].detail);
    free(c->descs);
    itab_free(&c->names_tab);
    itab_free(&c->descs_tab);
    for (size_t i = 0; i < c->n_rows; i++)
        free(c->rows[i].ev);
    free(c->rows);
    free(c->t0);
}
