/* streamcheck-report --dump (see dump.h).
 *
 * Two passes over the file held in memory: the first checks every record with the loader's
 * rules (trace/validate.h) and finds where the readable part ends, so the status can be
 * printed before the records (as the report does) and API lines can name their call even
 * when the CALL_NAME record came later; the second prints the records up to that point.
 * Values are raw: times in nanoseconds on the trace's clock, ids and handles as written. */
#include "report/dump.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"
#include "streamcheck/trace.h"
#include "streamcheck/trace_format.h"
#include "trace/compact_read.h"
#include "trace/grow.h"
#include "trace/read_file.h"
#include "trace/validate.h"

enum sc_dump_damage { SC_DUMP_CLEAN, SC_DUMP_TRUNCATED, SC_DUMP_CORRUPT };

typedef struct sc_dump_name {
    uint32_t key;               /* domain << 16 | cbid */
    const char *text;
} sc_dump_name;

typedef struct sc_dump {
    const char *path;
    const uint8_t *data;
    size_t size;
    size_t start;               /* the header's header_size: where records begin */
    size_t stop;                /* where the readable part ends: size, or the damage */
    enum sc_dump_damage damage;
    char what[256];             /* the damage in words */
    bool has_end;
    size_t n_records;
    size_t counts[SC_REC_KIND_LAST + 1];  /* by kind; [0] counts kinds this version does not know */
    sc_dump_name *names;
    size_t n_names, cap_names;
} sc_dump;

static const char *const sc_dump_kind_names[SC_REC_KIND_LAST + 1] = {
    [SC_REC_PROCESS] = "PROCESS", [SC_REC_MODULE] = "MODULE", [SC_REC_DEVICE] = "DEVICE",
    [SC_REC_STRING] = "STRING",   [SC_REC_CALL_NAME] = "CALL_NAME", [SC_REC_API] = "API",
    [SC_REC_KERNEL] = "KERNEL",   [SC_REC_MEMCPY] = "MEMCPY", [SC_REC_MEMSET] = "MEMSET",
    [SC_REC_STREAM] = "STREAM",   [SC_REC_SYNC] = "SYNC",     [SC_REC_NOTE] = "NOTE",
    [SC_REC_ENV] = "ENV",         [SC_REC_RANGE] = "RANGE",   [SC_REC_END] = "END",
    [SC_REC_OVERHEAD] = "OVERHEAD",
    [SC_REC_LOSS] = "LOSS",
    [SC_REC_UNIFIED] = "UNIFIED", [SC_REC_PYSTACK] = "PYSTACK",
    [SC_REC_SCOPE] = "SCOPE",     [SC_REC_SCOPE_WINDOW] = "SCOPE_WINDOW",
    [SC_REC_TIME_BASE] = "TIME_BASE", [SC_REC_KERNEL_SHAPE] = "KERNEL_SHAPE",
    [SC_REC_KERNEL_COMPACT] = "KERNEL_COMPACT", [SC_REC_CALL_SITE] = "CALL_SITE",
    [SC_REC_CALL_COMPACT] = "CALL_COMPACT",
};

static const char *kind_name(uint16_t kind)
{
    return kind <= SC_REC_KIND_LAST && sc_dump_kind_names[kind] ? sc_dump_kind_names[kind]
                                                                : "unknown";
}

/* ---- pass 1: where the readable part ends ------------------------------------------- */

static void set_damage(sc_dump *d, enum sc_dump_damage damage, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_damage(sc_dump *d, enum sc_dump_damage damage, size_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->what, sizeof d->what, fmt, ap);
    va_end(ap);
    d->damage = damage;
    d->stop = off;
}

/* Records the first rule (validate.h: the loader's) that the record at off breaks, in the
 * dump's words: with the values that broke it. */
