/* A rank summary as a file: JSON, schema "streamcheck-summary/1" (streamcheck-json(5)). */
#ifndef SC_REPORT_RANK_FILE_H
#define SC_REPORT_RANK_FILE_H

#include <jansson.h>
#include <stddef.h>

#include "report/ranks.h"

/* A rank's findings as a JSON array of {rule, severity, count, cost_ns}: in the file, and in
 * the merged report's slowest rank (ranks_json.c). */
json_t *sc_rank_findings_json(const sc_rank_finding *findings, size_t n);

/* Writes s to path (as PATH.tmp, renamed when whole). Returns 0, or -1 with a message. */
int sc_rank_file_write(const char *path, const sc_rank_summary *s, char *err, size_t err_size);

/* Reads a summary. A file of a newer major schema ("streamcheck-summary/2") or one that is
 * not a summary is refused with a message; unknown members are ignored (newer minor
 * additions). Returns 0, or -1 with a message in err. */
int sc_rank_file_read(const char *path, sc_rank_summary *out, char *err, size_t err_size);

#endif
