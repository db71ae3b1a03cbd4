/* Loading a trace file into an sc_trace (include/streamcheck/trace.h).
 *
 * The file is read through a window one record at a time (file_window.h), never held whole:
 * fixed parts are copied into typed arrays (so a record written by a newer minor version,
 * which only appends fields, still loads), texts and Python frames into an arena (arena.h).
 * Kernels keep their shapes apart, once each (kernel_shapes.h); calls keep their frames in
 * one table and their names by position (load_calls.h). Device work and calls are then
 * sorted by start time with a stable sort, so equal times keep file order and the result is
 * deterministic.
 *
 * A window's load (sc_trace_load_between) reads the file three times (enum sc_load_mode) and
 * keeps only the timed records that start in the window: what a whole load cut to it would
 * hold, without holding the rest. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamcheck/trace.h"
#include "trace/arena.h"
#include "trace/compact_read.h"
#include "trace/file_window.h"
#include "trace/grow.h"
#include "trace/kernel_shapes.h"
#include "trace/load_calls.h"
#include "trace/shape_table.h"
#include "trace/sort.h"
#include "trace/times.h"
#include "trace/validate.h"

/* CUPTI's stream records name a context, not a device; every other device record names
 * both, so the device of a stream is the device of its context. Contexts are few. */
enum { SC_MAX_CONTEXTS = 256 };
typedef struct sc_context_map {
    uint32_t context[SC_MAX_CONTEXTS], device[SC_MAX_CONTEXTS];
    size_t n;
} sc_context_map;

/* What a read of the file keeps. A window's load takes three reads: the bounds of a possible
 * time (PROCESS and END), then the run's start and the impossible times, then the load. */
enum sc_load_mode {
    SC_LOAD_WHOLE,      /* everything */
    SC_LOAD_BOUNDS,     /* the PROCESS and END records only */
    SC_LOAD_TIMES,      /* those, and the times of the timed records (ld->times) */
    SC_LOAD_BETWEEN,    /* everything but the timed records that start outside a window */
};

/* A compact call site made ready: the call each CALL_COMPACT of it stands for, but for its
 * times, correlation id and stack-sharing call, and where that call goes; its extra that of
 * the context its last call named. Made when the site is first used, so a compact call is a
 * copy and four stores (and the extra found again when its context is another). */
typedef struct sc_site_call {
    sc_call_rec rec;
    sc_call_extra extra;        /* what its calls share but their context (rec's extra has
                                   that of extra.context_id) */
    uint32_t shared_mask;       /* all ones when the site's calls name a stack-sharing
                                   call (in aux or aux2: the one the record keeps), else 0 */
    bool ready;                 /* false until used, and again once the id is declared anew */
} sc_site_call;

typedef struct sc_loader {
    sc_trace *t;
    sc_file_window w;
    sc_arena_block *arena;      /* becomes t->storage */
    const char **strings;       /* by STRING id */
    size_t n_strings;
    sc_name_entry *call_names;  /* key = domain << 16 | cbid */
    size_t n_call_names, cap_call_names;
    sc_call_loader calls;       /* the calls, their frames and names (load_calls.h) */
    size_t cap_modules, cap_devices, cap_kernels, cap_copies, cap_memsets,
        cap_streams, cap_syncs, cap_ranges, cap_notes, cap_env, cap_overheads, cap_losses,
        cap_unified, cap_pystacks, cap_scope_windows;
    const uint8_t **pystack_frames;     /* each pystack's sc_py_frame array (arena) */
    size_t cap_pystack_frames;
    sc_compact_reader compact;  /* format 2.0's base and declarations, in file order */
    sc_shape_set shapes;        /* every kernel shape once (kernel_shapes.h) */
    sc_shape_table copy_shapes, memset_shapes;   /* each one once (shape_table.h) */
    /* by compact shape id: 1 + the index in t->kernel_shapes of the shape declared under it,
     * 0 until a kernel of it is loaded (or after the id is declared again). Every kernel of a
     * declared shape has the same shape: it is looked up in `shapes` once, not per kernel. */
    uint32_t *shape_of_compact;
    size_t cap_shape_of_compact;
    sc_site_call *site_calls;   /* by compact site id */
    size_t cap_site_calls;
    sc_times_seen seen;         /* the times of the timed records kept (sc_keep_timed) */
    /* the device of each context, as kernels, copies and memsets name it in file order, one
     * map each (sc_fill_stream_devices) */
    sc_context_map kernel_contexts, copy_contexts, memset_contexts;
    enum sc_load_mode mode;
    uint64_t keep_lo, keep_hi;  /* SC_LOAD_BETWEEN: the timed records kept start in these */
    uint64_t bound_lo, bound_hi; /* SC_LOAD_TIMES: the bounds of a possible time */
    sc_trace_times *times;      /* SC_LOAD_TIMES: what it finds */
    char *err;
    size_t err_size;
} sc_loader;

/* Grows *array (elements of `size` bytes, *cap allocated) to hold one more. */
static void *sc_push(void **array, size_t *n, size_t *cap, size_t size)
{
    if (!sc_grow(array, cap, *n + 1, size, 64))
        return NULL;
    return (char *)*array + (*n)++ * size;
}

#define SC_PUSH(ld, field, count, capfield) \
    sc_push((void **)&(ld)->t->field, &(ld)->t->count, &(ld)->capfield, sizeof *(ld)->t->field)

static int sc_out_of_memory(sc_loader *ld)
{
    snprintf(ld->err, ld->err_size, "%s: out of memory", ld->t->path);
    return -1;
}

static int sc_fail(sc_loader *ld, size_t offset, const char *what)
{
    snprintf(ld->err, ld->err_size, "%s: corrupt trace: %s at byte %zu", ld->t->path, what,
             offset);
    return -1;
}

/* id is one sc_record_check accepted: 1 to SC_RECORD_MAX_STRING_ID. */
static int sc_set_string(sc_loader *ld, uint32_t id, const char *text)
{
    if (id >= ld->n_strings) {    /* n_strings is the table's length: NULL until set */
        size_t had = ld->n_strings;
        if (!SC_GROW(ld->strings, ld->n_strings, (size_t)id + 1, 64)) return -1;
        memset(ld->strings + had, 0, (ld->n_strings - had) * sizeof *ld->strings);
    }
    ld->strings[id] = text;
    return 0;
}

static const char *sc_string(const sc_loader *ld, uint32_t id)
{
    return id < ld->n_strings && ld->strings[id] ? ld->strings[id] : NULL;
}

