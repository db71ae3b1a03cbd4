/* streamcheck trace file format, shared by the writer (libstreamcheck.so) and every reader.
 *
 * A trace is one file per process:
 *
 *   sc_file_header                      (16 bytes)
 *   record, record, ...                 (each: sc_record_header + payload, 8-byte multiple)
 *   SC_REC_END                          (only when the process finished cleanly)
 *
 * Records are appended as the run goes, whole records at a time, so a process that crashes
 * leaves a readable prefix; the reader reports a missing END record as "partial".
 * Every field has an explicit size, every struct is padded by hand and checked by
 * static_assert, and all integers are little-endian (the only byte order CUDA runs on).
 *
 * Compatibility: a reader accepts any file with its own major version, skipping record kinds
 * it does not know (their size is in the header) and ignoring the fields of a record it does
 * not know (newer minor versions only append fields to a kind's fixed part). Since 1.3 each
 * record header gives the size of its fixed part, so a reader finds a kind's text or frames
 * after fields appended by a newer writer; in older files the fixed part has the kind's 1.0
 * size. A newer major version is refused with a clear message.
 *
 * A minor version may only add what a reader can do without: a record kind an older reader
 * skips must not hold anything the report needs. 2.0 breaks that on purpose: its compact
 * records (below) carry most of a run's kernels and launch calls, which a 1.x reader would
 * skip without a word and then report a run without them. So they came with a major version,
 * which 1.x readers refuse ("written by a newer streamcheck"). A 2.x reader still reads every
 * 1.x file (SC_TRACE_OLDEST_MAJOR): 2.0 changed no 1.x record, it only added kinds. A writer
 * told not to write compact records (STREAMCHECK_OPTIONS compact=0) writes format 1.5, for
 * older readers.
 *
 * Times are nanoseconds on CUPTI's clock (cuptiGetTimestamp), the clock of every activity
 * record, so host calls and device work share one time line.
 */
#ifndef STREAMCHECK_TRACE_FORMAT_H
#define STREAMCHECK_TRACE_FORMAT_H

#include <stdint.h>

#define SC_TRACE_MAGIC "SCTRACE"          /* 7 characters and the terminating NUL */
#define SC_TRACE_VERSION_MAJOR 2          /* 2.0: compact kernel and call records */
#define SC_TRACE_VERSION_MINOR 0
#define SC_TRACE_OLDEST_MAJOR 1           /* the oldest major version a reader still reads */
#define SC_TRACE_FULL_MAJOR 1             /* the version of a file without compact records */
#define SC_TRACE_FULL_MINOR 5             /* 1.1: OVERHEAD and LOSS records; 1.2: the
                                             HOST_FUNC and EVENT_READ call classes,
                                             UNIFIED records; 1.3: every record header
                                             gives its fixed part's size; 1.4: PYSTACK
                                             records; 1.5: SCOPE and SCOPE_WINDOW */
#define SC_TRACE_SUFFIX ".sctrace"
#define SC_TRACE_PARTIAL_SUFFIX ".partial" /* appended while the process runs */

typedef struct sc_file_header {
    char magic[8];          /* SC_TRACE_MAGIC */
    uint16_t version_major;
    uint16_t version_minor;
    uint32_t header_size;   /* sizeof(sc_file_header) for this version; records start there */
} sc_file_header;

typedef struct sc_record_header {
    uint16_t kind;          /* enum sc_record_kind */
    uint16_t fixed;         /* 1.3: bytes of the payload's fixed part (the kind's struct as
                               the writer knows it); a text or frames follow it. 0 in older
                               files: the kind's 1.0 size (validate.h, sc_record_fixed_size) */
    uint32_t size;          /* whole record, header included, a multiple of 8 */
} sc_record_header;