static void record_damage(sc_dump *d, size_t off, enum sc_record_fault fault,
                          const sc_record_header *h)
{
    size_t left = d->size - off;
    const uint8_t *p = d->data + off + sizeof *h;
    switch (fault) {
    case SC_RECORD_OK:
        return;
    case SC_RECORD_STRAY:
        set_damage(d, SC_DUMP_TRUNCATED, off, "%zu stray bytes where a record header should "
                   "be: the process stopped while writing", left);
        return;
    case SC_RECORD_BAD_SIZE:
        set_damage(d, SC_DUMP_CORRUPT, off, "bad record size %u (kind %u)", h->size, h->kind);
        return;
    case SC_RECORD_CUT_SHORT:
        set_damage(d, SC_DUMP_TRUNCATED, off, "%s record of %u bytes cut short, %zu bytes left "
                   "in the file: the process stopped while writing", kind_name(h->kind),
                   h->size, left);
        return;
    case SC_RECORD_AFTER_END:
        set_damage(d, SC_DUMP_CORRUPT, off, "%s record after the END record", kind_name(h->kind));
        return;
    case SC_RECORD_SHORT:
        set_damage(d, SC_DUMP_CORRUPT, off, "%s record shorter than its kind (%zu of %zu payload "
                   "bytes)", kind_name(h->kind), h->size - sizeof *h,
                   sc_record_fixed_size(h->kind));
        return;
    case SC_RECORD_BAD_FIXED:
        set_damage(d, SC_DUMP_CORRUPT, off, "%s record whose fixed part (%u bytes) lies outside "
                   "its %u-byte payload or is shorter than its kind's %zu", kind_name(h->kind),
                   h->fixed, h->size - (uint32_t)sizeof *h, sc_record_fixed_size(h->kind));
        return;
    case SC_RECORD_UNTERMINATED:
        set_damage(d, SC_DUMP_CORRUPT, off, "%s record with unterminated text",
                   kind_name(h->kind));
        return;
    case SC_RECORD_FRAMES_OVERRUN: {
        sc_rec_api a;
        SC_RECORD_COPY_FIXED(a, p, h->size - sizeof *h);
        set_damage(d, SC_DUMP_CORRUPT, off, "API record with %u frames that overrun it",
                   a.n_frames);
        return;
    }
    case SC_RECORD_BAD_STRING_ID: {
        sc_rec_string s;
        SC_RECORD_COPY_FIXED(s, p, h->size - sizeof *h);
        set_damage(d, SC_DUMP_CORRUPT, off, "STRING record with bad id %u", s.id);
        return;
    }
    case SC_RECORD_BAD_COMPACT_ID:
        set_damage(d, SC_DUMP_CORRUPT, off, "%s record with id 0 or above %u",
                   kind_name(h->kind), SC_COMPACT_MAX_ID);
        return;
    case SC_RECORD_UNDECLARED:
        set_damage(d, SC_DUMP_CORRUPT, off, "%s record before its TIME_BASE or the declaration "
                   "of its id", kind_name(h->kind));
        return;
    }
}

static int name_cmp(const void *a, const void *b)
{
    uint32_t x = ((const sc_dump_name *)a)->key, y = ((const sc_dump_name *)b)->key;
    return x < y ? -1 : x > y;
}

static void add_call_name(sc_dump *d, const uint8_t *p, size_t fixed, size_t n)
{
    if (!SC_GROW(d->names, d->cap_names, d->n_names + 1, 64))
        return;             /* the API lines then print "?": a dump still works */
    sc_rec_call_name c;
    SC_RECORD_COPY_FIXED(c, p, fixed);
    d->names[d->n_names].key = (uint32_t)c.domain << 16 | c.cbid;
    d->names[d->n_names++].text = sc_record_text(p, fixed, n);
}

/* A compact record's fault (compact_read.h), the loader's: SC_RECORD_UNDECLARED when it
 * comes before its base or its declaration. Its expansion, when there is one, in *k or *a. */
static enum sc_record_fault compact_check(sc_compact_reader *r, const sc_record_header *h,
                                          const uint8_t *p, sc_rec_kernel *k, sc_rec_api *a)
{
    size_t fixed = sc_record_fixed_part(h, h->size - sizeof *h);
    enum sc_compact_result got = sc_compact_read(r, h->kind, p, fixed, k, a);
    return got == SC_COMPACT_UNDECLARED ? SC_RECORD_UNDECLARED : SC_RECORD_OK;
}

static void scan(sc_dump *d)
{
    size_t off = d->start;
    d->stop = d->size;
    sc_compact_reader compact = {0};
    while (off < d->size) {
        sc_record_header h;
        enum sc_record_fault fault = sc_record_check(d->data, d->size, off, d->has_end, &h);
        const uint8_t *p = d->data + off + sizeof h;
        sc_rec_kernel k;
        sc_rec_api a;
        if (fault == SC_RECORD_OK && sc_compact_kind(h.kind))
            fault = compact_check(&compact, &h, p, &k, &a);
        if (fault != SC_RECORD_OK) {
            record_damage(d, off, fault, &h);
            break;
        }
        size_t n = h.size - sizeof h;
        if (h.kind == SC_REC_CALL_NAME)
            add_call_name(d, p, sc_record_fixed_part(&h, n), n);
        if (h.kind == SC_REC_END)
            d->has_end = true;
        d->counts[h.kind <= SC_REC_KIND_LAST && sc_dump_kind_names[h.kind] ? h.kind : 0]++;
        d->n_records++;
        off += h.size;
    }
    sc_compact_reader_free(&compact);
    if (d->n_names)
        qsort(d->names, d->n_names, sizeof *d->names, name_cmp);
}

