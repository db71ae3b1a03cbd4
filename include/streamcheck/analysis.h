/* What the analyzer makes of one trace: overlap metrics and findings.
 *
 * The analyzer is pure C with no CUDA at run time. It reads an sc_trace (trace.h), walks the
 * events once in time order with bounded state, and fills an sc_analysis. Same trace in,
 * same analysis out (deterministic: ties are broken by record order, never by pointers).
 * Report writers only format what is here; they compute nothing of their own.
 */
#ifndef STREAMCHECK_ANALYSIS_H
#define STREAMCHECK_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

/* Overlap metrics of one scope: a device, a stream, an NVTX range (or a name's ranges). */
typedef struct sc_overlap {
    uint64_t first_ns, last_ns;     /* span: first kernel start to last kernel end */
    uint64_t busy_ns;               /* union of kernel intervals */
    uint64_t kernel_sum_ns;         /* summed kernel durations */
    uint64_t kernel_count;
    double concurrency;             /* kernel_sum_ns / busy_ns; 0 when busy_ns is 0 */
    uint64_t overlap_ns;            /* time in which two or more kernels ran */
    /* Productive overlap: what the same kernels would take one after another. A kernel that
     * ran alone counts its own duration; one that shared the device counts the median of
     * its instances that ran alone (same name and launch shape), or, with none, its own
     * duration (solo time unknown). */
    uint64_t solo_sum_ns;
    uint64_t solo_known;            /* kernels whose solo time is known */
    double speedup;                 /* solo_sum_ns / busy_ns: > 1 means overlap paid */
    uint64_t copy_busy_ns;          /* union of copy and memset intervals */
    uint64_t copy_compute_ns;       /* time a copy and a kernel ran at once */
    /* Idle gaps: stretches inside the span (first to last start/end of any kernel, copy or
     * memset of the scope; zero-length work is left out) in which none of them ran. idle_ns
     * is all of that time, so union of the work + idle_ns = that span exactly. A gap is one
     * maximal idle stretch of at least SC_GAP_MIN_NS: back-to-back work on a fed queue leaves
     * sub-microsecond seams (launch turnaround) that say nothing about starvation, so they
     * add to idle_ns but are neither counted nor the longest gap. */
    uint64_t idle_ns;
    uint64_t gap_count;             /* gaps of at least SC_GAP_MIN_NS */
    uint64_t longest_gap_ns;        /* the longest of them; 0 when there is none */
} sc_overlap;

#define SC_GAP_MIN_NS 1000u         /* 1 us: the shortest idle stretch that counts as a gap */

/* A stretch of time in which two or more kernels ran on one device. */
typedef struct sc_overlap_interval {
    uint64_t start_ns, end_ns;
    uint32_t device;
    uint32_t max_kernels;           /* most kernels running at once inside it */
    size_t kernel_a, kernel_b;      /* indices into trace->kernels of two that overlapped */
} sc_overlap_interval;

typedef struct sc_stream_summary {
    uint32_t device, context_id, stream_id;
    uint32_t flag;                  /* enum sc_stream_flag */
    int32_t priority;
    const sc_api_call *created_by;  /* the creating call, NULL if unknown or implicit */
    sc_overlap overlap;
    uint64_t copy_count, memset_count;
    /* A thread's default stream under nvcc --default-stream per-thread: its work was issued to
     * cudaStreamPerThread (handle 0 in a _ptsz/_ptds call, or 0x2). It is not the legacy
     * stream whatever its flag says, and it synchronizes with the legacy stream like a
     * blocking stream. Reports show its kind as "per-thread". */
    bool per_thread;
} sc_stream_summary;

#define SC_MAX_INTERVALS 1000       /* per device; n_intervals_total counts them all */

/* Communication kernels of one device (NCCL's, by name: sc_kernel_is_comm). Their time is
 * measured here and left out of the device's `overlap` (busy, concurrency, intervals, solo
 * and productive, idle gaps): a collective waiting for its peers is neither compute nor
 * overlap. Streams and NVTX ranges still count them as kernels. */