enum sc_record_kind {
    SC_REC_PROCESS = 1,     /* sc_rec_process + executable path */
    SC_REC_MODULE = 2,      /* sc_rec_module + path: a loaded ELF object, for symbolization */
    SC_REC_DEVICE = 3,      /* sc_rec_device + device name */
    SC_REC_STRING = 4,      /* sc_rec_string + text: interned kernel names */
    SC_REC_CALL_NAME = 5,   /* sc_rec_call_name + CUPTI's name of an API function */
    SC_REC_API = 6,         /* sc_rec_api + frames[n_frames] (uint64 return addresses) */
    SC_REC_KERNEL = 7,      /* sc_rec_kernel */
    SC_REC_MEMCPY = 8,      /* sc_rec_memcpy */
    SC_REC_MEMSET = 9,      /* sc_rec_memset */
    SC_REC_STREAM = 10,     /* sc_rec_stream */
    SC_REC_SYNC = 11,       /* sc_rec_sync */
    SC_REC_NOTE = 12,       /* sc_rec_note + text: something the user must know about the run */
    SC_REC_ENV = 13,        /* text "NAME=value": an environment variable that matters */
    SC_REC_RANGE = 14,      /* sc_rec_range: an NVTX range (name is a STRING id) */
    SC_REC_END = 15,        /* sc_rec_end: the process finished and everything was flushed */
    SC_REC_OVERHEAD = 16,   /* sc_rec_overhead: time CUDA or CUPTI spent on their own (1.1) */
    SC_REC_LOSS = 17,       /* sc_rec_loss: what streamcheck could not record, per cause (1.1) */
    SC_REC_UNIFIED = 18,    /* sc_rec_unified: a managed-memory migration or GPU page fault
                               group (1.2; only when unified-memory tracing is on) */
    SC_REC_PYSTACK = 19,    /* sc_rec_pystack + sc_py_frame[n_frames]: the Python stack of a
                               call that took a native stack (1.4) */
    SC_REC_SCOPE = 20,      /* sc_rec_scope + the range's name: the trace holds only what
                               happened inside a capture scope (1.5) */
    SC_REC_SCOPE_WINDOW = 21, /* sc_rec_scope_window: one stretch of that scope (1.5) */
    SC_REC_TIME_BASE = 22,  /* sc_rec_time_base: what compact records' times count from (2.0) */
    SC_REC_KERNEL_SHAPE = 23, /* sc_rec_kernel_shape: a kernel's fields but its times and
                               correlation id, under an id (2.0) */
    SC_REC_KERNEL_COMPACT = 24, /* sc_rec_kernel_compact: a kernel of a declared shape (2.0) */
    SC_REC_CALL_SITE = 25,  /* sc_rec_call_site: an API call's fields that repeat, under an
                               id (2.0) */
    SC_REC_CALL_COMPACT = 26, /* sc_rec_call_compact: an API call of a declared site (2.0) */
};
#define SC_REC_KIND_LAST SC_REC_CALL_COMPACT     /* the highest kind this version knows */

/* Variable parts (paths, names, texts) follow the fixed struct as a NUL-terminated string,
 * zero-padded up to the record size. */

typedef struct sc_rec_process {
    uint32_t pid;
    uint32_t ppid;
    uint64_t start_ns;      /* CUPTI clock when capture started */
    uint64_t start_unix_ns; /* CLOCK_REALTIME at the same moment */
    uint32_t attach;        /* enum sc_attach */
    uint32_t reserved;
} sc_rec_process;

enum sc_attach { SC_ATTACH_PRELOAD = 1, SC_ATTACH_INJECTION = 2 };

typedef struct sc_rec_module {
    uint64_t bias;          /* load bias: runtime address - ELF virtual address */
    uint64_t lo, hi;        /* runtime address range covered by its PT_LOAD segments */
    uint8_t build_id[20];   /* GNU build id, zero-padded; build_id_size says how much is real */
    uint32_t build_id_size;
} sc_rec_module;

typedef struct sc_rec_device {
    uint32_t device;        /* CUDA device ordinal */
    uint32_t sm_count;
    uint32_t max_threads_per_sm;
    uint32_t max_blocks_per_sm;
    uint32_t max_regs_per_sm;
    uint32_t max_shared_per_sm;     /* bytes */
    uint32_t max_threads_per_block;
    uint32_t max_regs_per_block;
    uint32_t max_shared_per_block;  /* bytes */
    uint32_t cc_major, cc_minor;
    uint32_t async_engines;
    uint64_t global_memory;         /* bytes */
} sc_rec_device;

typedef struct sc_rec_string {
    uint32_t id;            /* referenced as *_id by other records; ids start at 1, 0 = none */
    uint32_t reserved;
} sc_rec_string;

