/* Chrome/Perfetto trace export (`streamcheck-report --chrome FILE`): the Trace Event Format,
 * one JSON object {"displayTimeUnit", "otherData", "traceEvents": [...]}, opened by
 * ui.perfetto.dev (Open trace file) or chrome://tracing.
 *
 * Layout, for each process in the order given:
 *   a "host" process   app (pid 4242) host
 *       track "findings"                  instant events ("i", scope "t") at the first and
 *                                         worst instance of each finding; args rule,
 *                                         severity, cost, cost_ns, count, title, text, site
 *       track "thread T"                  its push/pop NVTX ranges, nested "X" events
 *       track "thread T: blocking calls"  the CUDA calls that held it (host_calls.h: the
 *                                         same calls the HTML timeline shows)
 *       start/end NVTX ranges             async events ("b"/"e", cat "nvtx"), since they may
 *                                         overlap without nesting
 *   a process per device  app (pid 4242) GPU 0: NVIDIA H200
 *       a track per stream that ran work or that the program created, named
 *       "stream 13 (non-blocking)": kernels ("X", short demangled name), copies, memsets
 *
 * Chrome pids and tids are numbered by the exporter (traces of one run can share an OS pid:
 * exec keeps it); the names carry the real pid and thread ids. Times ("ts", "dur") are
 * microseconds with nanosecond decimals, relative to the earliest event of all processes;
 * processes are aligned through the wall clock each recorded at start when all of them have
 * a process record. Events are written as they are produced (no document in memory), in
 * time order within each track. */
#ifndef SC_REPORT_CHROME_H
#define SC_REPORT_CHROME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/frame.h"
#include "streamcheck/analysis.h"

typedef struct sc_chrome_options {
    sc_frame_resolver resolve;  /* call sites of blocking calls and findings; NULL: module+off */
    void *resolve_ctx;
    const char *tool_version;   /* in otherData; NULL: left out */
} sc_chrome_options;

/* Writes the document for the n analyses to out. Returns 0, or -1 with a message in err
 * (out of memory, write error); the caller owns and closes out. */
int sc_chrome_write(FILE *out, const sc_analysis *const *analyses, size_t n,
                    const sc_chrome_options *opt, char *err, size_t err_size);

#endif