static void sc_context_note(sc_context_map *m, uint32_t context, uint32_t device)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->context[i] == context) return;
    if (m->n < SC_MAX_CONTEXTS) {
        m->context[m->n] = context;
        m->device[m->n++] = device;
    }
}

/* The record kinds with a start and an end (times.h's lists), compact ones aside. */
static bool sc_timed_kind(uint16_t kind)
{
    switch (kind) {
    case SC_REC_API: case SC_REC_KERNEL: case SC_REC_MEMCPY: case SC_REC_MEMSET:
    case SC_REC_SYNC: case SC_REC_RANGE: case SC_REC_OVERHEAD: case SC_REC_UNIFIED:
        return true;
    default:
        return false;
    }
}

/* sc_keep_timed but for a whole load. */
static bool sc_keep_timed_slow(sc_loader *ld, sc_times_seen *seen, uint64_t start,
                               uint64_t end, bool run_start)
{
    sc_trace_times *times = ld->times;
    switch (ld->mode) {
    case SC_LOAD_WHOLE:
        break;
    case SC_LOAD_BETWEEN:
        if (start < ld->keep_lo || start >= ld->keep_hi)
            return false;
        break;
    case SC_LOAD_TIMES:
        if (sc_times_impossible(start, end, ld->bound_lo, ld->bound_hi)) {
            times->impossible++;
        } else if (run_start && (!times->any || start < times->run_start_ns)) {
            times->run_start_ns = start;
            times->any = true;
        }
        return false;
    case SC_LOAD_BOUNDS:
        return false;
    }
    sc_times_see(seen, start, end);
    return true;
}

/* Whether a timed record from `start` to `end` is loaded; the times of those that are go into
 * *seen (ld->seen, or the record loop's own, merged into it at the end), so that the finish
 * can tell without a pass that none is impossible. A read for times only counts it:
 * `run_start` says it is a call, kernel, copy, memset or range, the kinds whose earliest start
 * is the run's (the report's --from and --to count from it). Inline for a whole load, which
 * keeps every record; `mode` is ld->mode, known when compiled in the record loop of a whole
 * load (sc_parse_records). */
static inline bool sc_keep_timed(sc_loader *ld, enum sc_load_mode mode, sc_times_seen *seen,
                                 uint64_t start, uint64_t end, bool run_start)
{
    if (mode != SC_LOAD_WHOLE)
        return sc_keep_timed_slow(ld, seen, start, end, run_start);
    sc_times_see(seen, start, end);
    return true;
}

/* A kernel: its context's device is noted and its shape kept even when the kernel is left
 * out, so that a window's load has every stream's device and every shape a whole load has,
 * in the same order. */
static int sc_load_kernel(sc_loader *ld, const sc_rec_kernel *r)
{
    sc_context_note(&ld->kernel_contexts, r->context_id, r->device);
    if (!sc_keep_timed(ld, ld->mode, &ld->seen, r->start_ns, r->end_ns, true)) {
        sc_kernel unused;
        return ld->mode == SC_LOAD_BETWEEN ? sc_shape_set_add(&ld->shapes, ld->t, r, &unused)
                                           : 0;
    }
    sc_kernel *k = SC_PUSH(ld, kernels, n_kernels, cap_kernels);
    return k ? sc_shape_set_add(&ld->shapes, ld->t, r, k) : -1;
}

/* The entry of ld->shape_of_compact for compact shape id `id`, made to exist (zeroed). */
static uint32_t *sc_shape_of_compact_slow(sc_loader *ld, uint32_t id)
{
    size_t had = ld->cap_shape_of_compact;
    if (!SC_GROW(ld->shape_of_compact, ld->cap_shape_of_compact, (size_t)id + 1, 64))
        return NULL;
    memset(ld->shape_of_compact + had, 0,
           (ld->cap_shape_of_compact - had) * sizeof *ld->shape_of_compact);
    return &ld->shape_of_compact[id];
}

static inline uint32_t *sc_shape_of_compact(sc_loader *ld, uint32_t id)
{
    return id < ld->cap_shape_of_compact ? &ld->shape_of_compact[id]
                                         : sc_shape_of_compact_slow(ld, id);
}

static int sc_undeclared(sc_loader *ld, size_t off)
{
    return sc_fail(ld, off, "compact record before its declaration");
}

/* A compact kernel (format 2.0): sc_load_kernel of the KERNEL record it stands for, with its
 * shape looked up in ld->shapes only the first time the compact shape is used (the same
 * lookup, so the same shapes in the same order); the kernel's own fields are the compact
 * record's (its shape holds the declared shape's device, context and stream), taken without
 * making the whole record. Its context's device is noted then too: every kernel of the shape
 * names the same, and a context's first kernel in the file is the first of its shape. */
static inline __attribute__((always_inline)) int
sc_load_compact_kernel(sc_loader *ld, enum sc_load_mode mode, sc_times_seen *seen, size_t off,
                       const uint8_t *p, size_t fixed)
{
    if (mode == SC_LOAD_BOUNDS)
        return 0;
    /* the check found the fixed part as long as the struct at least (a compact kind's 1.0
     * part is all of it): copied whole, which the compiler turns into loads from the record */
    sc_rec_kernel_compact c;
    memcpy(&c, p, sizeof c);
    const sc_compact_reader *r = &ld->compact;
    if (!r->has_base || c.shape_id >= r->cap_shapes || r->shapes[c.shape_id].id == 0)
        return sc_undeclared(ld, off);
    uint64_t start = sc_compact_start(r, c.start_delta);
    uint64_t end = start + c.duration;
    bool keep = sc_keep_timed(ld, mode, seen, start, end, true);
    if (!keep && mode != SC_LOAD_BETWEEN)
        return 0;   /* a read of times: kernels' contexts and shapes are not kept */
    uint32_t *known = sc_shape_of_compact(ld, c.shape_id);
    if (!known)
        return sc_out_of_memory(ld);
    if (!*known) {
        sc_rec_kernel k;
        sc_compact_expand_kernel(r, p, fixed, &k);
        sc_context_note(&ld->kernel_contexts, k.context_id, k.device);
        sc_kernel first;
        if (sc_shape_set_add(&ld->shapes, ld->t, &k, &first) != 0)
            return sc_out_of_memory(ld);
        *known = first.rec.shape + 1;   /* shapes stay below UINT32_MAX - 1 (kernel_shapes.c) */
    }
    if (!keep)
        return 0;
    sc_kernel *k = SC_PUSH(ld, kernels, n_kernels, cap_kernels);
    if (!k)
        return sc_out_of_memory(ld);
    *k = (sc_kernel){.rec = {.start_ns = start, .end_ns = end,
                             .correlation_id = c.correlation_id, .shape = *known - 1}};
    return 0;
}