typedef struct sc_rec_call_name {
    uint16_t domain;        /* CUpti_CallbackDomain */
    uint16_t cbid;          /* CUpti_CallbackId within that domain */
    uint32_t reserved;
} sc_rec_call_name;

/* What streamcheck makes of an API call; the analyzer works on this, not on CUPTI's ids. */
enum sc_call_class {
    SC_CALL_OTHER = 0,
    SC_CALL_LAUNCH = 1,         /* kernel launch (runtime, driver, cooperative) */
    SC_CALL_GRAPH_LAUNCH = 2,
    SC_CALL_MEMCPY = 3,         /* synchronous copy */
    SC_CALL_MEMCPY_ASYNC = 4,
    SC_CALL_MEMSET = 5,         /* synchronous memset */
    SC_CALL_MEMSET_ASYNC = 6,
    SC_CALL_MALLOC = 7,         /* device allocation (cudaMalloc, cuMemAlloc, ...) */
    SC_CALL_FREE = 8,
    SC_CALL_HOST_ALLOC = 9,     /* pinned host allocation (cudaMallocHost, cudaHostAlloc) */
    SC_CALL_HOST_FREE = 10,
    SC_CALL_HOST_REGISTER = 11,
    SC_CALL_HOST_UNREGISTER = 12,
    SC_CALL_STREAM_CREATE = 13,
    SC_CALL_STREAM_DESTROY = 14,
    SC_CALL_EVENT_RECORD = 15,
    SC_CALL_EVENT_WAIT = 16,    /* cudaStreamWaitEvent */
    SC_CALL_EVENT_SYNC = 17,
    SC_CALL_STREAM_SYNC = 18,
    SC_CALL_DEVICE_SYNC = 19,   /* cudaDeviceSynchronize, cuCtxSynchronize */
    SC_CALL_STREAM_QUERY = 20,
    SC_CALL_EVENT_QUERY = 21,
    SC_CALL_SET_LIMIT = 22,     /* cudaDeviceSetLimit, cudaDeviceSetCacheConfig,
                                   cudaFuncSetCacheConfig and the driver's like them */
    SC_CALL_MALLOC_ASYNC = 23,  /* stream-ordered allocation: no implicit sync */
    SC_CALL_FREE_ASYNC = 24,
    /* A host function queued on a stream (cudaLaunchHostFunc, cudaStreamAddCallback): the
     * stream's later work waits until it has run on CUDA's callback thread. aux: the
     * function's address (format 1.2). */
    SC_CALL_HOST_FUNC = 25,
    /* cudaEventElapsedTime and the like: reads the time of events, which must have completed
     * (the call does not wait: it fails when they have not), so the program waited for them
     * before. aux: the later event (format 1.2). */
    SC_CALL_EVENT_READ = 26,
};
#define SC_CALL_CLASS_COUNT 27     /* one more than the highest class */

/* sc_rec_api.stream when the call takes no stream argument */
#define SC_STREAM_NONE UINT64_MAX

enum sc_api_flags {
    SC_API_PER_THREAD = 1u << 0,    /* a _ptsz/_ptds variant: handle 0 means per-thread stream */
    SC_API_DRIVER = 1u << 1,        /* driver-API domain (else runtime) */
    /* Stacks are sampled (a full stack costs microseconds, a cheap call one or two): this
     * call has no frames of its own; it shares the stack of an earlier call from the same
     * thread with the same call class, callback id and stream (and, for a launch, the same
     * kernel), whose correlation id is in `aux`. Any call class may carry it (format 1.0:
     * launches only). */
    SC_API_STACK_SHARED = 1u << 2,
    /* The same, for a call whose `aux` holds a handle (event record/wait/sync/query/read: the
     * event; graph launch: the executable graph; host function: its address): the sampled
     * call's correlation id is in `aux2` instead (format 1.1). Never set together with SC_API_STACK_SHARED, so a reader
     * that does not know this flag sees a call without a site, never a wrong one. */
    SC_API_STACK_SHARED_AUX2 = 1u << 3,
};