static const char *call_name(const sc_dump *d, uint16_t domain, uint16_t cbid)
{
    sc_dump_name key = {.key = (uint32_t)domain << 16 | cbid};
    const sc_dump_name *e =
        d->n_names ? bsearch(&key, d->names, d->n_names, sizeof key, name_cmp) : NULL;
    return e ? e->text : "?";
}

/* ---- value names -------------------------------------------------------------------- */

static const char *call_class_name(uint16_t c)
{
    static const char *const names[] = {
        [SC_CALL_OTHER] = "other",
        [SC_CALL_LAUNCH] = "launch",
        [SC_CALL_GRAPH_LAUNCH] = "graph-launch",
        [SC_CALL_MEMCPY] = "memcpy",
        [SC_CALL_MEMCPY_ASYNC] = "memcpy-async",
        [SC_CALL_MEMSET] = "memset",
        [SC_CALL_MEMSET_ASYNC] = "memset-async",
        [SC_CALL_MALLOC] = "malloc",
        [SC_CALL_FREE] = "free",
        [SC_CALL_HOST_ALLOC] = "host-alloc",
        [SC_CALL_HOST_FREE] = "host-free",
        [SC_CALL_HOST_REGISTER] = "host-register",
        [SC_CALL_HOST_UNREGISTER] = "host-unregister",
        [SC_CALL_STREAM_CREATE] = "stream-create",
        [SC_CALL_STREAM_DESTROY] = "stream-destroy",
        [SC_CALL_EVENT_RECORD] = "event-record",
        [SC_CALL_EVENT_WAIT] = "event-wait",
        [SC_CALL_EVENT_SYNC] = "event-sync",
        [SC_CALL_STREAM_SYNC] = "stream-sync",
        [SC_CALL_DEVICE_SYNC] = "device-sync",
        [SC_CALL_STREAM_QUERY] = "stream-query",
        [SC_CALL_EVENT_QUERY] = "event-query",
        [SC_CALL_SET_LIMIT] = "set-limit",
        [SC_CALL_MALLOC_ASYNC] = "malloc-async",
        [SC_CALL_FREE_ASYNC] = "free-async",
        [SC_CALL_HOST_FUNC] = "host-func",
        [SC_CALL_EVENT_READ] = "event-read",
    };
    return c < sizeof names / sizeof *names && names[c] ? names[c] : "unknown";
}

static const char *domain_name(uint16_t domain)
{
    switch (domain) {   /* CUpti_CallbackDomain */
    case 1: return "driver";
    case 2: return "runtime";
    case 3: return "resource";
    case 4: return "synchronize";
    case 5: return "nvtx";
    default: return "domain?";
    }
}

static const char *sync_type_name(uint32_t type)
{
    static const char *const names[] = {"unknown", "event-sync", "stream-wait-event",
                                        "stream-sync", "context-sync"};
    return type < sizeof names / sizeof *names ? names[type] : "type?";
}

static const char *end_reason_name(uint32_t reason)
{
    switch (reason) {
    case SC_END_EXIT: return "exit";
    case SC_END_EXEC: return "exec";
    case SC_END_DETACH: return "detach";
    case SC_END_SIGNAL: return "signal";
    default: return "unknown";
    }
}

/* ---- pass 2: one line per record ---------------------------------------------------- */

/* Text as written, with control bytes (and, when quoted, quotes and backslashes) escaped so
 * that one record stays one line whatever a kernel name or path holds. */
static void put_text(FILE *out, const char *s, bool quoted)
{
    if (quoted)
        fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        size_t control = sc_text_control_at(c);
        if (control == 2)
            fprintf(out, "\\x%02x\\x%02x", c[0], c[1]), c++;
        else if (control || (quoted && (*c == '"' || *c == '\\')))
            fprintf(out, "\\x%02x", *c);
        else
            fputc(*c, out);
    }
    if (quoted)
        fputc('"', out);
}

/* start=, end= and dur=; dur is signed so that a record with end < start shows it. */
static void put_times(FILE *out, uint64_t start, uint64_t end)
{
    fprintf(out, " start=%" PRIu64 " end=%" PRIu64 " dur=%" PRId64, start, end,
            (int64_t)(end - start));
}

static void dump_process(FILE *out, const uint8_t *p, size_t fixed, size_t n)
{
    sc_rec_process r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    fprintf(out, " pid=%u ppid=%u attach=%s start=%" PRIu64 " start_unix=%" PRIu64 " exe=",
            r.pid, r.ppid, sc_report_attach_name(r.attach), r.start_ns, r.start_unix_ns);
    put_text(out, sc_record_text(p, fixed, n), false);
}