/* Site call s's extra for a call of context `context_id` (sc_calls_fill, as sc_calls_add
 * would find it). Returns 0, or -1 without memory. */
static int sc_site_call_context(sc_loader *ld, sc_site_call *s, uint32_t context_id)
{
    s->extra.context_id = context_id;
    return sc_calls_fill(&ld->calls, ld->t, &s->rec, &s->extra, NULL);
}

/* Makes compact site `id` (declared) ready, for a call of context `context_id`: its call's
 * fields, named and classed as sc_calls_add would. NULL without memory. */
static sc_site_call *sc_site_call_make(sc_loader *ld, uint32_t id, uint32_t context_id)
{
    if (id >= ld->cap_site_calls) {
        size_t had = ld->cap_site_calls;
        if (!SC_GROW(ld->site_calls, ld->cap_site_calls, (size_t)id + 1, 64))
            return NULL;
        memset(ld->site_calls + had, 0, (ld->cap_site_calls - had) * sizeof *ld->site_calls);
    }
    const sc_rec_call_site *site = &ld->compact.sites[id];
    sc_site_call *s = &ld->site_calls[id];
    uint32_t index;
    if (sc_calls_function(&ld->calls, (uint32_t)site->domain << 16 | site->cbid, &index) != 0)
        return NULL;
    /* a compact call has no bytes and no frames of its own, nor aux's high half */
    *s = (sc_site_call){
        .extra = {.stream = site->stream, .name_at = index, .tid = site->tid,
                  .call_class = site->call_class, .flags = (uint8_t)site->flags},
        .shared_mask =
            site->flags & (SC_API_STACK_SHARED | SC_API_STACK_SHARED_AUX2) ? UINT32_MAX : 0};
    if (sc_site_call_context(ld, s, context_id) != 0)
        return NULL;
    s->ready = true;
    return s;
}

/* A compact call of site s whose duration is SC_CALL_DUR_WIDE exactly: its end goes in an
 * extra of its own (sc_call_end), as sc_calls_add would put it. Returns 0, or -1 without
 * memory. */
static int sc_compact_call_wide(sc_loader *ld, const sc_site_call *s, sc_call_rec *rec,
                                uint64_t end)
{
    sc_call_extra e = s->extra;
    e.wide_end_ns = end;
    return sc_calls_fill(&ld->calls, ld->t, rec, &e, NULL);
}

/* A compact call (format 2.0): sc_calls_add of the API record it stands for (its bytes, the
 * other aux, result and frames 0), its fields copied from its site's ready call. */
static inline __attribute__((always_inline)) int
sc_load_compact_call(sc_loader *ld, enum sc_load_mode mode, sc_times_seen *seen, size_t off,
                     const uint8_t *p)
{
    if (mode == SC_LOAD_BOUNDS)
        return 0;
    /* the check found the fixed part as long as the struct at least (a compact kind's 1.0
     * part is all of it): copied whole, which the compiler turns into loads from the record */
    sc_rec_call_compact c;
    memcpy(&c, p, sizeof c);
    const sc_compact_reader *r = &ld->compact;
    sc_site_call *s = c.site_id < ld->cap_site_calls && ld->site_calls[c.site_id].ready
                          ? &ld->site_calls[c.site_id]
                          : NULL;
    /* a ready site is a declared one */
    if (!r->has_base || (!s && (c.site_id >= r->cap_sites || r->sites[c.site_id].id == 0)))
        return sc_undeclared(ld, off);
    uint64_t start = sc_compact_start(r, c.start_delta);
    uint64_t end = start + c.duration;
    if (!sc_keep_timed(ld, mode, seen, start, end, true))
        return 0;
    if (!s && !(s = sc_site_call_make(ld, c.site_id, c.context_id)))
        return sc_out_of_memory(ld);
    if (c.context_id != s->extra.context_id && sc_site_call_context(ld, s, c.context_id) != 0)
        return sc_out_of_memory(ld);
    sc_call_rec *rec = sc_calls_next(&ld->calls, ld->t);
    if (!rec)
        return sc_out_of_memory(ld);
    *rec = s->rec;
    rec->start_ns = start;
    rec->dur_ns = c.duration;
    rec->correlation_id = c.correlation_id;
    rec->aux_own = c.shared & s->shared_mask;
    if (c.duration == SC_CALL_DUR_WIDE && sc_compact_call_wide(ld, s, rec, end) != 0)
        return sc_out_of_memory(ld);
    return 0;
}

/* A compact record (format 2.0) but a kernel or a call: a declaration, remembered. */
static int sc_load_declaration(sc_loader *ld, const sc_record_header *h, const uint8_t *p,
                               size_t fixed)
{
    if (ld->mode == SC_LOAD_BOUNDS)
        return 0;
    sc_rec_kernel k;
    sc_rec_api a;
    switch (sc_compact_read(&ld->compact, h->kind, p, fixed, &k, &a)) {
    case SC_COMPACT_DECLARED:
        /* the id may name another shape or site from here on */
        if (h->kind == SC_REC_KERNEL_SHAPE) {
            sc_rec_kernel_shape s;
            SC_RECORD_COPY_FIXED(s, p, fixed);
            if (s.id < ld->cap_shape_of_compact)
                ld->shape_of_compact[s.id] = 0;
        } else if (h->kind == SC_REC_CALL_SITE) {
            sc_rec_call_site s;
            SC_RECORD_COPY_FIXED(s, p, fixed);
            if (s.id < ld->cap_site_calls)
                ld->site_calls[s.id].ready = false;
        }
        return 0;
    case SC_COMPACT_NO_MEMORY:
        return sc_out_of_memory(ld);
    default:
        return 0;   /* TIME_BASE, or a kind past this version's compact ones */
    }
}