typedef struct sc_comm {
    uint64_t kernel_count;
    uint64_t kernel_sum_ns;         /* summed durations */
    uint64_t busy_ns;               /* union of their intervals */
    uint64_t overlapped_ns;         /* of busy_ns: time a compute kernel of the device ran too */
    uint64_t exposed_ns;            /* busy_ns - overlapped_ns: communication nothing hid */
} sc_comm;

/* Copies of one device in one direction, and their rate while they ran. */
typedef enum sc_copy_dir {
    SC_COPY_DIR_HTOD = 0,           /* host to this device */
    SC_COPY_DIR_DTOH = 1,           /* this device to host */
    SC_COPY_DIR_PEER = 2,           /* direct peer copies (CUPTI's PtoP) this device's stream
                                       issued, to or from another device */
    SC_COPY_DIRS = 3,
} sc_copy_dir;

typedef struct sc_copy_rate {
    uint64_t count, bytes;
    uint64_t time_ns;               /* summed durations */
    double bytes_per_s;             /* bytes / time_ns: the rate while copying; 0 when none */
} sc_copy_rate;

typedef struct sc_device_summary {
    uint32_t device;
    const sc_device *info;          /* NULL if the trace has no device record */
    sc_overlap overlap;             /* compute kernels only: communication is in comm */
    sc_comm comm;
    /* by sc_copy_dir; the halves of a peer copy staged through host memory (peer-access)
     * are in none: they move no bytes between host and device at the host's rate */
    sc_copy_rate copy_rates[SC_COPY_DIRS];
    sc_overlap_interval *intervals; /* the first SC_MAX_INTERVALS, in time order */
    size_t n_intervals;
    size_t n_intervals_total;
} sc_device_summary;

typedef enum sc_severity { SC_SEV_NOTE = 0, SC_SEV_WARNING = 1, SC_SEV_ERROR = 2 } sc_severity;

/* A named number that backs a finding: "bytes", "wait_us", "host_blocked_us", ... */
typedef struct sc_evidence {
    const char *key;                /* stable, snake_case: used as a JSON key */
    double value;
    const char *unit;               /* "us", "bytes", "count", "ratio", "" */
} sc_evidence;

#define SC_MAX_EVIDENCE 10

/* One occurrence of a finding. */
typedef struct sc_instance {
    uint64_t start_ns, end_ns;
    uint64_t cost_ns;
    const sc_api_call *call;        /* the call that caused it, or NULL */
    /* The call whose stack is its site: the call itself, or, where its stack was not sampled
     * (SC_API_STACK_SHARED*), the sampled call of the same class, stream and thread. */
    const sc_api_call *site;
    char *text;                     /* one line, what happened here: never cut (writers wrap
                                       or ellipsize it for display); owned by the analysis */
    sc_evidence evidence[SC_MAX_EVIDENCE];
    size_t n_evidence;
} sc_instance;

/* A call site: occurrences deduplicated by their stack. */
typedef struct sc_site {
    const sc_api_call *call;        /* a representative call; its frames identify the site */
    uint64_t count;
    uint64_t cost_ns;
} sc_site;

#define SC_MAX_SITES 5

/* Severity follows what the fix would save, as a share of the run (streamcheck-rules(7)):
 * an error saves at least SC_ERROR_SHARE of the run and SC_ERROR_MIN_NS, a warning at least
 * SC_WARNING_SHARE and SC_WARNING_MIN_NS; anything less, a saving of nothing included, is a
 * note. */
#define SC_ERROR_SHARE 0.05
#define SC_ERROR_MIN_NS 100000u     /* 100 us */
#define SC_WARNING_SHARE 0.01
#define SC_WARNING_MIN_NS 20000u    /* 20 us */

