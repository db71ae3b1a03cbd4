/* streamcheck-report --dump: the raw records of a trace, one line each, in file order.
 *
 * Deliberately independent of the loader (trace/reader.c): the loader sorts, joins and
 * refuses a corrupt file as a whole, while a dump is what one reaches for when the loader's
 * picture looks wrong, so it shows the bytes as written and everything before the damage. */
#ifndef SC_REPORT_DUMP_H
#define SC_REPORT_DUMP_H

#include <stdio.h>

/* Prints the file header, the trace's status and one line per record of `path` to out.
 * A truncated last record ends the dump with a line that says so and still returns 0 (the
 * report reads such a file too). Returns -1 after a message on stderr when the file cannot
 * be read, is not a trace, has another major version, or is corrupt (then the records
 * before the damage and a line naming it are printed first). */
int sc_dump_trace(FILE *out, const char *path);

#endif