static int sc_load_record(sc_loader *ld, const sc_record_header *h, const uint8_t *p, size_t n)
{
    sc_trace *t = ld->t;
    uint16_t kind = h->kind;
    if ((ld->mode == SC_LOAD_BOUNDS || ld->mode == SC_LOAD_TIMES) && kind != SC_REC_PROCESS &&
        kind != SC_REC_END && (ld->mode == SC_LOAD_BOUNDS || !sc_timed_kind(kind)))
        return 0;
    /* sc_parse checked the record: its text (for kinds with one) is terminated, and its
     * fixed part lies within it. From here on n is the fixed part: what the structs below
     * are copied from (fields a newer writer appended are ignored, missing ones read 0). */
    size_t fixed = sc_record_fixed_part(h, n);
    const char *text = sc_record_has_text(kind) ? sc_record_text(p, fixed, n) : NULL;
    n = fixed;
    if (text) {
        /* p lies in the read window: what is kept is copied out, tamed in the copy. */
        char *own = sc_arena_copy(&ld->arena, text, strlen(text) + 1);
        if (!own)
            return sc_out_of_memory(ld);
        sc_text_tame(own);
        text = own;
    }
    /* API, MEMCPY and SYNC records never come here: sc_load_one loads them inline */
    switch (kind) {
    case SC_REC_PROCESS:
        SC_RECORD_COPY_FIXED(t->process, p, n);
        t->has_process = true;
        t->exe = text;
        return 0;
    case SC_REC_MODULE: {
        sc_module *m = SC_PUSH(ld, modules, n_modules, cap_modules);
        if (!m) break;
        SC_RECORD_COPY_FIXED(m->rec, p, n);
        m->path = text;
        return 0;
    }
    case SC_REC_DEVICE: {
        sc_device *d = SC_PUSH(ld, devices, n_devices, cap_devices);
        if (!d) break;
        SC_RECORD_COPY_FIXED(d->rec, p, n);
        d->name = text;
        return 0;
    }
    case SC_REC_STRING: {
        sc_rec_string s;
        SC_RECORD_COPY_FIXED(s, p, n);
        /* The id was checked (validate.c): only memory can fail here. */
        if (sc_set_string(ld, s.id, text) == 0) return 0;
        break;
    }
    case SC_REC_CALL_NAME: {
        sc_rec_call_name c;
        SC_RECORD_COPY_FIXED(c, p, n);
        sc_name_entry *e = sc_push((void **)&ld->call_names, &ld->n_call_names,
                                   &ld->cap_call_names, sizeof *e);
        if (!e) break;
        e->key = (uint32_t)c.domain << 16 | c.cbid;
        e->name = text;
        return 0;
    }
    case SC_REC_KERNEL: {
        sc_rec_kernel r;
        SC_RECORD_COPY_FIXED(r, p, n);
        if (sc_load_kernel(ld, &r) != 0) break;
        return 0;
    }
    case SC_REC_MEMSET: {
        sc_rec_memset r;
        SC_RECORD_COPY_FIXED(r, p, n);
        sc_context_note(&ld->memset_contexts, r.context_id, r.device);
        sc_memset_shape shape = {.bytes = r.bytes, .device = r.device,
                                 .context_id = r.context_id, .stream_id = r.stream_id,
                                 .value = r.value, .memory_kind = r.memory_kind,
                                 .flags = r.flags};
        /* a window's load keeps the shapes of what it leaves out too (sc_load_copy) */
        bool keep = sc_keep_timed(ld, ld->mode, &ld->seen, r.start_ns, r.end_ns, true);
        if (!keep && ld->mode != SC_LOAD_BETWEEN)
            return 0;
        uint32_t at = sc_shape_table_put(&ld->memset_shapes, (void **)&t->memset_shapes,
                                         &t->n_memset_shapes, &shape);
        if (at == UINT32_MAX) break;
        if (!keep)
            return 0;
        sc_memset *s = SC_PUSH(ld, memsets, n_memsets, cap_memsets);
        if (!s) break;
        *s = (sc_memset){.start_ns = r.start_ns, .end_ns = r.end_ns,
                         .correlation_id = r.correlation_id, .shape = at};
        return 0;
    }
    case SC_REC_STREAM: {
        sc_rec_stream *s = SC_PUSH(ld, streams, n_streams, cap_streams);
        if (!s) break;
        SC_RECORD_COPY_FIXED(*s, p, n);
        return 0;
    }
    case SC_REC_NOTE: {
        sc_note *note = SC_PUSH(ld, notes, n_notes, cap_notes);
        if (!note) break;
        sc_rec_note r;
        SC_RECORD_COPY_FIXED(r, p, n);
        note->code = r.code;
        note->text = text;
        return 0;
    }
    case SC_REC_ENV: {
        const char **e = SC_PUSH(ld, env, n_env, cap_env);
        if (!e) break;
        *e = text;
        return 0;
    }
    case SC_REC_RANGE: {
        sc_rec_range rec;
        SC_RECORD_COPY_FIXED(rec, p, n);
        if (!sc_keep_timed(ld, ld->mode, &ld->seen, rec.start_ns, rec.end_ns, true))
            return 0;
        sc_range *r = SC_PUSH(ld, ranges, n_ranges, cap_ranges);
        if (!r) break;
        r->rec = rec;
        return 0;
    }
    case SC_REC_OVERHEAD: {
        sc_rec_overhead r;
        SC_RECORD_COPY_FIXED(r, p, n);
        if (!sc_keep_timed(ld, ld->mode, &ld->seen, r.start_ns, r.end_ns, false))
            return 0;
        sc_rec_overhead *o = SC_PUSH(ld, overheads, n_overheads, cap_overheads);
        if (!o) break;
        *o = r;
        return 0;
    }
    case SC_REC_UNIFIED: {
        sc_rec_unified r;
        SC_RECORD_COPY_FIXED(r, p, n);
        if (!sc_keep_timed(ld, ld->mode, &ld->seen, r.start_ns, r.end_ns, false))
            return 0;
        sc_rec_unified *u = SC_PUSH(ld, unified, n_unified, cap_unified);
        if (!u) break;
        *u = r;
        return 0;
    }
    case SC_REC_PYSTACK: {
        sc_rec_pystack r;
        SC_RECORD_COPY_FIXED(r, p, n);
        sc_pystack *s = SC_PUSH(ld, pystacks, n_pystacks, cap_pystacks);
        if (!s) break;
        if (!SC_GROW(ld->pystack_frames, ld->cap_pystack_frames, t->n_pystacks, 64)) break;
        /* The frames follow the fixed part (sc_parse checked that they fit); their names
         * are STRING ids, which may come later in the file: named in sc_finish_load. */
        *s = (sc_pystack){.correlation_id = r.correlation_id, .state = r.state,
                          .n_frames = r.n_frames};
        ld->pystack_frames[t->n_pystacks - 1] =
            sc_arena_copy(&ld->arena, p + fixed, (size_t)r.n_frames * sizeof(sc_py_frame));
        if (!ld->pystack_frames[t->n_pystacks - 1])
            break;
        t->n_pyframes += r.n_frames;
        return 0;
    }
    case SC_REC_SCOPE:
        SC_RECORD_COPY_FIXED(t->scope, p, n);
        t->has_scope = true;
        t->scope_name = text;
        return 0;
    case SC_REC_SCOPE_WINDOW: {
        sc_rec_scope_window *w = SC_PUSH(ld, scope_windows, n_scope_windows, cap_scope_windows);
        if (!w) break;
        SC_RECORD_COPY_FIXED(*w, p, n);
        return 0;
    }
    case SC_REC_END:
        SC_RECORD_COPY_FIXED(t->end, p, n);
        t->has_end = true;
        return 0;
    case SC_REC_LOSS: {
        sc_rec_loss r;
        SC_RECORD_COPY_FIXED(r, p, n);
        /* Counts are cumulative: a later record of the same cause replaces the earlier. */
        for (size_t i = 0; i < t->n_losses; i++) {
            if (t->losses[i].cause == r.cause) {
                t->losses[i].count = r.count;
                return 0;
            }
        }
        sc_loss *l = SC_PUSH(ld, losses, n_losses, cap_losses);
        if (!l) break;
        *l = (sc_loss){.cause = r.cause, .count = r.count};
        return 0;
    }
    default:
        return 0; /* a kind from a newer minor version: skipped, its size told us how */
    }
    return sc_out_of_memory(ld);
}