typedef struct sc_rec_api {
    uint64_t start_ns, end_ns;      /* API entry and exit, CUPTI clock */
    uint64_t stream;                /* stream handle argument, SC_STREAM_NONE if none */
    uint64_t bytes;                 /* copy/memset/allocation size, 0 if none */
    uint64_t aux;                   /* call-specific: created stream handle, event handle, the
                                       stack-sharing call (SC_API_STACK_SHARED), ... */
    uint32_t tid;                   /* kernel thread id */
    uint32_t correlation_id;        /* joins the call to its activity records */
    uint32_t context_id;
    uint32_t flags;                 /* enum sc_api_flags */
    uint16_t domain;                /* CUpti_CallbackDomain */
    uint16_t cbid;                  /* CUpti_CallbackId */
    uint16_t call_class;            /* enum sc_call_class */
    uint16_t n_frames;              /* return addresses that follow, innermost first */
    int32_t result;                 /* the call's return code */
    uint32_t aux2;                  /* call-specific: stream flags, copy kind, the stack-sharing
                                       call (SC_API_STACK_SHARED_AUX2), ... */
} sc_rec_api;

typedef struct sc_rec_kernel {
    uint64_t start_ns, end_ns;
    uint64_t graph_node_id;         /* 0 when not launched from a graph */
    uint32_t device, context_id, stream_id, correlation_id;
    int32_t grid_x, grid_y, grid_z;
    int32_t block_x, block_y, block_z;
    uint32_t registers_per_thread;
    uint32_t static_shared;         /* bytes per block */
    uint32_t dynamic_shared;        /* bytes per block */
    uint32_t name_id;               /* SC_REC_STRING id of the (mangled) kernel name */
    uint32_t launch_type;           /* CUpti_ActivityLaunchType: 0 regular, 1 cooperative ... */
    uint32_t reserved;
} sc_rec_kernel;

enum sc_memory_kind {               /* CUpti_ActivityMemoryKind values used here */
    SC_MEM_UNKNOWN = 0, SC_MEM_PAGEABLE = 1, SC_MEM_PINNED = 2, SC_MEM_DEVICE = 3,
    SC_MEM_ARRAY = 4, SC_MEM_MANAGED = 5, SC_MEM_DEVICE_STATIC = 6, SC_MEM_MANAGED_STATIC = 7,
};

enum sc_memcpy_flags { SC_MEMCPY_ASYNC = 1u << 0 };   /* CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC */

typedef struct sc_rec_memcpy {
    uint64_t start_ns, end_ns;
    uint64_t bytes;
    uint32_t device, context_id, stream_id, correlation_id;
    uint8_t copy_kind;              /* CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP */
    uint8_t src_kind, dst_kind;     /* enum sc_memory_kind */
    uint8_t flags;                  /* enum sc_memcpy_flags */
    uint32_t src_device, dst_device;
    uint32_t reserved;
} sc_rec_memcpy;

typedef struct sc_rec_memset {
    uint64_t start_ns, end_ns;
    uint64_t bytes;
    uint32_t device, context_id, stream_id, correlation_id;
    uint32_t value;
    uint16_t memory_kind;           /* enum sc_memory_kind */
    uint16_t flags;                 /* bit 0: issued by an async API */
} sc_rec_memset;

enum sc_stream_flag {               /* CUpti_ActivityStreamFlag */
    SC_STREAM_FLAG_UNKNOWN = 0,
    SC_STREAM_FLAG_BLOCKING = 1,    /* cudaStreamCreate: synchronizes with the legacy stream */
    SC_STREAM_FLAG_NON_BLOCKING = 2,
    SC_STREAM_FLAG_LEGACY = 3,      /* the legacy NULL stream */
};

typedef struct sc_rec_stream {
    uint32_t device;                /* UINT32_MAX as written (CUPTI names only the context);
                                       the reader fills it in from the context's other work */
    uint32_t context_id, stream_id;
    uint32_t flag;                  /* enum sc_stream_flag */
    int32_t priority;
    uint32_t correlation_id;        /* of the call that created it (0 for implicit streams) */
} sc_rec_stream;

typedef struct sc_rec_sync {
    uint64_t start_ns, end_ns;
    uint32_t type;                  /* CUpti_ActivitySynchronizationType: 1 event sync,
                                       2 stream wait event, 3 stream sync, 4 context sync */
    uint32_t context_id;
    uint32_t stream_id;             /* CUPTI_SYNCHRONIZATION_INVALID_VALUE (~0) if none */
    uint32_t correlation_id;
    uint32_t event_id;
    uint32_t reserved;
} sc_rec_sync;