static void dump_module(FILE *out, const uint8_t *p, size_t fixed, size_t n)
{
    sc_rec_module r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    fprintf(out, " lo=0x%" PRIx64 " hi=0x%" PRIx64 " bias=0x%" PRIx64 " build_id=", r.lo, r.hi,
            r.bias);
    size_t len = r.build_id_size < sizeof r.build_id ? r.build_id_size : sizeof r.build_id;
    for (size_t i = 0; i < len; i++)
        fprintf(out, "%02x", r.build_id[i]);
    if (len == 0)
        fputs("none", out);
    fputs(" path=", out);
    put_text(out, sc_record_text(p, fixed, n), false);
}

static void dump_device(FILE *out, const uint8_t *p, size_t fixed, size_t n)
{
    sc_rec_device r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    fprintf(out, " dev=%u ", r.device);
    put_text(out, sc_record_text(p, fixed, n), true);
    fprintf(out, " sms=%u cc=%u.%u threads/sm=%u blocks/sm=%u regs/sm=%u smem/sm=%u "
            "threads/block=%u regs/block=%u smem/block=%u engines=%u mem=%" PRIu64,
            r.sm_count, r.cc_major, r.cc_minor, r.max_threads_per_sm, r.max_blocks_per_sm,
            r.max_regs_per_sm, r.max_shared_per_sm, r.max_threads_per_block,
            r.max_regs_per_block, r.max_shared_per_block, r.async_engines, r.global_memory);
}

static void dump_string(FILE *out, const uint8_t *p, size_t fixed, size_t n)
{
    sc_rec_string r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    fprintf(out, " #%u ", r.id);
    put_text(out, sc_record_text(p, fixed, n), true);
}

static void dump_call_name(FILE *out, const uint8_t *p, size_t fixed, size_t n)
{
    sc_rec_call_name r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    fprintf(out, " cbid %u, %s: ", r.cbid, domain_name(r.domain));
    put_text(out, sc_record_text(p, fixed, n), false);
}

static void put_api_flags(FILE *out, uint32_t flags)
{
    if (flags == 0) {
        fputs(" flags=0", out);
        return;
    }
    const char *sep = " flags=";
    if (flags & SC_API_PER_THREAD) {
        fprintf(out, "%sper-thread", sep);
        sep = ",";
    }
    if (flags & SC_API_DRIVER) {
        fprintf(out, "%sdriver", sep);
        sep = ",";
    }
    uint32_t rest = flags & ~(uint32_t)(SC_API_PER_THREAD | SC_API_DRIVER);
    if (rest)
        fprintf(out, "%s0x%x", sep, rest);
}

static void dump_api(FILE *out, const sc_dump *d, const uint8_t *p, size_t fixed)
{
    sc_rec_api r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    fprintf(out, " %s(cbid %u, %s) class=%s", call_name(d, r.domain, r.cbid), r.cbid,
            domain_name(r.domain), call_class_name(r.call_class));
    put_times(out, r.start_ns, r.end_ns);
    fprintf(out, " tid=%u ctx=%u corr=%u", r.tid, r.context_id, r.correlation_id);
    if (r.stream == SC_STREAM_NONE)
        fputs(" stream=none", out);
    else
        fprintf(out, " stream=0x%" PRIx64, r.stream);
    fprintf(out, " bytes=%" PRIu64 " aux=0x%" PRIx64 " aux2=%u", r.bytes, r.aux, r.aux2);
    put_api_flags(out, r.flags);
    fprintf(out, " result=%d frames=%u [", r.result, r.n_frames);
    /* Frames follow the fixed part; scan() checked that they fit. */
    for (size_t i = 0; i < r.n_frames; i++) {
        uint64_t f;
        memcpy(&f, p + fixed + i * sizeof f, sizeof f);
        fprintf(out, "%s0x%" PRIx64, i ? ", " : "", f);
    }
    fputc(']', out);
}

static void dump_kernel(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_kernel r;
    SC_RECORD_COPY_FIXED(r, p, n);
    put_times(out, r.start_ns, r.end_ns);
    fprintf(out, " dev=%u ctx=%u stream=%u corr=%u grid=%dx%dx%d block=%dx%dx%d regs=%u "
            "smem=%u+%u name=#%u", r.device, r.context_id, r.stream_id, r.correlation_id,
            r.grid_x, r.grid_y, r.grid_z, r.block_x, r.block_y, r.block_z,
            r.registers_per_thread, r.static_shared, r.dynamic_shared, r.name_id);
    if (r.launch_type)
        fprintf(out, " launch_type=%u", r.launch_type);
    if (r.graph_node_id)
        fprintf(out, " graph_node=%" PRIu64, r.graph_node_id);
}

