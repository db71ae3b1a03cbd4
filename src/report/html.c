/* HTML report: a static page (header, tables) around a canvas timeline drawn by the page's
 * own script from data embedded as JSON.
 *
 * The page must stay small and responsive for a million kernels, so the data is columnar
 * and delta-coded, with every repeated string in a table:
 *
 *   <script type="application/json" id="sc-data">
 *   { "v": 1,
 *     "axis": "shared" | "per-process",  one time 0 for all processes (the earliest start),
 *                                   or each its own (its start) when they ran far apart
 *     "span": N,                    ns from time 0 to the latest end
 *     "min_call_ns": N,             threshold of the host-thread rows
 *     "names": [[short, full], ..], kernel names (demangled short and long form), API call
 *                                   names, range names, "memcpy HtoD", ...
 *     "descs": [[kind, name, detail, sub], ..]
 *                                   what an event is: kind 0 kernel, 1 copy, 2 memset,
 *                                   3 host call, 4 NVTX range; name indexes "names"; detail
 *                                   is one line ("grid 8x1x1, block 128x1x1, 16 regs, ...");
 *                                   sub is the copy kind for copies, the call class for calls
 *     "procs": [{"label", "exe", "pid", "t0", "start", "end", "findings", "rm"}, ..]
 *         t0 = absolute ns (CUPTI clock, a string: it exceeds a double's integers) of the
 *         process's time 0; every other time of the process and its rows is relative to it
 *         findings[i] = {"rule", "sev", "title", "fix", "cost", "share", "count", "site",
 *                        "inst": [[start, duration, cost, text, "first"|"worst"], ..]}
 *         rm[i] = metrics of the range events whose "r" is i+1: [wall, kernels, busy,
 *                 concurrency, speedup, copy_busy, copy_compute, idle, findings text]
 *     "rows": [{"p": proc, "ty": "process"|"findings"|"device"|"stream"|"nvtx"|"thread",
 *               "t": [..], "d": [..], "e": [..], "r": [..]}, ..] }
 *         one entry per row of the timeline, in the order of the .row-label elements;
 *         events sorted by start: t = start minus the previous event's start (the first:
 *         minus time 0), d = duration, e = index into descs, r (NVTX rows only) = 1 + index
 *         into the process's rm, 0 when the range has no metrics. All times in ns.
 *   </script>
 *
 * Per event that is 12 to 16 bytes for typical kernels (12 for a million of them). Strings
 * are escaped for JSON inside a <script> element ('<', '>' and '&' as \u00XX) and for HTML
 * in the markup; bytes that are not UTF-8 become '?'. */
#include "report/html.h"
#include "report/host_calls.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/demangle.h"
#include "html_assets.h"     /* html/page.css, toolbar.html, page.js (meson.build) */
#include "report/names.h"
#include "report/units.h"
#include "trace/grow.h"

#define DEFAULT_MIN_CALL_NS 10000
#define DEFAULT_RANGE_ROWS 1000
#define MAX_LANES 8             /* rows for overlapping NVTX start/end ranges */

void sc_html_options_init(sc_html_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->min_call_ns = DEFAULT_MIN_CALL_NS;
    opt->max_range_rows = DEFAULT_RANGE_ROWS;
}

/* ---- output buffer ------------------------------------------------------------------ */

typedef struct obuf {
    FILE *f;
    size_t n;
    bool failed;
    char buf[1 << 16];
} obuf;

static void ob_flush(obuf *o)
{
    if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
        o->failed = true;
    o->n = 0;
}

static void ob_write(obuf *o, const char *s, size_t len)
{
    if (len > sizeof o->buf - o->n) {
        ob_flush(o);
        if (len > sizeof o->buf) {
            if (fwrite(s, 1, len, o->f) != len)
                o->failed = true;
            return;
        }
    }
    memcpy(o->buf + o->n, s, len);
    o->n += len;
}

static void ob_puts(obuf *o, const char *s)
{
    ob_write(o, s, strlen(s));
}

static void ob_putc(obuf *o, char c)
{
    if (o->n == sizeof o->buf)
        ob_flush(o);
    o->buf[o->n++] = c;
}

static void ob_u64(obuf *o, uint64_t v)
{
    char b[24];
    size_t i = sizeof b;
    do
        b[--i] = (char)('0' + v % 10);
    while (v /= 10);
    ob_write(o, b + i, sizeof b - i);
}

static void ob_i64(obuf *o, int64_t v)
{
    if (v < 0) {
        ob_putc(o, '-');
        ob_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        ob_u64(o, (uint64_t)v);
    }
}

/* A number for JSON: NaN and infinities have no JSON form and become 0. */
static void ob_real(obuf *o, double v)
{
    char b[32];
    snprintf(b, sizeof b, "%.4g", isfinite(v) ? v : 0.0);
    ob_puts(o, b);
}

static void ob_printf(obuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ob_printf(obuf *o, const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n > 0)
        ob_write(o, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

/* Length of the valid UTF-8 sequence at p (1..4), 0 if it is not one. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;              /* no UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* Writes s (NULL as ""): valid UTF-8 sequences as they are, a byte that starts none as '?'
 * (so the page never carries invalid UTF-8), and each ASCII byte through `ascii`, which
 * escapes it for JSON or for HTML. */
static void ob_text(obuf *o, const char *s, void (*ascii)(obuf *, unsigned))
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        if (*p < 0x80) {
            ascii(o, *p++);
            continue;
        }
        size_t len = utf8_len(p);
        if (len == 0) {
            ob_putc(o, '?');
            p++;
        } else {
            ob_write(o, (const char *)p, len);
            p += len;
        }
    }
}

/* JSON that is also safe inside <script>: no '<', '>' or '&' appear literally, so neither
 * "</script>" nor "<!--" can end or change the element. */
