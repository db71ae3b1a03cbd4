/* Modules are cached by path and build id across all traces of one report run: the processes
 * of a run usually share their executable and libraries, and a big library's symbol table is
 * worth reading once. */
#include "report/symbolize.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/addr2line.h"
#include "report/demangle.h"

/* demangle.c references the demangler weakly (sc_report_text needs no C++ runtime);
 * this strong reference makes the report tool's link keep libstdc++ under --as-needed. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
__attribute__((used)) static char *(*const sc_sym_demangler)(const char *, char *, size_t *,
                                                             int *) = __cxa_demangle;

typedef struct sym_entry {
    uint64_t lo, size;
    const char *name;           /* points into libelf's string table data */
    char *demangled;            /* lazily; NULL until asked or when not mangled */
    bool tried;
} sym_entry;

typedef struct line_entry {
    uint64_t vaddr;             /* the looked-up address (return address - 1) */
    char *file;                 /* NULL: asked, unknown */
    uint32_t line;
} line_entry;

enum { MOD_UNOPENED, MOD_USABLE, MOD_UNUSABLE };

typedef struct sym_module {
    char *path;
    uint8_t build_id[20];
    uint32_t build_id_size;
    int state;
    int fd;
    Elf *elf;
    sym_entry *syms;
    size_t n_syms;
    line_entry *lines;
    size_t n_lines;
    bool no_lines;              /* addr2line failed once for this module: do not retry */
} sym_module;

struct sc_symbolizer {
    sym_module *mods;
    size_t n_mods, cap_mods;
    bool want_lines;
};

sc_symbolizer *sc_sym_new(bool want_lines)
{
    sc_symbolizer *s = calloc(1, sizeof *s);
    if (s)
        s->want_lines = want_lines;
    elf_version(EV_CURRENT);
    return s;
}

void sc_sym_free(sc_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_mods; i++) {
        sym_module *m = &s->mods[i];
        for (size_t j = 0; j < m->n_syms; j++)
            free(m->syms[j].demangled);
        for (size_t j = 0; j < m->n_lines; j++)
            free(m->lines[j].file);
        free(m->syms);
        free(m->lines);
        if (m->elf)
            elf_end(m->elf);
        if (m->fd >= 0)
            close(m->fd);
        free(m->path);
    }
    free(s->mods);
    free(s);
}

/* ---- opening a module --------------------------------------------------------------- */

/* The GNU build id of the file; 0 bytes when it has none. */
static size_t elf_build_id(Elf *elf, uint8_t *out, size_t cap)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data)
            continue;
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0) {
                size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;
                memcpy(out, (char *)data->d_buf + desc_off, n);
                return n;
            }
        }
    }
    return 0;
}

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

