#include "preload/tracebuf.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "preload/agent.h"
#include "preload/loss.h"
#include "trace/record.h"

static _Atomic(sc_writer *) sc_tbuf_writer;  /* read once per use: close clears it */
atomic_bool sc_tbuf_accepting;               /* false once the trace is being closed */
static _Atomic(sc_tbuf_buf *) sc_tbuf_queue; /* handed over, not yet written: newest first */
static _Atomic uint64_t sc_tbuf_unwritten;   /* records a failed write lost */
/* Buffers the agent took and has not written yet (it clears this with the file locked, as
 * it finishes writing them): what a crash flush must write for it. */
static _Atomic(sc_tbuf_buf *) sc_tbuf_batch;
/* Idle flushes: the agent's, or CUPTI's buffer thread's where no agent runs. */
static pthread_mutex_t sc_tbuf_idle_lock = PTHREAD_MUTEX_INITIALIZER;
static sc_tbuf_buf *sc_tbuf_replacement; /* under sc_tbuf_idle_lock */

static void sc_tbuf_lock(sc_thread *t)
{
    while (atomic_flag_test_and_set_explicit(&t->busy, memory_order_acquire))
        sched_yield();
}

static size_t sc_tbuf_used(const sc_tbuf_buf *b)
{
    return atomic_load_explicit(&b->used, memory_order_acquire);
}

/* t's buffer changed, or started over: its compact records must declare again what they use
 * (trace_format.h: a buffer is self-contained). With t's flag held: the clear is short
 * (6 KiB at most), and the thread must not write into its new buffer before it. */
static void sc_tbuf_new_cur(sc_thread *t) { sc_compact_writer_forget(&t->compact); }

sc_tbuf_buf *sc_tbuf_buf_new(sc_thread *t)
{
    sc_tbuf_buf *b = malloc(sizeof *b);
    if (!b) return NULL;
    b->next = NULL;
    b->owner = t;
    atomic_init(&b->used, 0);
    return b;
}

/* Whole records in data[0, used): what a failed or skipped write lost. */
static uint64_t sc_tbuf_count_records(const uint8_t *data, size_t used)
{
    uint64_t n = 0;
    for (size_t off = 0; off + sizeof(sc_record_header) <= used; n++) {
        sc_record_header h;
        memcpy(&h, data + off, sizeof h);
        if (h.size < sizeof h || h.size > used - off) break;
        off += h.size;
    }
    return n;
}

/* Writes a buffer's records and empties it. */
static void sc_tbuf_write(sc_tbuf_buf *b)
{
    size_t used = sc_tbuf_used(b);
    if (!used) return;
    sc_writer *w = atomic_load(&sc_tbuf_writer);
    if (!w)
        sc_loss_add(SC_LOSS_AFTER_CLOSE, sc_tbuf_count_records(b->data, used));
    else if (sc_writer_append(w, b->data, used) != 0)
        atomic_fetch_add(&sc_tbuf_unwritten, sc_tbuf_count_records(b->data, used));
    atomic_store_explicit(&b->used, 0, memory_order_release);
}

/* The agent's writes: a list of buffers under one hold of the file, published until written
 * (sc_tbuf_flush_fatal). Empties them; the caller recycles them after. */
static void sc_tbuf_write_batch(sc_tbuf_buf *list)
{
    sc_writer *w = atomic_load(&sc_tbuf_writer);
    if (w) {
        atomic_store(&sc_tbuf_batch, list);
        sc_writer_lock(w);
        for (sc_tbuf_buf *b = list; b; b = b->next) {
            size_t used = sc_tbuf_used(b);
            if (used && sc_writer_append_held(w, b->data, used) != 0)
                atomic_fetch_add(&sc_tbuf_unwritten, sc_tbuf_count_records(b->data, used));
        }
        atomic_store(&sc_tbuf_batch, NULL);
        sc_writer_unlock(w);
    }
    for (sc_tbuf_buf *b = list; b; b = b->next) {
        if (!w) sc_loss_add(SC_LOSS_AFTER_CLOSE, sc_tbuf_count_records(b->data, sc_tbuf_used(b)));
        atomic_store_explicit(&b->used, 0, memory_order_release);
    }
}

/* A written buffer goes back to its thread as the spare, or is freed. */
static void sc_tbuf_recycle(sc_tbuf_buf *b)
{
    sc_tbuf_buf *none = NULL;
    if (b->owner && atomic_compare_exchange_strong(&b->owner->spare, &none, b)) return;
    free(b);
}

