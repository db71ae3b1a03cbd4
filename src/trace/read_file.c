#include "trace/read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamcheck/trace_format.h"

/* Reads up to n bytes at off; returns how many (short only at the end of the file), or -1. */
static ssize_t sc_read_at(int fd, uint8_t *buf, size_t n, size_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int sc_read_whole_file(const char *path, uint8_t **data, size_t *size, const char **why)
{
    /* Without O_NONBLOCK, opening a FIFO would wait for a writer that never comes. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *why = "not a regular file";
        close(fd);
        return -1;
    }
    /* The magic first: a large file that is not a trace is not read (nor held in memory). */
    size_t len = (size_t)st.st_size;
    char magic[sizeof SC_TRACE_MAGIC];
    ssize_t head = sc_read_at(fd, (uint8_t *)magic, sizeof magic, 0);
    if (head == (ssize_t)sizeof magic && memcmp(magic, SC_TRACE_MAGIC, sizeof magic) != 0) {
        *why = "not a streamcheck trace (wrong magic)";
        close(fd);
        return -1;
    }
    /* The size fstat gave; a trace still being written may have grown since: its records
     * past that size are left for the next read (the loader treats them as not yet there). */
    uint8_t *buf = malloc(len ? len : 1);
    ssize_t n = buf ? sc_read_at(fd, buf, len, 0) : -1;
    close(fd);
    if (n < 0) {
        *why = buf ? "read error" : "out of memory";
        free(buf);
        return -1;
    }
    *data = buf;
    *size = (size_t)n;
    return 0;
}
