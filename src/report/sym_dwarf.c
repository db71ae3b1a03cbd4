#include "report/sym_dwarf.h"

#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/libdw_api.h"

struct sc_dwarf {
    const sc_libdw *dw;
    Dwfl_Callbacks callbacks;   /* libdwfl keeps a pointer to it */
    char *debuginfo_path;       /* and to this */
    Dwfl *dwfl;
    Dwfl_Module *mod;
};

sc_dwarf *sc_dwarf_open(int fd, const char *path, const char *debuginfo_path)
{
    const sc_libdw *dw = sc_libdw_get();
    sc_dwarf *d = dw ? calloc(1, sizeof *d) : NULL;
    if (!d)
        return NULL;
    d->dw = dw;
    d->debuginfo_path = strdup(debuginfo_path ? debuginfo_path : "");
    d->callbacks.find_elf = dw->dwfl_build_id_find_elf;
    d->callbacks.find_debuginfo = dw->dwfl_standard_find_debuginfo;
    d->callbacks.section_address = dw->dwfl_offline_section_address;
    d->callbacks.debuginfo_path = &d->debuginfo_path;
    d->dwfl = d->debuginfo_path ? dw->dwfl_begin(&d->callbacks) : NULL;
    int own = d->dwfl ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (own < 0) {
        sc_dwarf_close(d);
        return NULL;
    }
    const char *base = strrchr(path, '/');
    dw->dwfl_report_begin(d->dwfl);
    /* Base 0 with add_p_vaddr: the module's addresses are its ELF virtual addresses, which
     * is what a trace's frames become once their load bias is taken off. */
    d->mod = dw->dwfl_report_elf(d->dwfl, base ? base + 1 : path, path, own, 0, true);
    dw->dwfl_report_end(d->dwfl, NULL, NULL);
    if (!d->mod) {
        close(own);             /* consumed only on success */
        sc_dwarf_close(d);
        return NULL;
    }
    return d;
}

void sc_dwarf_close(sc_dwarf *d)
{
    if (!d)
        return;
    if (d->dwfl)
        d->dw->dwfl_end(d->dwfl);
    free(d->debuginfo_path);
    free(d);
}

bool sc_dwarf_has_debug_info(sc_dwarf *d)
{
    Dwarf_Addr bias;
    return d && d->dw->dwfl_module_getdwarf(d->mod, &bias) != NULL;
}

void sc_sym_loc_free(sc_sym_loc *loc)
{
    free(loc->function);
    free(loc->file);
    memset(loc, 0, sizeof *loc);
}

/* The linkage name when there is one (it demangles to the full signature, as the symbol
 * table's name does), else the plain name; through DW_AT_abstract_origin for inlined copies. */
static const char *die_function_name(const sc_libdw *dw, Dwarf_Die *die)
{
    static const int attrs[] = {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name};
    const char *name = NULL;
    for (size_t i = 0; !name && i < sizeof attrs / sizeof attrs[0]; i++) {
        Dwarf_Attribute attr;
        name = dw->dwarf_formstring(dw->dwarf_attr_integrate(die, attrs[i], &attr));
    }
    return name;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Where an inlined copy was called from: DW_AT_call_file (an index into the CU's file table)
 * and DW_AT_call_line. */
static void call_site(const sc_libdw *dw, Dwarf_Die *cu, Dwarf_Die *inlined,
                      const char **file, int *line)
{
    Dwarf_Attribute attr;
    Dwarf_Word v;
    *file = NULL;
    *line = 0;
    if (dw->dwarf_formudata(dw->dwarf_attr(inlined, DW_AT_call_line, &attr), &v) == 0 &&
        v <= INT32_MAX)
        *line = (int)v;
    Dwarf_Files *files;
    size_t n_files;
    if (dw->dwarf_formudata(dw->dwarf_attr(inlined, DW_AT_call_file, &attr), &v) == 0 &&
        dw->dwarf_getsrcfiles(cu, &files, &n_files) == 0 && v < n_files)
        *file = dw->dwarf_filesrc(files, v, NULL, NULL);
}

size_t sc_dwarf_lookup(sc_dwarf *d, uint64_t vaddr, sc_sym_loc *chain, size_t cap)
{
    if (!d || cap == 0)
        return 0;
    const sc_libdw *dw = d->dw;
    Dwfl_Line *dl = dw->dwfl_module_getsrc(d->mod, vaddr);
    int line = 0;
    const char *file = dl ? dw->dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL) : NULL;
    if (!file || line <= 0)
        return 0;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dw->dwfl_module_addrdie(d->mod, vaddr, &bias);
    Dwarf_Die *scopes = NULL;
    int n = cu ? dw->dwarf_getscopes(cu, vaddr - bias, &scopes) : 0;
    size_t k = 0;
    bool open_call = false;     /* the last entry was inlined: its caller's line is pending */
    /* scopes run from the innermost out: each inlined subroutine holds the current line,
     * and its call site is the line in the scope around it. */
    for (int i = 0; i < n && k < cap; i++) {
        int tag = dw->dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        chain[k++] = (sc_sym_loc){.function = dup_or_null(die_function_name(dw, &scopes[i])),
                                  .file = dup_or_null(file), .line = (uint32_t)line};
        open_call = false;
        if (tag == DW_TAG_subprogram)
            break;
        call_site(dw, cu, &scopes[i], &file, &line);
        if (!file || line <= 0)
            break;
        open_call = true;
    }
    /* gcc does not always list the out-of-line function around an inlined copy among the
     * scopes; its line is the call site all the same, its name the symbol table's. */
    if (open_call && k < cap)
        chain[k++] = (sc_sym_loc){.file = dup_or_null(file), .line = (uint32_t)line};
    free(scopes);
    if (k == 0)
        chain[k++] = (sc_sym_loc){.file = dup_or_null(file), .line = (uint32_t)line};
    return k;
}