static void dump_memcpy(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_memcpy r;
    SC_RECORD_COPY_FIXED(r, p, n);
    fprintf(out, " %s %" PRIu64 " B %s->%s %s", sc_report_copy_kind(r.copy_kind, "kind?"),
            r.bytes, sc_report_memory_kind(r.src_kind, "kind?"),
            sc_report_memory_kind(r.dst_kind, "kind?"),
            r.flags & SC_MEMCPY_ASYNC ? "async" : "sync");
    put_times(out, r.start_ns, r.end_ns);
    fprintf(out, " dev=%u ctx=%u stream=%u corr=%u", r.device, r.context_id, r.stream_id,
            r.correlation_id);
    if (r.src_device != r.device || r.dst_device != r.device)
        fprintf(out, " src_dev=%u dst_dev=%u", r.src_device, r.dst_device);
}

static void dump_memset(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_memset r;
    SC_RECORD_COPY_FIXED(r, p, n);
    fprintf(out, " %" PRIu64 " B %s value=%u %s", r.bytes,
            sc_report_memory_kind(r.memory_kind, "kind?"), r.value,
            r.flags & 1u ? "async" : "sync");
    put_times(out, r.start_ns, r.end_ns);
    fprintf(out, " dev=%u ctx=%u stream=%u corr=%u", r.device, r.context_id, r.stream_id,
            r.correlation_id);
}

static void dump_stream(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_stream r;
    SC_RECORD_COPY_FIXED(r, p, n);
    fprintf(out, " ctx=%u id=%u flag=%s prio=%d corr=%u", r.context_id, r.stream_id,
            sc_report_stream_kind(r.flag), r.priority, r.correlation_id);
    /* As written by the library the device is unknown (UINT32_MAX): only the loader fills
     * it in, so printing it would mislead. */
    if (r.device != UINT32_MAX)
        fprintf(out, " dev=%u", r.device);
}

static void dump_sync(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_sync r;
    SC_RECORD_COPY_FIXED(r, p, n);
    fprintf(out, " %s", sync_type_name(r.type));
    put_times(out, r.start_ns, r.end_ns);
    fprintf(out, " ctx=%u", r.context_id);
    if (r.stream_id == UINT32_MAX)
        fputs(" stream=none", out);
    else
        fprintf(out, " stream=%u", r.stream_id);
    fprintf(out, " corr=%u event=%u", r.correlation_id, r.event_id);
}

static void dump_note(FILE *out, const uint8_t *p, size_t fixed, size_t n)
{
    sc_rec_note r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    fprintf(out, " %s: ", sc_report_note_name(r.code));
    put_text(out, sc_record_text(p, fixed, n), false);
}

static void dump_range(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_range r;
    SC_RECORD_COPY_FIXED(r, p, n);
    put_times(out, r.start_ns, r.end_ns);
    fprintf(out, " tid=%u name=#%u", r.tid, r.name_id);
    if (r.domain_id)
        fprintf(out, " domain=#%u", r.domain_id);
    else
        fputs(" domain=default", out);
    fprintf(out, " depth=%u", r.depth);
}

static void dump_end(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_end r;
    SC_RECORD_COPY_FIXED(r, p, n);
    fprintf(out, " end=%" PRIu64 " dropped=%" PRIu64 " api=%" PRIu64 " activity=%" PRIu64
            " reason=%s", r.end_ns, r.dropped_records, r.api_records, r.activity_records,
            end_reason_name(r.reason));
    if (r.reason == SC_END_SIGNAL)
        fprintf(out, " signal=%u", r.signal);
}

static const char *overhead_kind_name(uint32_t kind)
{
    switch (kind) {
    case SC_OVERHEAD_CUPTI_BUFFER_FLUSH: return "cupti-buffer-flush";
    case SC_OVERHEAD_CUPTI_INSTRUMENTATION: return "cupti-instrumentation";
    case SC_OVERHEAD_CUPTI_RESOURCE: return "cupti-resource";
    case SC_OVERHEAD_MODULE_LOADING: return "module-loading";
    case SC_OVERHEAD_LAZY_FUNCTION_LOADING: return "lazy-function-loading";
    case SC_OVERHEAD_COMMAND_BUFFER_FULL: return "command-buffer-full";
    case SC_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "activity-buffer-request";
    case SC_OVERHEAD_STREAMCHECK_STACK: return "streamcheck-stack";
    default: return "other";
    }
}

static void dump_overhead(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_overhead r;
    SC_RECORD_COPY_FIXED(r, p, n);
    put_times(out, r.start_ns, r.end_ns);
    fprintf(out, " kind=%s(0x%x) object=%u ids=%u,%u,%u corr=%u", overhead_kind_name(r.kind),
            r.kind, r.object_kind, r.object_id[0], r.object_id[1], r.object_id[2],
            r.correlation_id);
}

