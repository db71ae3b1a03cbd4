/* Symbolization for the report tool: module + function (+ offset) from the module's ELF
 * symbol table via libelf, demangled, and file:line from addr2line where the binary has line
 * info. Never in the application process. */
#ifndef SC_REPORT_SYMBOLIZE_H
#define SC_REPORT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/frame.h"
#include "streamcheck/trace.h"

typedef struct sc_symbolizer sc_symbolizer;

/* want_lines: also look up file:line (runs addr2line). */
sc_symbolizer *sc_sym_new(bool want_lines);
/* Frees the symbolizer and every string it handed out. */
void sc_sym_free(sc_symbolizer *sym);

/* Announces the addresses that are about to be printed, so that file:line lookups run once
 * per module with all of its addresses. Optional: without it frames get no file:line. */
void sc_sym_prepare(sc_symbolizer *sym, const sc_trace *trace, const uint64_t *addrs,
                    size_t n);

/* An sc_frame_resolver; ctx is the sc_symbolizer. A module whose file is gone or whose build
 * id differs from the recorded one resolves to nothing (the frame stays module+offset). */
bool sc_sym_resolve(void *ctx, const sc_trace *trace, uint64_t addr, sc_frame *out);

#endif