static int sc_by_call_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_api_call *)a)->rec.start_ns, y = ((const sc_api_call *)b)->rec.start_ns;
    return x < y ? -1 : x > y;
}
static int sc_by_kernel_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_kernel *)a)->rec.start_ns, y = ((const sc_kernel *)b)->rec.start_ns;
    return x < y ? -1 : x > y;
}
static int sc_by_copy_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_copy *)a)->start_ns, y = ((const sc_copy *)b)->start_ns;
    return x < y ? -1 : x > y;
}
static int sc_by_memset_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_memset *)a)->start_ns, y = ((const sc_memset *)b)->start_ns;
    return x < y ? -1 : x > y;
}
static int sc_by_sync_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_rec_sync *)a)->start_ns, y = ((const sc_rec_sync *)b)->start_ns;
    return x < y ? -1 : x > y;
}
static int sc_by_unified_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_rec_unified *)a)->start_ns, y = ((const sc_rec_unified *)b)->start_ns;
    return x < y ? -1 : x > y;
}

static int sc_by_overhead_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_rec_overhead *)a)->start_ns, y = ((const sc_rec_overhead *)b)->start_ns;
    return x < y ? -1 : x > y;
}
static int sc_by_window_open(const void *a, const void *b)
{
    uint64_t x = ((const sc_rec_scope_window *)a)->open_ns;
    uint64_t y = ((const sc_rec_scope_window *)b)->open_ns;
    return x < y ? -1 : x > y;
}
static int sc_by_range_start(const void *a, const void *b)
{
    uint64_t x = ((const sc_range *)a)->rec.start_ns, y = ((const sc_range *)b)->rec.start_ns;
    return x < y ? -1 : x > y;
}

/* A context's device is the first one named for it by a kernel, else by a copy, else by a
 * memset, each in file order; every such record counts, also one a window or an impossible
 * time leaves out. */
static void sc_fill_stream_devices(sc_loader *ld)
{
    sc_trace *t = ld->t;
    sc_context_map m = ld->kernel_contexts;
    for (size_t k = 0; k < ld->copy_contexts.n; k++)
        sc_context_note(&m, ld->copy_contexts.context[k], ld->copy_contexts.device[k]);
    for (size_t k = 0; k < ld->memset_contexts.n; k++)
        sc_context_note(&m, ld->memset_contexts.context[k], ld->memset_contexts.device[k]);
    for (size_t i = 0; i < t->n_streams; i++) {
        sc_rec_stream *s = &t->streams[i];
        for (size_t c = 0; c < m.n && s->device == UINT32_MAX; c++)
            if (m.context[c] == s->context_id) s->device = m.device[c];
    }
}

static int sc_by_correlation(const void *a, const void *b)
{
    uint32_t x = ((const sc_pystack *)a)->correlation_id;
    uint32_t y = ((const sc_pystack *)b)->correlation_id;
    return x < y ? -1 : x > y;
}

/* Each Python stack's frames, named, into one array; then the stacks by correlation id. */
static int sc_name_pystacks(sc_loader *ld)
{
    sc_trace *t = ld->t;
    if (!t->n_pystacks) return 0;
    t->pyframes = calloc(t->n_pyframes ? t->n_pyframes : 1, sizeof *t->pyframes);
    if (!t->pyframes) return -1;
    size_t next = 0;
    for (size_t i = 0; i < t->n_pystacks; i++) {
        sc_pystack *s = &t->pystacks[i];
        sc_pyframe *out = t->pyframes + next;
        for (uint16_t k = 0; k < s->n_frames; k++) {
            sc_py_frame f;
            memcpy(&f, ld->pystack_frames[i] + (size_t)k * sizeof f, sizeof f);
            const char *file = sc_string(ld, f.file_id), *fn = sc_string(ld, f.function_id);
            out[k] = (sc_pyframe){.file = file ? file : "?", .function = fn ? fn : "?",
                                  .line = f.line};
        }
        s->frames = out;
        next += s->n_frames;
    }
    return sc_stable_sort(t->pystacks, t->n_pystacks, sizeof *t->pystacks, sc_by_correlation);
}

/* A stable sort of list[0 .. n) by its 64-bit time `field`, compared inline; cmp compares the
 * same field (sort.h). */
#define SC_SORT_BY(list, n, field, cmp)                                                 \
    sc_stable_sort_by_u64((list), (n), sizeof *(list), offsetof(__typeof__(*(list)), field), \
                          (cmp))