typedef struct sc_finding {
    const char *rule;               /* stable id: "legacy-stream", "pageable-async", ... */
    sc_severity severity;
    char *title;                    /* one line, what is wrong with the key number: never cut
                                       (writers wrap or ellipsize it for display); kernels
                                       named as the sc_analyze_options hook wrote them; owned
                                       by the analysis */
    const char *fix;                /* one line: what to change */
    uint64_t count;
    /* What fixing it would save: the run replayed as recorded minus the run replayed
     * without this killer (replay.h). Instances and sites share it in proportion to what
     * each of them measured (waited_ns). */
    uint64_t cost_ns;
    double share;                   /* cost_ns / the run's span */
    uint64_t waited_ns;             /* what its instances measured: waits, device idle */
    /* It waited, but removing the wait saves (almost) nothing: the run, or a later
     * synchronization, waits for the same work anyway. A join the program needs. */
    bool join;
    /* Another finding describes the same wait (legacy-stream and blocking-stream): the
     * saving is one, shown on both, counted once. NULL when none. */
    const char *same_wait_as;
    sc_instance first, worst;
    sc_site sites[SC_MAX_SITES];    /* by cost, then count */
    size_t n_sites;
    sc_evidence totals[SC_MAX_EVIDENCE];
    size_t n_totals;
} sc_finding;

/* A finding's share of one NVTX range: its instances whose call (or, without one, whose
 * device work) started inside the range. Its rule is its finding's (sc_range_finding_rule),
 * not kept again here: a range holds eight of these, and a long run has hundreds of thousands
 * of ranges (the 10M-record synthetic trace 192,250). */
typedef struct sc_range_finding {
    uint64_t count;
    uint64_t cost_ns;
    uint32_t finding;               /* index into sc_analysis.findings */
    sc_severity severity;           /* the finding's as the analysis rated it (a view that
                                       keeps the findings inside --range rates those again) */
} sc_range_finding;

#define SC_MAX_RANGE_FINDINGS 8

/* Metrics of one NVTX range. The range is host time; its device work is the work *issued*
 * inside it (the launch, copy or memset call started within the range on the range's
 * thread for push/pop ranges, on any thread for start/end ranges), wherever that work ran.
 * Work whose call is not in the trace belongs by its own start time, on any thread. Both
 * ends are inclusive; nested ranges each count the work (an outer range counts its inner
 * ranges' work too). Start/end ranges have depth UINT32_MAX (not bound to a thread). */
typedef struct sc_range_summary {
    const sc_range *range;          /* name, domain, thread, host start/end, depth */
    uint64_t wall_ns;               /* the range's host duration */
    uint64_t call_count;            /* API calls started inside it (same thread rule as the
                                       work), one per correlation id: a driver call made by
                                       a runtime call is not counted again */
    /* Over the device work issued inside it, all devices as one timeline: busy, overlap and
     * gaps are measured across devices (a kernel on device 1 fills a gap on device 0). */
    sc_overlap overlap;
    uint64_t copy_count, memset_count;
    sc_range_finding findings[SC_MAX_RANGE_FINDINGS];   /* by cost, largest first */
    size_t n_findings;
    /* The range's wall time replayed as recorded and with every finding fixed (0 when the
     * replay did not run): their difference is what the fixes would save inside it. */
    uint64_t replay_wall_ns, fixed_wall_ns;
} sc_range_summary;

/* The ranges of one name (and domain) together: a training loop has thousands of "step"
 * ranges. Counts and times are sums over the ranges, so nested or concurrent ranges of one
 * name count shared work more than once; concurrency and speedup are recomputed from the
 * sums (sum of kernel time / sum of busy time); first_ns/last_ns are the earliest kernel
 * start and latest kernel end of any of them, longest_gap_ns the longest of any of them. */
typedef struct sc_range_name_summary {
    const char *name;
    const char *domain;             /* NULL for the default domain */
    uint64_t count;                 /* ranges */
    uint64_t wall_ns, max_wall_ns;  /* summed, longest */
    uint64_t call_count;
    sc_overlap overlap;
    uint64_t copy_count, memset_count;
    sc_range_finding findings[SC_MAX_RANGE_FINDINGS];   /* summed per finding, by cost */
    size_t n_findings;
} sc_range_name_summary;

/* The replay that costs the findings (replay.h in the analyzer): how well it reproduces the
 * recorded run, and the run with every finding fixed. */
