#include "preload/tracebuf.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "trace/record.h"

enum { SC_TBUF_SIZE = 256 * 1024 };

/* The owning thread holds `busy` from reserve to commit; the only other thread that ever
 * takes it is one flushing everything (exit, exec). A test-and-set flag costs less than a
 * mutex on a path taken twice per CUDA call, and it is never held across a call out. */
typedef struct sc_tbuf {
    atomic_flag busy;
    struct sc_tbuf *next;   /* registry */
    bool owned;             /* a live thread uses it */
    size_t used;
    uint64_t api_records;
    uint8_t data[SC_TBUF_SIZE];
} sc_tbuf;

static sc_writer *sc_tbuf_writer;
static atomic_bool sc_tbuf_accepting;   /* false once the trace is being closed */
static pthread_mutex_t sc_tbuf_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sc_tbuf *sc_tbuf_registry;
static pthread_key_t sc_tbuf_key;
static __thread sc_tbuf *sc_tbuf_mine __attribute__((tls_model("initial-exec")));

static void sc_tbuf_lock(sc_tbuf *b)
{
    while (atomic_flag_test_and_set_explicit(&b->busy, memory_order_acquire)) sched_yield();
}

static void sc_tbuf_unlock(sc_tbuf *b)
{
    atomic_flag_clear_explicit(&b->busy, memory_order_release);
}

static void sc_tbuf_write_out(sc_tbuf *b)
{
    if (b->used && sc_tbuf_writer) sc_writer_append(sc_tbuf_writer, b->data, b->used);
    b->used = 0;
}

/* For paths that must never wait (a fatal signal): a buffer or the file that is busy is
 * left alone. */
static void sc_tbuf_write_out_nowait(sc_tbuf *b)
{
    if (b->used && sc_tbuf_writer && sc_writer_append_nowait(sc_tbuf_writer, b->data, b->used) == 0)
        b->used = 0;
}

/* Thread exit: its records go out now, its buffer waits for the next new thread. */
static void sc_tbuf_release(void *p)
{
    sc_tbuf *b = p;
    sc_tbuf_lock(b);
    sc_tbuf_write_out(b);
    sc_tbuf_unlock(b);
    pthread_mutex_lock(&sc_tbuf_registry_lock);
    b->owned = false;
    pthread_mutex_unlock(&sc_tbuf_registry_lock);
    sc_tbuf_mine = NULL;
}

void sc_tbuf_start(sc_writer *w)
{
    sc_tbuf_writer = w;
    atomic_store(&sc_tbuf_accepting, true);
    pthread_key_create(&sc_tbuf_key, sc_tbuf_release);
}

static sc_tbuf *sc_tbuf_acquire(void)
{
    pthread_mutex_lock(&sc_tbuf_registry_lock);
    sc_tbuf *b = sc_tbuf_registry;
    while (b && b->owned) b = b->next;
    if (!b && (b = malloc(sizeof *b))) {
        atomic_flag_clear(&b->busy);
        b->used = 0;
        b->api_records = 0;
        b->next = sc_tbuf_registry;
        sc_tbuf_registry = b;
    }
    if (b) b->owned = true;
    pthread_mutex_unlock(&sc_tbuf_registry_lock);
    if (b) {
        sc_tbuf_mine = b;
        pthread_setspecific(sc_tbuf_key, b);
    }
    return b;
}

void *sc_tbuf_reserve(size_t size)
{
    if (!atomic_load_explicit(&sc_tbuf_accepting, memory_order_relaxed) ||
        size > SC_TBUF_MAX_RECORD)
        return NULL;
    sc_tbuf *b = sc_tbuf_mine ? sc_tbuf_mine : sc_tbuf_acquire();
    if (!b) return NULL;
    sc_tbuf_lock(b);
    if (b->used + size > SC_TBUF_SIZE) sc_tbuf_write_out(b);
    return b->data + b->used;
}

void sc_tbuf_commit(size_t size)
{
    sc_tbuf *b = sc_tbuf_mine;
    b->used += size;
    sc_tbuf_unlock(b);
}

void sc_tbuf_count_api(void)
{
    sc_tbuf_mine->api_records++;
}

uint64_t sc_tbuf_api_records(void)
{
    uint64_t n = 0;
    pthread_mutex_lock(&sc_tbuf_registry_lock);
    for (sc_tbuf *b = sc_tbuf_registry; b; b = b->next) n += b->api_records;
    pthread_mutex_unlock(&sc_tbuf_registry_lock);
    return n;
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

void sc_tbuf_flush_all(void)
{
    pthread_mutex_lock(&sc_tbuf_registry_lock);
    for (sc_tbuf *b = sc_tbuf_registry; b; b = b->next) {
        sc_tbuf_lock(b);
        sc_tbuf_write_out(b);
        sc_tbuf_unlock(b);
    }
    pthread_mutex_unlock(&sc_tbuf_registry_lock);
}

void sc_tbuf_flush_idle(void)
{
    if (pthread_mutex_trylock(&sc_tbuf_registry_lock) != 0) return;
    for (sc_tbuf *b = sc_tbuf_registry; b; b = b->next) {
        if (atomic_flag_test_and_set_explicit(&b->busy, memory_order_acquire)) continue;
        sc_tbuf_write_out_nowait(b);
        sc_tbuf_unlock(b);
    }
    pthread_mutex_unlock(&sc_tbuf_registry_lock);
}

void sc_tbuf_close(void)
{
    atomic_store(&sc_tbuf_accepting, false);
    sc_tbuf_flush_all();
    sc_tbuf_writer = NULL;
}

void sc_tbuf_drop_all(void)
{
    /* In a forked child only the forking thread exists; the parent's buffers (and any lock
     * another parent thread held at the fork) are not ours to use. Leak them: another
     * parent thread may have been inside one at the fork. */
    pthread_mutex_init(&sc_tbuf_registry_lock, NULL);
    sc_tbuf_registry = NULL;
    sc_tbuf_mine = NULL;
    sc_tbuf_writer = NULL;
    atomic_store(&sc_tbuf_accepting, false);
}
