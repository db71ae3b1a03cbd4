#include "report/pysite.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/frame.h"
#include "streamcheck/analysis.h"

/* Source files larger than this are not read for one line of text. */
#define SC_PYSITE_MAX_SOURCE (16u << 20)

/* One source file, read whole; the last one asked for is kept, since a report asks for the
 * lines of a few files many times. */
static struct {
    char *path;
    char *text;
    size_t size;
} sc_pysite_cache;

static const char *sc_pysite_read(const char *file, size_t *size)
{
    if (sc_pysite_cache.path && strcmp(sc_pysite_cache.path, file) == 0) {
        *size = sc_pysite_cache.size;
        return sc_pysite_cache.text;
    }
    /* A path from a trace: only a regular file is opened (never a FIFO or a device). */
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > SC_PYSITE_MAX_SOURCE)
        return NULL;
    int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    char *path = got >= 0 ? strdup(file) : NULL;
    if (!path) {
        free(text);
        return NULL;
    }
    text[got] = '\0';
    free(sc_pysite_cache.path);
    free(sc_pysite_cache.text);
    sc_pysite_cache.path = path;
    sc_pysite_cache.text = text;
    sc_pysite_cache.size = (size_t)got;
    *size = (size_t)got;
    return text;
}

const char *sc_pysite_source(const char *file, int line, char *buf, size_t n)
{
    size_t size;
    const char *text = line > 0 ? sc_pysite_read(file, &size) : NULL;
    if (!text || n == 0)
        return NULL;
    const char *p = text, *end = text + size;
    for (int k = 1; k < line && p < end; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    if (p >= end)
        return NULL;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        eol = end;
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    while (eol > p && (eol[-1] == ' ' || eol[-1] == '\t' || eol[-1] == '\r'))
        eol--;
    size_t len = (size_t)(eol - p) < n - 1 ? (size_t)(eol - p) : n - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++)   /* a line is shown on a terminal: no control bytes */
        if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
            buf[i] = '?';
    return buf;
}

/* Ranges looked at, backwards from the call, for the one around it: a bound, so that a trace
 * of a million ranges costs a report no more than this per call. */
#define SC_PYSITE_RANGE_LOOKBACK 64

const sc_range *sc_pysite_enclosing_range(const sc_trace *t, const sc_api_call *call)
{
    uint64_t at = call->rec.start_ns;
    size_t lo = 0, hi = t->n_ranges;   /* ranges are sorted by start: the last one before */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ranges[mid].rec.start_ns <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = 0; k < SC_PYSITE_RANGE_LOOKBACK && lo > 0; k++) {
        const sc_range *r = &t->ranges[--lo];
        if (r->rec.tid == sc_call_tid(t, call) && r->rec.end_ns >= at)
            return r;
    }
    return NULL;
}

const char *sc_pysite_format(const sc_trace *trace, const sc_api_call *call, char *buf,
                             size_t n)
{
    const sc_pystack *s = call ? sc_trace_pystack(trace, call->rec.correlation_id) : NULL;
    if (!s)
        return NULL;
    const sc_pyframe *f = sc_pystack_user_frame(s);
    if (!f) {
        const sc_range *r = sc_pysite_enclosing_range(trace, call);
        const char *what = s->state == SC_PY_UNREADABLE ? "(Python frames unreadable"
                                                        : "(a thread without Python";
        if (r)
            snprintf(buf, n, "%s, in NVTX range '%s')", what, r->name);
        else
            snprintf(buf, n, "%s)", what);
        return buf;
    }
    char src[160];
    const char *text = sc_pysite_source(f->file, f->line, src, sizeof src);
    if (text && *text)
        snprintf(buf, n, "%s at %s:%d: %s", f->function, sc_frame_basename(f->file), f->line,
                 text);
    else
        snprintf(buf, n, "%s at %s:%d", f->function, sc_frame_basename(f->file), f->line);
    return buf;
}
