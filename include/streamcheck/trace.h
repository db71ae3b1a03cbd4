/* Reading a trace file into memory: the model every consumer (analyzer, report) works on.
 *
 * The loader validates the file, keeps every record it understands, sorts device work and
 * API calls by start time, and says in `status` whether the file was complete. It never
 * exits: a bad file gives -1 and a message that names the file and what is wrong with it.
 */
#ifndef STREAMCHECK_TRACE_H
#define STREAMCHECK_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace_format.h"

typedef struct sc_module {
    sc_rec_module rec;
    const char *path;
} sc_module;

typedef struct sc_device {
    sc_rec_device rec;
    const char *name;
} sc_device;

/* An API call's fields, as in its record (sc_rec_api), in 24 bytes (88 with two pointers
 * before the sixth round, 72 before the seventeenth, 56 before the twentieth, 32 before the
 * twenty-ninth). The callback domain and id only name the call (sc_call_name), the return
 * code no part of the report reads. What a call shares with many others is out of line, in
 * its sc_call_extra: its name, class and flags (sc_call_name, sc_call_class_id,
 * sc_call_flags), its thread and context (sc_call_tid, sc_call_context), its stream handle
 * (sc_call_stream_handle), the high half of its aux and the one of aux's low half and aux2
 * that is not the call's own (sc_call_aux and sc_call_aux2 put them back together); and what
 * only some calls have: a byte count (copies, memsets, allocations: sc_call_bytes), return
 * addresses (the few calls that took a stack: sc_call_n_frames, sc_call_frames) and the end
 * of a call whose duration does not fit 32 bits (sc_call_end). The calls of one site
 * (function, class, flags, stream), thread and context share one extra, those with bytes one
 * per size. Of aux and aux2 a call keeps the one that carries the stack-sharing call: aux2
 * for a call flagged SC_API_STACK_SHARED_AUX2 (its aux holds its event or graph, which the
 * calls of a site share), aux's low half for the others (launches, most of the calls: the
 * stack-sharing call, or an event or a created stream, and an aux2 that the site's calls
 * share, 0 in a compact call). */
typedef struct sc_call_rec {
    uint64_t start_ns;
    uint32_t dur_ns;            /* end - start; SC_CALL_DUR_WIDE: the end is in its extra
                                   (sc_call_end) */
    uint32_t aux_own;           /* aux2 when its flags have SC_API_STACK_SHARED_AUX2, else
                                   aux's low 32 bits (sc_call_aux, sc_call_aux2) */
    uint32_t correlation_id;
    uint32_t extra_at;          /* its sc_trace.call_extras entry; 0 (all zeros) for a call
                                   with nothing there but zeros */
} sc_call_rec;

/* sc_call_rec.dur_ns of a call that lasted 2^32 - 1 ns (4.3 s) or more, or whose recorded end
 * is before its start: its sc_call_extra.wide_end_ns holds the end as recorded. */
#define SC_CALL_DUR_WIDE UINT32_MAX

#define SC_CALL_CLASS_WIDE UINT8_MAX
_Static_assert(SC_API_STACK_SHARED_AUX2 <= UINT8_MAX, "the API flags fit sc_call_extra.flags");
_Static_assert(SC_CALL_CLASS_COUNT < SC_CALL_CLASS_WIDE, "the call classes fit a byte");
_Static_assert(sizeof(sc_call_rec) == 24, "a loaded call is 24 bytes");

typedef struct sc_api_call {
    sc_call_rec rec;
} sc_api_call;

/* What a call shares with others beside its sc_call_rec. Calls without frames share an
 * entry with every call of the same function, class, flags, thread, context, stream, bytes
 * and high half of aux, so the table stays small: a process's call sites, threads, contexts
 * and streams are few. */
typedef struct sc_call_extra {
    uint64_t bytes;             /* copy/memset/allocation size, 0 if none */
    uint64_t stream;            /* the stream handle, SC_STREAM_NONE if none */
    uint64_t wide_end_ns;       /* the end of a call whose dur_ns is SC_CALL_DUR_WIDE, else 0 */
    uint32_t frames_at;         /* where its n_frames return addresses start in
                                   sc_trace.call_frames */
    uint32_t name_at;           /* its sc_trace.call_names entry */
    uint32_t aux_high;          /* aux's high 32 bits */
    uint32_t aux_other;         /* the one of aux's low half and aux2 that the call's record
                                   does not keep (sc_call_rec.aux_own) */
    uint32_t tid;               /* the calling thread (OS thread id) */
    uint32_t context_id;        /* CUPTI's context id */
    uint16_t n_frames;
    uint16_t call_class;        /* as written: enum sc_call_class, or one this version does
                                   not know */
    uint8_t flags;              /* enum sc_api_flags (every flag fits a byte; the record's
                                   other bits mean nothing to this version) */
} sc_call_extra;