enum sc_note_code {
    SC_NOTE_INFO = 0,
    SC_NOTE_CUPTI_UNAVAILABLE = 1,  /* libcupti not found or too old: nothing recorded */
    SC_NOTE_CUPTI_TAKEN = 2,        /* another profiler holds the CUPTI subscription */
    SC_NOTE_ACTIVITY_FAILED = 3,    /* an activity kind could not be enabled */
    SC_NOTE_WRITE_FAILED = 4,       /* the trace could not be written in full */
    SC_NOTE_FORKED = 5,             /* the process forked; the child writes its own trace */
    SC_NOTE_EXIT_SYNC_TIMEOUT = 6,  /* device work still ran when the exit stopped waiting */
    SC_NOTE_PYTHON_UNREAD = 7,      /* a Python whose frames streamcheck does not read (1.4) */
};

typedef struct sc_rec_note {
    uint32_t code;                  /* enum sc_note_code */
    uint32_t reserved;
} sc_rec_note;

typedef struct sc_rec_range {
    uint64_t start_ns, end_ns;
    uint32_t tid;
    uint32_t name_id;               /* SC_REC_STRING id */
    uint32_t domain_id;             /* SC_REC_STRING id of the NVTX domain, 0 = default */
    uint32_t depth;                 /* nesting depth on its thread for push/pop ranges */
} sc_rec_range;

typedef struct sc_rec_end {
    uint64_t end_ns;
    uint64_t dropped_records;       /* cuptiActivityGetNumDroppedRecords, summed */
    uint64_t api_records;           /* counts written, to check the file against */
    uint64_t activity_records;
    uint32_t reason;                /* enum sc_end_reason */
    uint32_t signal;                /* SC_END_SIGNAL: the signal's number (0 otherwise, and
                                       in traces written before it was named) */
} sc_rec_end;

/* SC_END_SIGNAL: SIGTERM, SIGINT or SIGHUP with its default action ended the process (the
 * trace was finished first, then the signal did what it would have done). */
enum sc_end_reason { SC_END_EXIT = 1, SC_END_EXEC = 2, SC_END_DETACH = 3, SC_END_SIGNAL = 4 };

/* CUPTI's UNIFIED_MEMORY_COUNTER activity, written only when unified-memory tracing is on
 * (STREAMCHECK_UNIFIED_MEMORY=1: the driver's own tracing slows a program that faults). */
enum sc_unified_kind {              /* CUpti_ActivityUnifiedMemoryCounterKind values used here */
    SC_UNIFIED_HTOD = 1,            /* bytes migrated host to device */
    SC_UNIFIED_DTOH = 2,
    SC_UNIFIED_GPU_FAULT = 4,       /* a group of GPU page faults the driver serviced */
};
enum sc_unified_cause {             /* CUpti_ActivityUnifiedMemoryMigrationCause */
    SC_UNIFIED_CAUSE_UNKNOWN = 0,
    SC_UNIFIED_CAUSE_USER = 1,      /* asked for: cudaMemPrefetchAsync */
    SC_UNIFIED_CAUSE_COHERENCE = 2, /* a page fault: the page had to move to be used */
    SC_UNIFIED_CAUSE_PREFETCH = 3,  /* the driver's own prefetch around a fault */
    SC_UNIFIED_CAUSE_EVICTION = 4,
    SC_UNIFIED_CAUSE_ACCESS_COUNTERS = 5,
};

typedef struct sc_rec_unified {
    uint64_t start_ns, end_ns;      /* migrations: on the GPU; faults: the driver's service */
    uint64_t address;               /* the first page moved or faulted */
    uint64_t value;                 /* migrations: bytes; faults: fault groups for the page */
    uint32_t kind;                  /* enum sc_unified_kind */
    uint32_t flags;                 /* migrations: enum sc_unified_cause; faults: access type */
    uint32_t src_id, dst_id;        /* the processors (devices; the CPU for host ends) */
} sc_rec_unified;

/* The Python stack of an API call made from a Python program (format 1.4), written right
 * after the call's API record when the call took a native stack (sample.h's sampling: calls
 * that share a stack share the Python one too). Read from the interpreter's frames without
 * the GIL (torch releases it around its CUDA work), CPython 3.10 to 3.13. */
