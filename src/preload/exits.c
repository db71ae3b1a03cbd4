/* _exit and _Exit end the process without its exit handlers: the trace would stay .partial
 * and the records still in buffers (the library's and CUPTI's) would be lost. These wrappers
 * finish the trace first (sc_capture_finish: idempotent, and nothing in a forked child,
 * which calls _exit after a failed exec), then end the process as asked, with the status
 * asked. exit() reaches _exit inside the C library, not through these: its own handlers
 * (ours among them) have run by then. quick_exit runs at_quick_exit handlers, where init.c
 * registers the same finish. Only calls through the PLT are seen (an LD_PRELOAD attach);
 * with CUDA_INJECTION64_PATH alone they are not. */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/capture.h"
#include "streamcheck/trace_format.h"

#define SC_EXPORT __attribute__((visibility("default")))

typedef void (*sc_exit_fn)(int) __attribute__((noreturn));

__attribute__((noreturn)) static void sc_finish_then(const char *name, int status)
{
    int saved = errno;
    sc_capture_finish(SC_END_EXIT);
    errno = saved;
    sc_exit_fn real = (sc_exit_fn)dlsym(RTLD_NEXT, name);
    if (real)
        real(status);
    for (;;)
        syscall(SYS_exit_group, status);
}

SC_EXPORT void _exit(int status)
{
    sc_finish_then("_exit", status);
}

SC_EXPORT void _Exit(int status)
{
    sc_finish_then("_Exit", status);
}

/* Exit handlers registered once CUDA started run before the library's own (registered at
 * cuInit: handlers run last-registered first), which is where an exit waits for a terminating
 * signal's finish. Each is wrapped so that it waits for that finish first: without the
 * library the signal would have ended the process before any exit handler ran, and one that
 * tears CUDA down (a C++ static's destructor, a library's teardown) must not run beside the
 * finish. Without a signal the wrapper only calls the handler. Registrations before CUDA
 * started need none (they run after the library's handler), nor the library's own. Under
 * LD_PRELOAD only, as the wrappers above; a return from main reaches exit() inside the C
 * library, but its handlers come through here. A library unloaded (dlclose) while a signal's
 * finish is under way waits for it too, holding the loader's lock: the finish takes none
 * itself (capture.c), and were CUPTI's flush to need it, the watchdog ends the run. */
typedef int (*sc_cxa_atexit_fn)(void (*)(void *), void *, void *);
typedef struct sc_exit_handler {
    void (*fn)(void *);
    void *arg;
} sc_exit_handler;

extern void *__dso_handle;  /* this library's */

static void sc_gated_exit_handler(void *p)
{
    sc_exit_handler h = *(sc_exit_handler *)p;
    free(p);    /* each entry runs once, at exit or at its library's dlclose */
    sc_capture_exit_gate();
    h.fn(h.arg);
}

SC_EXPORT int __cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
    static _Atomic(sc_cxa_atexit_fn) real;
    sc_cxa_atexit_fn next = atomic_load_explicit(&real, memory_order_acquire);
    if (!next) {
        next = (sc_cxa_atexit_fn)dlsym(RTLD_NEXT, "__cxa_atexit");
        if (!next) return -1;
        atomic_store_explicit(&real, next, memory_order_release);
    }
    sc_exit_handler *h;
    if (dso == &__dso_handle || !sc_capture_running(NULL) || !(h = malloc(sizeof *h)))
        return next(fn, arg, dso);
    *h = (sc_exit_handler){fn, arg};
    int rc = next(sc_gated_exit_handler, h, dso);
    if (rc != 0) free(h);
    return rc;
}