/* A full buffer, no longer anyone's current one, goes to the agent; without one it is
 * written here (before the agent starts, after it stopped, or if it could not start). */
static void sc_tbuf_hand_over(sc_tbuf_buf *b)
{
    if (sc_agent_running()) {
        if (b->owner) atomic_fetch_add(&b->owner->in_flight, 1);
        sc_tbuf_buf *head = atomic_load_explicit(&sc_tbuf_queue, memory_order_relaxed);
        do
            b->next = head;
        while (!atomic_compare_exchange_weak_explicit(&sc_tbuf_queue, &head, b,
                                                      memory_order_release, memory_order_relaxed));
        sc_agent_wake();
        return;
    }
    sc_tbuf_write(b);
    sc_tbuf_recycle(b);
}

/* cur is full (or missing): the thread goes on in its spare, cur goes to the agent. With
 * t's flag held. */
static sc_tbuf_buf *sc_tbuf_rotate(sc_thread *t)
{
    sc_tbuf_buf *full = t->cur;
    sc_tbuf_buf *next = atomic_exchange(&t->spare, NULL);
    if (!next && full &&
        atomic_load_explicit(&t->in_flight, memory_order_relaxed) >= SC_TBUF_MAX_IN_FLIGHT) {
        /* Back-pressure: the disk is slower than the program. Writing here is the only
         * alternative to unbounded memory or dropping records. */
        sc_tbuf_write(full);
        sc_tbuf_new_cur(t);
        return full;
    }
    if (!next) next = sc_tbuf_buf_new(t);
    if (!next) {
        if (!full) return NULL;
        sc_tbuf_write(full); /* no memory for another buffer: reuse this one */
        sc_tbuf_new_cur(t);
        return full;
    }
    next->owner = t;
    atomic_store_explicit(&next->used, 0, memory_order_relaxed);
    t->cur = next;
    sc_tbuf_new_cur(t);
    if (full) sc_tbuf_hand_over(full);
    return next;
}

void sc_tbuf_start(sc_writer *w)
{
    atomic_store(&sc_tbuf_writer, w);
    atomic_store(&sc_tbuf_accepting, true);
}

void *sc_tbuf_reserve(size_t size)
{
    if (size > SC_TBUF_MAX_RECORD) {
        sc_loss_add(SC_LOSS_TOO_LARGE, 1);
        return NULL;
    }
    if (!atomic_load_explicit(&sc_tbuf_accepting, memory_order_relaxed)) {
        sc_loss_add(SC_LOSS_AFTER_CLOSE, 1);
        return NULL;
    }
    sc_thread *t = sc_thread_self();
    if (!t) {
        sc_loss_add(SC_LOSS_NO_MEMORY, 1);
        return NULL;
    }
    sc_tbuf_lock(t);
    /* Closed while this thread was on its way: close has written (or will write) this
     * buffer already, so nothing may be added to it. */
    if (!atomic_load_explicit(&sc_tbuf_accepting, memory_order_acquire)) {
        sc_tbuf_unlock(t);
        sc_loss_add(SC_LOSS_AFTER_CLOSE, 1);
        return NULL;
    }
    sc_tbuf_buf *b = t->cur;
    if (!b || atomic_load_explicit(&b->used, memory_order_relaxed) + size > SC_TBUF_SIZE) {
        b = sc_tbuf_rotate(t);
        if (!b) {
            sc_tbuf_unlock(t);
            sc_loss_add(SC_LOSS_NO_MEMORY, 1);
            return NULL;
        }
    }
    return b->data + atomic_load_explicit(&b->used, memory_order_relaxed);
}

void sc_tbuf_commit(size_t size)
{
    sc_thread *t = sc_thread_peek();
    sc_tbuf_buf *b = t->cur;
    atomic_store_explicit(&b->used, atomic_load_explicit(&b->used, memory_order_relaxed) + size,
                          memory_order_release);
    sc_tbuf_unlock(t);
}

