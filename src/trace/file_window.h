/* Reading a trace file through a window that slides forward: the loader holds one record at a
 * time (plus what it keeps, copied out), never the whole file. pread, not mmap: a file that
 * shrinks while it is read ends early (the loader calls it truncated) instead of raising
 * SIGBUS, and one that grows is read up to the size it had when opened. */
#ifndef SC_TRACE_FILE_WINDOW_H
#define SC_TRACE_FILE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct sc_file_window {
    int fd;
    size_t size;        /* the file's size when opened; lowered when a read ends early */
    uint8_t *buf;       /* bytes [at, at + len) of the file */
    size_t at, len, cap;
} sc_file_window;

/* Opens a regular file whose first bytes are a trace's magic. Returns 0, or -1 with *why in
 * the words sc_read_whole_file uses (read_file.h), without the path. */
int sc_file_window_open(const char *path, sc_file_window *w, const char **why);

/* The bytes from `off` on, at least min(n, size - off) of them, in *data: returns how many
 * there are (0 at the end), or -1 on a read error or without memory. The pointer is good until
 * the next call. off must not be below an earlier call's (the window only moves forward). */
ptrdiff_t sc_file_window_at(sc_file_window *w, size_t off, size_t n, const uint8_t **data);

/* sc_file_window_at, inline where the bytes are already in the window: the loader asks for
 * every record, and nearly all of them are. */
static inline ptrdiff_t sc_file_window_at_fast(sc_file_window *w, size_t off, size_t n,
                                               const uint8_t **data)
{
    if (off < w->size && off >= w->at && n <= w->size - off && n <= w->len &&
        off - w->at <= w->len - n) {
        *data = w->buf + (off - w->at);
        return (ptrdiff_t)(w->at + w->len - off);
    }
    return sc_file_window_at(w, off, n, data);
}

void sc_file_window_close(sc_file_window *w);

#endif
