/* Reading a whole trace file into memory: the loader and streamcheck-report --dump both work
 * on the file as one buffer (records are checked and taken apart in place). */
#ifndef SC_TRACE_READ_FILE_H
#define SC_TRACE_READ_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Returns 0 with *data (malloc'd, the caller frees it) and *size, or -1 with *why: the
 * reason in words (strerror's, "not a regular file", "not a streamcheck trace (wrong
 * magic)", "read error" or "out of memory"), without the path, which each caller places in
 * its own message. Only a regular file is read (a FIFO or a device would hang or never
 * end), and only once its first bytes are a trace's magic. */
int sc_read_whole_file(const char *path, uint8_t **data, size_t *size, const char **why);

#endif
