#include "report/sym_locate.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/libdw_api.h"

const char *sc_sym_state_text(sc_sym_state state)
{
    switch (state) {
    case SC_SYM_NO_FILE: return "no binary";
    case SC_SYM_WRONG_ID: return "build-id mismatch";
    case SC_SYM_NOT_ELF: return "not an ELF file";
    case SC_SYM_FOUND: return "resolved";
    }
    return "?";
}

/* The GNU build id note's bytes (inside the ELF's data) and their count, or 0: read with
 * libelf alone, so that it works without libdw. */
static size_t gnu_build_id(Elf *elf, const void **id)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        GElf_Nhdr nh;
        size_t off = 0, name_off, desc_off, next;
        while (data && (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof "GNU" &&
                memcmp((const char *)data->d_buf + name_off, "GNU", sizeof "GNU") == 0) {
                *id = (const char *)data->d_buf + desc_off;
                return nh.n_descsz;
            }
            off = next;
        }
    }
    return 0;
}

/* 1: `file` is a regular ELF file with the build id (any, when id_size is 0), its fd in
 * *fd; 0: no such file; -1: a file with another build id (or none). */
static int try_file(const char *file, const uint8_t *id, uint32_t id_size, int *fd)
{
    *fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return 0;
    struct stat st;
    Elf *elf = NULL;
    int rc = 0;
    if (fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL)) != NULL && elf_kind(elf) == ELF_K_ELF) {
        const void *got = NULL;
        size_t n = gnu_build_id(elf, &got);
        rc = id_size == 0 || (n == id_size && memcmp(got, id, id_size) == 0) ? 1 : -1;
    }
    if (elf)
        elf_end(elf);
    if (rc != 1) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

/* ".build-id/ab/cdef...": the layout of build-id directories. */
static void build_id_name(const uint8_t *id, uint32_t n, const char *suffix, char *buf,
                          size_t size)
{
    int k = snprintf(buf, size, ".build-id/%02x/", id[0]);
    for (uint32_t i = 1; i < n && k > 0 && (size_t)k < size; i++)
        k += snprintf(buf + k, size - k, "%02x", id[i]);
    if (k > 0 && (size_t)k < size)
        snprintf(buf + k, size - k, "%s", suffix);
}

/* libdwfl's own search by build id: the debuginfo path's .build-id trees, then debuginfod
 * (libdwfl asks it only when DEBUGINFOD_URLS is set). Returns a malloc'd path or NULL, also
 * when libdw is missing. */
static char *dwfl_build_id_path(const uint8_t *id, uint32_t n, const char *debuginfo_path)
{
    const sc_libdw *dw = sc_libdw_get();
    if (!dw)
        return NULL;
    char *dpath = strdup(debuginfo_path ? debuginfo_path : "");
    Dwfl_Callbacks cb = {.find_elf = dw->dwfl_build_id_find_elf,
                         .find_debuginfo = dw->dwfl_standard_find_debuginfo,
                         .debuginfo_path = &dpath};
    Dwfl *dwfl = dpath ? dw->dwfl_begin(&cb) : NULL;
    char *found = NULL;
    if (dwfl) {
        dw->dwfl_report_begin(dwfl);
        Dwfl_Module *mod = dw->dwfl_report_module(dwfl, "module", 0, 1);
        GElf_Addr bias;
        const char *main_file = NULL;
        if (mod && dw->dwfl_module_report_build_id(mod, id, n, 0) == 0 &&
            dw->dwfl_module_getelf(mod, &bias) != NULL &&
            dw->dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &main_file, NULL) && main_file)
            found = strdup(main_file);
        dw->dwfl_report_end(dwfl, NULL, NULL);
        dw->dwfl_end(dwfl);
    }
    free(dpath);
    return found;
}

/* try_file's answer; on 1 `out` holds the file. */
static int take(const char *file, const uint8_t *id, uint32_t id_size, sc_sym_located *out)
{
    int fd;
    int rc = try_file(file, id, id_size, &fd);
    if (rc != 1)
        return rc;
    out->path = strdup(file);
    if (!out->path) {
        close(fd);
        return 0;
    }
    out->fd = fd;
    out->state = SC_SYM_FOUND;
    return 1;
}

void sc_sym_locate(const char *path, const uint8_t *id, uint32_t id_size,
                   const char *const *dirs, size_t n_dirs, const char *debuginfo_path,
                   sc_sym_located *out)
{
    *out = (sc_sym_located){.state = SC_SYM_NO_FILE, .fd = -1};
    if (path && path[0]) {
        int rc = take(path, id, id_size, out);
        if (rc == 1)
            return;
        if (rc == -1)
            out->state = SC_SYM_WRONG_ID;
    }
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    char file[4096], name[128] = "";
    if (id_size)
        build_id_name(id, id_size, ".debug", name, sizeof name);
    for (size_t i = 0; i < n_dirs; i++) {
        if (base && base[0] && (size_t)snprintf(file, sizeof file, "%s/%s", dirs[i], base) <
                                   sizeof file && take(file, id, id_size, out) == 1)
            return;
        if (id_size && (size_t)snprintf(file, sizeof file, "%s/%s", dirs[i], name) <
                           sizeof file && take(file, id, id_size, out) == 1)
            return;
    }
    if (!id_size)
        return;     /* nothing else can tell a file without a build id for the right one */
    if ((size_t)snprintf(file, sizeof file, "/usr/lib/debug/%s", name) < sizeof file &&
        take(file, id, id_size, out))
        return;
    char *found = dwfl_build_id_path(id, id_size, debuginfo_path);
    if (found && take(found, id, id_size, out) == 1) {
        free(found);
        return;
    }
    free(found);
}
