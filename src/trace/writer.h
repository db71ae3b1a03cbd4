/* Writing a trace file: one per process, created as NAME.sctrace.partial and renamed to
 * NAME.sctrace once the process finished, so a crashed run is recognizable by its name and
 * still holds every record written before the crash. Thread-safe: whole record batches are
 * appended under one lock. No CUDA here. */
#ifndef SC_TRACE_WRITER_H
#define SC_TRACE_WRITER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct sc_writer {
    int fd;
    bool failed;                /* a write failed: stop writing, the file keeps its prefix */
    pthread_mutex_t lock;
    char partial_path[4096];
    char final_path[4096];
} sc_writer;

/* Creates DIR (one level, if missing) and DIR/BASE-PID.sctrace.partial and writes the
 * file header. Never replaces a trace: when that name is taken (a program that exec'd itself
 * keeps its pid), the next free BASE-PID.N is used. Returns 0, or -1 with a message in err. */
int sc_writer_open(sc_writer *w, const char *dir, const char *base, pid_t pid, char *err,
                   size_t err_size);
/* The same, with the format version the file header names: a writer that writes no compact
 * record says 1.5 (SC_TRACE_FULL_MAJOR.SC_TRACE_FULL_MINOR), so older readers read it. */
int sc_writer_open_version(sc_writer *w, const char *dir, const char *base, pid_t pid,
                           uint16_t major, uint16_t minor, char *err, size_t err_size);
/* Appends bytes that hold whole records. Returns 0, or -1 once writing has failed. */
int sc_writer_append(sc_writer *w, const void *data, size_t size);
/* The same, but gives up (returns 1) instead of waiting when another thread is writing. */
int sc_writer_append_nowait(sc_writer *w, const void *data, size_t size);
/* Several appends under one hold of the lock: lock, append_held..., unlock. */
void sc_writer_lock(sc_writer *w);
void sc_writer_unlock(sc_writer *w);
int sc_writer_append_held(sc_writer *w, const void *data, size_t size);
/* The fatal-signal path: takes the lock, waiting at most max_ms for a writer that is busy
 * writing (never for one that may not come back), and keeps it: no write can be in
 * progress, or start, while the signal kills the process. Returns 0 when held (then
 * append with sc_writer_append_held). */
int sc_writer_seize(sc_writer *w, int max_ms);
/* Closes the file and renames it to its final name. Returns 0 or -1 (err filled). */
int sc_writer_finish(sc_writer *w, char *err, size_t err_size);
/* Closes the file without renaming (a forked child dropping its parent's file). */
void sc_writer_abandon(sc_writer *w);

#endif
