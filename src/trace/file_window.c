#include "trace/file_window.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamcheck/trace_format.h"

/* Large enough that a read costs little next to its records, small next to any trace. */
#define SC_WINDOW_BYTES (1u << 20)

int sc_file_window_open(const char *path, sc_file_window *w, const char **why)
{
    memset(w, 0, sizeof *w);
    /* Without O_NONBLOCK, opening a FIFO would wait for a writer that never comes. */
    w->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (w->fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    struct stat st;
    if (fstat(w->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *why = "not a regular file";
        sc_file_window_close(w);
        return -1;
    }
    w->size = (size_t)st.st_size;
    const uint8_t *head;
    ptrdiff_t got = sc_file_window_at(w, 0, sizeof SC_TRACE_MAGIC, &head);
    if (got < 0) {
        *why = w->buf ? "read error" : "out of memory";
        sc_file_window_close(w);
        return -1;
    }
    /* A file shorter than the magic is left to the loader ("file too short"). */
    if ((size_t)got >= sizeof SC_TRACE_MAGIC &&
        memcmp(head, SC_TRACE_MAGIC, sizeof SC_TRACE_MAGIC) != 0) {
        *why = "not a streamcheck trace (wrong magic)";
        sc_file_window_close(w);
        return -1;
    }
    return 0;
}

/* Reads [off, off + want) into the buffer's start; a short read marks the file's new end. */
static int sc_window_fill(sc_file_window *w, size_t off, size_t want)
{
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(w->fd, w->buf + got, want - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0) {
            w->size = off + got;    /* the file shrank since it was opened */
            break;
        }
        got += (size_t)r;
    }
    w->at = off;
    w->len = got;
    return 0;
}

ptrdiff_t sc_file_window_at(sc_file_window *w, size_t off, size_t n, const uint8_t **data)
{
    if (off >= w->size)
        return 0;
    if (n > w->size - off)
        n = w->size - off;
    if (off < w->at || off + n > w->at + w->len) {
        /* Read from off on: a whole window, or more for one record larger than it. */
        size_t want = n > SC_WINDOW_BYTES ? n : SC_WINDOW_BYTES;
        if (want > w->size - off)
            want = w->size - off;
        if (want > w->cap) {
            uint8_t *p = realloc(w->buf, want);
            if (!p)
                return -1;
            w->buf = p;
            w->cap = want;
        }
        if (sc_window_fill(w, off, want) != 0)
            return -1;
    }
    *data = w->buf + (off - w->at);
    return (ptrdiff_t)(w->at + w->len - off);
}

void sc_file_window_close(sc_file_window *w)
{
    if (w->fd >= 0)
        close(w->fd);
    free(w->buf);
    memset(w, 0, sizeof *w);
    w->fd = -1;
}