static void dump_loss(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_loss r;
    SC_RECORD_COPY_FIXED(r, p, n);
    fprintf(out, " %s=%" PRIu64 " (cause %u: %s)", sc_loss_cause_name(r.cause), r.count, r.cause,
            sc_loss_cause_text(r.cause));
}

static void dump_unified(FILE *out, const uint8_t *p, size_t n)
{
    static const char *const kinds[] = {[SC_UNIFIED_HTOD] = "htod", [SC_UNIFIED_DTOH] = "dtoh",
                                        [SC_UNIFIED_GPU_FAULT] = "gpu-fault"};
    static const char *const causes[] = {"unknown", "user", "coherence", "prefetch",
                                         "eviction", "access-counters"};
    sc_rec_unified r;
    SC_RECORD_COPY_FIXED(r, p, n);
    const char *kind = r.kind < sizeof kinds / sizeof *kinds && kinds[r.kind] ? kinds[r.kind]
                                                                              : "other";
    put_times(out, r.start_ns, r.end_ns);
    fprintf(out, " %s addr=0x%" PRIx64 " %s=%" PRIu64 " src=%u dst=%u", kind, r.address,
            r.kind == SC_UNIFIED_GPU_FAULT ? "groups" : "bytes", r.value, r.src_id, r.dst_id);
    if (r.kind == SC_UNIFIED_HTOD || r.kind == SC_UNIFIED_DTOH)
        fprintf(out, " cause=%s", r.flags < sizeof causes / sizeof *causes ? causes[r.flags]
                                                                           : "other");
    else
        fprintf(out, " access=%u", r.flags);
}

/* Names are STRING ids (#N), as in RANGE records: the dump shows the file as written. */
static void dump_pystack(FILE *out, const uint8_t *p, size_t n)
{
    static const char *const states[] = {[SC_PY_FRAMES] = "frames",
                                         [SC_PY_NO_PYTHON] = "no-python",
                                         [SC_PY_UNREADABLE] = "unreadable"};
    sc_rec_pystack r;
    SC_RECORD_COPY_FIXED(r, p, n);
    const char *state = r.state < sizeof states / sizeof *states && states[r.state]
                            ? states[r.state] : "other";
    fprintf(out, " corr=%u %s frames=%u [", r.correlation_id, state, r.n_frames);
    for (uint16_t i = 0; i < r.n_frames; i++) {  /* sc_record_check: they fit */
        sc_py_frame f;
        memcpy(&f, p + n + (size_t)i * sizeof f, sizeof f);
        fprintf(out, "%s#%u:%d #%u", i ? " " : "", f.file_id, f.line, f.function_id);
    }
    fputc(']', out);
}

static void dump_scope(FILE *out, const uint8_t *p, size_t fixed, size_t n)
{
    sc_rec_scope r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    if (r.mode == SC_SCOPE_PROFILER) {
        fputs(" profiler", out);
    } else {
        fputs(r.mode == SC_SCOPE_NVTX_RANGE ? " nvtx-range " : " other ", out);
        put_text(out, sc_record_text(p, fixed, n), true);
    }
    fprintf(out, " mode=%u skip=%u", r.mode, r.skip);
}

static void dump_scope_window(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_scope_window r;
    SC_RECORD_COPY_FIXED(r, p, n);
    put_times(out, r.open_ns, r.close_ns);
    fprintf(out, " occurrence=%u", r.occurrence);
    if (r.flags & SC_SCOPE_OPEN_AT_END) fputs(" open-at-end", out);
}

/* ---- format 2.0's compact records: declarations as written, kernels and calls as the
 * full records they stand for, after their compact fields. */

static void dump_time_base(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_time_base r;
    SC_RECORD_COPY_FIXED(r, p, n);
    fprintf(out, " base=%" PRIu64, r.base_ns);
}

static void dump_kernel_shape(FILE *out, const uint8_t *p, size_t n)
{
    sc_rec_kernel_shape s;
    SC_RECORD_COPY_FIXED(s, p, n);
    fprintf(out, " id=%u dev=%u ctx=%u stream=%u grid=%dx%dx%d block=%dx%dx%d regs=%u "
            "smem=%u+%u name=#%u", s.id, s.device, s.context_id, s.stream_id, s.grid_x,
            s.grid_y, s.grid_z, s.block_x, s.block_y, s.block_z, s.registers_per_thread,
            s.static_shared, s.dynamic_shared, s.name_id);
    if (s.launch_type)
        fprintf(out, " launch_type=%u", s.launch_type);
    if (s.graph_node_id)
        fprintf(out, " graph_node=%" PRIu64, s.graph_node_id);
}

