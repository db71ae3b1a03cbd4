#include "preload/tracebuf.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "trace/record.h"

enum { SC_TBUF_SIZE = 256 * 1024 };

typedef struct sc_tbuf {
    pthread_mutex_t lock;
    struct sc_tbuf *next;   /* registry */
    bool owned;             /* a live thread uses it */
    size_t used;
    uint8_t data[SC_TBUF_SIZE];
} sc_tbuf;

static sc_writer *sc_tbuf_writer;
static pthread_mutex_t sc_tbuf_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sc_tbuf *sc_tbuf_registry;
static pthread_key_t sc_tbuf_key;
static __thread sc_tbuf *sc_tbuf_mine __attribute__((tls_model("initial-exec")));

static void sc_tbuf_write_out(sc_tbuf *b)
{
    if (b->used && sc_tbuf_writer) sc_writer_append(sc_tbuf_writer, b->data, b->used);
    b->used = 0;
}

/* Thread exit: its records go out now, its buffer waits for the next new thread. */
static void sc_tbuf_release(void *p)
{
    sc_tbuf *b = p;
    pthread_mutex_lock(&b->lock);
    sc_tbuf_write_out(b);
    pthread_mutex_unlock(&b->lock);
    pthread_mutex_lock(&sc_tbuf_registry_lock);
    b->owned = false;
    pthread_mutex_unlock(&sc_tbuf_registry_lock);
    sc_tbuf_mine = NULL;
}

void sc_tbuf_start(sc_writer *w)
{
    sc_tbuf_writer = w;
    pthread_key_create(&sc_tbuf_key, sc_tbuf_release);
}

static sc_tbuf *sc_tbuf_acquire(void)
{
    pthread_mutex_lock(&sc_tbuf_registry_lock);
    sc_tbuf *b = sc_tbuf_registry;
    while (b && b->owned) b = b->next;
    if (!b && (b = malloc(sizeof *b))) {
        pthread_mutex_init(&b->lock, NULL);
        b->used = 0;
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
    if (!sc_tbuf_writer || size > SC_TBUF_MAX_RECORD) return NULL;
    sc_tbuf *b = sc_tbuf_mine ? sc_tbuf_mine : sc_tbuf_acquire();
    if (!b) return NULL;
    pthread_mutex_lock(&b->lock);
    if (b->used + size > SC_TBUF_SIZE) sc_tbuf_write_out(b);
    return b->data + b->used;
}

void sc_tbuf_commit(size_t size)
{
    sc_tbuf *b = sc_tbuf_mine;
    b->used += size;
    pthread_mutex_unlock(&b->lock);
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
        pthread_mutex_lock(&b->lock);
        sc_tbuf_write_out(b);
        pthread_mutex_unlock(&b->lock);
    }
    pthread_mutex_unlock(&sc_tbuf_registry_lock);
}

void sc_tbuf_drop_all(void)
{
    /* In a forked child only the forking thread exists; the parent's buffers (and any lock
     * another parent thread held at the fork) are not ours to use. Leak them: freeing could
     * touch a mutex in an undefined state. */
    pthread_mutex_init(&sc_tbuf_registry_lock, NULL);
    sc_tbuf_registry = NULL;
    sc_tbuf_mine = NULL;
    sc_tbuf_writer = NULL;
}
