/* NAME.sctrace.syms: the symbols of a trace's sampled frames, stored beside the trace right
 * after the run so that a trace moved to another machine keeps its function names and
 * file:line (streamcheck-report(1), SYMBOLS).
 *
 * A JSON object: {"format": "streamcheck-syms", "version": 1, "modules": [{"path",
 * "build_id" (hex), "status", "cuda_ranges": [["0xLO", "0xHI"]], "frames": [{"offset"
 * (hex, the return address's module offset), "symbol", "symbol_offset", "inline":
 * [{"function", "file", "line"}] innermost first}]}]}. A reader refuses a newer version. */
#ifndef SC_REPORT_SYM_FILE_H
#define SC_REPORT_SYM_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "report/sym_table.h"

#define SC_SYM_FILE_VERSION 1

typedef struct sc_sym_file_module {
    char *path;
    uint8_t build_id[20];
    uint32_t build_id_size;
    char *status;               /* what the writer could read: "resolved", "no binary" */
    sc_sym_table table;
} sc_sym_file_module;

/* Reads `path` (a regular file only). Returns 0 with *mods and *n filled, or -1 with a one-line
 * reason in err. Entries it does not understand are skipped. */
int sc_sym_file_read(const char *path, sc_sym_file_module **mods, size_t *n, char *err,
                     size_t err_size);
/* Frees the modules and the array. */
void sc_sym_file_free(sc_sym_file_module *mods, size_t n);

/* Writes `n` modules to `path` (through path.partial and a rename). 0, or -1 with err. */
int sc_sym_file_write(const char *path, const sc_sym_file_module *mods, size_t n, char *err,
                      size_t err_size);

#endif
