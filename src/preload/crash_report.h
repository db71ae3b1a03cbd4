/* One look at a fatal signal before it ends the process: where it hit (the module and the
 * function), and the stack that led there, on stderr. A user whose program crashes under
 * streamcheck learns whether it crashed in streamcheck, in CUDA or in the program. */
#ifndef SC_PRELOAD_CRASH_REPORT_H
#define SC_PRELOAD_CRASH_REPORT_H

#include <signal.h>

/* From a SA_SIGINFO handler of a fatal signal: writes the report to fd 2. Uses dladdr and
 * glibc's backtrace, which are not async-signal-safe; the process is ending by the signal
 * anyway, and both only read the loader's tables (a crash inside the loader itself may
 * hang here, which the bounded flush after it does not rely on). */
void sc_crash_report(int sig, const siginfo_t *info, const void *ucontext);

#endif