static void dump_call_site(FILE *out, const sc_dump *d, const uint8_t *p, size_t n)
{
    sc_rec_call_site s;
    SC_RECORD_COPY_FIXED(s, p, n);
    fprintf(out, " id=%u %s(cbid %u, %s) class=%s tid=%u", s.id, call_name(d, s.domain, s.cbid),
            s.cbid, domain_name(s.domain), call_class_name(s.call_class), s.tid);
    if (s.stream == SC_STREAM_NONE)
        fputs(" stream=none", out);
    else
        fprintf(out, " stream=0x%" PRIx64, s.stream);
    put_api_flags(out, s.flags);
}

static void dump_compact(FILE *out, const sc_dump *d, sc_compact_reader *r,
                         const sc_record_header *h, const uint8_t *p, size_t n)
{
    sc_rec_kernel k;
    sc_rec_api a;
    /* scan() read the same records in the same order: every one is declared */
    enum sc_compact_result got = sc_compact_read(r, h->kind, p, n, &k, &a);
    if (h->kind == SC_REC_KERNEL_COMPACT && got == SC_COMPACT_KERNEL) {
        sc_rec_kernel_compact c;
        SC_RECORD_COPY_FIXED(c, p, n);
        fprintf(out, " shape=%u delta=%d", c.shape_id, c.start_delta);
        dump_kernel(out, (const uint8_t *)&k, sizeof k);
    } else if (h->kind == SC_REC_CALL_COMPACT && got == SC_COMPACT_CALL) {
        sc_rec_call_compact c;
        SC_RECORD_COPY_FIXED(c, p, n);
        fprintf(out, " site=%u delta=%d", c.site_id, c.start_delta);
        dump_api(out, d, (const uint8_t *)&a, sizeof a);
    } else if (h->kind == SC_REC_TIME_BASE) {
        dump_time_base(out, p, n);
    } else if (h->kind == SC_REC_KERNEL_SHAPE) {
        dump_kernel_shape(out, p, n);
    } else if (h->kind == SC_REC_CALL_SITE) {
        dump_call_site(out, d, p, n);
    }
}

static void dump_record(FILE *out, const sc_dump *d, sc_compact_reader *compact, size_t off,
                        const sc_record_header *h)
{
    const uint8_t *p = d->data + off + sizeof *h;
    size_t all = h->size - sizeof *h;
    size_t n = sc_record_fixed_part(h, all);    /* what the fixed-part dumpers read */
    fprintf(out, "@%zu %s", off, kind_name(h->kind));
    switch (h->kind) {
    case SC_REC_PROCESS: dump_process(out, p, n, all); break;
    case SC_REC_MODULE: dump_module(out, p, n, all); break;
    case SC_REC_DEVICE: dump_device(out, p, n, all); break;
    case SC_REC_STRING: dump_string(out, p, n, all); break;
    case SC_REC_CALL_NAME: dump_call_name(out, p, n, all); break;
    case SC_REC_API: dump_api(out, d, p, n); break;
    case SC_REC_KERNEL: dump_kernel(out, p, n); break;
    case SC_REC_MEMCPY: dump_memcpy(out, p, n); break;
    case SC_REC_MEMSET: dump_memset(out, p, n); break;
    case SC_REC_STREAM: dump_stream(out, p, n); break;
    case SC_REC_SYNC: dump_sync(out, p, n); break;
    case SC_REC_NOTE: dump_note(out, p, n, all); break;
    case SC_REC_ENV:
        fputc(' ', out);
        put_text(out, sc_record_text(p, n, all), false);
        break;
    case SC_REC_RANGE: dump_range(out, p, n); break;
    case SC_REC_END: dump_end(out, p, n); break;
    case SC_REC_OVERHEAD: dump_overhead(out, p, n); break;
    case SC_REC_LOSS: dump_loss(out, p, n); break;
    case SC_REC_UNIFIED: dump_unified(out, p, n); break;
    case SC_REC_PYSTACK: dump_pystack(out, p, n); break;
    case SC_REC_SCOPE: dump_scope(out, p, n, all); break;
    case SC_REC_SCOPE_WINDOW: dump_scope_window(out, p, n); break;
    case SC_REC_TIME_BASE:
    case SC_REC_KERNEL_SHAPE:
    case SC_REC_KERNEL_COMPACT:
    case SC_REC_CALL_SITE:
    case SC_REC_CALL_COMPACT: dump_compact(out, d, compact, h, p, n); break;
    default:
        fprintf(out, " kind=%u size=%u: not known to this version, skipped", h->kind, h->size);
        break;
    }
    fputc('\n', out);
}

/* ---- the file ----------------------------------------------------------------------- */

