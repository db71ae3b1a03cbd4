/* The capture scope a trace was recorded with (trace_format.h, SC_REC_SCOPE), in words:
 * the text header's "scope:" line and the JSON's "scope" object say the same. */
#ifndef SC_REPORT_SCOPE_H
#define SC_REPORT_SCOPE_H

#include <stddef.h>

#include "streamcheck/trace.h"

/* "nvtx-range" or "profiler" (stable: JSON users match on it), "unknown" for a newer one. */
const char *sc_report_scope_mode_name(uint32_t mode);
/* "recorded only inside NVTX range 'step', after skipping 2: 3 windows, 41.2 ms" into buf;
 * returns buf, or NULL when the trace was recorded whole. */
const char *sc_report_scope_text(const sc_trace *t, char *buf, size_t size);

#endif