/* Names, then time order: the part of loading that needs every record. */
static int sc_finish_load(sc_loader *ld)
{
    sc_trace *t = ld->t;
    sc_fill_stream_devices(ld);
    if (ld->n_call_names)
        qsort(ld->call_names, ld->n_call_names, sizeof *ld->call_names, sc_name_entry_cmp);
    if (sc_calls_name(&ld->calls, t, ld->call_names, ld->n_call_names) != 0)
        return sc_out_of_memory(ld);
    for (size_t i = 0; i < t->n_kernel_shapes; i++) {
        const char *s = sc_string(ld, t->kernel_shapes[i].name_id);
        t->kernel_shapes[i].name = s ? s : "?";
    }
    for (size_t i = 0; i < t->n_ranges; i++) {
        const char *s = sc_string(ld, t->ranges[i].rec.name_id);
        t->ranges[i].name = s ? s : "?";
        t->ranges[i].domain = sc_string(ld, t->ranges[i].rec.domain_id);
    }
    if (sc_name_pystacks(ld) != 0 || sc_trace_drop_impossible_times_seen(t, &ld->seen) != 0 ||
        SC_SORT_BY(t->calls, t->n_calls, rec.start_ns, sc_by_call_start) ||
        SC_SORT_BY(t->kernels, t->n_kernels, rec.start_ns, sc_by_kernel_start) ||
        SC_SORT_BY(t->copies, t->n_copies, start_ns, sc_by_copy_start) ||
        SC_SORT_BY(t->memsets, t->n_memsets, start_ns, sc_by_memset_start) ||
        SC_SORT_BY(t->syncs, t->n_syncs, start_ns, sc_by_sync_start) ||
        SC_SORT_BY(t->ranges, t->n_ranges, rec.start_ns, sc_by_range_start) ||
        SC_SORT_BY(t->overheads, t->n_overheads, start_ns, sc_by_overhead_start) ||
        SC_SORT_BY(t->unified, t->n_unified, start_ns, sc_by_unified_start) ||
        SC_SORT_BY(t->scope_windows, t->n_scope_windows, open_ns, sc_by_window_open)) {
        snprintf(ld->err, ld->err_size, "%s: out of memory", t->path);
        return -1;
    }
    return 0;
}

static int sc_read_error(sc_loader *ld)
{
    if (!ld->w.buf)
        return sc_out_of_memory(ld);
    snprintf(ld->err, ld->err_size, "%s: read error", ld->t->path);
    return -1;
}

static int sc_check_header(sc_loader *ld)
{
    sc_trace *t = ld->t;
    sc_file_header h;
    const uint8_t *head = NULL;
    ptrdiff_t got = sc_file_window_at(&ld->w, 0, sizeof h, &head);
    if (got < 0)
        return sc_read_error(ld);
    /* The header's own size is checked against the file's, not the window's. */
    size_t size = (size_t)got >= sizeof h ? ld->w.size : (size_t)got;
    enum sc_header_fault fault = sc_header_check(head, size, &h);
    if (fault == SC_HEADER_TOO_SHORT || fault == SC_HEADER_BAD_MAGIC) {
        snprintf(ld->err, ld->err_size, "%s: not a streamcheck trace (%s)", t->path,
                 fault == SC_HEADER_TOO_SHORT ? "file too short" : "wrong magic");
        return -1;
    }
    t->version_major = h.version_major;
    t->version_minor = h.version_minor;
    if (fault == SC_HEADER_VERSION) {
        snprintf(ld->err, ld->err_size,
                 "%s: trace format %u.%u %s; this streamcheck reads formats %d.x to %d.x",
                 t->path, h.version_major, h.version_minor,
                 h.version_major > SC_TRACE_VERSION_MAJOR ? "was written by a newer streamcheck"
                                                          : "is too old",
                 SC_TRACE_OLDEST_MAJOR, SC_TRACE_VERSION_MAJOR);
        return -1;
    }
    if (fault == SC_HEADER_BAD_SIZE) {
        snprintf(ld->err, ld->err_size, "%s: corrupt trace: header size %u", t->path,
                 h.header_size);
        return -1;
    }
    return (int)h.header_size;
}

/* The loader's words for a corrupt record (sc_fail adds the path and the offset). */
static const char *sc_fault_words(enum sc_record_fault fault)
{
    switch (fault) {
    case SC_RECORD_BAD_SIZE: return "bad record size";
    case SC_RECORD_AFTER_END: return "record after the end record";
    case SC_RECORD_SHORT: return "record shorter than its kind";
    case SC_RECORD_UNTERMINATED: return "unterminated text";
    case SC_RECORD_FRAMES_OVERRUN: return "frames overrun";
    case SC_RECORD_BAD_FIXED: return "fixed part outside the record";
    case SC_RECORD_BAD_STRING_ID: return "bad string id";
    case SC_RECORD_BAD_COMPACT_ID: return "bad shape or site id";
    default: return "bad record";
    }
}

/* The full records of a compact trace, the calls and copies that do not fit a compact record
 * and the synchronizations, inline in the record loop as the compact ones (sc_load_record
 * would do the same, through its checks for text and for the reads of bounds and times). */
static inline __attribute__((always_inline)) int
sc_load_api(sc_loader *ld, enum sc_load_mode mode, sc_times_seen *seen, size_t off,
            const sc_record_header *h, const uint8_t *p, size_t n)
{
    size_t fixed = sc_record_fixed_part(h, n);
    /* the record loop's memo of sound headers holds API ones without their frames' fit
     * (validate.h): tested here, in every mode, for the check's fault */
    if (!sc_record_api_frames_fit(p, fixed, n))
        return sc_fail(ld, off, sc_fault_words(SC_RECORD_FRAMES_OVERRUN));
    if (mode == SC_LOAD_BOUNDS)
        return 0;
    sc_rec_api r;
    SC_RECORD_COPY_FIXED(r, p, fixed);
    if (!sc_keep_timed(ld, mode, seen, r.start_ns, r.end_ns, true))
        return 0;
    /* Frames follow the fixed part as written by this major version (they fit: above). */
    return sc_calls_add(&ld->calls, ld->t, &r, p + fixed) != 0 ? sc_out_of_memory(ld) : 0;
}

