/* The preload library's settings, read from the environment once, in the constructor. */
#ifndef SC_PRELOAD_OPTIONS_H
#define SC_PRELOAD_OPTIONS_H

#include <stdbool.h>

typedef struct sc_options {
    bool disabled;          /* STREAMCHECK_DISABLE=1: load, do nothing */
    bool summary;           /* STREAMCHECK_SUMMARY (default 1): name the trace on stderr at exit */
    int stack_depth;        /* STREAMCHECK_STACK_DEPTH (default 24, 0 = no stacks) */
    char out_dir[2048];     /* STREAMCHECK_OUT (default ./streamcheck-out) */
    char cupti_path[2048];  /* STREAMCHECK_CUPTI: libcupti to use when none is loaded */
    char unwinder[16];      /* STREAMCHECK_UNWINDER: "libgcc", "libunwind", "" = choose */
    bool unified_memory;    /* STREAMCHECK_UNIFIED_MEMORY=1: trace managed-memory migrations
                               and GPU page faults (off by default: the driver's tracing
                               slows a program that faults, tests/samples/MEASURED.md) */
} sc_options;

#define SC_MAX_STACK_DEPTH 64

extern sc_options sc_opts;

void sc_options_read(void);

#endif
