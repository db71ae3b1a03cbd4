/* Symbolization for the report tool, never in the application process: function names from
 * the module's ELF symbol table (libelf), file:line and inline chains from its DWARF
 * (libdw, sym_dwarf.h), and, for a module whose binary is gone, what a .syms file stored
 * beside the trace right after the run (sym_file.h). */
#ifndef SC_REPORT_SYMBOLIZE_H
#define SC_REPORT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/frame.h"
#include "streamcheck/trace.h"

typedef struct sc_symbolizer sc_symbolizer;

/* dirs: --symbol-path folders, searched before the system's (may be NULL). */
sc_symbolizer *sc_sym_new(const char *const *dirs, size_t n_dirs);
/* Frees the symbolizer and every string it handed out. */
void sc_sym_free(sc_symbolizer *sym);

/* Adds what the .syms file at `path` stores; used for modules whose binary is not there (or
 * has another build id). 0, or -1 with a one-line reason in err. */
int sc_sym_load_file(sc_symbolizer *sym, const char *path, char *err, size_t err_size);

/* Resolves every sampled frame of `trace` and writes them to `path` (a .syms file). */
int sc_sym_save(sc_symbolizer *sym, const sc_trace *trace, const char *path, char *err,
                size_t err_size);

/* An sc_frame_resolver; ctx is the sc_symbolizer. A module whose file is gone or whose build
 * id differs from the recorded one resolves from a loaded .syms file or to nothing (the frame
 * stays module+offset). Sets out->cuda_internal inside the CUDA runtime linked into a
 * program, even where no symbol names the address. */
bool sc_sym_resolve(void *ctx, const sc_trace *trace, uint64_t addr, sc_frame *out);

/* How the trace's distinct sampled frames resolved. */
typedef struct sc_sym_stats {
    size_t frames;              /* distinct return addresses over every call's stack */
    size_t resolved;            /* with file:line */
    size_t no_binary;           /* the module's file is not there, nor stored */
    size_t wrong_build_id;      /* a file is there but was built from something else */
    size_t no_debug_info;       /* the binary is there but has no line for it */
    size_t no_line_reader;      /* the binary is there, but libdw (for lines) is not */
    size_t no_module;           /* outside every module the trace recorded */
    size_t stored;              /* resolved from a .syms file, of `resolved` */
} sc_sym_stats;

void sc_sym_stats_of(sc_symbolizer *sym, const sc_trace *trace, sc_sym_stats *out);
/* "symbols: 40 of 42 frames resolved to file:line; 2 not: 2 no debug info (libc.so.6)". */
const char *sc_sym_stats_text(const sc_sym_stats *st, char *buf, size_t n);

#endif