static void ob_json_char(obuf *o, unsigned c)
{
    switch (c) {
    case '"': ob_puts(o, "\\\""); break;
    case '\\': ob_puts(o, "\\\\"); break;
    case '\n': ob_puts(o, "\\n"); break;
    case '\t': ob_puts(o, "\\t"); break;
    case '<': case '>': case '&':
        ob_printf(o, "\\u%04x", c);
        break;
    default:
        if (c < 0x20 || c == 0x7f)
            ob_printf(o, "\\u%04x", c);
        else
            ob_putc(o, (char)c);
    }
}

/* Text for HTML content and attribute values; control bytes become spaces. */
static void ob_html_char(obuf *o, unsigned c)
{
    switch (c) {
    case '&': ob_puts(o, "&amp;"); break;
    case '<': ob_puts(o, "&lt;"); break;
    case '>': ob_puts(o, "&gt;"); break;
    case '"': ob_puts(o, "&quot;"); break;
    case '\'': ob_puts(o, "&#39;"); break;
    default:
        ob_putc(o, (char)(c < 0x20 || c == 0x7f ? ' ' : c));
    }
}

/* A JSON string for the page's data (see ob_json_char). */
static void ob_jstr(obuf *o, const char *s)
{
    ob_putc(o, '"');
    ob_text(o, s, ob_json_char);
    ob_putc(o, '"');
}

static void ob_html(obuf *o, const char *s)
{
    ob_text(o, s, ob_html_char);
}

/* ---- interning: strings and event descriptors --------------------------------------- */

/* Keys are byte strings; values are their insertion index. Open addressing, FNV-1a. */
typedef struct itab {
    char **keys;
    size_t *lens;
    size_t n, cap;
    uint32_t *slots;            /* index + 1, 0 = empty */
    size_t n_slots;
} itab;

static uint64_t fnv1a(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static bool itab_grow(itab *t)
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
static long itab_put(itab *t, const void *key, size_t len, bool *added)
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

static void itab_free(itab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->lens);
    free(t->slots);
}

enum ev_kind { EV_KERNEL = 0, EV_COPY = 1, EV_MEMSET = 2, EV_CALL = 3, EV_RANGE = 4 };

typedef struct name_info {
    char *shortn, *full;
} name_info;

typedef struct desc_info {
    uint32_t kind, name, sub;
    char *detail;
} desc_info;

/* Everything that makes two events look the same in a tooltip. Zeroed before filling, so
 * padding never differs. */
typedef struct desc_key {
    uint32_t kind, name, sub, a, b, c;
    int32_t grid[3], block[3];
    uint64_t bytes;
} desc_key;

/* ---- rows --------------------------------------------------------------------------- */

typedef struct event {
    uint64_t start, end;
    uint32_t desc;
    uint32_t range;             /* NVTX rows: 1 + index into the process's range metrics */
} event;

enum row_type { ROW_PROCESS, ROW_FINDINGS, ROW_DEVICE, ROW_STREAM, ROW_NVTX, ROW_THREAD };

static const char *const row_type_names[] = {"process", "findings", "device", "stream",
                                             "nvtx", "thread"};

typedef struct row {
    size_t proc;
    enum row_type type;
    uint64_t sec, k1, k2;       /* order inside the process */
    uint32_t device, context_id, stream_id, tid, depth;
    char label[96], sub[96], title[640];
    event *ev;
    size_t n, cap;
} row;

typedef struct html_ctx {
    const sc_html_options *opt;
    uint64_t *t0;               /* per process: its time 0 (see time_zeros) */
    uint64_t span;              /* the longest time from a process's time 0 to its end */
    bool shared;                /* one time 0 for all processes */
    itab names_tab;
    name_info *names;
    size_t names_cap;
    itab descs_tab;
    desc_info *descs;
    size_t descs_cap;
    row *rows;
    size_t n_rows, cap_rows;
    bool oom;
} html_ctx;


static long intern_name(html_ctx *c, const char *name, bool demangle)
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
    name_info *ni = &c->names[i];
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
static long intern_desc(html_ctx *c, const desc_key *k, const char *detail)
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
    c->descs[i] = (desc_info){.kind = k->kind, .name = k->name, .sub = k->sub,
                              .detail = strdup(detail ? detail : "")};
    if (!c->descs[i].detail)
        c->oom = true;
    return i;
}

static row *add_row(html_ctx *c, size_t proc, enum row_type type, uint64_t sec, uint64_t k1,
                    uint64_t k2)
{
    if (!SC_GROW(c->rows, c->cap_rows, c->n_rows + 1, 64)) {
        c->oom = true;
        return NULL;
    }
    row *r = &c->rows[c->n_rows++];
    memset(r, 0, sizeof *r);
    r->proc = proc;
    r->type = type;
    r->sec = sec;
    r->k1 = k1;
    r->k2 = k2;
    return r;
}

static void add_event(html_ctx *c, row *r, uint64_t start, uint64_t end, long desc,
                      uint32_t range)
{
    if (desc < 0)
        return;
    if (!SC_GROW(r->ev, r->cap, r->n + 1, 64)) {
        c->oom = true;
        return;
    }
    r->ev[r->n++] = (event){.start = start, .end = end > start ? end : start,
                            .desc = (uint32_t)desc, .range = range};
}

/* ---- names of things ---------------------------------------------------------------- */

/* The timeline's labels ("memcpy ?") mark a copy kind CUPTI did not know as "?". */
static const char *copy_kind_name(unsigned k)
{
    return k ? sc_report_copy_kind(k, "?") : "?";
}

static const char *site_text(const sc_html_options *opt, const sc_trace *t,
                             const sc_api_call *call, char *buf, size_t n)
{
    if (!call) {
        snprintf(buf, n, "-");
        return buf;
    }
    return sc_frame_site_text(opt->resolve, opt->resolve_ctx, t, call, buf, n);
}

static const char *exe_base(const sc_trace *t)
{
    return t->exe && t->exe[0] ? sc_frame_basename(t->exe) : "?";
}

static unsigned pid_of(const sc_trace *t)
{
    return t->has_process ? t->process.pid : 0;
}

static uint64_t span_of(const sc_overlap *o)
{
    return o->last_ns > o->first_ns ? o->last_ns - o->first_ns : 0;
}

