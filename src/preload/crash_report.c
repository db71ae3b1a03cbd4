#include "preload/crash_report.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#define SC_CRASH_FRAMES 24

static void sc_crash_write(const char *text, size_t n)
{
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, text, n);
        if (k <= 0) return;
        text += k;
        n -= (size_t)k;
    }
}

/* The instruction the signal hit: the interrupted context's program counter. */
static uintptr_t sc_crash_pc(const void *ucontext)
{
#if defined(__x86_64__)
    return ucontext ? (uintptr_t)((const ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP] : 0;
#elif defined(__aarch64__)
    return ucontext ? (uintptr_t)((const ucontext_t *)ucontext)->uc_mcontext.pc : 0;
#else
    (void)ucontext;
    return 0;
#endif
}

void sc_crash_report(int sig, const siginfo_t *info, const void *ucontext)
{
    char line[768];
    uintptr_t pc = sc_crash_pc(ucontext);
    Dl_info where = {0};
    const char *module = "?", *function = "?";
    uintptr_t offset = 0;
    if (pc && dladdr((void *)pc, &where) && where.dli_fname) {
        module = strrchr(where.dli_fname, '/') ? strrchr(where.dli_fname, '/') + 1
                                               : where.dli_fname;
        offset = pc - (uintptr_t)where.dli_fbase;
        if (where.dli_sname) function = where.dli_sname;
    }
    int n = snprintf(line, sizeof line,
                     "streamcheck: the program received %s (address %p) at %p, %s+0x%lx "
                     "(in %s); the trace is written out before it ends. Its stack:\n",
                     strsignal(sig), info ? info->si_addr : NULL, (void *)pc, module,
                     (unsigned long)offset, function);
    if (n > 0) sc_crash_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    void *frames[SC_CRASH_FRAMES];
    int depth = backtrace(frames, SC_CRASH_FRAMES);
    if (depth > 0) backtrace_symbols_fd(frames, depth, STDERR_FILENO);
}
