/* The file is JSON through jansson: the syms file travels with traces, so it is read as
 * untrusted input, and a parser that is fuzzed elsewhere is worth more than a new one. */
#include "report/sym_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FORMAT_NAME "streamcheck-syms"

/* ---- writing ------------------------------------------------------------------------ */

static json_t *hex_u64(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return json_string(buf);
}

static json_t *str_or_null(const char *s)
{
    json_t *j = s ? json_string(s) : NULL;
    return j ? j : json_null();     /* json_string refuses invalid UTF-8: say nothing then */
}

static json_t *frame_json(const sc_sym_addr *a)
{
    json_t *f = json_object(), *inl = json_array();
    json_object_set_new(f, "offset", hex_u64(a->offset));
    json_object_set_new(f, "symbol", str_or_null(a->symbol));
    json_object_set_new(f, "symbol_offset", json_integer((json_int_t)a->symbol_offset));
    for (size_t i = 0; i < a->n_chain; i++) {
        json_t *l = json_object();
        json_object_set_new(l, "function", str_or_null(a->chain[i].function));
        json_object_set_new(l, "file", str_or_null(a->chain[i].file));
        json_object_set_new(l, "line", json_integer(a->chain[i].line));
        json_array_append_new(inl, l);
    }
    json_object_set_new(f, "inline", inl);
    return f;
}

static json_t *module_json(const sc_sym_file_module *m)
{
    json_t *o = json_object(), *ranges = json_array(), *frames = json_array();
    char id[41] = "";
    for (uint32_t i = 0; i < m->build_id_size && i < 20; i++)
        snprintf(id + 2 * i, 3, "%02x", m->build_id[i]);
    json_object_set_new(o, "path", str_or_null(m->path));
    json_object_set_new(o, "build_id", json_string(id));
    json_object_set_new(o, "status", str_or_null(m->status));
    for (size_t i = 0; i < m->table.n_cuda; i++)
        json_array_append_new(ranges, json_pack("[oo]", hex_u64(m->table.cuda[i].lo),
                                                hex_u64(m->table.cuda[i].hi)));
    json_object_set_new(o, "cuda_ranges", ranges);
    for (size_t i = 0; i < m->table.n; i++)
        json_array_append_new(frames, frame_json(&m->table.addrs[i]));
    json_object_set_new(o, "frames", frames);
    return o;
}

int sc_sym_file_write(const char *path, const sc_sym_file_module *mods, size_t n, char *err,
                      size_t err_size)
{
    json_t *root = json_object(), *list = json_array();
    json_object_set_new(root, "format", json_string(FORMAT_NAME));
    json_object_set_new(root, "version", json_integer(SC_SYM_FILE_VERSION));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, module_json(&mods[i]));
    json_object_set_new(root, "modules", list);

    char partial[4096];
    int rc = -1;
    if ((size_t)snprintf(partial, sizeof partial, "%s.partial", path) >= sizeof partial) {
        snprintf(err, err_size, "%s: path too long", path);
    } else if (json_dump_file(root, partial, JSON_COMPACT) != 0) {
        snprintf(err, err_size, "cannot write %s: %s", partial, strerror(errno));
        unlink(partial);
    } else if (rename(partial, path) != 0) {
        snprintf(err, err_size, "cannot rename %s to %s: %s", partial, path, strerror(errno));
        unlink(partial);
    } else {
        rc = 0;
    }
    json_decref(root);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------ */

static bool parse_hex(json_t *j, uint64_t *out)
{
    const char *s = json_string_value(j);
    if (!s || strncmp(s, "0x", 2) != 0 || !s[2])
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s + 2, &end, 16);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

static char *dup_string(json_t *j)
{
    const char *s = json_string_value(j);
    return s ? strdup(s) : NULL;
}