/* "app (pid 1234)": how the timeline, its data and every table name a process. */
static const char *proc_label(const sc_trace *t, char *buf, size_t n)
{
    snprintf(buf, n, "%s (pid %u)", exe_base(t), pid_of(t));
    return buf;
}

/* ---- building the rows of one process ----------------------------------------------- */

static row *find_row(html_ctx *c, size_t first, enum row_type type, uint32_t a, uint32_t b,
                     uint32_t d)
{
    for (size_t i = c->n_rows; i-- > first;) {
        row *r = &c->rows[i];
        if (r->type != type)
            continue;
        if (type == ROW_STREAM && r->device == a && r->context_id == b && r->stream_id == d)
            return r;
        if (type == ROW_DEVICE && r->device == a)
            return r;
        if ((type == ROW_NVTX || type == ROW_THREAD) && r->tid == a && r->depth == b)
            return r;
    }
    return NULL;
}

static void device_row(html_ctx *c, size_t proc, size_t first, const sc_analysis *a,
                       uint32_t device)
{
    if (find_row(c, first, ROW_DEVICE, device, 0, 0))
        return;
    row *r = add_row(c, proc, ROW_DEVICE, 2, device, 0);
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
                 "%.2fx, speedup %s", device, info && info->name ? info->name : "",
                 o->kernel_count, sc_report_fmt_ns(o->busy_ns, b1),
                 sc_report_fmt_ns(span_of(o), b2), o->concurrency, sc_report_fmt_speedup(o, b3));
    } else {
        snprintf(r->title, sizeof r->title, "device %u: no kernels ran", device);
    }
}

static bool stream_shown(const sc_stream_summary *s)
{
    return s->overlap.kernel_count || s->copy_count || s->memset_count || s->created_by;
}

static void stream_rows(html_ctx *c, size_t proc, size_t first, const sc_analysis *a)
{
    for (size_t i = 0; i < a->n_streams; i++) {
        const sc_stream_summary *s = &a->streams[i];
        if (!stream_shown(s))
            continue;
        device_row(c, proc, first, a, s->device);
        row *r = add_row(c, proc, ROW_STREAM, 2, s->device, 1 + i);
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
        snprintf(r->title, sizeof r->title,
                 "stream %u on device %u (%s%s, priority %d): %" PRIu64 " kernels, %" PRIu64
                 " copies, %" PRIu64 " memsets, busy %s, concurrency %.2fx; created at %s",
                 s->stream_id, s->device, kind,
                 s->flag == SC_STREAM_FLAG_LEGACY ? " NULL stream" : "", s->priority,
                 s->overlap.kernel_count, s->copy_count, s->memset_count,
                 sc_report_fmt_ns(s->overlap.busy_ns, b1), s->overlap.concurrency,
                 s->created_by ? site_text(c->opt, a->trace, s->created_by, site, sizeof site)
                               : "- (implicit)");
    }
}

/* The row of device work on (device, context, stream); one is made for work on a stream
 * the analysis did not list. */