enum sc_py_state {
    SC_PY_FRAMES = 1,       /* the frames follow, innermost first */
    SC_PY_NO_PYTHON = 2,    /* the thread has no Python thread state (a C++ worker thread,
                               such as autograd's): the call has no Python line */
    SC_PY_UNREADABLE = 3,   /* the frames did not look like this Python version's */
};

typedef struct sc_rec_pystack {
    uint32_t correlation_id;        /* the API call's */
    uint16_t n_frames;              /* sc_py_frame that follow */
    uint16_t state;                 /* enum sc_py_state */
} sc_rec_pystack;

typedef struct sc_py_frame {
    uint32_t file_id;               /* SC_REC_STRING id of the code's co_filename */
    uint32_t function_id;           /* SC_REC_STRING id of its co_qualname (co_name before
                                       3.11) */
    int32_t line;                   /* the line being run, 0 when unknown */
    uint32_t reserved;
} sc_py_frame;

/* Capture scope (format 1.5, STREAMCHECK_OPTIONS capture=profiler or capture_range=NAME):
 * the library wrote records only inside the scope's windows. What it leaves out was asked
 * for, not lost. One SCOPE record, at the start, says which scope; a SCOPE_WINDOW record
 * each time a window closes (and at the end for one still open). Inside a window: API
 * calls made while it was open, device work (kernels, copies, memsets, syncs, overheads)
 * of those calls (by correlation id), NVTX ranges that overlapped it. Always, in or out:
 * the process, devices, modules, streams, strings, notes and losses. A trace without a
 * SCOPE record was recorded whole. */
enum sc_scope_mode {
    SC_SCOPE_NVTX_RANGE = 1,    /* while an NVTX range of the name is open on any thread */
    SC_SCOPE_PROFILER = 2,      /* between cudaProfilerStart and cudaProfilerStop */
};

typedef struct sc_rec_scope {
    uint32_t mode;          /* enum sc_scope_mode */
    uint32_t skip;          /* SC_SCOPE_NVTX_RANGE: the range's first `skip` occurrences
                               (warm-up steps) opened no window */
} sc_rec_scope;             /* + the range's name (NVTX_RANGE; "" for PROFILER) */

enum sc_scope_window_flags {
    SC_SCOPE_OPEN_AT_END = 1u << 0, /* still open when capture ended: close_ns is the end */
};

typedef struct sc_rec_scope_window {
    uint64_t open_ns, close_ns;     /* CUPTI clock */
    uint32_t occurrence;    /* NVTX_RANGE: which occurrence of the range opened it, from 1,
                               the skipped ones counted; PROFILER: which cudaProfilerStart */
    uint32_t flags;         /* enum sc_scope_window_flags */
} sc_rec_scope_window;

/* Compact records (format 2.0): a kernel and its launch call in 56 bytes instead of 176.
 *
 * Most of a kernel record repeats from one launch of a kernel to the next (its grid, block,
 * registers, shared memory, name, stream, context, device, graph node), and most of an API
 * call record repeats from one call of a site to the next (its stream, thread, call, class,
 * flags). Those parts are declared once, under a small id, in a KERNEL_SHAPE or CALL_SITE
 * record; a KERNEL_COMPACT or CALL_COMPACT record then gives only what changes: the times, as
 * a difference from a TIME_BASE record, the correlation id and, for a call, the call whose
 * stack it shares (stacks are sampled, SC_API_STACK_SHARED: a compact call never has frames
 * of its own) and its context.
 *
 * Scope: a TIME_BASE, KERNEL_SHAPE or CALL_SITE record holds for the compact records that
 * follow it in the file, until the next TIME_BASE, or the next declaration of the same id.
 * The library's writer keeps each of its thread buffers self-contained (a buffer declares the
 * base and every id it uses, before using them, and starts over in the next buffer), and a
 * buffer reaches the file in one piece, so the buffers of several threads may be written in
 * any order. A compact record whose base or id was not declared before it makes the file
 * corrupt.
 *
 * What does not fit is written as a full KERNEL or API record, in the same place: a
 * duration of 2^32 ns or more (or an end before the start), a call with its own stack, with
 * a byte count, a second argument or a non-zero result, or ids past SC_COMPACT_MAX_ID. (A
 * start 2^31 ns or more from the base only makes the writer declare a new base.) A reader
 * expands every compact record into the KERNEL or API record it stands for, field for field:
 * nothing is lost, and the analysis cannot tell the two forms apart. */
