#include "trace/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "streamcheck/trace_format.h"

static int sc_write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

int sc_writer_open(sc_writer *w, const char *dir, const char *base, pid_t pid, char *err,
                   size_t err_size)
{
    return sc_writer_open_version(w, dir, base, pid, SC_TRACE_VERSION_MAJOR,
                                  SC_TRACE_VERSION_MINOR, err, err_size);
}

int sc_writer_open_version(sc_writer *w, const char *dir, const char *base, pid_t pid,
                           uint16_t major, uint16_t minor, char *err, size_t err_size)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    pthread_mutex_init(&w->lock, NULL);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_size, "cannot create output folder %s: %s", dir, strerror(errno));
        return -1;
    }
    for (int seq = 0; w->fd < 0 && seq < 100; seq++) {
        char suffix[16] = "";
        if (seq) snprintf(suffix, sizeof suffix, ".%d", seq);
        int n = snprintf(w->final_path, sizeof w->final_path, "%s/%s-%d%s%s", dir, base,
                         (int)pid, suffix, SC_TRACE_SUFFIX);
        if (n < 0 || (size_t)n + sizeof SC_TRACE_PARTIAL_SUFFIX >= sizeof w->partial_path) {
            snprintf(err, err_size, "output path too long in %s", dir);
            return -1;
        }
        /* Fits: checked above. */
        memcpy(w->partial_path, w->final_path, (size_t)n);
        memcpy(w->partial_path + n, SC_TRACE_PARTIAL_SUFFIX, sizeof SC_TRACE_PARTIAL_SUFFIX);
        if (access(w->final_path, F_OK) == 0) continue;
        /* O_EXCL: never truncate another process's file; O_CLOEXEC: a program that execs
         * must not hand our descriptor to the new image. */
        w->fd = open(w->partial_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (w->fd < 0 && errno != EEXIST) break;
    }
    if (w->fd < 0) {
        snprintf(err, err_size, "cannot create %s: %s", w->partial_path, strerror(errno));
        return -1;
    }
    sc_file_header h = {.magic = SC_TRACE_MAGIC,
                        .version_major = major,
                        .version_minor = minor,
                        .header_size = sizeof(sc_file_header)};
    if (sc_write_all(w->fd, &h, sizeof h) != 0) {
        snprintf(err, err_size, "cannot write %s: %s", w->partial_path, strerror(errno));
        close(w->fd);
        unlink(w->partial_path);
        w->fd = -1;
        return -1;
    }
    return 0;
}

/* The write itself, with the lock held: once a write has failed, nothing more is written,
 * so the file keeps a prefix of whole records. */
static int sc_writer_append_locked(sc_writer *w, const void *data, size_t size)
{
    if (w->fd < 0 || w->failed) return -1;
    if (sc_write_all(w->fd, data, size) != 0) {
        w->failed = true;
        return -1;
    }
    return 0;
}

int sc_writer_append(sc_writer *w, const void *data, size_t size)
{
    pthread_mutex_lock(&w->lock);
    int rc = sc_writer_append_locked(w, data, size);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

int sc_writer_append_nowait(sc_writer *w, const void *data, size_t size)
{
    if (pthread_mutex_trylock(&w->lock) != 0) return 1;
    int rc = sc_writer_append_locked(w, data, size);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

int sc_writer_seize(sc_writer *w, int max_ms)
{
    for (int ms = 0;; ms++) {
        if (pthread_mutex_trylock(&w->lock) == 0) return 0;
        if (ms >= max_ms) return -1;
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
}

void sc_writer_lock(sc_writer *w) { pthread_mutex_lock(&w->lock); }
void sc_writer_unlock(sc_writer *w) { pthread_mutex_unlock(&w->lock); }

int sc_writer_append_held(sc_writer *w, const void *data, size_t size)
{
    return sc_writer_append_locked(w, data, size);
}

int sc_writer_finish(sc_writer *w, char *err, size_t err_size)
{
    pthread_mutex_lock(&w->lock);
    int rc = 0;
    if (w->fd >= 0) {
        if (close(w->fd) != 0) {
            snprintf(err, err_size, "closing %s: %s", w->partial_path, strerror(errno));
            rc = -1;
        }
        w->fd = -1;
        if (rc == 0 && rename(w->partial_path, w->final_path) != 0) {
            snprintf(err, err_size, "renaming %s: %s", w->partial_path, strerror(errno));
            rc = -1;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

void sc_writer_abandon(sc_writer *w)
{
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    w->failed = true;
    /* The lock may have been held by a parent thread that does not exist in this child. */
    pthread_mutex_init(&w->lock, NULL);
}
