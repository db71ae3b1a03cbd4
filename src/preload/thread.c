#include "preload/thread.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/agent.h"
#include "preload/loss.h"
#include "preload/tracebuf.h"

#define SC_TLS __thread __attribute__((tls_model("initial-exec")))

/* Free blocks kept ready: a burst of new threads (a thread pool starting up) must find one
 * each. SC_POOL_LOW or fewer left: the agent makes more, up to SC_POOL_TARGET. */
enum { SC_POOL_TARGET = 32, SC_POOL_LOW = 8, SC_PREFAULT_BYTES = 16 * 1024 };

static _Atomic(sc_thread *) sc_registry; /* append-only: blocks are never freed */
static atomic_int sc_free_blocks;
static pthread_key_t sc_thread_key;
static bool sc_key_made;
static pthread_once_t sc_key_once = PTHREAD_ONCE_INIT;
static atomic_bool sc_threads_off; /* a forked child */
SC_TLS sc_thread *sc_thread_current;

static void sc_thread_publish(sc_thread *t)
{
    sc_thread *head = atomic_load_explicit(&sc_registry, memory_order_relaxed);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak_explicit(&sc_registry, &head, t, memory_order_release,
                                                  memory_order_relaxed));
}

/* A block with a buffer, owned or free. */
static sc_thread *sc_thread_make(bool owned)
{
    sc_thread *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    atomic_flag_clear(&t->busy);
    atomic_init(&t->owned, owned);
    /* zero already (calloc): forgetting sets it up without touching the tables' pages */
    sc_compact_writer_forget(&t->compact);
    t->cur = sc_tbuf_buf_new(t); /* NULL is survivable: the first reserve tries again */
    /* Its first pages are touched here, not by the thread's first record: a page fault is
     * microseconds. */
    if (t->cur) memset(t->cur->data, 0, SC_PREFAULT_BYTES);
    if (!owned) atomic_fetch_add(&sc_free_blocks, 1);
    sc_thread_publish(t);
    return t;
}

/* Thread exit (the key's destructor): the block goes back to the pool. */
static void sc_thread_release(void *p)
{
    sc_thread *t = p;
    sc_tbuf_thread_exit(t);
    /* Push/pop ranges its thread never closed. */
    uint32_t depth = atomic_exchange_explicit(&t->nvtx_depth, 0, memory_order_relaxed);
    sc_loss_add(SC_LOSS_NVTX_UNCLOSED, depth < SC_NVTX_MAX_DEPTH ? depth : SC_NVTX_MAX_DEPTH);
    /* The next thread shares no stack with this one. (Nor the call sites it declared, whose
     * thread id is this one's: sc_tbuf_thread_exit handed its buffer over, which makes the
     * compact writer forget them; a buffer that stayed empty declared none.) */
    sc_sample_reset(&t->samples);
    sc_thread_current = NULL;
    atomic_store_explicit(&t->owned, false, memory_order_release);
    atomic_fetch_add(&sc_free_blocks, 1);
}

sc_thread *sc_thread_claim(void)
{
    if (atomic_load_explicit(&sc_threads_off, memory_order_relaxed)) return NULL;
    sc_thread *t = atomic_load_explicit(&sc_registry, memory_order_acquire);
    for (; t; t = t->next) {
        if (!atomic_load_explicit(&t->owned, memory_order_relaxed) &&
            !atomic_exchange_explicit(&t->owned, true, memory_order_acquire)) {
            atomic_fetch_sub(&sc_free_blocks, 1);
            break;
        }
    }
    /* The pool ran dry (more new threads at once than it holds): make one here. */
    if (!t && !(t = sc_thread_make(true))) return NULL;
    t->tid = (uint32_t)syscall(SYS_gettid);
    sc_thread_current = t;
    if (sc_key_made) pthread_setspecific(sc_thread_key, t);
    if (atomic_load_explicit(&sc_free_blocks, memory_order_relaxed) <= SC_POOL_LOW)
        sc_agent_request_pool();
    return t;
}

sc_thread *sc_thread_first(void)
{
    return atomic_load_explicit(&sc_registry, memory_order_acquire);
}

static void sc_thread_make_key(void)
{
    sc_key_made = pthread_key_create(&sc_thread_key, sc_thread_release) == 0;
}

void sc_thread_key_init(void)
{
    pthread_once(&sc_key_once, sc_thread_make_key);
}

void sc_thread_pool_start(void)
{
    sc_thread_key_init();
    while (atomic_load(&sc_free_blocks) < SC_POOL_TARGET)
        if (!sc_thread_make(false)) break;
}

void sc_thread_pool_refill(void)
{
    if (atomic_load(&sc_free_blocks) <= SC_POOL_LOW)
        while (atomic_load(&sc_free_blocks) < SC_POOL_TARGET)
            if (!sc_thread_make(false)) break;
    /* Every thread in use gets a spare buffer here, so that it never allocates one itself
     * when its buffer fills (untouched pages of a spare cost no memory). */
    for (sc_thread *t = sc_thread_first(); t; t = t->next) {
        if (!atomic_load_explicit(&t->owned, memory_order_relaxed) ||
            atomic_load_explicit(&t->spare, memory_order_relaxed))
            continue;
        sc_tbuf_buf *spare = sc_tbuf_buf_new(t), *none = NULL;
        if (spare && !atomic_compare_exchange_strong(&t->spare, &none, spare)) free(spare);
    }
}

void sc_thread_drop_all(void)
{
    atomic_store(&sc_threads_off, true);
    atomic_store(&sc_registry, NULL);
    atomic_store(&sc_free_blocks, 0);
    sc_thread_current = NULL;
}
