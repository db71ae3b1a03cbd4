/* The preload library's settings, read from the environment once, in the constructor.
 *
 * Each setting has its own variable (STREAMCHECK_OUT, ...) and a key in STREAMCHECK_OPTIONS
 * (out=DIR:stack_depth=8, as ASAN_OPTIONS), for mpirun and containers where only one
 * variable can be passed on. The own variable wins: the wrapper sets STREAMCHECK_OUT and
 * STREAMCHECK_SUMMARY and must keep them whatever a user's STREAMCHECK_OPTIONS says. A bad
 * value or an unknown key costs one warning line and leaves that setting at its default;
 * the program itself is never affected. Reading allocates nothing. */
#ifndef SC_PRELOAD_OPTIONS_H
#define SC_PRELOAD_OPTIONS_H

#include <stdbool.h>

typedef struct sc_options {
    bool disabled;          /* STREAMCHECK_DISABLE=1: load, do nothing */
    bool summary;           /* STREAMCHECK_SUMMARY (default 1): name the trace on stderr at exit */
    int stack_depth;        /* STREAMCHECK_STACK_DEPTH (default 24, 0 = no stacks) */
    char out_dir[2048];     /* STREAMCHECK_OUT (default streamcheck-out): the output folder,
                               a pattern expanded when the trace is opened (out_path.h) */
    char cupti_path[2048];  /* STREAMCHECK_CUPTI: libcupti to use when none is loaded */
    char unwinder[16];      /* STREAMCHECK_UNWINDER: "libgcc", "libunwind", "" = choose */
    bool python;            /* STREAMCHECK_PYTHON (default 1): Python call sites (python.h) */
    bool compact;           /* STREAMCHECK_COMPACT (default 1): kernels and calls as compact
                               records, format 2.0; 0: full records only, format 1.5, for an
                               older streamcheck-report */
    bool tsc;               /* STREAMCHECK_TSC (default 1): calls timed by the CPU's counter,
                               converted to CUPTI's clock (clock.h); 0: CUPTI's clock */
    bool unified_memory;    /* STREAMCHECK_UNIFIED_MEMORY=1: trace managed-memory migrations
                               and GPU page faults (off by default: the driver's tracing
                               slows a program that faults, tests/samples/MEASURED.md) */
    /* Capture scope (scope.h): record only inside it. */
    char capture[16];       /* STREAMCHECK_CAPTURE: "all" (default) or "profiler": only
                               between cudaProfilerStart and cudaProfilerStop */
    char capture_range[256]; /* STREAMCHECK_CAPTURE_RANGE: only while an NVTX range of this
                               name is open on some thread ("" = none) */
    int capture_skip;       /* STREAMCHECK_CAPTURE_SKIP: capture_range's first N occurrences
                               (warm-up steps) are left out */
} sc_options;

#define SC_MAX_STACK_DEPTH 64

extern sc_options sc_opts;

/* Fills sc_opts from the environment, the first time only (the constructor and NVTX's
 * injection entry may both come first); warnings go to stderr, prefixed "streamcheck: ". */
void sc_options_read(void);

/* The work itself, for tests: fills *o from the environment and hands each warning (one
 * line, without prefix or newline) to warn. */
void sc_options_load(sc_options *o, void (*warn)(const char *line));

#endif
