/* Stable names for enum values, shared by the text and JSON writers (JSON users match on
 * them, so they never change once released). */
#ifndef SC_REPORT_NAMES_H
#define SC_REPORT_NAMES_H

#include <stdint.h>

#include "streamcheck/analysis.h"

const char *sc_report_stream_kind(uint32_t flag);       /* "legacy", "blocking", ... */
const char *sc_report_status_name(enum sc_trace_status status);
const char *sc_report_note_name(uint32_t code);         /* "cupti-taken", ... */
const char *sc_report_attach_name(uint32_t attach);     /* "preload", "injection" */
/* CUPTI's copy kinds ("HtoD", ...) and memory kinds ("pageable", ...): "unknown" for kind 0
 * (CUPTI's own UNKNOWN), `beyond` for a kind past the table (a newer CUPTI's), which each
 * view words its own way. */
const char *sc_report_copy_kind(unsigned kind, const char *beyond);
const char *sc_report_memory_kind(unsigned kind, const char *beyond);
/* Parses "note", "warning", "error"; -1 if none of them. */
int sc_report_parse_severity(const char *name);

#endif