static void open_module(sym_module *m)
{
    m->state = MOD_UNUSABLE;
    if (!m->path[0])
        return;
    /* A trace names its modules' paths; only a regular file is read (O_NONBLOCK: opening a
     * FIFO of that name would wait for a writer forever). */
    m->fd = open(m->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (m->fd < 0)
        return;     /* gone since the run: module+offset is all we can say, quietly */
    struct stat st;
    if (fstat(m->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
    if (!m->elf || elf_kind(m->elf) != ELF_K_ELF)
        return;
    if (m->build_id_size > 0) {
        uint8_t id[20];
        size_t n = elf_build_id(m->elf, id, sizeof id);
        /* A rebuilt file at the same path would give confident, wrong names. */
        if (n != m->build_id_size || memcmp(id, m->build_id, n) != 0)
            return;
    }
    load_symbols(m);
    m->state = MOD_USABLE;
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
    if (s->n_mods == s->cap_mods) {
        size_t cap = s->cap_mods ? 2 * s->cap_mods : 16;
        sym_module *mods = realloc(s->mods, cap * sizeof *mods);
        if (!mods)
            return NULL;
        s->mods = mods;
        s->cap_mods = cap;
    }
    sym_module *m = &s->mods[s->n_mods];
    memset(m, 0, sizeof *m);
    m->fd = -1;
    m->path = strdup(path);
    if (!m->path)
        return NULL;
    memcpy(m->build_id, tm->rec.build_id, idn);
    m->build_id_size = idn;
    s->n_mods++;
    open_module(m);
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

static line_entry *find_line(sym_module *m, uint64_t vaddr)
{
    size_t lo = 0, hi = m->n_lines;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->lines[mid].vaddr < vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n_lines && m->lines[lo].vaddr == vaddr ? &m->lines[lo] : NULL;
}

/* A return address points after the call; the call itself is one byte earlier. */
static uint64_t lookup_vaddr(uint64_t module_offset)
{
    return module_offset ? module_offset - 1 : 0;
}

bool sc_sym_resolve(void *ctx, const sc_trace *trace, uint64_t addr, sc_frame *out)
{
    sc_symbolizer *s = ctx;
    const sc_module *tm = trace ? sc_trace_module_at(trace, addr) : NULL;
    if (!s || !tm)
        return false;
    sym_module *m = find_module(s, tm);
    if (!m || m->state != MOD_USABLE)
        return false;
    uint64_t off = addr - tm->rec.bias;
    uint64_t v = lookup_vaddr(off);
    bool found = false;
    sym_entry *e = find_symbol(m, v);
    if (e) {
        if (!e->tried) {
            e->demangled = sc_demangle(e->name);
            e->tried = true;
        }
        out->function = e->demangled ? e->demangled : e->name;
        out->offset = off - e->lo;
        found = true;
    }
    line_entry *l = find_line(m, v);
    if (l && l->file) {
        out->file = l->file;
        out->line = l->line;
        found = true;
    }
    return found;
}

/* ---- batched file:line -------------------------------------------------------------- */

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

static int cmp_line(const void *pa, const void *pb)
{
    return cmp_u64(&((const line_entry *)pa)->vaddr, &((const line_entry *)pb)->vaddr);
}

/* Looks up the not yet known addresses of one module in one addr2line run. */
static void lines_for_module(sym_module *m, uint64_t *vaddrs, size_t n)
{
    qsort(vaddrs, n, sizeof *vaddrs, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((k == 0 || vaddrs[k - 1] != vaddrs[i]) && !find_line(m, vaddrs[i]))
            vaddrs[k++] = vaddrs[i];
    if (k == 0)
        return;
    char **files = calloc(k, sizeof *files);
    uint32_t *lines = calloc(k, sizeof *lines);
    line_entry *grown = realloc(m->lines, (m->n_lines + k) * sizeof *grown);
    if (!files || !lines || !grown) {
        free(files);
        free(lines);
        if (grown)
            m->lines = grown;
        return;
    }
    m->lines = grown;
    if (sc_sym_addr2line(m->path, vaddrs, k, files, lines) != 0)
        m->no_lines = true;     /* no addr2line, or it cannot read the file: stay quiet */
    for (size_t i = 0; i < k; i++)
        m->lines[m->n_lines++] = (line_entry){.vaddr = vaddrs[i], .file = files[i],
                                              .line = lines[i]};
    qsort(m->lines, m->n_lines, sizeof *m->lines, cmp_line);
    free(files);
    free(lines);
}

typedef struct pending {
    const sc_module *module;
    uint64_t vaddr;
} pending;

static int cmp_pending(const void *pa, const void *pb)
{
    const pending *a = pa, *b = pb;
    if (a->module != b->module)
        return a->module < b->module ? -1 : 1;   /* grouping only: any stable order works */
    return cmp_u64(&a->vaddr, &b->vaddr);
}

void sc_sym_prepare(sc_symbolizer *s, const sc_trace *trace, const uint64_t *addrs, size_t n)
{
    if (!s || !s->want_lines || n == 0)
        return;
    pending *p = malloc(n * sizeof *p);
    uint64_t *vaddrs = malloc(n * sizeof *vaddrs);
    if (!p || !vaddrs)
        goto out;
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_module *tm = sc_trace_module_at(trace, addrs[i]);
        if (tm)
            p[np++] = (pending){tm, lookup_vaddr(addrs[i] - tm->rec.bias)};
    }
    qsort(p, np, sizeof *p, cmp_pending);
    for (size_t i = 0; i < np;) {
        size_t k = 0, j = i;
        for (; j < np && p[j].module == p[i].module; j++)
            vaddrs[k++] = p[j].vaddr;
        sym_module *m = find_module(s, p[i].module);
        if (m && m->state == MOD_USABLE && !m->no_lines)
            lines_for_module(m, vaddrs, k);
        i = j;
    }
out:
    free(p);
    free(vaddrs);
}