#define SC_COMPACT_MAX_ID 65535u    /* the highest shape or site id */

typedef struct sc_rec_time_base {
    uint64_t base_ns;               /* CUPTI clock */
} sc_rec_time_base;

typedef struct sc_rec_kernel_shape {
    uint64_t graph_node_id;
    uint32_t id;                    /* 1 to SC_COMPACT_MAX_ID */
    uint32_t device, context_id, stream_id;
    int32_t grid_x, grid_y, grid_z;
    int32_t block_x, block_y, block_z;
    uint32_t registers_per_thread;
    uint32_t static_shared;
    uint32_t dynamic_shared;
    uint32_t name_id;
    uint32_t launch_type;
    uint32_t reserved;
} sc_rec_kernel_shape;              /* the sc_rec_kernel fields of the same names */

typedef struct sc_rec_kernel_compact {
    int32_t start_delta;            /* start_ns - the base */
    uint32_t duration;              /* end_ns - start_ns */
    uint32_t correlation_id;
    uint32_t shape_id;              /* a KERNEL_SHAPE id */
} sc_rec_kernel_compact;

typedef struct sc_rec_call_site {
    uint64_t stream;
    uint32_t tid;
    uint32_t flags;                 /* enum sc_api_flags: SC_API_STACK_SHARED or
                                       SC_API_STACK_SHARED_AUX2 says where `shared` goes */
    uint16_t domain, cbid, call_class;
    uint16_t id;                    /* 1 to SC_COMPACT_MAX_ID */
} sc_rec_call_site;                 /* the sc_rec_api fields of the same names */

typedef struct sc_rec_call_compact {
    int32_t start_delta;            /* start_ns - the base */
    uint32_t duration;              /* end_ns - start_ns */
    uint32_t correlation_id;
    uint32_t shared;                /* the stack-sharing call (aux, or aux2 per the site's
                                       flags); 0 with neither flag: a call without a stack */
    uint32_t site_id;               /* a CALL_SITE id */
    uint32_t context_id;
} sc_rec_call_compact;              /* bytes, the other aux, result, n_frames: 0 */

/* CUPTI's OVERHEAD activity: a stretch in which the driver or CUPTI did work of its own on a
 * thread. The kinds that matter to the analysis (CUpti_ActivityOverheadKind values):
 * loading a kernel's module on its first launch under lazy loading, and the host blocked
 * because the launch queue was full; the others (CUPTI's buffers and resources) say what
 * tracing itself cost. `correlation_id` is the API call it happened inside (0: none).
 * streamcheck writes one kind of its own, SC_OVERHEAD_STREAMCHECK_STACK: the time it spent
 * on the application's thread after a call returned, taking the call's stack (only for calls
 * that took one, sample.h); `correlation_id` is that call. The replay leaves it out of the
 * costs, which are about the program without streamcheck. */
enum sc_overhead_kind {
    SC_OVERHEAD_CUPTI_BUFFER_FLUSH = 1u << 16,
    SC_OVERHEAD_CUPTI_INSTRUMENTATION = 2u << 16,
    SC_OVERHEAD_CUPTI_RESOURCE = 3u << 16,
    SC_OVERHEAD_MODULE_LOADING = 4u << 16,      /* runtime-triggered module loading */
    SC_OVERHEAD_LAZY_FUNCTION_LOADING = 5u << 16,
    SC_OVERHEAD_COMMAND_BUFFER_FULL = 6u << 16,
    SC_OVERHEAD_ACTIVITY_BUFFER_REQUEST = 7u << 16,
    SC_OVERHEAD_STREAMCHECK_STACK = 0x5c5cu << 16, /* streamcheck's own; not a CUPTI value */
};

typedef struct sc_rec_overhead {
    uint64_t start_ns, end_ns;
    uint32_t kind;                  /* enum sc_overhead_kind (CUPTI's value, kept as is) */
    uint32_t object_kind;           /* CUpti_ActivityObjectKind: 1 process, 2 thread, 3 device,
                                       4 context, 5 stream */
    uint32_t object_id[3];          /* process/thread ids, or device, context, stream ids */
    uint32_t correlation_id;
} sc_rec_overhead;

