/* What streamcheck keeps per application thread: its record buffer, its stack-sampling
 * cache, its NVTX push/pop stack and its string cache, in one block.
 *
 * A thread's first CUDA call must not wait for anyone (issue 8: a checker that serializes
 * first calls removes the concurrency it reports on). So these blocks are made ahead of time,
 * on the agent thread (agent.c), and a thread claims one with one compare-and-swap: no lock,
 * no allocation, nothing process-wide on its first call. Blocks are never freed; a thread's
 * block goes back to the pool when it exits, for the next new thread. */
#ifndef SC_PRELOAD_THREAD_H
#define SC_PRELOAD_THREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/sample.h"
#include "preload/strings.h"
#include "trace/compact_write.h"

enum { SC_NVTX_MAX_DEPTH = 64 };

typedef struct sc_tbuf_buf sc_tbuf_buf; /* tracebuf.h */

typedef struct sc_nvtx_open {
    uint64_t start_ns;
    uint32_t name_id, domain_id;
    bool scope;             /* capture_range's range, counted: its end may close the scope */
} sc_nvtx_open;

typedef struct sc_thread {
    struct sc_thread *next; /* the registry of every block ever made */
    atomic_bool owned;      /* a live thread uses it */
    uint32_t tid;

    /* Record buffer (tracebuf.c). The owner holds `busy` from reserve to commit; the agent
     * takes it only to swap an idle thread's buffer out, the exit path to write it. */
    atomic_flag busy;
    sc_tbuf_buf *cur;
    _Atomic(sc_tbuf_buf *) spare; /* an empty buffer for when cur fills */
    atomic_uint in_flight;        /* its full buffers the agent has not written yet */
    _Atomic uint64_t api_records;

    sc_sample_cache samples; /* callbacks.c */
    _Atomic uint32_t nvtx_depth; /* nvtx.c: pushes not yet popped, recorded or not; only
                                    the owner writes it, the exit path reads it */
    sc_nvtx_open nvtx_open[SC_NVTX_MAX_DEPTH];
    sc_string_cache strings; /* strings.c */
    /* The compact records' encoder (callbacks.c, activity.c) for the buffer `cur` is now,
     * with `busy` held: the owner writes with it, tracebuf.c resets it when `cur` changes. */
    sc_compact_writer compact;
} sc_thread;

/* The calling thread's block (thread.c). Declared here so that the hot path reads it inline:
 * one thread-local load, no call. */
extern __thread sc_thread *sc_thread_current __attribute__((tls_model("initial-exec")));
/* Claims a block for the calling thread (its first call). */
sc_thread *sc_thread_claim(void);

/* The calling thread's block, claimed on its first call; NULL only when none could be made
 * (out of memory, or a forked child). */
static inline sc_thread *sc_thread_self(void)
{
    sc_thread *t = sc_thread_current;
    return __builtin_expect(t != NULL, 1) ? t : sc_thread_claim();
}
/* The calling thread's block if it has one, without claiming. */
static inline sc_thread *sc_thread_peek(void) { return sc_thread_current; }
/* The registry, for walking every block (the agent, the exit and crash paths). */
sc_thread *sc_thread_first(void);

/* Creates the thread-exit key, early (the constructor): glibc keeps the first 32 keys' values
 * in the thread itself, later ones in an array it allocates on a thread's first
 * pthread_setspecific, which would then be on that thread's first CUDA call. */
void sc_thread_key_init(void);
/* Makes the first blocks (capture start, before any callback). */
void sc_thread_pool_start(void);
/* Keeps enough free blocks, each with a buffer, and gives owned blocks a spare buffer
 * (agent.c, off every application thread). */
void sc_thread_pool_refill(void);
/* Forgets every block without writing or freeing (a forked child). */
void sc_thread_drop_all(void);

#endif