/* How a kernel was launched (its name, grid, block, resources and graph node) and where it
 * ran (its device, context and stream). Millions of kernels share a few hundred of these
 * (format 2.0 writes each once, as a KERNEL_SHAPE, which declares the same fields), so the
 * loader keeps each once too, in sc_trace.kernel_shapes, and a kernel only its index: a loaded
 * kernel takes 24 bytes instead of the 96 of every field beside every kernel (40 before the
 * seventeenth round, which kept the device, context and stream beside each kernel). The
 * shapes of one launch on several streams are several shapes: `launch` names the first of
 * them, what groups a kernel's instances whatever stream ran them. */
typedef struct sc_kernel_shape {
    const char *name;           /* mangled name, "?" if the trace lacks it */
    uint64_t graph_node_id;     /* 0 when not launched from a graph */
    int32_t grid_x, grid_y, grid_z;
    int32_t block_x, block_y, block_z;
    uint32_t registers_per_thread;
    uint32_t static_shared;     /* bytes per block */
    uint32_t dynamic_shared;    /* bytes per block */
    uint32_t name_id;           /* SC_REC_STRING id of the name */
    uint32_t launch_type;       /* CUpti_ActivityLaunchType: 0 regular, 1 cooperative ... */
    uint32_t device, context_id, stream_id;
    uint32_t launch;            /* the first entry of kernel_shapes with the same fields from
                                   graph_node_id to launch_type (this one's index if none is
                                   before it): the launch shape, whatever the stream */
} sc_kernel_shape;

/* A kernel's own fields, as in its compact record (sc_rec_kernel_compact): its times, its
 * correlation id and its shape, which holds the rest (sc_kernel_device, sc_kernel_stream, ...
 * read it). */
typedef struct sc_kernel_rec {
    uint64_t start_ns, end_ns;
    uint32_t correlation_id;
    uint32_t shape;             /* its sc_trace.kernel_shapes entry */
} sc_kernel_rec;

typedef struct sc_kernel {
    sc_kernel_rec rec;
} sc_kernel;

_Static_assert(sizeof(sc_kernel) == 24, "a loaded kernel is 24 bytes");

/* Where a copy ran and what it moved: its size, direction, memory kinds, flags and devices,
 * and its device, context and stream. A program's copies repeat a handful of these (the same
 * tensors, every step), so the loader keeps each once, in sc_trace.copy_shapes, and a copy
 * only its index: a loaded copy takes 24 bytes instead of its record's 56 (a copy of a size
 * no other copy has takes 24 and a shape of 32). Read through sc_copy_shape_of, or
 * sc_copy_record for the whole record. Memsets the same way (sc_memset_shape). */
typedef struct sc_copy_shape {
    uint64_t bytes;
    uint32_t device, context_id, stream_id;
    uint32_t src_device, dst_device;
    uint8_t copy_kind;              /* CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP */
    uint8_t src_kind, dst_kind;     /* enum sc_memory_kind */
    uint8_t flags;                  /* enum sc_memcpy_flags */
} sc_copy_shape;

_Static_assert(sizeof(sc_copy_shape) == 32, "a copy's shape has no padding");

/* A copy's own fields, as in its record (sc_rec_memcpy): its times, its correlation id and
 * its shape, which holds the rest. */
typedef struct sc_copy {
    uint64_t start_ns, end_ns;
    uint32_t correlation_id;
    uint32_t shape;                 /* its sc_trace.copy_shapes entry */
} sc_copy;

_Static_assert(sizeof(sc_copy) == 24, "a loaded copy is 24 bytes");

/* What a memset wrote and where it ran (its record's fields but its times and correlation
 * id), kept once in sc_trace.memset_shapes as a copy's is. */
typedef struct sc_memset_shape {
    uint64_t bytes;
    uint32_t device, context_id, stream_id;
    uint32_t value;
    uint16_t memory_kind;           /* enum sc_memory_kind */
    uint16_t flags;                 /* bit 0: issued by an async API */
    uint32_t zero;                  /* always 0: shapes compare as bytes */
} sc_memset_shape;

