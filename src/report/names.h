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
/* Parses "note", "warning", "error"; -1 if none of them. */
int sc_report_parse_severity(const char *name);

#endif
