/* Modules are cached by path and build id across all traces of one report run: the processes
 * of a run usually share their executable and libraries, and a big library's symbol table is
 * worth reading once. */
#include "report/symbolize.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/demangle.h"
#include "report/libdw_api.h"
#include "report/sym_dwarf.h"
#include "report/sym_file.h"
#include "report/sym_locate.h"
#include "report/sym_table.h"
#include "trace/grow.h"

/* demangle.c references the demangler weakly (sc_report_text needs no C++ runtime);
 * this strong reference makes the report tool's link keep libstdc++ under --as-needed. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
__attribute__((used)) static char *(*const sc_sym_demangler)(const char *, char *, size_t *,
                                                             int *) = __cxa_demangle;

typedef struct sym_entry {
    uint64_t lo, size;
    const char *name;           /* points into libelf's string table data */
} sym_entry;

typedef struct sym_module {
    char *path;
    uint8_t build_id[20];
    uint32_t build_id_size;
    sc_sym_located where;       /* the file read, or why there is none */
    int fd;
    Elf *elf;
    sym_entry *syms;
    size_t n_syms;
    sc_dwarf *dwarf;
    sc_sym_table table;         /* every address looked up so far */
    const sc_sym_file_module *stored;   /* from a .syms file, when the binary is unusable */
} sym_module;

struct sc_symbolizer {
    sym_module *mods;
    size_t n_mods, cap_mods;
    char **dirs;
    size_t n_dirs;
    char *debuginfo_path;       /* libdwfl's: ":.debug:DIR...:/usr/lib/debug" */
    sc_sym_file_module **files; /* loaded .syms files */
    size_t *file_lens;
    size_t n_files;
};

sc_symbolizer *sc_sym_new(const char *const *dirs, size_t n_dirs)
{
    sc_symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    elf_version(EV_CURRENT);
    size_t len = sizeof ":.debug:/usr/lib/debug";
    s->dirs = calloc(n_dirs ? n_dirs : 1, sizeof *s->dirs);
    for (size_t i = 0; s->dirs && i < n_dirs; i++) {
        s->dirs[s->n_dirs] = strdup(dirs[i]);
        if (s->dirs[s->n_dirs])
            len += strlen(dirs[s->n_dirs++]) + 1;
    }
    s->debuginfo_path = malloc(len);
    if (!s->dirs || !s->debuginfo_path) {
        sc_sym_free(s);
        return NULL;
    }
    /* Empty: the binary's own folder; .debug beside it; then the user's folders, whose
     * .build-id trees and debuglink targets come before the system's. */
    strcpy(s->debuginfo_path, ":.debug");
    for (size_t i = 0; i < s->n_dirs; i++) {
        strcat(s->debuginfo_path, ":");
        strcat(s->debuginfo_path, s->dirs[i]);
    }
    strcat(s->debuginfo_path, ":/usr/lib/debug");
    return s;
}

void sc_sym_free(sc_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_mods; i++) {
        sym_module *m = &s->mods[i];
        sc_sym_table_free(&m->table);
        sc_dwarf_close(m->dwarf);
        free(m->syms);
        if (m->elf)
            elf_end(m->elf);
        if (m->fd >= 0)
            close(m->fd);
        free(m->path);
        free(m->where.path);
    }
    for (size_t i = 0; i < s->n_files; i++)
        sc_sym_file_free(s->files[i], s->file_lens[i]);
    for (size_t i = 0; s->dirs && i < s->n_dirs; i++)
        free(s->dirs[i]);
    free(s->dirs);
    free(s->files);
    free(s->file_lens);
    free(s->debuginfo_path);
    free(s->mods);
    free(s);
}

/* ---- opening a module --------------------------------------------------------------- */

static int cmp_sym(const void *pa, const void *pb)
{
    const sym_entry *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    /* Of aliases at one address, the sized one first: it bounds lookups. */
    return (a->size == 0) - (b->size == 0);
}