static row *work_row(html_ctx *c, size_t proc, size_t first, const sc_analysis *a,
                     row **cache, uint32_t device, uint32_t ctx, uint32_t stream)
{
    row *r = *cache;
    if (r && r->device == device && r->context_id == ctx && r->stream_id == stream)
        return r;
    r = find_row(c, first, ROW_STREAM, device, ctx, stream);
    if (!r) {
        device_row(c, proc, first, a, device);
        r = add_row(c, proc, ROW_STREAM, 2, device, 1000000000ull + stream);
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
static bool desc_key_init(html_ctx *c, desc_key *key, enum ev_kind kind, const char *name,
                          bool demangle)
{
    long ni = intern_name(c, name, demangle);
    if (ni < 0)
        return false;
    memset(key, 0, sizeof *key);
    key->kind = kind;
    key->name = (uint32_t)ni;
    return true;
}

static long kernel_desc(html_ctx *c, const sc_trace *t, const sc_kernel *k)
{
    const sc_kernel_shape *kr = sc_kernel_shape_of(t, k);
    desc_key key;
    if (!desc_key_init(c, &key, EV_KERNEL, kr->name, true))
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

static long copy_desc(html_ctx *c, const sc_rec_memcpy *m)
{
    char name[64];
    snprintf(name, sizeof name, "memcpy %s", copy_kind_name(m->copy_kind));
    desc_key key;
    if (!desc_key_init(c, &key, EV_COPY, name, false))
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

static long memset_desc(html_ctx *c, const sc_rec_memset *m)
{
    desc_key key;
    if (!desc_key_init(c, &key, EV_MEMSET, "memset", false))
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

static long call_desc(html_ctx *c, const sc_trace *t, const sc_api_call *call, const char *what)
{
    desc_key key;
    if (!desc_key_init(c, &key, EV_CALL, sc_call_name(t, call), false))
        return -1;
    key.sub = call->rec.call_class;
    key.bytes = call->rec.bytes;
    char detail[256], b1[SC_FMT_SIZE];
    if (call->rec.bytes)
        snprintf(detail, sizeof detail, "%s, %s", what,
                 sc_report_fmt_bytes((double)call->rec.bytes, b1));
    else
        snprintf(detail, sizeof detail, "%s", what);
    return intern_desc(c, &key, detail);
}

static long range_desc(html_ctx *c, const sc_range *rg)
{
    desc_key key;
    if (!desc_key_init(c, &key, EV_RANGE, rg->name, false))
        return -1;
    key.a = rg->rec.domain_id;
    char detail[256];
    snprintf(detail, sizeof detail, "NVTX range%s%s", rg->domain ? ", domain " : "",
             rg->domain ? rg->domain : "");
    return intern_desc(c, &key, detail);
}

/* Kernels, copies and memsets, merged by start time so every row comes out sorted. */
static void device_work(html_ctx *c, size_t proc, size_t first, const sc_analysis *a)
{
    const sc_trace *t = a->trace;
    size_t ik = 0, ic = 0, is = 0;
    row *cache = NULL;
    while (!c->oom && (ik < t->n_kernels || ic < t->n_copies || is < t->n_memsets)) {
        /* what is left of each list, never a start time standing for "none": a record may
         * start at UINT64_MAX */
        bool hk = ik < t->n_kernels, hc = ic < t->n_copies, hs = is < t->n_memsets;
        uint64_t sk = hk ? t->kernels[ik].rec.start_ns : 0;
        uint64_t sc = hc ? t->copies[ic].start_ns : 0;
        uint64_t ss = hs ? t->memsets[is].start_ns : 0;
        if (hk && (!hc || sk <= sc) && (!hs || sk <= ss)) {
            const sc_kernel_rec *k = &t->kernels[ik].rec;
            row *r = work_row(c, proc, first, a, &cache, k->device, k->context_id, k->stream_id);
            if (r)
                add_event(c, r, k->start_ns, k->end_ns, kernel_desc(c, t, &t->kernels[ik]), 0);
            ik++;
        } else if (hc && (!hs || sc <= ss)) {
            const sc_rec_memcpy *m = &t->copies[ic];
            row *r = work_row(c, proc, first, a, &cache, m->device, m->context_id, m->stream_id);
            if (r)
                add_event(c, r, m->start_ns, m->end_ns, copy_desc(c, m), 0);
            ic++;
        } else {
            const sc_rec_memset *m = &t->memsets[is];
            row *r = work_row(c, proc, first, a, &cache, m->device, m->context_id, m->stream_id);
            if (r)
                add_event(c, r, m->start_ns, m->end_ns, memset_desc(c, m), 0);
            is++;
        }
    }
}

static void host_rows(html_ctx *c, size_t proc, size_t first, const sc_analysis *a,
                      const uint32_t *range_metric)
{
    const sc_trace *t = a->trace;
    row *cache = NULL;
    sc_host_calls held;     /* which calls held their thread (host_calls.h), as in --chrome */
    if (sc_host_calls_init(&held, t) != 0) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < t->n_calls && !c->oom; i++) {
        const sc_api_call *call = &t->calls[i];
        const char *what = sc_host_call_words(&held, call);
        uint64_t dur = call->rec.end_ns > call->rec.start_ns
                           ? call->rec.end_ns - call->rec.start_ns : 0;
        if (!what || dur < c->opt->min_call_ns)
            continue;
        row *r = cache && cache->tid == call->rec.tid ? cache
                 : find_row(c, first, ROW_THREAD, call->rec.tid, UINT32_MAX, 0);
        if (!r) {
            r = add_row(c, proc, ROW_THREAD, 3, call->rec.tid, UINT64_MAX);
            if (!r) {
                sc_host_calls_free(&held);
                return;
            }
            r->tid = call->rec.tid;
            r->depth = UINT32_MAX;
            char b1[SC_FMT_SIZE];
            snprintf(r->label, sizeof r->label, "thread %u", call->rec.tid);
            snprintf(r->sub, sizeof r->sub, "blocking calls");
            snprintf(r->title, sizeof r->title, "host thread %u: calls that held it "
                     "(synchronizations, synchronous copies and memsets, allocations, host "
                     "registration, async copies of pageable memory) lasting %s or more",
                     call->rec.tid, sc_report_fmt_ns(c->opt->min_call_ns, b1));
        }
        cache = r;
        add_event(c, r, call->rec.start_ns, call->rec.end_ns, call_desc(c, t, call, what), 0);
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
        row *r = find_row(c, first, ROW_NVTX, tid, depth, 0);
        if (!r) {
            r = add_row(c, proc, ROW_NVTX, start_end ? 4 : 3, tid, depth);
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
    const row *a = pa, *b = pb;
    if (a->sec != b->sec)
        return a->sec < b->sec ? -1 : 1;
    if (a->k1 != b->k1)
        return a->k1 < b->k1 ? -1 : 1;
    if (a->k2 != b->k2)
        return a->k2 < b->k2 ? -1 : 1;
    return 0;
}

static void process_rows(html_ctx *c, size_t proc, const sc_analysis *a,
                         const uint32_t *range_metric)
{
    const sc_trace *t = a->trace;
    size_t first = c->n_rows;
    char b1[SC_FMT_SIZE];

    row *r = add_row(c, proc, ROW_PROCESS, 0, 0, 0);
    if (!r)
        return;
    proc_label(t, r->label, sizeof r->label);
    snprintf(r->sub, sizeof r->sub, "%s",
             sc_report_fmt_ns(a->run_end_ns > a->run_start_ns
                                  ? a->run_end_ns - a->run_start_ns : 0, b1));
    snprintf(r->title, sizeof r->title, "%s (pid %u), trace %s (%s)", t->exe ? t->exe : "?",
             pid_of(t), t->path ? t->path : "?", sc_report_status_name(t->status));

    r = add_row(c, proc, ROW_FINDINGS, 1, 0, 0);
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

/* ---- JSON --------------------------------------------------------------------------- */

static uint64_t rel(const html_ctx *c, size_t proc, uint64_t ns)
{
    return ns > c->t0[proc] ? ns - c->t0[proc] : 0;
}

static void json_instance(obuf *o, const html_ctx *c, size_t proc, const sc_instance *in,
                          const char *which)
{
    ob_putc(o, '[');
    ob_u64(o, rel(c, proc, in->start_ns));
    ob_putc(o, ',');
    ob_u64(o, in->end_ns > in->start_ns ? in->end_ns - in->start_ns : 0);
    ob_putc(o, ',');
    ob_u64(o, in->cost_ns);
    ob_putc(o, ',');
    ob_jstr(o, in->text);
    ob_putc(o, ',');
    ob_jstr(o, which);
    ob_putc(o, ']');
}

static void json_finding(obuf *o, const html_ctx *c, size_t proc, const sc_analysis *a,
                         const sc_finding *f)
{
    char site[512];
    ob_puts(o, "{\"rule\":");
    ob_jstr(o, f->rule);
    ob_puts(o, ",\"sev\":");
    ob_jstr(o, sc_severity_name(f->severity));
    ob_puts(o, ",\"title\":");
    ob_jstr(o, f->title);
    ob_puts(o, ",\"fix\":");
    ob_jstr(o, f->fix);
    ob_puts(o, ",\"cost\":");
    ob_u64(o, f->cost_ns);
    ob_puts(o, ",\"share\":");
    ob_real(o, f->share);
    ob_puts(o, ",\"count\":");
    ob_u64(o, f->count);
    ob_puts(o, ",\"site\":");
    ob_jstr(o, f->n_sites ? site_text(c->opt, a->trace, f->sites[0].call, site, sizeof site)
                          : "-");
    ob_puts(o, ",\"inst\":[");
    json_instance(o, c, proc, &f->first, "first");
    if (f->worst.start_ns != f->first.start_ns || f->worst.end_ns != f->first.end_ns) {
        ob_putc(o, ',');
        json_instance(o, c, proc, &f->worst, "worst");
    }
    ob_puts(o, "]}");
}

static void range_findings_text(const sc_range_summary *rs, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rs->n_findings && used + 1 < n; i++) {
        char b1[SC_FMT_SIZE];
        int w = snprintf(buf + used, n - used, "%s%s x%" PRIu64 " (%s)", i ? ", " : "",
                         rs->findings[i].rule, rs->findings[i].count,
                         sc_report_fmt_ns(rs->findings[i].cost_ns, b1));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void json_process(obuf *o, const html_ctx *c, size_t proc, const sc_analysis *a)
{
    const sc_trace *t = a->trace;
    char label[256];
    proc_label(t, label, sizeof label);
    ob_puts(o, "{\"label\":");
    ob_jstr(o, label);
    ob_puts(o, ",\"exe\":");
    ob_jstr(o, t->exe);
    ob_puts(o, ",\"pid\":");
    ob_u64(o, pid_of(t));
    ob_puts(o, ",\"t0\":\"");
    ob_u64(o, c->t0[proc]);
    ob_puts(o, "\",\"start\":");
    ob_u64(o, rel(c, proc, a->run_start_ns));
    ob_puts(o, ",\"end\":");
    ob_u64(o, rel(c, proc, a->run_end_ns));
    ob_puts(o, ",\"findings\":[");
    for (size_t i = 0; i < a->n_findings; i++) {
        if (i)
            ob_putc(o, ',');
        json_finding(o, c, proc, a, &a->findings[i]);
    }
    ob_puts(o, "],\"rm\":[");
    for (size_t i = 0; i < a->n_ranges; i++) {
        const sc_range_summary *rs = &a->ranges[i];
        const sc_overlap *ov = &rs->overlap;
        char text[512];
        range_findings_text(rs, text, sizeof text);
        ob_puts(o, i ? ",[" : "[");
        ob_u64(o, rs->wall_ns);
        ob_putc(o, ',');
        ob_u64(o, ov->kernel_count);
        ob_putc(o, ',');
        ob_u64(o, ov->busy_ns);
        ob_putc(o, ',');
        ob_real(o, ov->concurrency);
        ob_putc(o, ',');
        ob_real(o, ov->speedup);
        ob_putc(o, ',');
        ob_u64(o, ov->copy_busy_ns);
        ob_putc(o, ',');
        ob_u64(o, ov->copy_compute_ns);
        ob_putc(o, ',');
        ob_u64(o, ov->idle_ns);
        ob_putc(o, ',');
        ob_jstr(o, text);
        ob_putc(o, ']');
    }
    ob_puts(o, "]}");
}

static void json_row(obuf *o, const html_ctx *c, const row *r)
{
    ob_puts(o, "{\"p\":");
    ob_u64(o, r->proc);
    ob_puts(o, ",\"ty\":\"");
    ob_puts(o, row_type_names[r->type]);
    ob_puts(o, "\",\"t\":[");
    uint64_t prev = c->t0[r->proc];
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            ob_putc(o, ',');
        ob_i64(o, (int64_t)(r->ev[i].start - prev));
        prev = r->ev[i].start;
    }
    ob_puts(o, "],\"d\":[");
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            ob_putc(o, ',');
        ob_u64(o, r->ev[i].end - r->ev[i].start);
    }
    ob_puts(o, "],\"e\":[");
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            ob_putc(o, ',');
        ob_u64(o, r->ev[i].desc);
    }
    ob_putc(o, ']');
    if (r->type == ROW_NVTX) {
        ob_puts(o, ",\"r\":[");
        for (size_t i = 0; i < r->n; i++) {
            if (i)
                ob_putc(o, ',');
            ob_u64(o, r->ev[i].range);
        }
        ob_putc(o, ']');
    }
    ob_putc(o, '}');
}

static void json_data(obuf *o, const html_ctx *c, const sc_analysis *const *as, size_t n)
{
    ob_puts(o, "{\"v\":1,\"axis\":");
    ob_puts(o, c->shared ? "\"shared\"" : "\"per-process\"");
    ob_puts(o, ",\"span\":");
    ob_u64(o, c->span);
    ob_puts(o, ",\"min_call_ns\":");
    ob_u64(o, c->opt->min_call_ns);
    ob_puts(o, ",\n\"names\":[");
    for (size_t i = 0; i < c->names_tab.n; i++) {
        ob_puts(o, i ? ",[" : "[");
        ob_jstr(o, c->names[i].shortn);
        ob_putc(o, ',');
        ob_jstr(o, c->names[i].full);
        ob_putc(o, ']');
    }
    ob_puts(o, "],\n\"descs\":[");
    for (size_t i = 0; i < c->descs_tab.n; i++) {
        const desc_info *d = &c->descs[i];
        ob_puts(o, i ? ",[" : "[");
        ob_u64(o, d->kind);
        ob_putc(o, ',');
        ob_u64(o, d->name);
        ob_putc(o, ',');
        ob_jstr(o, d->detail);
        ob_putc(o, ',');
        ob_u64(o, d->sub);
        ob_putc(o, ']');
    }
    ob_puts(o, "],\n\"procs\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            ob_putc(o, ',');
        json_process(o, c, i, as[i]);
    }
    ob_puts(o, "],\n\"rows\":[");
    for (size_t i = 0; i < c->n_rows; i++) {
        if (i)
            ob_puts(o, ",\n");
        json_row(o, c, &c->rows[i]);
    }
    ob_puts(o, "]}");
}

/* ---- static HTML: header, labels, tables -------------------------------------------- */

static void html_header(obuf *o, const sc_analysis *const *as, size_t n)
{
    char b1[SC_FMT_SIZE];
    ob_puts(o, "<section id=\"processes\">\n");
    if (n == 0)
        ob_puts(o, "<p class=\"proc\">no processes: no trace could be read</p>\n");
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        const sc_trace *t = a->trace;
        ob_puts(o, "<p class=\"proc\"><b>");
        ob_html(o, t->exe ? t->exe : "?");
        ob_printf(o, "</b> (pid %u): %s, %zu device%s, %zu kernels, %zu copies, %zu memsets, "
                  "%zu API calls, %zu NVTX ranges, %zu finding%s &middot; <span class=\"path\">",
                  pid_of(t), sc_report_fmt_ns(a->run_end_ns > a->run_start_ns
                                                  ? a->run_end_ns - a->run_start_ns : 0, b1),
                  a->n_devices, a->n_devices == 1 ? "" : "s", t->n_kernels, t->n_copies,
                  t->n_memsets, t->n_calls, t->n_ranges, a->n_findings,
                  a->n_findings == 1 ? "" : "s");
        ob_html(o, t->path ? t->path : "?");
        ob_puts(o, "</span></p>\n");
        if (t->status != SC_TRACE_COMPLETE) {
            ob_printf(o, "<p class=\"warn\">%s trace: ",
                      t->status == SC_TRACE_PARTIAL ? "PARTIAL" : "TRUNCATED");
            ob_html(o, t->status_detail[0] ? t->status_detail
                                           : "the numbers cover what was recorded");
            ob_puts(o, "</p>\n");
        }
        if (t->has_end && t->end.dropped_records)
            ob_printf(o, "<p class=\"warn\">CUPTI dropped %" PRIu64 " activity records: the "
                      "timeline and the metrics undercount</p>\n", t->end.dropped_records);
        for (size_t j = 0; j < t->n_notes; j++) {
            ob_puts(o, "<p class=\"warn\">note: ");
            ob_html(o, t->notes[j].text ? t->notes[j].text
                                        : sc_report_note_name(t->notes[j].code));
            ob_puts(o, "</p>\n");
        }
    }
    ob_puts(o, "</section>\n");
}

static void html_labels(obuf *o, const html_ctx *c)
{
    ob_puts(o, "<div class=\"tl-labels\"><div class=\"axis-spacer\"></div>\n");
    for (size_t i = 0; i < c->n_rows; i++) {
        const row *r = &c->rows[i];
        ob_printf(o, "<div class=\"row-label %s\" data-row=\"%zu\" title=\"",
                  row_type_names[r->type], i);
        ob_html(o, r->title);
        ob_puts(o, "\"><span class=\"l\">");
        ob_html(o, r->label);
        ob_puts(o, "</span> <span class=\"s\">");
        ob_html(o, r->sub);
        ob_puts(o, "</span></div>\n");
    }
    ob_puts(o, "</div>\n");
}

static void td(obuf *o, const char *cls, const char *text)
{
    if (cls)
        ob_printf(o, "<td class=\"%s\">", cls);
    else
        ob_puts(o, "<td>");
    ob_html(o, text);
    ob_puts(o, "</td>");
}

static void td_count(obuf *o, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, v);
    td(o, "num", text);
}

/* Concurrency and speedup: "1.84x". */
static void td_ratio(obuf *o, double x)
{
    char text[256];
    snprintf(text, sizeof text, "%.2fx", x);
    td(o, "num", text);
}

/* Copy time that overlapped kernels, of all copy time: "1.20 ms of 3.40 ms". */
static void td_copy_compute(obuf *o, const sc_overlap *ov)
{
    char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], text[2 * SC_FMT_SIZE + 8];
    snprintf(text, sizeof text, "%s of %s", sc_report_fmt_ns(ov->copy_compute_ns, b1),
             sc_report_fmt_ns(ov->copy_busy_ns, b2));
    td(o, "num", text);
}

/* The device work issued inside NVTX ranges, as both range tables show it: kernels, busy,
 * concurrency, speedup, copy/compute, idle. */
static void td_range_work(obuf *o, const sc_overlap *ov)
{
    char b1[SC_FMT_SIZE];
    td_count(o, ov->kernel_count);
    td(o, "num", sc_report_fmt_ns(ov->busy_ns, b1));
    td_ratio(o, ov->concurrency);
    td(o, "num", sc_report_fmt_speedup(ov, b1));
    td_copy_compute(o, ov);
    td(o, "num", sc_report_fmt_ns(ov->idle_ns, b1));
}

/* "domain: name" (the default domain unnamed), then a dot per nesting level up to 8. */
static void td_range_name(obuf *o, const char *domain, const char *name, uint32_t depth)
{
    ob_puts(o, "<td class=\"name\">");
    if (domain) {
        ob_html(o, domain);
        ob_puts(o, ": ");
    }
    ob_html(o, name ? name : "?");
    for (uint32_t d = 0; d < depth && d < 8; d++)
        ob_puts(o, " <span class=\"depth\">&middot;</span>");
    ob_puts(o, "</td>");
}

static void html_findings(obuf *o, const html_ctx *c, const sc_analysis *const *as, size_t n)
{
    ob_puts(o, "<h2>Findings</h2>\n<table id=\"findings\">\n<thead><tr><th>process</th>"
               "<th>rule</th><th>severity</th><th>cost</th><th>share</th><th>count</th>"
               "<th>what</th><th>fix</th><th>top call site</th></tr></thead>\n<tbody>\n");
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        char label[256], b1[SC_FMT_SIZE], num[64], site[512];
        proc_label(a->trace, label, sizeof label);
        for (size_t j = 0; j < a->n_findings; j++, total++) {
            const sc_finding *f = &a->findings[j];
            ob_printf(o, "<tr class=\"finding %s\" data-p=\"%zu\" data-f=\"%zu\" "
                      "title=\"click: show its worst instance on the timeline\">",
                      sc_severity_name(f->severity), i, j);
            td(o, NULL, label);
            td(o, "rule", f->rule);
            td(o, "sev", sc_severity_name(f->severity));
            td(o, "num", sc_report_fmt_ns(f->cost_ns, b1));
            snprintf(num, sizeof num, "%.1f%%", f->share * 100.0);
            td(o, "num", num);
            td_count(o, f->count);
            td(o, NULL, f->title);
            td(o, NULL, f->fix);
            td(o, "site", f->n_sites ? site_text(c->opt, a->trace, f->sites[0].call, site,
                                                 sizeof site) : "-");
            ob_puts(o, "</tr>\n");
        }
    }
    if (total == 0)
        ob_puts(o, "<tr class=\"none\"><td colspan=\"9\">no findings</td></tr>\n");
    ob_puts(o, "</tbody>\n</table>\n");
}

static void html_ranges(obuf *o, const html_ctx *c, const sc_analysis *const *as, size_t n)
{
    ob_puts(o, "<h2>NVTX ranges</h2>\n<table id=\"ranges\">\n<thead><tr><th>process</th>"
               "<th>range</th><th>thread</th><th>start</th><th>wall</th><th>kernels</th>"
               "<th>busy</th><th>concurrency</th><th>speedup</th><th>copy/compute</th>"
               "<th>idle</th><th>findings</th></tr></thead>\n<tbody>\n");
    size_t shown = 0, total = 0, recorded = 0;
    size_t limit = c->opt->max_range_rows ? c->opt->max_range_rows : SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        char label[256], b1[SC_FMT_SIZE], text[512];
        proc_label(a->trace, label, sizeof label);
        recorded += a->trace->n_ranges;
        total += a->n_ranges;
        for (size_t j = 0; j < a->n_ranges && shown < limit; j++, shown++) {
            const sc_range_summary *rs = &a->ranges[j];
            const sc_range *rg = rs->range;
            ob_puts(o, "<tr class=\"range\">");
            td(o, NULL, label);
            td_range_name(o, rg ? rg->domain : NULL, rg ? rg->name : NULL,
                          rg ? rg->rec.depth : 0);
            snprintf(text, sizeof text, "%u", rg ? rg->rec.tid : 0);
            td(o, "num", text);
            snprintf(text, sizeof text, "+%s", sc_report_fmt_ns(rg ? rel(c, i, rg->rec.start_ns)
                                                                   : 0, b1));
            td(o, "num", text);
            td(o, "num", sc_report_fmt_ns(rs->wall_ns, b1));
            td_range_work(o, &rs->overlap);
            range_findings_text(rs, text, sizeof text);
            td(o, NULL, text[0] ? text : "-");
            ob_puts(o, "</tr>\n");
        }
    }
    if (total == 0 && recorded == 0)
        ob_puts(o, "<tr class=\"none\"><td colspan=\"12\">no NVTX ranges recorded</td></tr>\n");
    else if (total == 0)
        ob_printf(o, "<tr class=\"none\"><td colspan=\"12\">%zu NVTX ranges recorded; the "
                  "analysis has no per-range metrics for them</td></tr>\n", recorded);
    else if (shown < total)
        ob_printf(o, "<tr class=\"none\"><td colspan=\"12\">%zu more ranges not shown (the "
                  "JSON report has them all)</td></tr>\n", total - shown);
    ob_puts(o, "</tbody>\n</table>\n");
}

