#include "preload/stack.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unwind.h>

#include "preload/options.h"

typedef int (*sc_unw_backtrace_fn)(void **buffer, int size);
static sc_unw_backtrace_fn sc_unw_backtrace;

void sc_stack_init(void)
{
    const char *want = sc_opts.unwinder;
    bool lockfree_libgcc = dlsym(RTLD_DEFAULT, "_dl_find_object") != NULL;
    if (strcmp(want, "libgcc") == 0 || (!*want && lockfree_libgcc)) return;
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h) *(void **)&sc_unw_backtrace = dlsym(h, "unw_backtrace");
}

const char *sc_stack_unwinder(void)
{
    return sc_unw_backtrace ? "libunwind" : "libgcc";
}

typedef struct sc_unwind_state {
    uint64_t *frames;
    int max, skip, n;
} sc_unwind_state;

static _Unwind_Reason_Code sc_unwind_step(struct _Unwind_Context *ctx, void *arg)
{
    sc_unwind_state *s = arg;
    uintptr_t ip = _Unwind_GetIP(ctx);
    if (!ip) return _URC_END_OF_STACK;
    if (s->skip > 0) {
        s->skip--;
        return _URC_NO_REASON;
    }
    s->frames[s->n++] = ip;
    return s->n < s->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

int sc_stack_capture(uint64_t *frames, int max, int skip)
{
    if (max <= 0) return 0;
    if (sc_unw_backtrace) {
        void *buf[SC_MAX_STACK_DEPTH + 8];
        int want = max + skip;
        if (want > (int)(sizeof buf / sizeof *buf)) want = (int)(sizeof buf / sizeof *buf);
        int n = sc_unw_backtrace(buf, want);
        int out = 0;
        for (int i = skip; i < n && out < max; i++) frames[out++] = (uint64_t)(uintptr_t)buf[i];
        return out;
    }
    sc_unwind_state s = {frames, max, skip, 0};
    _Unwind_Backtrace(sc_unwind_step, &s);
    return s.n;
}