/* Function symbols from .symtab, or .dynsym when the file is stripped. */
static void load_symbols(sym_module *m)
{
    Elf_Scn *scn = NULL, *best = NULL;
    GElf_Shdr best_sh = {0};
    while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !best)) {
            best = scn;
            best_sh = sh;
        }
    }
    if (!best || best_sh.sh_entsize == 0)
        return;
    Elf_Data *data = elf_getdata(best, NULL);
    if (!data)
        return;
    size_t count = best_sh.sh_size / best_sh.sh_entsize;
    m->syms = calloc(count ? count : 1, sizeof *m->syms);
    if (!m->syms)
        return;
    for (size_t i = 0; i < count; i++) {
        GElf_Sym st;
        if (!gelf_getsym(data, (int)i, &st))
            continue;
        int type = GELF_ST_TYPE(st.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || st.st_shndx == SHN_UNDEF ||
            st.st_value == 0)
            continue;
        const char *name = elf_strptr(m->elf, best_sh.sh_link, st.st_name);
        if (!name || !name[0])
            continue;
        m->syms[m->n_syms++] = (sym_entry){.lo = st.st_value, .size = st.st_size, .name = name};
    }
    qsort(m->syms, m->n_syms, sizeof *m->syms, cmp_sym);
}

/* A name the CUDA runtime gives its own functions: the API (cuda*), its registration and
 * launch helpers (__cuda*), its C++ namespace, the driver API (cu[A-Z]*), and the static
 * runtime's hashed internals (libcudart_static_<sha1>). */