/* The ranges of each name together: a loop's thousands of "step" ranges in one line. */
static void html_range_names(obuf *o, const html_ctx *c, const sc_analysis *const *as, size_t n)
{
    size_t total = 0, shown = 0;
    size_t limit = c->opt->max_range_rows ? c->opt->max_range_rows : SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        total += as[i]->n_range_names;
    if (total == 0)
        return;
    ob_puts(o, "<h2>NVTX ranges by name</h2>\n<table id=\"range-names\">\n<thead><tr>"
               "<th>process</th><th>range</th><th>count</th><th>wall</th><th>longest</th>"
               "<th>kernels</th><th>busy</th><th>concurrency</th><th>speedup</th>"
               "<th>copy/compute</th><th>idle</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        char label[256], b1[SC_FMT_SIZE];
        proc_label(a->trace, label, sizeof label);
        for (size_t j = 0; j < a->n_range_names && shown < limit; j++, shown++) {
            const sc_range_name_summary *rn = &a->range_names[j];
            ob_puts(o, "<tr class=\"range-name\">");
            td(o, NULL, label);
            td_range_name(o, rn->domain, rn->name, 0);
            td_count(o, rn->count);
            td(o, "num", sc_report_fmt_ns(rn->wall_ns, b1));
            td(o, "num", sc_report_fmt_ns(rn->max_wall_ns, b1));
            td_range_work(o, &rn->overlap);
            ob_puts(o, "</tr>\n");
        }
    }
    if (shown < total)
        ob_printf(o, "<tr class=\"none\"><td colspan=\"11\">%zu more names not shown</td>"
                  "</tr>\n", total - shown);
    ob_puts(o, "</tbody>\n</table>\n");
}