typedef struct sc_replay_summary {
    bool done;                  /* false: nothing to replay (no calls, no device work) */
    uint64_t recorded_span_ns;  /* the run's span as recorded */
    uint64_t replay_span_ns;    /* the run replayed unchanged by the model */
    double error;               /* (replay - recorded) / recorded, signed */
    bool trusted;               /* |error| <= SC_REPLAY_TRUST */
    uint64_t tool_ns;           /* streamcheck's own time on the host: the stacks it took
                                   after calls (OVERHEAD records of its own kind) */
    uint64_t tool_calls;        /* calls whose stack that was */
    uint64_t tracer_ns;         /* what tracing adds to calls of the classes it is measured
                                   for (CUPTI's and streamcheck's callbacks: tracer_cost.h) */
    uint64_t tracer_calls;      /* calls that time was taken from */
    uint64_t plain_span_ns;     /* the run replayed unchanged without either: the base every
                                   cost is measured from */
    uint64_t fixed_span_ns;     /* replayed with every finding's fix applied (and without
                                   streamcheck's own time) */
    uint64_t ops, calls;        /* device work and host calls in the graph */
    uint64_t held;              /* work held by other work for a reason the trace does not
                                   name (room, a module load): kept, with its lag */
    uint64_t unexplained;       /* work that started later than the model explains and after
                                   no other work: its delay is kept as recorded */
    uint64_t unexplained_ns;    /* those delays, summed */
} sc_replay_summary;

#define SC_REPLAY_TRUST 0.05        /* within 5% of the recorded span */

typedef struct sc_analysis {
    const sc_trace *trace;
    uint64_t run_start_ns, run_end_ns;  /* first to last event of any kind */
    sc_device_summary *devices;  size_t n_devices;   /* by device ordinal */
    sc_stream_summary *streams;  size_t n_streams;   /* by device, then stream id */
    sc_finding *findings;        size_t n_findings;  /* by cost, largest first */
    sc_range_summary *ranges;    size_t n_ranges;    /* in trace->ranges order (by start) */
    sc_range_name_summary *range_names; size_t n_range_names; /* by summed wall time, largest
                                                                  first; then first seen */
    sc_replay_summary replay;
} sc_analysis;

/* The rule of a range's finding f, a range of analysis a; NULL where f names no finding of a. */
static inline const char *sc_range_finding_rule(const sc_analysis *a, const sc_range_finding *f)
{
    return f->finding < a->n_findings ? a->findings[f->finding].rule : NULL;
}

/* True for a communication kernel: NCCL's, by its (mangled or plain) name (comm.c says
 * which names over NCCL's versions). */
bool sc_kernel_is_comm(const char *name);

/* How findings write a kernel's name: a malloc'd name (the analysis frees it) or NULL to keep
 * the name as recorded. The report tool passes its demangler, so titles read
 * "sweep_kernel", not "_Z12sweep_kernelP6float4mi", while the analyzer links no C++
 * runtime. Called once per distinct name. */
typedef char *(*sc_kernel_name_fn)(const char *recorded);

typedef struct sc_analyze_options {
    sc_kernel_name_fn kernel_name;  /* NULL: kernels named as recorded */
    bool two_threads;               /* build some parts (two of the context's indexes at a
                                       time, one rule beside the others) on a second thread:
                                       the same analysis, sooner, where a core is free */
} sc_analyze_options;

/* Returns 0, or -1 with a message in err (out of memory, inconsistent trace). opt may be
 * NULL (all defaults); sc_analyze() is sc_analyze_with() without options. */
int sc_analyze_with(const sc_trace *trace, const sc_analyze_options *opt, sc_analysis *out,
                    char *err, size_t err_size);
int sc_analyze(const sc_trace *trace, sc_analysis *out, char *err, size_t err_size);
void sc_analysis_free(sc_analysis *analysis);

/* A call's Python site: the frame of the user's own code, the innermost outside installed
 * packages (site-packages, dist-packages), the standard library (lib/python3.X) and frozen
 * modules (<frozen ...>); when every frame is a library's, the outermost. NULL when the stack
 * has no frames. Findings group their sites by it: one line to change, one site. */
bool sc_pyframe_is_library(const char *file);
const sc_pyframe *sc_pystack_user_frame(const sc_pystack *stack);

const char *sc_severity_name(sc_severity severity);   /* "note", "warning", "error" */
/* The rules the analyzer runs, by their stable ids ("legacy-stream", ...): i < count. */
size_t sc_rule_count(void);
const char *sc_rule_id(size_t i);

#endif
