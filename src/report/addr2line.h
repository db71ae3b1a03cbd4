/* file:line for addresses, from binutils addr2line.
 *
 * The GPU machine has no libdw, so line tables are read by running addr2line once per module
 * with every address of that module batched. Missing addr2line is not an error: the report
 * just has no file:line. */
#ifndef SC_REPORT_ADDR2LINE_H
#define SC_REPORT_ADDR2LINE_H

#include <stddef.h>
#include <stdint.h>

/* Looks up `n` ELF virtual addresses of the file at `path`. files[i] gets a malloc'd source
 * path or NULL, lines[i] the line or 0. Returns 0, or -1 when addr2line could not be run
 * (then every entry is NULL/0). */
int sc_sym_addr2line(const char *path, const uint64_t *vaddrs, size_t n, char **files,
                     uint32_t *lines);

#endif