void sc_tbuf_commit_api(size_t size)
{
    /* Only the owner writes it; atomic so that the exit path may sum it meanwhile. */
    sc_thread *t = sc_thread_peek();
    atomic_store_explicit(&t->api_records,
                          atomic_load_explicit(&t->api_records, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    sc_tbuf_commit(size);
}

uint64_t sc_tbuf_api_records(void)
{
    uint64_t n = 0;
    for (sc_thread *t = sc_thread_first(); t; t = t->next)
        n += atomic_load_explicit(&t->api_records, memory_order_relaxed);
    return n;
}

void *sc_tbuf_reserve_compact(size_t size, sc_compact_writer **w)
{
    void *dst = sc_tbuf_reserve(size);
    if (dst) *w = &sc_thread_peek()->compact;  /* reserve claimed it, and holds its flag */
    return dst;
}

void sc_tbuf_put(uint16_t kind, const void *fixed, size_t fixed_size, const void *tail,
                 size_t tail_size)
{
    size_t size = sc_record_size(fixed_size, tail_size);
    void *dst = sc_tbuf_reserve(size);
    if (!dst) return;
    sc_record_encode(dst, kind, fixed, fixed_size, tail, tail_size);
    sc_tbuf_commit(size);
}

/* ---- the agent's work ----------------------------------------------------------------- */

/* The queue, oldest first: a thread's buffers reach the file in the order it filled them. */
static sc_tbuf_buf *sc_tbuf_take_queue(void)
{
    sc_tbuf_buf *list = atomic_exchange_explicit(&sc_tbuf_queue, NULL, memory_order_acquire);
    sc_tbuf_buf *fifo = NULL;
    while (list) {
        sc_tbuf_buf *next = list->next;
        list->next = fifo;
        fifo = list;
        list = next;
    }
    return fifo;
}

void sc_tbuf_drain(void)
{
    sc_tbuf_buf *list = sc_tbuf_take_queue();
    if (!list) return;
    sc_tbuf_write_batch(list);
    for (sc_tbuf_buf *b = list, *next; b; b = next) {
        next = b->next;
        if (b->owner) atomic_fetch_sub(&b->owner->in_flight, 1);
        sc_tbuf_recycle(b);
    }
}

void sc_tbuf_flush_idle_now(void)
{
    if (pthread_mutex_trylock(&sc_tbuf_idle_lock) != 0) return; /* one at a time is enough */
    for (sc_thread *t = sc_thread_first(); t; t = t->next) {
        if (!sc_tbuf_replacement && !(sc_tbuf_replacement = sc_tbuf_buf_new(NULL))) break;
        /* A thread inside a record is not idle: its buffer waits for the next round. */
        if (atomic_flag_test_and_set_explicit(&t->busy, memory_order_acquire)) continue;
        sc_tbuf_buf *full = t->cur;
        if (!full || sc_tbuf_used(full) == 0) {
            sc_tbuf_unlock(t);
            continue;
        }
        sc_tbuf_buf *r = sc_tbuf_replacement;
        r->owner = t;
        atomic_store_explicit(&r->used, 0, memory_order_relaxed);
        t->cur = r;
        sc_tbuf_new_cur(t);
        sc_tbuf_unlock(t);
        /* Written with the thread's flag free: the thread goes on meanwhile. */
        full->next = NULL;
        sc_tbuf_write_batch(full);
        full->owner = NULL;
        sc_tbuf_replacement = full;
    }
    pthread_mutex_unlock(&sc_tbuf_idle_lock);
}

void sc_tbuf_flush_idle(void)
{
    if (sc_agent_running())
        sc_agent_request_flush_idle();
    else
        sc_tbuf_flush_idle_now();
}

/* ---- a fatal signal --------------------------------------------------------------------- */

enum { SC_FATAL_WAIT_MS = 300 };

/* With the file seized (sc_writer_seize), or counted as lost when it could not be. */
static void sc_tbuf_write_fatal(sc_writer *w, bool seized, const uint8_t *data, size_t used)
{
    if (used && (!seized || sc_writer_append_held(w, data, used) != 0))
        sc_loss_add(SC_LOSS_CRASH_UNWRITTEN, sc_tbuf_count_records(data, used));
}

void sc_tbuf_flush_fatal(void)
{
    sc_writer *w = atomic_load(&sc_tbuf_writer);
    if (!w) return;
    /* The agent may hold buffers it took from the queue, or be converting CUPTI's records
     * after a device synchronization: what it has goes to the file if it finishes soon. */
    if (!sc_agent_is_self()) sc_agent_wait_idle(SC_FATAL_WAIT_MS);
    /* The file is seized and never let go: a write the agent began is finished, none starts
     * after ours, and the signal's default action cannot cut a record in two. (If the agent
     * is the thread that crashed, holding the file, nothing more can be written.) */
    bool seized = sc_writer_seize(w, SC_FATAL_WAIT_MS) == 0;
    /* A batch the agent took but had not begun to write (it clears this before it lets go
     * of the file, so with the file held here, a batch still named is unwritten). */
    for (sc_tbuf_buf *b = atomic_load(&sc_tbuf_batch); seized && b; b = b->next)
        sc_tbuf_write_fatal(w, seized, b->data, sc_tbuf_used(b));
    for (sc_tbuf_buf *b = sc_tbuf_take_queue(); b; b = b->next)
        sc_tbuf_write_fatal(w, seized, b->data, sc_tbuf_used(b));
    sc_thread *self = sc_thread_peek();
    for (sc_thread *t = sc_thread_first(); t; t = t->next) {
        /* The crashed thread may be inside its own record: what it committed before is
         * whole records, and nothing moves it now. Another thread inside a record gets a
         * moment to finish it. */
        bool mine = t == self, got = false;
        for (int spins = 0; !mine && !got && spins < 1000; spins++)
            if (!(got = !atomic_flag_test_and_set_explicit(&t->busy, memory_order_acquire)))
                sched_yield();
        sc_tbuf_buf *b = t->cur;
        size_t used = b ? sc_tbuf_used(b) : 0;
        if (used && (mine || got)) {
            sc_tbuf_write_fatal(w, seized, b->data, used);
            atomic_store_explicit(&b->used, 0, memory_order_release);
            sc_tbuf_new_cur(t);
        } else if (used) {
            sc_loss_add(SC_LOSS_CRASH_UNWRITTEN, sc_tbuf_count_records(b->data, used));
        }
        if (got) sc_tbuf_unlock(t);
    }
    uint8_t loss[SC_LOSS_BYTES];
    if (seized) sc_writer_append_held(w, loss, sc_loss_encode(loss));
}

/* ---- the end ---------------------------------------------------------------------------- */

uint64_t sc_tbuf_close(void)
{
    atomic_store(&sc_tbuf_accepting, false);
    /* An idle flush may be under way on CUPTI's buffer thread (it runs one itself once the
     * agent has stopped, as it has by now): the buffers it swapped out must reach the file
     * before the END record that follows the close, so the close waits for it to finish,
     * and no flush starts again until the writer is gone (one that starts later finds
     * every buffer written and empty). Without this, a flush that swapped a buffer out
     * before the close got to its thread could write it after END (a corrupt trace) or,
     * the writer gone, lose records that END counts. */
    pthread_mutex_lock(&sc_tbuf_idle_lock);
    sc_tbuf_drain();
    for (sc_thread *t = sc_thread_first(); t; t = t->next) {
        sc_tbuf_lock(t);
        if (t->cur) sc_tbuf_write(t->cur);
        sc_tbuf_new_cur(t);
        sc_tbuf_unlock(t);
    }
    /* Buffers handed over by threads that rotated before they saw the close. */
    sc_tbuf_drain();
    atomic_store(&sc_tbuf_writer, NULL);
    pthread_mutex_unlock(&sc_tbuf_idle_lock);
    return atomic_load(&sc_tbuf_unwritten);
}

void sc_tbuf_thread_exit(sc_thread *t)
{
    sc_tbuf_lock(t);
    sc_tbuf_buf *b = t->cur;
    /* After a close, close writes (or wrote) cur itself. */
    if (b && sc_tbuf_used(b) && atomic_load(&sc_tbuf_accepting)) {
        t->cur = atomic_exchange(&t->spare, NULL);
        sc_tbuf_new_cur(t);
        sc_tbuf_hand_over(b);
    }
    sc_tbuf_unlock(t);
}

void sc_tbuf_drop_all(void)
{
    /* In a forked child only the forking thread exists; the parent's buffers (and any flag or
     * lock another parent thread held at the fork) are not ours to use. Leak them. */
    atomic_store(&sc_tbuf_accepting, false);
    atomic_store(&sc_tbuf_writer, NULL);
    atomic_store(&sc_tbuf_queue, NULL);
    atomic_store(&sc_tbuf_batch, NULL);
    atomic_store(&sc_tbuf_unwritten, 0);
    sc_tbuf_replacement = NULL;
    pthread_mutex_init(&sc_tbuf_idle_lock, NULL);
}
