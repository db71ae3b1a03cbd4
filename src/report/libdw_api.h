/* elfutils' libdw, loaded when first needed (dynlib.h): file:line, inline chains and the
 * debug-file search. Without it, frames resolve to function names from the symbol tables
 * (libelf) and the report counts the frames that stayed without a line, and why. */
#ifndef SC_REPORT_LIBDW_API_H
#define SC_REPORT_LIBDW_API_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#define SC_LIBDW_SONAME "libdw.so.1"
#define SC_LIBDW_ENV "STREAMCHECK_LIBDW"

/* X(name): every function the tool calls, or passes to libdwfl as a callback. */
#define SC_LIBDW_FUNCTIONS(X) \
    X(dwarf_attr) X(dwarf_attr_integrate) X(dwarf_filesrc) X(dwarf_formstring) \
    X(dwarf_formudata) X(dwarf_getscopes) X(dwarf_getsrcfiles) X(dwarf_tag) \
    X(dwfl_begin) X(dwfl_end) X(dwfl_lineinfo) X(dwfl_module_addrdie) \
    X(dwfl_module_getdwarf) X(dwfl_module_getelf) X(dwfl_module_getsrc) \
    X(dwfl_module_info) X(dwfl_module_report_build_id) X(dwfl_report_begin) \
    X(dwfl_report_elf) X(dwfl_report_end) X(dwfl_report_module) \
    X(dwfl_build_id_find_elf) X(dwfl_standard_find_debuginfo) \
    X(dwfl_offline_section_address)

typedef struct sc_libdw {
#define SC_LIBDW_SLOT(name) __typeof__(name) *name;
    SC_LIBDW_FUNCTIONS(SC_LIBDW_SLOT)
#undef SC_LIBDW_SLOT
} sc_libdw;

/* The functions, or NULL when libdw cannot be loaded. Safe from any thread. */
const sc_libdw *sc_libdw_get(void);

/* Why sc_libdw_get() is NULL ("" when it is not). */
const char *sc_libdw_missing(void);

#endif