_Static_assert(sizeof(sc_memset_shape) == 32, "a memset's shape has no hidden padding");

typedef struct sc_memset {
    uint64_t start_ns, end_ns;
    uint32_t correlation_id;
    uint32_t shape;                 /* its sc_trace.memset_shapes entry */
} sc_memset;

_Static_assert(sizeof(sc_memset) == 24, "a loaded memset is 24 bytes");

typedef struct sc_range {
    sc_rec_range rec;
    const char *name;
    const char *domain;         /* NULL for the default domain */
} sc_range;

typedef struct sc_note {
    uint32_t code;              /* enum sc_note_code */
    const char *text;
} sc_note;

/* One frame of a call's Python stack (format 1.4). */
typedef struct sc_pyframe {
    const char *file;           /* co_filename as the interpreter had it; "?" if unknown */
    const char *function;       /* co_qualname (co_name before 3.11); "?" if unknown */
    int32_t line;               /* 0 when unknown */
} sc_pyframe;

/* The Python stack of one API call: the call with this correlation id. */
typedef struct sc_pystack {
    uint32_t correlation_id;
    uint16_t state;             /* enum sc_py_state */
    uint16_t n_frames;
    const sc_pyframe *frames;   /* innermost first, in sc_trace.pyframes */
} sc_pystack;

/* What the library could not record, for one cause (format 1.1: LOSS records). */
typedef struct sc_loss {
    uint32_t cause;             /* enum sc_loss_cause */
    uint64_t count;
} sc_loss;

enum sc_trace_status {
    SC_TRACE_COMPLETE = 0,      /* END record present */
    SC_TRACE_PARTIAL = 1,       /* no END record: the process crashed, was killed or is running */
    SC_TRACE_TRUNCATED = 2,     /* the last record is cut short (a crash mid-write) */
};

typedef struct sc_trace {
    char *path;
    enum sc_trace_status status;
    char status_detail[256];    /* human-readable reason when not complete */
    uint16_t version_major, version_minor;

    bool has_process;
    sc_rec_process process;
    const char *exe;

    bool has_end;
    sc_rec_end end;

    sc_module *modules;      size_t n_modules;
    sc_device *devices;      size_t n_devices;
    sc_api_call *calls;      size_t n_calls;      /* sorted by rec.start_ns */
    const char **call_names; size_t n_call_names; /* CUPTI's function names ("?" for a
                                                     function the trace does not name), one
                                                     per function the calls name */
    sc_call_extra *call_extras; size_t n_call_extras; /* in no order; entry 0 all zeros */
    uint64_t *call_frames;   size_t n_call_frames; /* every call's own frames, innermost
                                                      first; a 0 first, where calls without
                                                      frames point */
    sc_kernel *kernels;      size_t n_kernels;    /* sorted by rec.start_ns */
    sc_kernel_shape *kernel_shapes; size_t n_kernel_shapes; /* each one once, in no order */
    sc_copy *copies;         size_t n_copies;     /* sorted by start_ns */
    sc_copy_shape *copy_shapes; size_t n_copy_shapes; /* each one once, in no order */
    sc_memset *memsets;      size_t n_memsets;    /* sorted by start_ns */
    sc_memset_shape *memset_shapes; size_t n_memset_shapes; /* each one once, in no order */
    sc_rec_stream *streams;  size_t n_streams;
    sc_rec_sync *syncs;      size_t n_syncs;      /* sorted by start_ns */
    sc_range *ranges;        size_t n_ranges;     /* sorted by rec.start_ns */
    sc_rec_overhead *overheads; size_t n_overheads; /* sorted by start_ns */
    sc_rec_unified *unified; size_t n_unified;    /* sorted by start_ns; none unless
                                                     unified-memory tracing was on */
    sc_note *notes;          size_t n_notes;
    sc_pystack *pystacks;    size_t n_pystacks;   /* sorted by correlation_id (1.4) */
    sc_pyframe *pyframes;    size_t n_pyframes;   /* every pystack's frames */
    const char **env;        size_t n_env;        /* "NAME=value" */
    sc_loss *losses;         size_t n_losses;     /* one per cause, as written (by cause);
                                                     none in a 1.0 trace or a crashed one */
    /* Capture scope (format 1.5): when has_scope, the library wrote only what happened inside
     * these windows (trace_format.h, SC_REC_SCOPE); a trace without one was recorded whole. */
    bool has_scope;
    sc_rec_scope scope;
    const char *scope_name;     /* the range's name ("" for the profiler's scope) */
    sc_rec_scope_window *scope_windows; size_t n_scope_windows; /* sorted by open_ns */
    uint64_t impossible_times;  /* timed records left out: they ended before they started or
                                   lay far outside the run (src/trace/times.h) */
    /* sc_trace_load_between: only the timed records that start in a window were loaded; the
     * run's start is then that of the whole trace, which the loaded records cannot tell. */
    bool loaded_between;
    uint64_t run_start_ns;      /* when loaded_between and times_any: the whole run's start */
    bool times_any;             /* it has a call, kernel, copy, memset or range */

    void *storage;              /* owns every string and frame array above */
} sc_trace;

