#include "preload/agent.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "preload/activity.h"
#include "preload/callbacks.h"
#include "preload/clock.h"
#include "preload/thread.h"
#include "preload/tracebuf.h"

enum { SC_AGENT_TICK_MS = 100, SC_AGENT_IDLE_FLUSH_MS = 500 };

static pthread_t sc_agent_thread;
static atomic_bool sc_agent_on; /* running and taking work */
static atomic_bool sc_agent_stopping;
static sem_t sc_agent_sem;
static atomic_uint sc_agent_busy; /* inside a round of work */
static atomic_bool sc_agent_want_idle, sc_agent_want_pool;
static _Atomic uint64_t sc_agent_checkpoints_asked, sc_agent_checkpoints_done;
static atomic_int sc_agent_finish_signal;         /* a terminating signal to finish for */
static void (*_Atomic sc_agent_finish_fn)(int);

static uint64_t sc_agent_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sc_agent_wait(void)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += SC_AGENT_TICK_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (sem_clockwait(&sc_agent_sem, CLOCK_MONOTONIC, &until) != 0 && errno == EINTR) {
    }
    /* Several wake-ups fold into one round. */
    while (sem_trywait(&sc_agent_sem) == 0) {
    }
}

static void sc_agent_round(uint64_t *last_idle_ms)
{
    sc_tbuf_drain();
    sc_clock_calibrate();
    uint64_t asked = atomic_load(&sc_agent_checkpoints_asked);
    if (asked != atomic_load(&sc_agent_checkpoints_done)) {
        sc_activity_checkpoint();
        atomic_store(&sc_agent_checkpoints_done, asked);
        /* CUPTI's buffer callback ran meanwhile: its records go out with the idle ones. */
        atomic_store(&sc_agent_want_idle, true);
    }
    uint64_t now = sc_agent_now_ms();
    if (atomic_exchange(&sc_agent_want_idle, false) ||
        now - *last_idle_ms >= SC_AGENT_IDLE_FLUSH_MS) {
        sc_tbuf_flush_idle_now();
        *last_idle_ms = now;
    }
    atomic_store(&sc_agent_want_pool, false);
    sc_thread_pool_refill();
    sc_tbuf_drain();
}

static void *sc_agent_main(void *arg)
{
    (void)arg;
    /* Whatever CUPTI does on this thread while it hands buffers over is not the program's. */
    sc_callbacks_self(true);
    uint64_t last_idle_ms = sc_agent_now_ms();
    while (!atomic_load(&sc_agent_stopping)) {
        sc_agent_wait();
        int sig = atomic_load(&sc_agent_finish_signal);
        if (sig) {
            /* The whole exit path, here rather than in the handler, where almost nothing
             * may be called: it stops this loop (sc_agent_stop on the agent itself). */
            atomic_load(&sc_agent_finish_fn)(sig);
            break;
        }
        atomic_store(&sc_agent_busy, 1);
        sc_agent_round(&last_idle_ms);
        atomic_store(&sc_agent_busy, 0);
    }
    sc_tbuf_drain();
    return NULL;
}

int sc_agent_start(void)
{
    if (atomic_load(&sc_agent_on)) return 0;
    if (sem_init(&sc_agent_sem, 0, 0) != 0) return -1;
    atomic_store(&sc_agent_stopping, false);
    /* Signals are the program's: none is ever delivered to this thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&sc_agent_thread, NULL, sc_agent_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return -1;
    pthread_setname_np(sc_agent_thread, "streamcheck");
    atomic_store(&sc_agent_on, true);
    return 0;
}

void sc_agent_stop(void)
{
    if (!atomic_exchange(&sc_agent_on, false)) return;
    atomic_store(&sc_agent_stopping, true);
    if (pthread_equal(pthread_self(), sc_agent_thread)) {
        pthread_detach(sc_agent_thread);  /* a finish it runs: it ends when that returns */
        return;
    }
    sem_post(&sc_agent_sem);
    pthread_join(sc_agent_thread, NULL);
}

bool sc_agent_running(void)
{
    return atomic_load_explicit(&sc_agent_on, memory_order_relaxed);
}

bool sc_agent_is_self(void)
{
    return sc_agent_running() && pthread_equal(pthread_self(), sc_agent_thread);
}

void sc_agent_wake(void)
{
    if (sc_agent_running()) sem_post(&sc_agent_sem);
}

bool sc_agent_request_finish(int sig, void (*finish)(int sig))
{
    if (!sc_agent_running() || sc_agent_is_self())
        return false;
    atomic_store(&sc_agent_finish_fn, finish);
    int none = 0;
    if (!atomic_compare_exchange_strong(&sc_agent_finish_signal, &none, sig))
        return true;    /* a second signal: the first one's finish is under way */
    sem_post(&sc_agent_sem);
    return true;
}

void sc_agent_request_flush_idle(void)
{
    atomic_store(&sc_agent_want_idle, true);
    sc_agent_wake();
}

void sc_agent_request_checkpoint(void)
{
    if (!sc_agent_running()) {
        sc_activity_checkpoint();
        return;
    }
    /* The checkpoint runs at most every 200 ms: waking the agent at every synchronization
     * anyway cost a program that synchronizes each step a futex call per step and the
     * agent a context switch (on an H200, 400 more a run than plain); the same check here
     * wakes it only when there is work. */
    if (!sc_activity_checkpoint_due()) return;
    atomic_fetch_add(&sc_agent_checkpoints_asked, 1);
    sc_agent_wake();
}

void sc_agent_request_pool(void)
{
    /* One wake-up per burst of new threads, not one per thread. */
    if (!atomic_exchange(&sc_agent_want_pool, true)) sc_agent_wake();
}

void sc_agent_wait_idle(int max_ms)
{
    if (!sc_agent_running()) return;
    for (int ms = 0; ms < max_ms; ms++) {
        if (!atomic_load(&sc_agent_busy) &&
            atomic_load(&sc_agent_checkpoints_asked) == atomic_load(&sc_agent_checkpoints_done))
            return;
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
}

void sc_agent_forget(void)
{
    atomic_store(&sc_agent_on, false);
    atomic_store(&sc_agent_busy, 0);
}
