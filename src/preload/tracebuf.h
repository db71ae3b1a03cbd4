/* Per-thread record buffers between the hot path and the trace file.
 *
 * A thread encodes records into its own buffer (thread.h), holding only its own flag. A full
 * buffer is handed to the agent thread (agent.c), which writes it; the thread goes on in its
 * spare buffer. No application thread waits for disk I/O: the only write an application
 * thread makes is back-pressure, when SC_TBUF_MAX_IN_FLIGHT of its buffers are still
 * waiting to be written (the disk is slower than the program), or when no agent runs.
 *
 * Idle threads' buffers reach the file too (every 500 ms and when asked): the agent swaps
 * the buffer out under the thread's flag, which it holds for a pointer swap only, and writes
 * it after letting go. At exit every buffer is written before END; on a fatal signal what
 * can be written without waiting long is written, and the rest is counted. */
#ifndef SC_PRELOAD_TRACEBUF_H
#define SC_PRELOAD_TRACEBUF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/thread.h"
#include "trace/writer.h"

enum {
    SC_TBUF_SIZE = 256 * 1024,
    SC_TBUF_MAX_RECORD = 8192,
    SC_TBUF_MAX_IN_FLIGHT = 8, /* per thread: 2 MiB waiting for the disk, then it writes */
};

struct sc_tbuf_buf {
    struct sc_tbuf_buf *next; /* the agent's queue */
    sc_thread *owner;         /* where it goes back to once written */
    _Atomic size_t used;      /* written by the owner under its flag; read by the
                                 crash path without it */
    uint8_t data[SC_TBUF_SIZE];
};

/* A test-and-set flag costs less than a mutex on a path taken on every CUDA call. Only the
 * owner holds it for long (a record); others hold it for a pointer swap, or at exit. */
static inline void sc_tbuf_unlock(sc_thread *t)
{
    atomic_flag_clear_explicit(&t->busy, memory_order_release);
}

/* Records go to w from now on. */
void sc_tbuf_start(sc_writer *w);

/* Space for a record of `size` bytes (at most SC_TBUF_MAX_RECORD) in the calling thread's
 * buffer, or NULL (recording stopped, or no memory: counted in the LOSS records). Must be
 * followed by sc_tbuf_commit or sc_tbuf_commit_api. */
void *sc_tbuf_reserve(size_t size);
void sc_tbuf_commit(size_t size);
void sc_tbuf_commit_api(size_t size); /* the record is an API call (END counts them) */
uint64_t sc_tbuf_api_records(void);
extern atomic_bool sc_tbuf_accepting; /* false once the trace is being closed (tracebuf.c) */

/* The hot path's pair (callbacks.c): the same as sc_tbuf_reserve and sc_tbuf_commit_api for
 * the thread t (sc_thread_peek(), NULL before its first record), inline. Its common case is
 * the flag, one check and a pointer; anything else (no block yet, the buffer full, closing,
 * a record too large, the flag held by the agent) lets go and takes sc_tbuf_reserve's path,
 * which counts what it drops. After it, the thread's block is sc_thread_peek(). */
static inline void *sc_tbuf_reserve_in(sc_thread *t, size_t size)
{
    if (__builtin_expect(t != NULL, 1) &&
        !atomic_flag_test_and_set_explicit(&t->busy, memory_order_acquire)) {
        sc_tbuf_buf *b = t->cur;
        size_t used = b ? atomic_load_explicit(&b->used, memory_order_relaxed) : 0;
        /* Read with the flag held: a close that began since writes this buffer itself. */
        if (__builtin_expect(b && size <= SC_TBUF_MAX_RECORD && used + size <= SC_TBUF_SIZE &&
                                 atomic_load_explicit(&sc_tbuf_accepting, memory_order_acquire),
                             1))
            return b->data + used;
        sc_tbuf_unlock(t);
    }
    return sc_tbuf_reserve(size);
}

static inline void sc_tbuf_commit_in(sc_thread *t, size_t size)
{
    sc_tbuf_buf *b = t->cur;
    atomic_store_explicit(&b->used, atomic_load_explicit(&b->used, memory_order_relaxed) + size,
                          memory_order_release);
    sc_tbuf_unlock(t);
}

static inline void sc_tbuf_commit_api_in(sc_thread *t, size_t size)
{
    /* Only the owner writes it; atomic so that the exit path may sum it meanwhile. */
    atomic_store_explicit(&t->api_records,
                          atomic_load_explicit(&t->api_records, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    sc_tbuf_commit_in(t, size);
}

/* Space for a kernel's record, compact or full, in the calling thread's buffer
 * (SC_COMPACT_KERNEL_MAX bytes at least), with the state that encodes it there: the thread's
 * compact writer, which tracebuf.c makes forget what it declared whenever the thread's
 * buffer changes or starts over. NULL as sc_tbuf_reserve; follow with sc_tbuf_commit. */
void *sc_tbuf_reserve_compact(size_t size, sc_compact_writer **w);

/* Encodes and appends one record (see trace/record.h). */
void sc_tbuf_put(uint16_t kind, const void *fixed, size_t fixed_size, const void *tail,
                 size_t tail_size);

/* Asks for idle threads' buffers to be written soon. Never waits: CUPTI's buffer thread
 * calls it after each buffer of device records. */
void sc_tbuf_flush_idle(void);

/* The agent's work (agent.c): write the buffers handed over, and swap out and write idle
 * threads' buffers. */
void sc_tbuf_drain(void);
void sc_tbuf_flush_idle_now(void);

/* A fatal signal: writes what was handed over and what idle threads hold, then the LOSS
 * records, with the file seized (the agent's write finished, no other to start) and never
 * let go, so the signal's default action cannot cut a record. Waits a bounded time at most;
 * counts what it could not write. */
void sc_tbuf_flush_fatal(void);

/* Stops taking records (later ones are counted as lost) and writes every buffer; after this
 * nothing more reaches the file through the buffers (LOSS and END are written after it).
 * The agent must be stopped first. Returns the records that could not be written (a write
 * failed). */
uint64_t sc_tbuf_close(void);
/* Forgets every buffer without writing (a forked child). */
void sc_tbuf_drop_all(void);

/* For thread.c: a new buffer owned by t (NULL when out of memory), and a thread's exit (its
 * records go to the agent, its buffer is left for the next thread). */
sc_tbuf_buf *sc_tbuf_buf_new(sc_thread *t);
void sc_tbuf_thread_exit(sc_thread *t);

#endif