static void html_devices(obuf *o, const sc_analysis *const *as, size_t n)
{
    ob_puts(o, "<h2>Devices</h2>\n<table id=\"devices\">\n<thead><tr><th>process</th>"
               "<th>device</th><th>kernels</th><th>span</th><th>busy</th><th>concurrency</th>"
               "<th>2+ kernels</th><th>speedup</th><th>copy/compute</th><th>idle gaps</th>"
               "</tr></thead>\n<tbody>\n");
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_analysis *a = as[i];
        char label[256], b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], text[256];
        proc_label(a->trace, label, sizeof label);
        for (size_t j = 0; j < a->n_devices; j++, total++) {
            const sc_device_summary *d = &a->devices[j];
            const sc_overlap *ov = &d->overlap;
            uint64_t span = span_of(ov);
            ob_puts(o, "<tr class=\"device\">");
            td(o, NULL, label);
            snprintf(text, sizeof text, "%u %s", d->device,
                     d->info && d->info->name ? d->info->name : "");
            td(o, NULL, text);
            td_count(o, ov->kernel_count);
            td(o, "num", sc_report_fmt_ns(span, b1));
            snprintf(text, sizeof text, "%s (%.1f%%)", sc_report_fmt_ns(ov->busy_ns, b1),
                     span ? 100.0 * (double)ov->busy_ns / (double)span : 0.0);
            td(o, "num", text);
            td_ratio(o, ov->concurrency);
            td(o, "num", sc_report_fmt_ns(ov->overlap_ns, b1));
            snprintf(text, sizeof text, "%s (%" PRIu64 " of %" PRIu64 " timed solo)",
                     sc_report_fmt_speedup(ov, b1), ov->solo_known, ov->kernel_count);
            td(o, "num", text);
            td_copy_compute(o, ov);
            snprintf(text, sizeof text, "%s in %" PRIu64 ", longest %s",
                     sc_report_fmt_ns(ov->idle_ns, b1), ov->gap_count,
                     sc_report_fmt_ns(ov->longest_gap_ns, b2));
            td(o, "num", text);
            ob_puts(o, "</tr>\n");
        }
    }
    if (total == 0)
        ob_puts(o, "<tr class=\"none\"><td colspan=\"10\">no devices</td></tr>\n");
    ob_puts(o, "</tbody>\n</table>\n");
}