/* Loads `path`. Returns 0 on success (the file may still be partial: see status),
 * -1 on error with a message in err. */
int sc_trace_load(const char *path, sc_trace *out, char *err, size_t err_size);

/* What two reads of a trace's records find (they keep nothing else): enough to load only the
 * stretch of a long run that a window asks for, with sc_trace_load_between. */
typedef struct sc_trace_times {
    bool cuttable;              /* it has a PROCESS record, so a time's bounds are known
                                   without every record (src/trace/times.h); when false, load
                                   it whole and cut it after */
    bool any;                   /* a call, kernel, copy, memset or range with a possible time */
    uint64_t run_start_ns;      /* the earliest start of those: the run's start */
    uint64_t impossible;        /* timed records with impossible times, of every kind */
} sc_trace_times;

/* Reads `path`'s times into *out. Returns 0, or -1 with a message in err: the message a load
 * would give, for a file a load would refuse. */
int sc_trace_read_times(const char *path, sc_trace_times *out, char *err, size_t err_size);

/* Loads `path` (whose times are `times`, cuttable) as sc_trace_load would, but keeps of the
 * timed records (calls, kernels, copies, memsets, syncs, ranges, overhead and unified-memory
 * records) only those that start in [lo, hi): what sc_trace_load and a cut to [lo, hi) would
 * leave, without holding the rest. Everything else is loaded whole; impossible_times counts
 * the whole trace's. Returns as sc_trace_load. */
int sc_trace_load_between(const char *path, const sc_trace_times *times, uint64_t lo,
                          uint64_t hi, sc_trace *out, char *err, size_t err_size);
void sc_trace_free(sc_trace *trace);

/* What was lost to `cause` (enum sc_loss_cause), 0 when none or not counted. */
uint64_t sc_trace_lost(const sc_trace *trace, uint32_t cause);
/* A cause's stable name ("too-large", "nvtx-depth", ...: JSON users match on it) and what it
 * means in words ("records larger than a thread buffer takes"); "unknown" / "records lost
 * (a cause this version does not know)" for a newer writer's cause. */
const char *sc_loss_cause_name(uint32_t cause);
const char *sc_loss_cause_text(uint32_t cause);

/* The Python stack of the call with this correlation id, or NULL (no Python, or the call
 * took no stack: see the call's site, analysis.h). Inline: the analyzer, which does not link
 * the loader, asks too. */
static inline const sc_pystack *sc_trace_pystack(const sc_trace *trace, uint32_t correlation_id)
{
    size_t lo = 0, hi = trace->n_pystacks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (trace->pystacks[mid].correlation_id < correlation_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < trace->n_pystacks && trace->pystacks[lo].correlation_id == correlation_id
               ? &trace->pystacks[lo]
               : NULL;
}

/* The time the capture scope was open: its windows' lengths summed (0 without a scope).
 * Inline: the analyzer, which does not link the loader, asks too. */
static inline uint64_t sc_trace_scope_ns(const sc_trace *trace)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < trace->n_scope_windows; i++) {
        const sc_rec_scope_window *w = &trace->scope_windows[i];
        sum += w->close_ns > w->open_ns ? w->close_ns - w->open_ns : 0;
    }
    return sum;
}

/* Call c's extra (what it shares with other calls, and its bytes and frames). */
static inline const sc_call_extra *sc_call_extra_of(const sc_trace *trace, const sc_api_call *c)
{
    return &trace->call_extras[c->rec.extra_at];
}

/* Call c's name (CUPTI's function name, "?" if the trace lacks it), its byte count (a copy's,
 * a memset's, an allocation's; 0 if none), its class as written, its class as the analysis
 * tests it (sc_call_class_id: SC_CALL_CLASS_WIDE for any class past a byte, which no class
 * this version knows is), its flags (enum sc_api_flags) and its return addresses,
 * sc_call_n_frames of them, innermost first (never NULL). */
