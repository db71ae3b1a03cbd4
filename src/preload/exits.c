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