static uint32_t small_uint(json_t *j)
{
    json_int_t v = json_is_integer(j) ? json_integer_value(j) : 0;
    return v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

static void read_frame(sc_sym_table *t, json_t *f)
{
    uint64_t off;
    if (!json_is_object(f) || !parse_hex(json_object_get(f, "offset"), &off) ||
        sc_sym_table_find(t, off))
        return;
    sc_sym_addr *a = sc_sym_table_insert(t, off);
    if (!a)
        return;
    a->symbol = dup_string(json_object_get(f, "symbol"));
    json_t *so = json_object_get(f, "symbol_offset");
    a->symbol_offset = json_is_integer(so) && json_integer_value(so) > 0
                           ? (uint64_t)json_integer_value(so) : 0;
    json_t *inl = json_object_get(f, "inline");
    size_t i;
    json_t *l;
    json_array_foreach(inl, i, l) {
        if (a->n_chain == SC_SYM_MAX_INLINE || !json_is_object(l))
            break;
        sc_sym_loc *loc = &a->chain[a->n_chain++];
        loc->function = dup_string(json_object_get(l, "function"));
        loc->file = dup_string(json_object_get(l, "file"));
        loc->line = small_uint(json_object_get(l, "line"));
    }
}

static bool parse_build_id(json_t *j, sc_sym_file_module *m)
{
    const char *s = json_string_value(j);
    size_t len = s ? strlen(s) : 0;
    if (!s || len % 2 || len > 40)
        return false;
    for (size_t i = 0; i < len; i += 2) {
        unsigned v;
        if (sscanf(s + i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", s[i]) ||
            !strchr("0123456789abcdefABCDEF", s[i + 1]))
            return false;
        m->build_id[i / 2] = (uint8_t)v;
    }
    m->build_id_size = (uint32_t)(len / 2);
    return true;
}

static void clear_module(sc_sym_file_module *m)
{
    free(m->path);
    free(m->status);
    sc_sym_table_free(&m->table);
    memset(m, 0, sizeof *m);
}

static bool read_module(json_t *o, sc_sym_file_module *m)
{
    memset(m, 0, sizeof *m);
    if (!json_is_object(o) || !json_is_string(json_object_get(o, "path")) ||
        !parse_build_id(json_object_get(o, "build_id"), m)) {
        memset(m, 0, sizeof *m);
        return false;
    }
    m->path = dup_string(json_object_get(o, "path"));
    m->status = dup_string(json_object_get(o, "status"));
    size_t i;
    json_t *r;
    json_t *ranges = json_object_get(o, "cuda_ranges");
    size_t nr = json_array_size(ranges);
    m->table.cuda = nr ? calloc(nr, sizeof *m->table.cuda) : NULL;
    json_array_foreach(ranges, i, r) {
        sc_sym_range range;
        if (m->table.cuda && parse_hex(json_array_get(r, 0), &range.lo) &&
            parse_hex(json_array_get(r, 1), &range.hi) && range.lo < range.hi)
            m->table.cuda[m->table.n_cuda++] = range;
    }
    json_t *f;
    json_array_foreach(json_object_get(o, "frames"), i, f)
        read_frame(&m->table, f);
    return m->path != NULL;
}

int sc_sym_file_read(const char *path, sc_sym_file_module **mods, size_t *n, char *err,
                     size_t err_size)
{
    *mods = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    json_error_t jerr;
    json_t *root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &jerr);
    close(fd);
    if (!root) {
        snprintf(err, err_size, "%s: not a symbols file (line %d: %s)", path, jerr.line,
                 jerr.text);
        return -1;
    }
    int rc = -1;
    json_t *version = json_object_get(root, "version");
    json_t *list = json_object_get(root, "modules");
    if (!json_is_string(json_object_get(root, "format")) ||
        strcmp(json_string_value(json_object_get(root, "format")), FORMAT_NAME) != 0 ||
        !json_is_integer(version) || !json_is_array(list)) {
        snprintf(err, err_size, "%s: not a streamcheck symbols file", path);
    } else if (json_integer_value(version) > SC_SYM_FILE_VERSION) {
        snprintf(err, err_size, "%s: symbols file version %lld is newer than this tool's %d",
                 path, (long long)json_integer_value(version), SC_SYM_FILE_VERSION);
    } else {
        size_t cap = json_array_size(list);
        *mods = calloc(cap ? cap : 1, sizeof **mods);
        if (!*mods) {
            snprintf(err, err_size, "%s: out of memory", path);
        } else {
            size_t i;
            json_t *o;
            json_array_foreach(list, i, o) {
                if (read_module(o, &(*mods)[*n]))
                    (*n)++;
                else
                    clear_module(&(*mods)[*n]);
            }
            rc = 0;
        }
    }
    json_decref(root);
    return rc;
}

void sc_sym_file_free(sc_sym_file_module *mods, size_t n)
{
    for (size_t i = 0; mods && i < n; i++)
        clear_module(&mods[i]);
    free(mods);
}