static inline const char *sc_call_name(const sc_trace *trace, const sc_api_call *c)
{
    return trace->call_names[sc_call_extra_of(trace, c)->name_at];
}
static inline uint16_t sc_call_class(const sc_trace *trace, const sc_api_call *c)
{
    return sc_call_extra_of(trace, c)->call_class;
}
static inline uint8_t sc_call_class_id(const sc_trace *trace, const sc_api_call *c)
{
    uint16_t k = sc_call_extra_of(trace, c)->call_class;
    return k < SC_CALL_CLASS_WIDE ? (uint8_t)k : SC_CALL_CLASS_WIDE;
}
static inline uint8_t sc_call_flags(const sc_trace *trace, const sc_api_call *c)
{
    return sc_call_extra_of(trace, c)->flags;
}
/* Whether some call may be of class `call_class` (as written): an extra of the class is
 * there (a scan of the extras, which are few, rather than of the calls; an extra whose calls
 * a load left out may answer yes for none). */
static inline bool sc_trace_may_have_class(const sc_trace *trace, uint16_t call_class)
{
    for (size_t i = 0; i < trace->n_call_extras; i++)
        if (trace->call_extras[i].call_class == call_class)
            return true;
    return false;
}
/* Call c's stream handle as recorded (SC_STREAM_NONE if it names none) and its aux (the
 * stack-sharing call, an event, a graph or a created stream: sc_rec_api.aux). */
static inline uint64_t sc_call_stream_handle(const sc_trace *trace, const sc_api_call *c)
{
    return sc_call_extra_of(trace, c)->stream;
}
static inline uint64_t sc_call_aux(const sc_trace *trace, const sc_api_call *c)
{
    const sc_call_extra *e = sc_call_extra_of(trace, c);
    uint32_t low = e->flags & SC_API_STACK_SHARED_AUX2 ? e->aux_other : c->rec.aux_own;
    return (uint64_t)e->aux_high << 32 | low;
}
/* Call c's aux2 (sc_rec_api.aux2: the stack-sharing call of SC_API_STACK_SHARED_AUX2, stream
 * flags, a copy's kind). */
static inline uint32_t sc_call_aux2(const sc_trace *trace, const sc_api_call *c)
{
    const sc_call_extra *e = sc_call_extra_of(trace, c);
    return e->flags & SC_API_STACK_SHARED_AUX2 ? c->rec.aux_own : e->aux_other;
}
/* What sc_call_end reads back, from a call's recorded times: the duration its record keeps,
 * when it fits below SC_CALL_DUR_WIDE and the end is not before the start, else
 * SC_CALL_DUR_WIDE; and the end its extra keeps, 0 unless the duration is SC_CALL_DUR_WIDE. */
static inline uint32_t sc_call_dur_of(uint64_t start_ns, uint64_t end_ns, uint64_t *wide_end_ns)
{
    bool fits = end_ns >= start_ns && end_ns - start_ns < SC_CALL_DUR_WIDE;
    *wide_end_ns = fits ? 0 : end_ns;
    return fits ? (uint32_t)(end_ns - start_ns) : SC_CALL_DUR_WIDE;
}
/* Call c's end as recorded: its start and duration, or for a call of SC_CALL_DUR_WIDE, the
 * end its extra keeps. */
static inline uint64_t sc_call_end(const sc_trace *trace, const sc_api_call *c)
{
    return c->rec.dur_ns != SC_CALL_DUR_WIDE ? c->rec.start_ns + c->rec.dur_ns
                                             : sc_call_extra_of(trace, c)->wide_end_ns;
}
/* Call c's thread (its OS thread id) and CUDA context (CUPTI's id). */
static inline uint32_t sc_call_tid(const sc_trace *trace, const sc_api_call *c)
{
    return sc_call_extra_of(trace, c)->tid;
}
static inline uint32_t sc_call_context(const sc_trace *trace, const sc_api_call *c)
{
    return sc_call_extra_of(trace, c)->context_id;
}
static inline uint64_t sc_call_bytes(const sc_trace *trace, const sc_api_call *c)
{
    return sc_call_extra_of(trace, c)->bytes;
}
static inline uint16_t sc_call_n_frames(const sc_trace *trace, const sc_api_call *c)
{
    return sc_call_extra_of(trace, c)->n_frames;
}
static inline const uint64_t *sc_call_frames(const sc_trace *trace, const sc_api_call *c)
{
    return trace->call_frames + sc_call_extra_of(trace, c)->frames_at;
}