/* Prints the header line; returns 0 when records can be read, -1 (message printed on
 * both streams) when the header itself rules the file out. */
static int dump_header(FILE *out, sc_dump *d)
{
    sc_file_header h;
    enum sc_header_fault fault = sc_header_check(d->data, d->size, &h);
    if (fault == SC_HEADER_TOO_SHORT || fault == SC_HEADER_BAD_MAGIC) {
        const char *why = fault == SC_HEADER_TOO_SHORT ? "file too short" : "wrong magic";
        fprintf(out, "not a streamcheck trace (%s)\n", why);
        fprintf(stderr, "streamcheck-report: %s: not a streamcheck trace (%s)\n", d->path, why);
        return -1;
    }
    fprintf(out, "format %u.%u, header %u bytes, file %zu bytes\n", h.version_major,
            h.version_minor, h.header_size, d->size);
    if (fault == SC_HEADER_VERSION) {
        fprintf(out, "cannot read format %u.x: this streamcheck reads formats %d.x to %d.x\n",
                h.version_major, SC_TRACE_OLDEST_MAJOR, SC_TRACE_VERSION_MAJOR);
        fprintf(stderr, "streamcheck-report: %s: trace format %u.%u; this streamcheck reads "
                "formats %d.x to %d.x\n", d->path, h.version_major, h.version_minor,
                SC_TRACE_OLDEST_MAJOR, SC_TRACE_VERSION_MAJOR);
        return -1;
    }
    if (fault == SC_HEADER_BAD_SIZE) {
        fprintf(out, "corrupt: header size %u\n", h.header_size);
        fprintf(stderr, "streamcheck-report: %s: corrupt trace: header size %u\n", d->path,
                h.header_size);
        return -1;
    }
    d->start = h.header_size;
    return 0;
}

/* The status in the loader's words, so the dump and the report agree on a file. */
static void dump_status(FILE *out, const sc_dump *d)
{
    switch (d->damage) {
    case SC_DUMP_CORRUPT:
        fprintf(out, "status: corrupt at byte %zu (%s): the report refuses this file; the "
                "records before it follow\n", d->stop, d->what);
        break;
    case SC_DUMP_TRUNCATED:
        fprintf(out, "status: truncated: the last record is cut short at byte %zu of %zu: the "
                "process stopped while writing; everything before it is kept\n", d->stop,
                d->size);
        break;
    case SC_DUMP_CLEAN:
        if (d->has_end)
            fputs("status: complete\n", out);
        else
            fputs("status: partial: no end record: the process crashed, was killed, exec'd or "
                  "is still running; the report covers what was recorded until then\n", out);
        break;
    }
}

static void dump_counts(FILE *out, const sc_dump *d)
{
    fprintf(out, "records: %zu", d->n_records);
    const char *sep = " (";
    for (uint16_t k = 1; k <= SC_REC_KIND_LAST; k++) {
        if (!d->counts[k])
            continue;
        fprintf(out, "%s%s %zu", sep, kind_name(k), d->counts[k]);
        sep = ", ";
    }
    if (d->counts[0])
        fprintf(out, "%sunknown %zu", sep, d->counts[0]);
    fputs(d->n_records ? ")\n" : "\n", out);
}

int sc_dump_trace(FILE *out, const char *path)
{
    sc_dump d = {.path = path};
    uint8_t *data = NULL;
    const char *err;
    fprintf(out, "== %s ==\n", path);
    if (sc_read_whole_file(path, &data, &d.size, &err) != 0) {
        fprintf(out, "cannot read: %s\n", err);
        fprintf(stderr, "streamcheck-report: %s: %s\n", path, err);
        return -1;
    }
    d.data = data;
    if (dump_header(out, &d) != 0) {
        free(data);
        return -1;
    }
    scan(&d);
    dump_status(out, &d);
    sc_compact_reader compact = {0};
    for (size_t off = d.start; off < d.stop;) {
        sc_record_header h;
        memcpy(&h, d.data + off, sizeof h);
        dump_record(out, &d, &compact, off, &h);
        off += h.size;
    }
    sc_compact_reader_free(&compact);
    int rc = 0;
    if (d.damage == SC_DUMP_TRUNCATED) {
        fprintf(out, "@%zu TRUNCATED: %s\n", d.stop, d.what);
    } else if (d.damage == SC_DUMP_CORRUPT) {
        fprintf(out, "@%zu CORRUPT: %s; nothing after it can be read\n", d.stop, d.what);
        fprintf(stderr, "streamcheck-report: %s: corrupt trace: %s at byte %zu\n", path, d.what,
                d.stop);
        rc = -1;
    }
    dump_counts(out, &d);
    free(d.names);
    free(data);
    return rc;
}
