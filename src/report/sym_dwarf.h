/* file:line and inline chains of addresses, from a module's DWARF through elfutils' libdwfl.
 *
 * libdwfl finds the debug info beside or apart from the binary: in the binary itself, through
 * its .gnu_debuglink, in build-id directories (DIR/.build-id/xx/yyyy.debug) of the debuginfo
 * path, and from debuginfod servers when DEBUGINFOD_URLS is set (its own client). */
#ifndef SC_REPORT_SYM_DWARF_H
#define SC_REPORT_SYM_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One frame of an inline chain; strings are malloc'd. */
typedef struct sc_sym_loc {
    char *function;             /* as written in the DWARF (linkage name when there is one) */
    char *file;
    uint32_t line;
} sc_sym_loc;

#define SC_SYM_MAX_INLINE 8

typedef struct sc_dwarf sc_dwarf;

/* Opens the ELF file `fd` (not consumed) named `path`; `debuginfo_path` is libdwfl's search
 * path (":.debug:/usr/lib/debug", with --symbol-path folders in front). NULL on failure. */
sc_dwarf *sc_dwarf_open(int fd, const char *path, const char *debuginfo_path);
void sc_dwarf_close(sc_dwarf *d);

/* The source position of ELF virtual address `vaddr`, innermost first: chain[0] is the
 * code's own line (inside the innermost inlined function), each next entry the line that
 * called the previous one inline, the last one in the function the code was compiled into.
 * Returns the number of entries (0: no line information for the address). */
size_t sc_dwarf_lookup(sc_dwarf *d, uint64_t vaddr, sc_sym_loc *chain, size_t cap);

/* True when the module has DWARF at all (its own or a separate debug file). */
bool sc_dwarf_has_debug_info(sc_dwarf *d);

void sc_sym_loc_free(sc_sym_loc *loc);

#endif