static inline __attribute__((always_inline)) int
sc_load_copy(sc_loader *ld, enum sc_load_mode mode, sc_times_seen *seen,
             const sc_record_header *h, const uint8_t *p, size_t n)
{
    if (mode == SC_LOAD_BOUNDS)
        return 0;
    sc_rec_memcpy r;
    SC_RECORD_COPY_FIXED(r, p, sc_record_fixed_part(h, n));
    sc_context_note(&ld->copy_contexts, r.context_id, r.device);
    /* a window's load keeps the shapes of the copies it leaves out too, as it does the
     * kernels': the same shapes, in the same order, as a whole load */
    bool keep = sc_keep_timed(ld, mode, seen, r.start_ns, r.end_ns, true);
    if (!keep && mode != SC_LOAD_BETWEEN)
        return 0;
    /* no padding (trace.h): compared as bytes */
    sc_copy_shape shape = {.bytes = r.bytes, .device = r.device, .context_id = r.context_id,
                           .stream_id = r.stream_id, .src_device = r.src_device,
                           .dst_device = r.dst_device, .copy_kind = r.copy_kind,
                           .src_kind = r.src_kind, .dst_kind = r.dst_kind, .flags = r.flags};
    sc_trace *t = ld->t;
    uint32_t at = sc_shape_table_put(&ld->copy_shapes, (void **)&t->copy_shapes,
                                     &t->n_copy_shapes, &shape);
    if (at == UINT32_MAX)
        return sc_out_of_memory(ld);
    if (!keep)
        return 0;
    sc_copy *c = SC_PUSH(ld, copies, n_copies, cap_copies);
    if (!c)
        return sc_out_of_memory(ld);
    *c = (sc_copy){.start_ns = r.start_ns, .end_ns = r.end_ns,
                   .correlation_id = r.correlation_id, .shape = at};
    return 0;
}

static inline __attribute__((always_inline)) int
sc_load_sync(sc_loader *ld, enum sc_load_mode mode, sc_times_seen *seen,
             const sc_record_header *h, const uint8_t *p, size_t n)
{
    if (mode == SC_LOAD_BOUNDS)
        return 0;
    sc_rec_sync r;
    SC_RECORD_COPY_FIXED(r, p, sc_record_fixed_part(h, n));
    if (!sc_keep_timed(ld, mode, seen, r.start_ns, r.end_ns, false))
        return 0;
    sc_rec_sync *s = SC_PUSH(ld, syncs, n_syncs, cap_syncs);
    if (!s)
        return sc_out_of_memory(ld);
    *s = r;
    return 0;
}

/* What sc_load_one returns for the END record, loaded: the record loop then forgets the
 * headers it found sound, so that it checks the next record (a fault: after the end) without
 * testing for the end per record. */
enum { SC_LOADED_END = 1 };

/* One record whose check passed, `off` its place in the file: loaded. The kinds of nearly
 * every record of a compact trace inline, their times seen into *seen; the others by
 * sc_load_record. Returns 0, SC_LOADED_END, or -1 (the error told). */
static inline __attribute__((always_inline)) int
sc_load_one(sc_loader *ld, enum sc_load_mode mode, sc_times_seen *seen, size_t off,
            const sc_record_header *h, const uint8_t *rec)
{
    const uint8_t *payload = rec + sizeof *h;
    size_t n = h->size - sizeof *h;
    /* a compact kind has neither text nor frames: its fixed part is the header's, or all */
    if (h->kind == SC_REC_CALL_COMPACT)
        return sc_load_compact_call(ld, mode, seen, off, payload);
    if (h->kind == SC_REC_KERNEL_COMPACT)
        return sc_load_compact_kernel(ld, mode, seen, off, payload, h->fixed ? h->fixed : n);
    switch (h->kind) {
    case SC_REC_API:
        return sc_load_api(ld, mode, seen, off, h, payload, n);
    case SC_REC_MEMCPY:
        return sc_load_copy(ld, mode, seen, h, payload, n);
    case SC_REC_SYNC:
        return sc_load_sync(ld, mode, seen, h, payload, n);
    default:
        if (sc_compact_kind(h->kind))
            return sc_load_declaration(ld, h, payload, sc_record_fixed_part(h, n));
        if (sc_load_record(ld, h, payload, n) != 0)
            return -1;
        return h->kind == SC_REC_END ? SC_LOADED_END : 0;
    }
}

/* sc_load_one out of line, for the first record of each window's worth, which is rare: the
 * record loop holds the loaders inline once. */
static __attribute__((noinline)) int sc_load_first(sc_loader *ld, sc_times_seen *seen,
                                                   size_t off, const sc_record_header *h,
                                                   const uint8_t *rec)
{
    return sc_load_one(ld, ld->mode, seen, off, h, rec);
}

/* The records of the file from byte *offp, in order, loaded as `mode` (ld->mode) says; *offp
 * is left where they end (or where one is cut short or faulty). The window is asked for a
 * record only where the one before leaves it: every record that lies whole in the window
 * after it is taken from there (the window's bytes are the file's up to where it ends).
 * Inline into sc_parse once for a whole load, with the mode known when compiled, so that the
 * loaders' tests of the mode fold away for the load nearly every run makes. */
static inline __attribute__((always_inline)) int
sc_parse_records(sc_loader *ld, enum sc_load_mode mode, size_t *offp)
{
    sc_trace *t = ld->t;
    size_t off = *offp;
    sc_times_seen seen = SC_TIMES_SEEN_NONE;  /* the inline kinds'; the others' in ld->seen */
    sc_header_memo sound;       /* the headers of records found sound */
    sc_header_memo_init(&sound);
    int rc = 0;
    while (off < ld->w.size) {
        sc_record_header h;
        const uint8_t *rec = NULL;
        ptrdiff_t got = sc_file_window_at_fast(&ld->w, off, sizeof h, &rec);
        if (got >= (ptrdiff_t)sizeof h) {
            memcpy(&h, rec, sizeof h);
            /* The whole record, when the file holds it (sc_record_check judges the rest). */
            if (h.size > (size_t)got && h.size <= ld->w.size - off)
                got = sc_file_window_at_fast(&ld->w, off, h.size, &rec);
        }
        if (got < 0) {
            rc = sc_read_error(ld);
            break;
        }
        enum sc_record_fault fault = sc_record_check_inline(rec, (size_t)got, 0, t->has_end, &h);
        if (fault == SC_RECORD_STRAY || fault == SC_RECORD_CUT_SHORT) break; /* truncated: below */
        if (fault != SC_RECORD_OK) {
            rc = sc_fail(ld, off, sc_fault_words(fault));
            break;
        }
        int loaded = sc_load_first(ld, &ld->seen, off, &h, rec);
        if (loaded < 0) {
            rc = -1;
            break;
        }
        if (loaded == SC_LOADED_END)
            sc_header_memo_init(&sound);
        /* the records after it that the window holds whole */
        const uint8_t *p = rec + h.size, *end = rec + got;
        off += h.size;
        while ((size_t)(end - p) >= sizeof h) {
            memcpy(&h, p, sizeof h);
            if (h.size > (size_t)(end - p))
                break;      /* past the window: asked for above */
            /* none is known once the END record is loaded (SC_LOADED_END) */
            if (!sc_header_memo_has(&sound, &h)) {
                fault = sc_record_check_inline(p, (size_t)(end - p), 0, t->has_end, &h);
                if (fault != SC_RECORD_OK) {
                    rc = sc_fail(ld, off, sc_fault_words(fault));
                    break;
                }
                sc_header_memo_keep(&sound, &h);
            }
            int loaded = sc_load_one(ld, mode, &seen, off, &h, p);
            if (loaded != 0) {
                if (loaded < 0) {
                    rc = -1;
                    break;
                }
                sc_header_memo_init(&sound);
            }
            p += h.size;
            off += h.size;
        }
        if (rc != 0)
            break;
    }
    sc_times_merge(&ld->seen, &seen);
    *offp = off;
    return rc;
}

