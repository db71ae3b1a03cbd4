#include "report/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "streamcheck/trace_format.h"
#include "trace/grow.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

bool sc_report_is_trace_name(const char *name)
{
    return name[0] != '.' &&
           (ends_with(name, SC_TRACE_SUFFIX) || ends_with(name, SC_TRACE_SUFFIX
                                                          SC_TRACE_PARTIAL_SUFFIX));
}

bool sc_report_is_summary_name(const char *name)
{
    return name[0] != '.' && ends_with(name, SC_SUMMARY_SUFFIX);
}

/* A summary beside its own trace says nothing the trace does not: the trace is read. */
static bool summary_without_trace(const char *file)
{
    size_t n = strlen(file) - strlen(SC_SUMMARY_SUFFIX);
    char *trace = strndup(file, n);
    struct stat st;
    bool alone = trace && stat(trace, &st) != 0;
    free(trace);
    return alone;
}

static int push(sc_report_inputs *in, char *file)
{
    if (!file)
        return -1;
    if (!SC_GROW(in->files, in->cap, in->n + 1, 16)) {
        free(file);
        return -1;
    }
    in->files[in->n++] = file;
    return 0;
}

/* Byte order, not the locale's: the same folder lists the same way everywhere. */
static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_folder(sc_report_inputs *in, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "streamcheck-report: cannot read folder %s: %s\n", dir, strerror(errno));
        return -1;
    }
    size_t first = in->n;
    size_t len = strlen(dir);
    bool slash = len > 0 && dir[len - 1] == '/';
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        bool summary = sc_report_is_summary_name(e->d_name);
        if (!summary && !sc_report_is_trace_name(e->d_name))
            continue;
        char *file = NULL;
        if (asprintf(&file, "%s%s%s", dir, slash ? "" : "/", e->d_name) < 0) {
            rc = -1;
            break;
        }
        struct stat st;
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode) ||
            (summary && !summary_without_trace(file))) {
            free(file);
            continue;
        }
        if (push(in, file) != 0) {
            rc = -1;
            break;
        }
    }
    closedir(d);
    if (rc != 0) {
        fprintf(stderr, "streamcheck-report: out of memory listing %s\n", dir);
        return -1;
    }
    if (in->n == first) {
        fprintf(stderr, "streamcheck-report: no streamcheck traces in %s\n", dir);
        return -1;
    }
    qsort(in->files + first, in->n - first, sizeof *in->files, cmp_name);
    return 0;
}

int sc_report_add_path(sc_report_inputs *in, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "streamcheck-report: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode))
        return add_folder(in, path);
    if (ends_with(path, SC_TRACE_SUFFIX SC_SYMS_SUFFIX)) {
        /* A glob over a run folder names it; its trace, when there, reads it itself. */
        size_t n = strlen(path) - strlen(SC_SYMS_SUFFIX);
        char *trace = strndup(path, n);
        struct stat ts;
        if (trace && stat(trace, &ts) != 0)
            fprintf(stderr, "streamcheck-report: %s: the symbols of a trace that is not there "
                    "(a .syms file is read with its trace); skipped\n", path);
        free(trace);
        return 0;
    }
    if (push(in, strdup(path)) != 0) {
        fprintf(stderr, "streamcheck-report: out of memory\n");
        return -1;
    }
    return 0;
}

/* Whether `files` holds the trace `summary` was made from. */
static bool trace_listed(const sc_report_inputs *in, const char *summary)
{
    size_t n = strlen(summary) - strlen(SC_SUMMARY_SUFFIX);
    for (size_t i = 0; i < in->n; i++)
        if (strlen(in->files[i]) == n && strncmp(in->files[i], summary, n) == 0)
            return true;
    return false;
}

int sc_report_collect(sc_report_inputs *in, const char *const *paths, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (sc_report_add_path(in, paths[i]) != 0)
            rc = -1;
    size_t kept = 0;
    for (size_t i = 0; i < in->n; i++) {
        const char *f = in->files[i];
        const char *base = strrchr(f, '/');
        if (sc_report_is_summary_name(base ? base + 1 : f) && trace_listed(in, f))
            free(in->files[i]);
        else
            in->files[kept++] = in->files[i];
    }
    in->n = kept;
    return rc;
}

void sc_report_inputs_free(sc_report_inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->files[i]);
    free(in->files);
    memset(in, 0, sizeof *in);
}
