/* Entry points of libstreamcheck.so.
 *
 * LD_PRELOAD: the constructor only reads options, names this library in
 * CUDA_INJECTION64_PATH and creates the thread-exit key (thread.h: early, so that it is one
 * of the 32 glibc keeps without allocating). The driver then calls InitializeInjection at cuInit, so capture
 * starts exactly when the program starts CUDA (GPU-FACTS.md: this works for statically
 * linked cudart and for PyTorch), and a process that never touches CUDA pays nothing and
 * writes nothing. CUDA_INJECTION64_PATH alone (no LD_PRELOAD) reaches the same function.
 * NVTX_INJECTION64_PATH is set the same way, for NVTX ranges (nvtx.c). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/capture.h"
#include "preload/options.h"
#include "preload/thread.h"
#include "streamcheck/trace_format.h"

#define SC_EXPORT __attribute__((visibility("default")))

static int sc_preloaded;

static void sc_at_exit(void) { sc_capture_finish(SC_END_EXIT); }
static void sc_at_fork_child(void) { sc_capture_forked_child(); }

__attribute__((constructor)) static void sc_preload_ctor(void)
{
    sc_options_read();
    if (sc_opts.disabled) return;
    sc_thread_key_init();
    Dl_info self;
    if (!dladdr((void *)sc_preload_ctor, &self) || !self.dli_fname) return;
    const char *current = getenv("CUDA_INJECTION64_PATH");
    const char *preload = getenv("LD_PRELOAD");
    sc_preloaded = preload && strstr(preload, "libstreamcheck") != NULL;
    if (!current || !*current) {
        setenv("CUDA_INJECTION64_PATH", self.dli_fname, 0);
        /* NVTX ranges reach CUPTI through us (nvtx.c); a tool already named keeps them. */
        setenv("NVTX_INJECTION64_PATH", self.dli_fname, 0);
    } else if (strstr(current, "libstreamcheck") == NULL) {
        fprintf(stderr,
                "streamcheck: CUDA_INJECTION64_PATH already names %s (another tool); "
                "streamcheck stays off\n",
                current);
    }
}

SC_EXPORT int InitializeInjection(void)
{
    sc_options_read();
    if (sc_opts.disabled) return 1;
    sc_capture_start(sc_preloaded ? SC_ATTACH_PRELOAD : SC_ATTACH_INJECTION);
    static int registered;
    if (!registered) {
        registered = 1;
        /* Registered at cuInit, after the CUDA runtime's own exit handlers, so ours runs
         * first, while contexts can still be synchronized. */
        atexit(sc_at_exit);
        at_quick_exit(sc_at_exit);  /* quick_exit skips atexit; _exit, _Exit: exits.c */
        pthread_atfork(NULL, NULL, sc_at_fork_child);
    }
    return 1;
}