/* The records of the file, then the trace's status and, for a load, its names and order. */
static int sc_parse(sc_loader *ld)
{
    sc_trace *t = ld->t;
    int start = sc_check_header(ld);
    if (start < 0) return -1;
    size_t off = (size_t)start;
    int rc = ld->mode == SC_LOAD_WHOLE ? sc_parse_records(ld, SC_LOAD_WHOLE, &off)
                                       : sc_parse_records(ld, ld->mode, &off);
    if (rc != 0)
        return rc;
    if (off < ld->w.size) {
        t->status = SC_TRACE_TRUNCATED;
        snprintf(t->status_detail, sizeof t->status_detail,
                 "the last record is cut short at byte %zu of %zu: the process stopped while "
                 "writing; everything before it is kept",
                 off, ld->w.size);
    } else if (!t->has_end) {
        t->status = SC_TRACE_PARTIAL;
        snprintf(t->status_detail, sizeof t->status_detail,
                 "no end record: the process crashed, was killed, exec'd or is still running; "
                 "the report covers what was recorded until then");
    }
    /* a read for bounds or times keeps nothing to name or order */
    return ld->mode == SC_LOAD_WHOLE || ld->mode == SC_LOAD_BETWEEN ? sc_finish_load(ld) : 0;
}

/* One read of `path` into `out`, keeping what ld->mode says (ld's other fields set). */
static int sc_read(const char *path, sc_loader *ld, sc_trace *out)
{
    memset(out, 0, sizeof *out);
    out->path = strdup(path);
    if (!out->path) {
        snprintf(ld->err, ld->err_size, "%s: out of memory", path);
        return -1;
    }
    ld->t = out;
    ld->seen = SC_TIMES_SEEN_NONE;
    const char *why;
    if (sc_file_window_open(path, &ld->w, &why) != 0) {
        snprintf(ld->err, ld->err_size, "%s: %s", path, why);
        sc_trace_free(out);
        return -1;
    }
    int rc = sc_parse(ld);
    sc_file_window_close(&ld->w);
    out->storage = ld->arena;
    free(ld->strings);
    free(ld->call_names);
    free(ld->pystack_frames);
    free(ld->shape_of_compact);
    free(ld->site_calls);
    sc_call_loader_free(&ld->calls);
    sc_compact_reader_free(&ld->compact);
    sc_shape_set_free(&ld->shapes);
    sc_shape_table_free(&ld->copy_shapes);
    sc_shape_table_free(&ld->memset_shapes);
    if (rc != 0) sc_trace_free(out);
    return rc;
}

int sc_trace_load(const char *path, sc_trace *out, char *err, size_t err_size)
{
    sc_loader ld = {.mode = SC_LOAD_WHOLE, .err = err, .err_size = err_size};
    return sc_read(path, &ld, out);
}

int sc_trace_read_times(const char *path, sc_trace_times *out, char *err, size_t err_size)
{
    *out = (sc_trace_times){.cuttable = false};
    sc_trace scratch;
    sc_loader bounds = {.mode = SC_LOAD_BOUNDS, .err = err, .err_size = err_size};
    if (sc_read(path, &bounds, &scratch) != 0)
        return -1;
    uint64_t lo, hi;
    bool known = sc_times_bounds(&scratch, &lo, &hi);
    sc_trace_free(&scratch);
    if (!known)
        return 0;   /* without a PROCESS record the bounds need every record: load it whole */
    sc_loader times = {.mode = SC_LOAD_TIMES, .bound_lo = lo, .bound_hi = hi, .times = out,
                       .err = err, .err_size = err_size};
    if (sc_read(path, &times, &scratch) != 0)
        return -1;
    sc_trace_free(&scratch);
    out->cuttable = true;
    return 0;
}

int sc_trace_load_between(const char *path, const sc_trace_times *times, uint64_t lo,
                          uint64_t hi, sc_trace *out, char *err, size_t err_size)
{
    sc_loader ld = {.mode = SC_LOAD_BETWEEN, .keep_lo = lo, .keep_hi = hi, .err = err,
                    .err_size = err_size};
    if (sc_read(path, &ld, out) != 0)
        return -1;
    /* the impossible times of the records left out were counted by the read of times */
    out->impossible_times = times->impossible;
    out->loaded_between = true;
    out->times_any = times->any;
    out->run_start_ns = times->run_start_ns;
    return 0;
}

void sc_trace_free(sc_trace *t)
{
    free(t->path);
    free(t->modules);
    free(t->devices);
    free(t->calls);
    free(t->call_names);
    free(t->call_extras);
    free(t->call_frames);
    free(t->kernels);
    free(t->kernel_shapes);
    free(t->copies);
    free(t->copy_shapes);
    free(t->memset_shapes);
    free(t->memsets);
    free(t->streams);
    free(t->syncs);
    free(t->ranges);
    free(t->unified);
    free(t->overheads);
    free(t->notes);
    free(t->env);
    free(t->losses);
    free(t->pystacks);
    free(t->pyframes);
    free(t->scope_windows);
    sc_arena_free(t->storage);
    memset(t, 0, sizeof *t);
}

uint64_t sc_trace_lost(const sc_trace *t, uint32_t cause)
{
    for (size_t i = 0; i < t->n_losses; i++)
        if (t->losses[i].cause == cause) return t->losses[i].count;
    return 0;
}

const sc_device *sc_trace_device(const sc_trace *t, uint32_t device)
{
    for (size_t i = 0; i < t->n_devices; i++)
        if (t->devices[i].rec.device == device) return &t->devices[i];
    return NULL;
}

const sc_module *sc_trace_module_at(const sc_trace *t, uint64_t addr)
{
    for (size_t i = 0; i < t->n_modules; i++)
        if (addr >= t->modules[i].rec.lo && addr < t->modules[i].rec.hi) return &t->modules[i];
    return NULL;
}
