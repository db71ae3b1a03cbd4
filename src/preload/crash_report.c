#include "preload/crash_report.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "preload/stack.h"

#define SC_CRASH_FRAMES 24

static void sc_crash_write(const char *text, int n)
{
    if (n <= 0) return;
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, text, (size_t)n);
        if (k <= 0) return;
        text += k;
        n -= (int)k;
    }
}

/* strsignal may translate, and so allocate: a table of the signals the library handles. */
static const char *sc_crash_signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (abort)";
    default: return "a fatal signal";
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

/* "libfoo.so+0x1a2b (in foo_step)" for an address, or its plain value. */
static void sc_crash_where(uintptr_t pc, char *buf, size_t size)
{
    Dl_info d = {0};
    if (!pc || !dladdr((void *)pc, &d) || !d.dli_fname) {
        snprintf(buf, size, "%p", (void *)pc);
        return;
    }
    const char *module = strrchr(d.dli_fname, '/') ? strrchr(d.dli_fname, '/') + 1 : d.dli_fname;
    snprintf(buf, size, "%s+0x%lx (in %s)", module, (unsigned long)(pc - (uintptr_t)d.dli_fbase),
             d.dli_sname ? d.dli_sname : "?");
}

void sc_crash_report(int sig, const siginfo_t *info, const void *ucontext)
{
    char line[1024], where[600], addr[48] = "";
    uintptr_t pc = sc_crash_pc(ucontext);
    sc_crash_where(pc, where, sizeof where);
    if (info && sig != SIGABRT)     /* the faulting address; abort's siginfo holds a pid */
        snprintf(addr, sizeof addr, " (address %p)", info->si_addr);
    sc_crash_write(line, snprintf(line, sizeof line,
                                  "streamcheck: the program received %s%s at %s; the trace is "
                                  "written out before it ends. The stack:\n",
                                  sc_crash_signal_name(sig), addr, where));
    /* Through the signal frame into the code it interrupted, with the unwinder the library
     * already uses for its samples (loaded with it: nothing is loaded here). */
    uint64_t frames[SC_CRASH_FRAMES + 8];
    int n = sc_stack_capture(frames, SC_CRASH_FRAMES + 8, 0);
    /* The handler's own frames and the signal trampoline come first: start at the
     * interrupted instruction when the unwinder reached it (libgcc reports a signal frame
     * by its pc). */
    int first = 0;
    while (first < n && frames[first] != (uint64_t)pc) first++;
    if (first == n) first = 0;
    if (n - first > SC_CRASH_FRAMES) n = first + SC_CRASH_FRAMES;
    for (int i = first; i < n; i++) {
        sc_crash_where((uintptr_t)frames[i], where, sizeof where);
        int k = snprintf(line, sizeof line, "streamcheck:   #%d %s\n", i - first, where);
        sc_crash_write(line, k < (int)sizeof line ? k : (int)sizeof line - 1);
    }
}
