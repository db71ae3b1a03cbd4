/* One look at a fatal signal before it ends the process: where it hit (the module and the
 * function), and the stack that led there, on stderr. A user whose program crashes under
 * streamcheck learns whether it crashed in streamcheck, in CUDA or in the program. */
#ifndef SC_PRELOAD_CRASH_REPORT_H
#define SC_PRELOAD_CRASH_REPORT_H

#include <signal.h>

/* From a SA_SIGINFO handler of a fatal signal: writes the report to fd 2. Nothing is
 * allocated or loaded; dladdr is not async-signal-safe (it takes the loader's lock: a crash
 * inside the loader itself could hang here), which a dying process accepts for the sake of
 * saying where it died. */
void sc_crash_report(int sig, const siginfo_t *info, const void *ucontext);

#endif