/* How kernel k was launched and where it ran, and its mangled name ("?" if the trace lacks
 * it). */
static inline const sc_kernel_shape *sc_kernel_shape_of(const sc_trace *trace, const sc_kernel *k)
{
    return &trace->kernel_shapes[k->rec.shape];
}
static inline const char *sc_kernel_name(const sc_trace *trace, const sc_kernel *k)
{
    return trace->kernel_shapes[k->rec.shape].name;
}
/* Kernel k's device (CUDA ordinal), context and stream, as its record gives them. */
static inline uint32_t sc_kernel_device(const sc_trace *trace, const sc_kernel *k)
{
    return trace->kernel_shapes[k->rec.shape].device;
}
static inline uint32_t sc_kernel_context(const sc_trace *trace, const sc_kernel *k)
{
    return trace->kernel_shapes[k->rec.shape].context_id;
}
static inline uint32_t sc_kernel_stream(const sc_trace *trace, const sc_kernel *k)
{
    return trace->kernel_shapes[k->rec.shape].stream_id;
}
/* Kernel k's launch shape: the same for every kernel of the same name, grid, block,
 * resources and graph node, whatever device, context or stream ran it (sc_kernel_shape). */
static inline uint32_t sc_kernel_launch(const sc_trace *trace, const sc_kernel *k)
{
    return trace->kernel_shapes[k->rec.shape].launch;
}

/* Where copy c ran and what it moved (sc_copy_shape). */
static inline const sc_copy_shape *sc_copy_shape_of(const sc_trace *trace, const sc_copy *c)
{
    return &trace->copy_shapes[c->shape];
}
/* The whole record copy c stands for, field for field (its reserved field 0): for code that
 * reads many of a copy's fields, once per copy (the rules, the outputs). */
static inline sc_rec_memcpy sc_copy_record(const sc_trace *trace, const sc_copy *c)
{
    const sc_copy_shape *s = sc_copy_shape_of(trace, c);
    return (sc_rec_memcpy){
        .start_ns = c->start_ns, .end_ns = c->end_ns, .bytes = s->bytes, .device = s->device,
        .context_id = s->context_id, .stream_id = s->stream_id,
        .correlation_id = c->correlation_id, .copy_kind = s->copy_kind,
        .src_kind = s->src_kind, .dst_kind = s->dst_kind, .flags = s->flags,
        .src_device = s->src_device, .dst_device = s->dst_device};
}
/* Copy c's device (CUDA ordinal), stream and size, as its record gives them. */
static inline uint32_t sc_copy_device(const sc_trace *trace, const sc_copy *c)
{
    return trace->copy_shapes[c->shape].device;
}
static inline uint32_t sc_copy_stream(const sc_trace *trace, const sc_copy *c)
{
    return trace->copy_shapes[c->shape].stream_id;
}
static inline uint64_t sc_copy_bytes(const sc_trace *trace, const sc_copy *c)
{
    return trace->copy_shapes[c->shape].bytes;
}

/* What memset m wrote and where it ran (sc_memset_shape), its whole record (sc_copy_record's
 * twin), and its device and stream. */
static inline const sc_memset_shape *sc_memset_shape_of(const sc_trace *trace,
                                                        const sc_memset *m)
{
    return &trace->memset_shapes[m->shape];
}
static inline sc_rec_memset sc_memset_record(const sc_trace *trace, const sc_memset *m)
{
    const sc_memset_shape *s = sc_memset_shape_of(trace, m);
    return (sc_rec_memset){
        .start_ns = m->start_ns, .end_ns = m->end_ns, .bytes = s->bytes, .device = s->device,
        .context_id = s->context_id, .stream_id = s->stream_id,
        .correlation_id = m->correlation_id, .value = s->value,
        .memory_kind = s->memory_kind, .flags = s->flags};
}
static inline uint32_t sc_memset_device(const sc_trace *trace, const sc_memset *m)
{
    return trace->memset_shapes[m->shape].device;
}
static inline uint32_t sc_memset_stream(const sc_trace *trace, const sc_memset *m)
{
    return trace->memset_shapes[m->shape].stream_id;
}

/* The device record for a CUDA ordinal, or NULL. */
const sc_device *sc_trace_device(const sc_trace *trace, uint32_t device);
/* The module whose address range holds addr, or NULL. */
const sc_module *sc_trace_module_at(const sc_trace *trace, uint64_t addr);

#endif
