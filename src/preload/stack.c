#include "preload/stack.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "preload/options.h"

typedef int (*sc_unw_backtrace_fn)(void **buffer, int size);
static sc_unw_backtrace_fn sc_unw_backtrace;

/* This library's code, [lo, hi): a frame whose return address lies in it is streamcheck's.
 * Both 0 when it could not be found: then a fixed count of frames is left out instead. */
static uintptr_t sc_self_lo, sc_self_hi;
/* What sc_stack_capture_app_other leaves out without that range (never seen): its own
 * frame, the exit callback's and CUPTI's dispatcher's. */
enum { SC_SELF_FRAMES_FALLBACK = 3 };

static bool sc_is_self(uintptr_t ip) { return ip >= sc_self_lo && ip < sc_self_hi; }

/* The code an application call's stack stops at, [lo, lo + len); len 0: none. Set at
 * capture start and when Python turns off, read by every unwinding thread. */
static atomic_uintptr_t sc_stop_lo, sc_stop_len;

typedef struct sc_code_range {
    uintptr_t at, lo, hi;
} sc_code_range;

static int sc_find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    sc_code_range *r = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (r->at >= lo && r->at < hi) {
            r->lo = lo;
            r->hi = hi;
            return 1;
        }
    }
    return 0;
}

void sc_stack_stop_at_code_of(const void *fn)
{
    sc_code_range r = {(uintptr_t)fn, 0, 0};
    if (fn) dl_iterate_phdr(sc_find_code, &r);
    atomic_store_explicit(&sc_stop_len, 0, memory_order_relaxed);
    atomic_store_explicit(&sc_stop_lo, r.lo, memory_order_relaxed);
    atomic_store_explicit(&sc_stop_len, r.hi - r.lo, memory_order_relaxed);
}

/* Whether an application call's stack that has n frames ends at ip. */
static inline bool sc_stops_at(uintptr_t ip, int n)
{
    return n > 0 && ip - atomic_load_explicit(&sc_stop_lo, memory_order_relaxed) <
                        atomic_load_explicit(&sc_stop_len, memory_order_relaxed);
}

bool sc_stack_inline;

void sc_stack_init(void)
{
    if (!sc_self_hi) {
        sc_code_range self = {(uintptr_t)sc_stack_init, 0, 0};
        dl_iterate_phdr(sc_find_code, &self);
        sc_self_lo = self.lo;
        sc_self_hi = self.hi;
    }
    const char *want = sc_opts.unwinder;
    bool lockfree_libgcc = dlsym(RTLD_DEFAULT, "_dl_find_object") != NULL;
    if (strcmp(want, "libgcc") != 0 && !(!*want && lockfree_libgcc)) {
        void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
        if (h) *(void **)&sc_unw_backtrace = dlsym(h, "unw_backtrace");
    }
    sc_stack_inline = !sc_unw_backtrace && sc_self_hi;
}

const char *sc_stack_unwinder(void)
{
    return sc_unw_backtrace ? "libunwind" : "libgcc";
}

_Unwind_Reason_Code sc_unwind_step(struct _Unwind_Context *ctx, void *arg)
{
    sc_unwind_state *s = arg;
    uintptr_t ip = _Unwind_GetIP(ctx);
    if (!ip) return _URC_END_OF_STACK;
    if (s->skip_self && sc_is_self(ip)) return _URC_NO_REASON;
    s->skip_self = false;
    if (s->skip > 0) {
        s->skip--;
        return _URC_NO_REASON;
    }
    if (s->stop && sc_stops_at(ip, s->n)) return _URC_END_OF_STACK;
    s->frames[s->n++] = ip;
    return s->n < s->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

static inline __attribute__((always_inline)) int sc_capture(uint64_t *frames, int max, int skip,
                                                          bool skip_self, bool stop)
{
    if (max <= 0) return 0;
    if (sc_unw_backtrace) {
        void *buf[SC_MAX_STACK_DEPTH + 8];
        /* This library's frames are counted as they come: room for a few of them (the
         * callback's and this one's); should there be more, the stack is cut shorter. */
        int want = max + skip + (skip_self ? SC_SELF_FRAMES_FALLBACK + 1 : 0);
        if (want > (int)(sizeof buf / sizeof *buf)) want = (int)(sizeof buf / sizeof *buf);
        int n = sc_unw_backtrace(buf, want);
        int i = 0, out = 0;
        while (skip_self && i < n && sc_is_self((uintptr_t)buf[i])) i++;
        for (i += skip; i < n && out < max; i++) {
            if (stop && sc_stops_at((uintptr_t)buf[i], out)) break;
            frames[out++] = (uint64_t)(uintptr_t)buf[i];
        }
        return out;
    }
    sc_unwind_state s = {frames, max, skip, 0, skip_self, stop};
    _Unwind_Backtrace(sc_unwind_step, &s);
    return s.n;
}

int sc_stack_capture(uint64_t *frames, int max, int skip)
{
    return sc_capture(frames, max, skip, false, false);
}

int sc_stack_capture_app_other(uint64_t *frames, int max)
{
    if (!sc_self_hi) return sc_capture(frames, max, SC_SELF_FRAMES_FALLBACK, false, true);
    return sc_capture(frames, max, 1, true, true);
}