static bool cudart_symbol(const char *name)
{
    static const char *const prefixes[] = {"cuda", "__cuda", "_ZN6cudart", "libcudart_static_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

/* The static CUDA runtime is linked into a program as one block of functions. A run of at
 * least CUDART_RUN consecutive functions (by address) with the runtime's names is taken as
 * the runtime, from the run's first function to its last one's end; a user's own function
 * called cudaSomething stands alone and marks nothing. */
#define CUDART_RUN 16

static void find_cuda_ranges(sym_module *m)
{
    size_t i = 0;
    while (i < m->n_syms) {
        if (!cudart_symbol(m->syms[i].name)) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < m->n_syms && cudart_symbol(m->syms[j + 1].name))
            j++;
        if (j + 1 - i >= CUDART_RUN) {
            sc_sym_range *r = realloc(m->table.cuda, (m->table.n_cuda + 1) * sizeof *r);
            if (!r)
                return;
            m->table.cuda = r;
            uint64_t end = m->syms[j].lo + (m->syms[j].size ? m->syms[j].size : 1);
            r[m->table.n_cuda++] = (sc_sym_range){m->syms[i].lo, end};
        }
        i = j + 1;
    }
}

static const sc_sym_file_module *stored_module(const sc_symbolizer *s, const sym_module *m)
{
    for (size_t f = 0; f < s->n_files; f++)
        for (size_t i = 0; i < s->file_lens[f]; i++) {
            const sc_sym_file_module *sm = &s->files[f][i];
            bool same = m->build_id_size
                            ? sm->build_id_size == m->build_id_size &&
                                  memcmp(sm->build_id, m->build_id, m->build_id_size) == 0
                            : sm->build_id_size == 0 && strcmp(sm->path, m->path) == 0;
            if (same)
                return sm;
        }
    return NULL;
}

static void open_module(sc_symbolizer *s, sym_module *m)
{
    sc_sym_locate(m->path, m->build_id, m->build_id_size, (const char *const *)s->dirs,
                  s->n_dirs, s->debuginfo_path, &m->where);
    m->fd = m->where.fd;
    if (m->fd >= 0) {
        m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
        if (m->elf && elf_kind(m->elf) == ELF_K_ELF) {
            load_symbols(m);
            find_cuda_ranges(m);
            m->dwarf = sc_dwarf_open(m->fd, m->where.path, s->debuginfo_path);
        } else {
            m->where.state = SC_SYM_NOT_ELF;
        }
    }
    if (m->where.state != SC_SYM_FOUND)
        m->stored = stored_module(s, m);
}

static sym_module *find_module(sc_symbolizer *s, const sc_module *tm)
{
    const char *path = tm->path ? tm->path : "";
    uint32_t idn = tm->rec.build_id_size <= 20 ? tm->rec.build_id_size : 20;
    for (size_t i = 0; i < s->n_mods; i++) {
        sym_module *m = &s->mods[i];
        if (m->build_id_size == idn && memcmp(m->build_id, tm->rec.build_id, idn) == 0 &&
            strcmp(m->path, path) == 0)
            return m;
    }
    if (!SC_GROW(s->mods, s->cap_mods, s->n_mods + 1, 16))
        return NULL;
    sym_module *m = &s->mods[s->n_mods];
    memset(m, 0, sizeof *m);
    m->fd = -1;
    m->path = strdup(path);
    if (!m->path)
        return NULL;
    memcpy(m->build_id, tm->rec.build_id, idn);
    m->build_id_size = idn;
    s->n_mods++;
    open_module(s, m);
    return m;
}

/* ---- lookups ------------------------------------------------------------------------ */

static sym_entry *find_symbol(sym_module *m, uint64_t vaddr)
{
    size_t lo = 0, hi = m->n_syms;
    while (lo < hi) {                   /* first symbol above vaddr */
        size_t mid = lo + (hi - lo) / 2;
        if (m->syms[mid].lo <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    size_t i = lo - 1;
    uint64_t at = m->syms[i].lo;
    while (i > 0 && m->syms[i - 1].lo == at)    /* the sized alias sorts first */
        i--;
    sym_entry *e = &m->syms[i];
    if (e->size && vaddr >= e->lo + e->size)
        return NULL;
    return e;
}

/* A return address points after the call; the call itself is one byte earlier. */
static uint64_t lookup_vaddr(uint64_t module_offset)
{
    return module_offset ? module_offset - 1 : 0;
}

/* The entry of `off` in the module's table, looked up in the binary the first time. */
static const sc_sym_addr *binary_entry(sym_module *m, uint64_t off)
{
    sc_sym_addr *a = sc_sym_table_find(&m->table, off);
    if (a)
        return a;
    if (!(a = sc_sym_table_insert(&m->table, off)))
        return NULL;
    uint64_t v = lookup_vaddr(off);
    sym_entry *e = find_symbol(m, v);
    if (e) {
        a->symbol = strdup(e->name);
        a->symbol_offset = off - e->lo;
    }
    a->n_chain = sc_dwarf_lookup(m->dwarf, v, a->chain, SC_SYM_MAX_INLINE);
    return a;
}

static const sc_sym_addr *module_entry(sym_module *m, uint64_t off)
{
    if (m->where.state == SC_SYM_FOUND)
        return binary_entry(m, off);
    /* The table is const for callers: only its display cache changes. */
    return m->stored ? sc_sym_table_find((sc_sym_table *)&m->stored->table, off) : NULL;
}

static const char *demangled(char **cache, const char *name)
{
    if (!*cache)
        *cache = sc_demangle(name);
    return *cache ? *cache : name;
}

/* Of an inline chain, the frame to show: the function the code was compiled into, at the
 * line that called into the inlined code. An inner entry is the CUDA headers' wrapper
 * (cuda_runtime.h's template cudaLaunchKernel) or nvcc's kernel stub inlined into the launch
 * site, which carries the kernel's own name and would hide the user's line; the whole chain
 * stays in the .syms file. */
static size_t shown_index(const sc_sym_addr *a)
{
    return a->n_chain ? a->n_chain - 1 : 0;
}

static void fill_frame(sc_sym_addr *a, sc_frame *out)
{
    if (!a->shown_done) {
        a->shown_done = true;
        a->shown_index = shown_index(a);
        bool outermost = a->n_chain == 0 || a->shown_index + 1 == a->n_chain;
        const char *name = outermost && a->symbol ? a->symbol
                           : a->n_chain ? a->chain[a->shown_index].function : NULL;
        if (name)
            demangled(&a->shown, name);
        if (name && !a->shown)
            a->shown = strdup(name);
    }
    if (a->shown) {
        out->function = a->shown;
        bool outermost = a->n_chain == 0 || a->shown_index + 1 == a->n_chain;
        out->offset = outermost && a->symbol ? a->symbol_offset : 0;
    }
    if (a->n_chain && a->chain[a->shown_index].file && a->chain[a->shown_index].line) {
        out->file = a->chain[a->shown_index].file;
        out->line = a->chain[a->shown_index].line;
    }
}

static const sc_sym_table *module_table(const sym_module *m)
{
    return m->where.state == SC_SYM_FOUND ? &m->table : m->stored ? &m->stored->table : NULL;
}

bool sc_sym_resolve(void *ctx, const sc_trace *trace, uint64_t addr, sc_frame *out)
{
    sc_symbolizer *s = ctx;
    const sc_module *tm = trace ? sc_trace_module_at(trace, addr) : NULL;
    if (!s || !tm)
        return false;
    sym_module *m = find_module(s, tm);
    if (!m)
        return false;
    uint64_t off = addr - tm->rec.bias;
    const sc_sym_table *t = module_table(m);
    if (t && sc_sym_table_in_cuda(t, lookup_vaddr(off)))
        out->cuda_internal = true;
    sc_sym_addr *a = (sc_sym_addr *)module_entry(m, off);
    if (!a)
        return out->cuda_internal;
    fill_frame(a, out);
    return out->function || out->file || out->cuda_internal;
}

/* ---- .syms files -------------------------------------------------------------------- */

int sc_sym_load_file(sc_symbolizer *s, const char *path, char *err, size_t err_size)
{
    sc_sym_file_module *mods;
    size_t n;
    if (sc_sym_file_read(path, &mods, &n, err, err_size) != 0)
        return -1;
    sc_sym_file_module **files = realloc(s->files, (s->n_files + 1) * sizeof *files);
    size_t *lens = files ? realloc(s->file_lens, (s->n_files + 1) * sizeof *lens) : NULL;
    if (files)
        s->files = files;
    if (lens)
        s->file_lens = lens;
    if (!files || !lens) {
        sc_sym_file_free(mods, n);
        snprintf(err, err_size, "%s: out of memory", path);
        return -1;
    }
    s->files[s->n_files] = mods;
    s->file_lens[s->n_files++] = n;
    /* Modules opened before the file came in learn of it now. */
    for (size_t i = 0; i < s->n_mods; i++)
        if (s->mods[i].where.state != SC_SYM_FOUND && !s->mods[i].stored)
            s->mods[i].stored = stored_module(s, &s->mods[i]);
    return 0;
}

static const char *state_text(const sym_module *m)
{
    if (m->where.state == SC_SYM_FOUND && !sc_libdw_get())
        return "no line reader (libdw.so.1 did not load)";
    if (m->where.state == SC_SYM_FOUND)
        return sc_dwarf_has_debug_info(m->dwarf) ? "resolved" : "no debug info";
    return sc_sym_state_text(m->where.state);
}

int sc_sym_save(sc_symbolizer *s, const sc_trace *trace, const char *path, char *err,
                size_t err_size)
{
    /* Every sampled frame, not only the ones a report prints: another view (--range, the
     * JSON's stacks) may want any of them. */
    for (size_t i = 0; i < trace->n_calls; i++) {
        const sc_api_call *c = &trace->calls[i];
        for (size_t j = 0; j < sc_call_n_frames(trace, c); j++) {
            sc_frame f = {0};
            sc_sym_resolve(s, trace, sc_call_frames(trace, c)[j], &f);
        }
    }
    sc_sym_file_module *out = calloc(trace->n_modules ? trace->n_modules : 1, sizeof *out);
    if (!out) {
        snprintf(err, err_size, "%s: out of memory", path);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < trace->n_modules; i++) {
        sym_module *m = find_module(s, &trace->modules[i]);
        const sc_sym_table *t = m ? module_table(m) : NULL;
        if (!t || (t->n == 0 && t->n_cuda == 0))
            continue;       /* nothing sampled in it, or nothing known */
        /* Shallow: the strings stay the symbolizer's. */
        out[n++] = (sc_sym_file_module){
            .path = m->path, .build_id_size = m->build_id_size,
            .status = (char *)(m->where.state == SC_SYM_FOUND ? state_text(m)
                                                              : m->stored->status),
            .table = *t};
        memcpy(out[n - 1].build_id, m->build_id, m->build_id_size);
    }
    int rc = sc_sym_file_write(path, out, n, err, err_size);
    free(out);
    return rc;
}

/* ---- how well it went --------------------------------------------------------------- */

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

void sc_sym_stats_of(sc_symbolizer *s, const sc_trace *trace, sc_sym_stats *st)
{
    memset(st, 0, sizeof *st);
    size_t total = 0;
    for (size_t i = 0; i < trace->n_calls; i++)
        total += sc_call_n_frames(trace, &trace->calls[i]);
    uint64_t *addrs = malloc((total ? total : 1) * sizeof *addrs);
    if (!addrs)
        return;
    size_t n = 0;
    for (size_t i = 0; i < trace->n_calls; i++)
        for (size_t j = 0; j < sc_call_n_frames(trace, &trace->calls[i]); j++)
            addrs[n++] = sc_call_frames(trace, &trace->calls[i])[j];
    qsort(addrs, n, sizeof *addrs, cmp_u64);
    for (size_t i = 0; i < n; i++) {
        if (i && addrs[i] == addrs[i - 1])
            continue;
        st->frames++;
        const sc_module *tm = sc_trace_module_at(trace, addrs[i]);
        sym_module *m = tm && s ? find_module(s, tm) : NULL;
        if (!m) {
            st->no_module++;
            continue;
        }
        if (m->where.state != SC_SYM_FOUND && !m->stored) {
            if (m->where.state == SC_SYM_WRONG_ID)
                st->wrong_build_id++;
            else
                st->no_binary++;
            continue;
        }
        const sc_sym_addr *a = module_entry(m, addrs[i] - tm->rec.bias);
        bool line = a && a->n_chain && a->chain[0].file && a->chain[0].line;
        if (line) {
            st->resolved++;
            st->stored += m->where.state != SC_SYM_FOUND;
        } else if (m->where.state == SC_SYM_FOUND && !sc_libdw_get()) {
            st->no_line_reader++;
        } else {
            st->no_debug_info++;
        }
    }
    free(addrs);
}

const char *sc_sym_stats_text(const sc_sym_stats *st, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%zu of %zu frames resolved to file:line", st->resolved,
                     st->frames);
    if (st->stored && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - k, " (%zu from the .syms file)", st->stored);
    size_t missing = st->frames - st->resolved;
    if (missing && k >= 0 && (size_t)k < n) {
        k += snprintf(buf + k, n - k, "; %zu not:", missing);
        const struct { size_t count; const char *why; } reasons[] = {
            {st->no_binary, "no binary"}, {st->wrong_build_id, "build-id mismatch"},
            {st->no_debug_info, "no debug info"}, {st->no_module, "outside every module"},
            {st->no_line_reader, "no line reader (libdw.so.1 did not load)"}};
        const char *sep = " ";
        for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++) {
            if (!reasons[i].count || k < 0 || (size_t)k >= n)
                continue;
            k += snprintf(buf + k, n - k, "%s%zu %s", sep, reasons[i].count, reasons[i].why);
            sep = ", ";
        }
    }
    return buf;
}