/* Nothing is dropped without a count: what streamcheck could not record, one record per
 * cause. Written just before END (every cause the writer knows, zeros included, so a reader
 * tells "none lost" from "not counted") and by the fatal-signal flush. Counts are cumulative
 * from the start of capture: a reader keeps the last record of each cause. Device records
 * CUPTI itself dropped are sc_rec_end.dropped_records. */
typedef struct sc_rec_loss {
    uint32_t cause;                 /* enum sc_loss_cause */
    uint32_t reserved;
    uint64_t count;                 /* what was lost, in the unit the cause names */
} sc_rec_loss;

enum sc_loss_cause {
    SC_LOSS_TOO_LARGE = 1,          /* records larger than a thread buffer takes */
    SC_LOSS_AFTER_CLOSE = 2,        /* records that arrived after the trace was closed */
    SC_LOSS_NO_MEMORY = 3,          /* records lost for want of memory (a buffer, a name) */
    SC_LOSS_NVTX_DEPTH = 4,         /* push/pop ranges nested deeper than 64 on a thread */
    SC_LOSS_NVTX_OPEN = 5,          /* start/end ranges past 4096 open at once */
    SC_LOSS_NVTX_UNCLOSED = 6,      /* ranges still open at thread exit or process end */
    SC_LOSS_NVTX_UNMATCHED = 7,     /* pops and ends of ranges opened before capture began */
    SC_LOSS_NVTX_HANDLES = 8,       /* registered NVTX strings and domains past 1024: the
                                       ranges that use them are named "?" */
    SC_LOSS_NAMES = 9,              /* uses of a name that found its share of the string
                                       table full (4096 NVTX names, 32768 in all): recorded
                                       under an overflow bucket's name instead */
    SC_LOSS_CRASH_UNWRITTEN = 10,   /* records the fatal-signal flush could not write */
    SC_LOSS_CONTEXTS = 11,          /* contexts past 64: not synchronized at exit, so their
                                       last work may lack device records */
};
#define SC_LOSS_CAUSES 11           /* the highest cause this version writes */

#define SC_ASSERT_SIZE(type, size) _Static_assert(sizeof(type) == (size), #type " layout changed")
SC_ASSERT_SIZE(sc_file_header, 16);
SC_ASSERT_SIZE(sc_record_header, 8);
SC_ASSERT_SIZE(sc_rec_process, 32);
SC_ASSERT_SIZE(sc_rec_module, 48);
SC_ASSERT_SIZE(sc_rec_device, 56);
SC_ASSERT_SIZE(sc_rec_string, 8);
SC_ASSERT_SIZE(sc_rec_call_name, 8);
SC_ASSERT_SIZE(sc_rec_api, 72);
SC_ASSERT_SIZE(sc_rec_kernel, 88);
SC_ASSERT_SIZE(sc_rec_memcpy, 56);
SC_ASSERT_SIZE(sc_rec_memset, 48);
SC_ASSERT_SIZE(sc_rec_stream, 24);
SC_ASSERT_SIZE(sc_rec_sync, 40);
SC_ASSERT_SIZE(sc_rec_note, 8);
SC_ASSERT_SIZE(sc_rec_range, 32);
SC_ASSERT_SIZE(sc_rec_end, 40);
SC_ASSERT_SIZE(sc_rec_overhead, 40);
SC_ASSERT_SIZE(sc_rec_loss, 16);
SC_ASSERT_SIZE(sc_rec_unified, 48);
SC_ASSERT_SIZE(sc_rec_pystack, 8);
SC_ASSERT_SIZE(sc_py_frame, 16);
SC_ASSERT_SIZE(sc_rec_scope, 8);
SC_ASSERT_SIZE(sc_rec_scope_window, 24);
SC_ASSERT_SIZE(sc_rec_time_base, 8);
SC_ASSERT_SIZE(sc_rec_kernel_shape, 72);
SC_ASSERT_SIZE(sc_rec_kernel_compact, 16);
SC_ASSERT_SIZE(sc_rec_call_site, 24);
SC_ASSERT_SIZE(sc_rec_call_compact, 24);

#endif
