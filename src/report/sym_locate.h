/* Finding the binary a trace's module was recorded from, by path and build id.
 *
 * In order: the recorded path; each --symbol-path folder's file of the same name and its
 * DIR/.build-id/xx/yyyy.debug; /usr/lib/debug/.build-id/xx/yyyy.debug; then libdwfl's
 * build-id search over the debuginfo path (DIR/.build-id/xx/yyyy, the binary itself), which
 * asks debuginfod servers too when DEBUGINFOD_URLS is set. A file counts only when its build
 * id is the recorded one: a rebuilt file at the same path would give confident, wrong names.
 * Only regular files are opened (a trace's paths are untrusted). */
#ifndef SC_REPORT_SYM_LOCATE_H
#define SC_REPORT_SYM_LOCATE_H

#include <stddef.h>
#include <stdint.h>

typedef enum sc_sym_state {
    SC_SYM_NO_FILE,             /* nothing at the path nor anywhere searched */
    SC_SYM_WRONG_ID,            /* a file is at the path, built from something else */
    SC_SYM_NOT_ELF,             /* a file is there, but not one libelf can read */
    SC_SYM_FOUND,
} sc_sym_state;

typedef struct sc_sym_located {
    sc_sym_state state;
    int fd;                     /* open file when FOUND, else -1; the caller closes it */
    char *path;                 /* malloc'd: the file found, NULL unless FOUND */
} sc_sym_located;

void sc_sym_locate(const char *path, const uint8_t *build_id, uint32_t build_id_size,
                   const char *const *dirs, size_t n_dirs, const char *debuginfo_path,
                   sc_sym_located *out);

/* "no binary", "build-id mismatch", "not an ELF file", "resolved". */
const char *sc_sym_state_text(sc_sym_state state);

#endif