static void html_page(obuf *o, const html_ctx *c, const sc_analysis *const *as, size_t n)
{
    const char *title = c->opt->title ? c->opt->title : "streamcheck report";
    ob_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>");
    ob_html(o, title);
    ob_puts(o, "</title>\n<style>\n");
    ob_puts(o, sc_html_css);
    ob_puts(o, "</style>\n</head>\n<body>\n<header><h1>");
    ob_html(o, title);
    ob_puts(o, "</h1></header>\n");
    html_header(o, as, n);
    ob_puts(o, sc_html_toolbar);
    ob_puts(o, "<div id=\"timeline\" tabindex=\"0\">\n");
    html_labels(o, c);
    ob_puts(o, "<div class=\"tl-canvas\"><canvas></canvas></div>\n</div>\n"
               "<div id=\"tooltip\" hidden></div>\n<section id=\"tables\">\n");
    html_findings(o, c, as, n);
    html_ranges(o, c, as, n);
    html_range_names(o, c, as, n);
    html_devices(o, as, n);
    ob_puts(o, "</section>\n<footer>streamcheck-report");
    if (c->opt->tool_version) {
        ob_putc(o, ' ');
        ob_html(o, c->opt->tool_version);
    }
    ob_puts(o, c->shared ? "; times are relative to the earliest start of the processes shown"
                         : "; the processes ran far apart in time (different runs or clocks): "
                           "each one's times are relative to its own start");
    ob_puts(o, "</footer>\n<script type=\"application/json\" id=\"sc-data\">");
    json_data(o, c, as, n);
    ob_puts(o, "</script>\n<script>\n");
    ob_puts(o, sc_html_js);
    ob_puts(o, "</script>\n</body>\n</html>\n");
}

