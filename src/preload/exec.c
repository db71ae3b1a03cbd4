/* exec replaces the process image without running exit handlers: the trace would stay
 * .partial and the records still in buffers would be lost. These wrappers finish the trace
 * first, then exec. Only the calls an application makes through the PLT can be seen; that
 * is every exec* entry point of the C library. If exec fails, the call returns as usual and
 * the rest of the run is not recorded (the trace already says why it ended). */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "preload/capture.h"
#include "streamcheck/trace_format.h"

#define SC_EXPORT __attribute__((visibility("default")))

typedef int (*sc_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*sc_execv_fn)(const char *, char *const[]);

static void *sc_real(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

static void sc_before_exec(void)
{
    int saved = errno;
    sc_capture_finish(SC_END_EXEC);
    errno = saved;
}

SC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    sc_execve_fn real = (sc_execve_fn)sc_real("execve");
    if (!real) return errno = ENOSYS, -1;
    sc_before_exec();
    return real(path, argv, envp);
}

SC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    sc_execve_fn real = (sc_execve_fn)sc_real("execvpe");
    if (!real) return errno = ENOSYS, -1;
    sc_before_exec();
    return real(file, argv, envp);
}

SC_EXPORT int execv(const char *path, char *const argv[])
{
    sc_execv_fn real = (sc_execv_fn)sc_real("execv");
    if (!real) return errno = ENOSYS, -1;
    sc_before_exec();
    return real(path, argv);
}

SC_EXPORT int execvp(const char *file, char *const argv[])
{
    sc_execv_fn real = (sc_execv_fn)sc_real("execvp");
    if (!real) return errno = ENOSYS, -1;
    sc_before_exec();
    return real(file, argv);
}

/* The execl family takes its arguments as a list; collect them (bounded, on the stack, as
 * glibc does) and hand them to the vector form above. */
enum { SC_EXECL_MAX = 4096 };

#define SC_COLLECT(ap, first, argv, count)                              \
    do {                                                                \
        (argv)[0] = (char *)(first);                                    \
        (count) = 1;                                                    \
        while ((argv)[(count) - 1] && (count) < SC_EXECL_MAX)           \
            (argv)[(count)++] = va_arg((ap), char *);                   \
        if ((argv)[(count) - 1]) (argv)[(count) - 1] = NULL;            \
    } while (0)

SC_EXPORT int execl(const char *path, const char *arg, ...)
{
    char *argv[SC_EXECL_MAX];
    size_t n;
    va_list ap;
    va_start(ap, arg);
    SC_COLLECT(ap, arg, argv, n);
    va_end(ap);
    return execv(path, argv);
}

SC_EXPORT int execlp(const char *file, const char *arg, ...)
{
    char *argv[SC_EXECL_MAX];
    size_t n;
    va_list ap;
    va_start(ap, arg);
    SC_COLLECT(ap, arg, argv, n);
    va_end(ap);
    return execvp(file, argv);
}

SC_EXPORT int execle(const char *path, const char *arg, ...)
{
    char *argv[SC_EXECL_MAX];
    size_t n;
    va_list ap;
    va_start(ap, arg);
    SC_COLLECT(ap, arg, argv, n);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