/* ---- entry point -------------------------------------------------------------------- */

static void ctx_free(html_ctx *c)
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

/* Processes of one run share CUPTI's clock and one time axis (time 0: the earliest start).
 * Traces of different runs, or of different machines, can lie days apart: then each process
 * gets its own time 0, its start, rather than a timeline too long to read. */
static int time_zeros(html_ctx *c, const sc_analysis *const *as, size_t n)
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

/* range_metric[i] for trace range i: 1 + index of its summary in a->ranges, 0 if none. */
static uint32_t *range_metrics(const sc_analysis *a, bool *oom)
{
    const sc_trace *t = a->trace;
    if (t->n_ranges == 0 || a->n_ranges == 0)
        return NULL;
    uint32_t *m = calloc(t->n_ranges, sizeof *m);
    if (!m) {
        *oom = true;
        return NULL;
    }
    for (size_t j = 0; j < a->n_ranges; j++) {
        const sc_range *rg = a->ranges[j].range;
        if (rg >= t->ranges && rg < t->ranges + t->n_ranges)
            m[rg - t->ranges] = (uint32_t)(j + 1);
    }
    return m;
}

int sc_html_write(FILE *out, const sc_analysis *const *as, size_t n,
                  const sc_html_options *opt, char *err, size_t err_size)
{
    sc_html_options defaults;
    if (!opt) {
        sc_html_options_init(&defaults);
        opt = &defaults;
    }
    html_ctx c = {.opt = opt};
    if (time_zeros(&c, as, n) != 0) {
        snprintf(err, err_size, "out of memory while building the HTML report");
        return -1;
    }
    for (size_t i = 0; i < n && !c.oom; i++) {
        uint32_t *m = range_metrics(as[i], &c.oom);
        if (!c.oom)
            process_rows(&c, i, as[i], m);
        free(m);
    }
    if (c.oom) {
        ctx_free(&c);
        snprintf(err, err_size, "out of memory while building the HTML report");
        return -1;
    }
    obuf *o = malloc(sizeof *o);
    if (!o) {
        ctx_free(&c);
        snprintf(err, err_size, "out of memory while building the HTML report");
        return -1;
    }
    o->f = out;
    o->n = 0;
    o->failed = false;
    html_page(o, &c, as, n);
    ob_flush(o);
    bool failed = o->failed || fflush(out) != 0 || ferror(out);
    int why = errno;
    free(o);
    ctx_free(&c);
    if (failed) {
        snprintf(err, err_size, "%s", why ? strerror(why) : "write error");
        return -1;
    }
    return 0;
}
