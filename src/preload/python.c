#include "preload/python.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/options.h"
#include "preload/python_layout.h"
#include "preload/stack.h"
#include "preload/strings.h"
#include "preload/tracebuf.h"

/* 3.11+: frames owned by the C stack are the interpreter's entry shims, not Python code */
#define SC_PY_FRAME_OWNED_BY_CSTACK 3
/* Frames walked at most: a cycle in what should be a list must not hang a call. */
#define SC_PY_MAX_WALK 4096

static const sc_python_layout *sc_py;       /* NULL: no Python read in this process */
static void *(*sc_py_this_tstate)(void);    /* PyGILState_GetThisThreadState */
static int (*sc_py_addr2line)(const void *code, int byte_offset);  /* PyCode_Addr2Line */
static const void *sc_py_code_type, *sc_py_unicode_type;
/* Whether the layout was seen to fit this interpreter: 0 not yet, 1 yes, -1 no. The first
 * walk reads through a system call that fails instead of faulting (sc_py_peek); once one
 * whole stack checked out, walks read memory directly. */
static atomic_int sc_py_verified;
/* sc_py set and sc_py_verified not -1: what sc_python_active reads, in one load. */
atomic_bool sc_python_on;

static bool sc_py_version(int *major, int *minor)
{
    /* Py_Version (3.11+) is a constant; Py_GetVersion formats into a static buffer. */
    const unsigned long *hex = dlsym(RTLD_DEFAULT, "Py_Version");
    if (hex) {
        *major = (int)(*hex >> 24 & 0xff);
        *minor = (int)(*hex >> 16 & 0xff);
        return true;
    }
    const char *(*get)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
    const char *v = get ? get() : NULL;
    return v && sscanf(v, "%d.%d", major, minor) == 2;
}

/* One note in the trace: why this run's call sites have no Python lines. */
static void sc_py_note(const char *text)
{
    sc_rec_note note = {.code = SC_NOTE_PYTHON_UNREAD};
    sc_tbuf_put(SC_REC_NOTE, &note, sizeof note, text, strlen(text) + 1);
}

void sc_python_start(void)
{
    sc_py = NULL;
    sc_stack_stop_at_code_of(NULL);
    atomic_store(&sc_py_verified, 0);
    atomic_store(&sc_python_on, false);
    /* Every process with CPython in it has Py_IsInitialized. */
    if (!sc_opts.python || !dlsym(RTLD_DEFAULT, "Py_IsInitialized")) return;
    int major = 0, minor = 0;
    if (!sc_py_version(&major, &minor)) return;
    const sc_python_layout *layout = major == 3 ? sc_python_layout_for(minor) : NULL;
    sc_py_this_tstate = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    sc_py_addr2line = (int (*)(const void *, int))dlsym(RTLD_DEFAULT, "PyCode_Addr2Line");
    sc_py_code_type = dlsym(RTLD_DEFAULT, "PyCode_Type");
    sc_py_unicode_type = dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    if (!layout || !sc_py_this_tstate || !sc_py_addr2line || !sc_py_code_type ||
        !sc_py_unicode_type) {
        char text[200];
        snprintf(text, sizeof text,
                 "Python %d.%d: its lines are not recorded (streamcheck reads CPython 3.10 "
                 "to 3.13); call sites are native frames only",
                 major, minor);
        sc_py_note(text);
        return;
    }
    sc_py = layout;
    atomic_store(&sc_python_on, true);
    /* The interpreter's own C frames below a CUDA call are its evaluation loop: the Python
     * stack says where the program was, so the native stack stops there (stack.h). */
    sc_stack_stop_at_code_of(dlsym(RTLD_DEFAULT, "PyEval_EvalCode"));
}

/* ---- reading the interpreter's memory --------------------------------------------------- */

/* Copies n bytes at addr, or fails (0) where addr is not readable: process_vm_readv on
 * ourselves reports EFAULT instead of faulting. Only the first walk uses it. */
static int sc_py_peek(const void *addr, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)addr, n};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

typedef struct sc_py_reader {
    bool careful;   /* through sc_py_peek */
    bool failed;
    int not_code;   /* 3.13: frames passed over for running something other than code */
} sc_py_reader;

static const void *sc_py_ptr(sc_py_reader *r, const void *base, int offset)
{
    const void *v = NULL;
    if (r->failed || !base || offset < 0) return NULL;
    const char *at = (const char *)base + offset;
    if (!r->careful) return *(const void *const *)(const void *)at;
    if (!sc_py_peek(at, &v, sizeof v)) r->failed = true;
    return v;
}

static int32_t sc_py_i32(sc_py_reader *r, const void *base, int offset)
{
    int32_t v = 0;
    if (r->failed || !base || offset < 0) return 0;
    const char *at = (const char *)base + offset;
    if (!r->careful) return *(const int32_t *)(const void *)at;
    if (!sc_py_peek(at, &v, sizeof v)) r->failed = true;
    return v;
}

static uint8_t sc_py_u8(sc_py_reader *r, const void *base, int offset)
{
    uint8_t v = 0;
    if (r->failed || !base || offset < 0) return 0;
    const char *at = (const char *)base + offset;
    if (!r->careful) return *(const uint8_t *)at;
    if (!sc_py_peek(at, &v, sizeof v)) r->failed = true;
    return v;
}

/* ob_type: right after ob_refcnt in every non-free-threaded build */
static bool sc_py_is(sc_py_reader *r, const void *obj, const void *type)
{
    return obj && sc_py_ptr(r, obj, 8) == type && !r->failed;
}

static const void *sc_py_innermost(sc_py_reader *r, const void *tstate)
{
    if (sc_py->tstate_frame >= 0) return sc_py_ptr(r, tstate, sc_py->tstate_frame);
    const void *cframe = sc_py_ptr(r, tstate, sc_py->tstate_cframe);
    return sc_py_ptr(r, cframe, sc_py->cframe_current);
}

/* One frame's code and position (a byte offset into its instructions, -1 when the frame
 * has not started), or NULL for a frame to pass over: an entry shim, a frame still being
 * set up, or (3.13) one that runs something other than a code object. */
static const void *sc_py_frame_code(sc_py_reader *r, const void *frame, int *byte_offset)
{
    if (sc_py->frame_owner >= 0 && sc_py->minor >= 12 &&
        sc_py_u8(r, frame, sc_py->frame_owner) == SC_PY_FRAME_OWNED_BY_CSTACK)
        return NULL;
    const void *code = sc_py_ptr(r, frame, sc_py->frame_code);
    if (!sc_py_is(r, code, sc_py_code_type)) {
        if (sc_py->minor < 13) r->failed = true;    /* before 3.13 every frame runs code */
        r->not_code++;
        return NULL;
    }
    if (sc_py->code_units < 0) {    /* 3.10: f_lasti counts code units of 2 bytes */
        int32_t lasti = sc_py_i32(r, frame, sc_py->frame_instr);
        *byte_offset = lasti < 0 ? -1 : lasti * 2;
        return code;
    }
    const char *instr = sc_py_ptr(r, frame, sc_py->frame_instr);
    const char *first = (const char *)code + sc_py->code_units;
    int32_t traceable = sc_py_i32(r, code, sc_py->code_first_traceable);
    bool generator = sc_py_u8(r, frame, sc_py->frame_owner) == 1;
    if (!generator && instr < first + 2 * (ptrdiff_t)traceable) return NULL;   /* incomplete */
    *byte_offset = instr < first ? -1 : (int)(instr - first);
    return code;
}

/* A compact ASCII str's characters (NUL-terminated, inline), or "?" for any other string
 * (one that is not ASCII would need the API to encode). */
static const char *sc_py_text(sc_py_reader *r, const void *str)
{
    if (!sc_py_is(r, str, sc_py_unicode_type)) return "?";
    /* PyASCIIObject.state, after ob_refcnt, ob_type, length and hash: interned:2, kind:3,
     * compact:1, ascii:1 in every supported version */
    uint8_t state = sc_py_u8(r, str, 32);
    bool compact_ascii = (state >> 5 & 1) && (state >> 6 & 1);
    if (r->failed || !compact_ascii) return "?";
    return (const char *)str + sc_py->ascii_data;
}

/* ---- what the library asks ------------------------------------------------------------- */

static bool sc_py_usable(sc_py_reader *r)
{
    int verified = atomic_load_explicit(&sc_py_verified, memory_order_acquire);
    if (!sc_py || verified < 0) return false;
    r->careful = verified == 0;
    r->failed = false;
    r->not_code = 0;
    return true;
}

/* (code, position) of up to `frames` frames from the innermost, mixed into one hash; with
 * code_only, only the frames sc_python_stack records count (and the walk is bounded as its
 * is). 0 when the thread runs no Python or its frames could not be read. */
static uint64_t sc_py_hash(int frames, bool code_only)
{
    sc_py_reader r;
    if (!sc_py_usable(&r) || r.careful) return 0;   /* before the check: sites unsplit */
    const void *tstate = sc_py_this_tstate();
    if (!tstate) return 0;
    uint64_t h = 0;
    const void *frame = sc_py_innermost(&r, tstate);
    for (int k = 0, steps = 0; frame && k < frames && steps < SC_PY_MAX_WALK && !r.failed;
         steps++, frame = sc_py_ptr(&r, frame, sc_py->frame_back)) {
        int offset = -1;
        const void *code = sc_py_frame_code(&r, frame, &offset);
        k += code || !code_only;
        h = (h ^ (uint64_t)(uintptr_t)code ^ (uint64_t)(uint32_t)offset << 40) *
            0x9E3779B97F4A7C15ull;
    }
    return r.failed ? 0 : h | 1;
}

uint64_t sc_python_key(void) { return sc_py_hash(4, false); }

uint32_t sc_python_stack_key(void)
{
    uint64_t h = sc_py_hash(SC_PYTHON_MAX_FRAMES, true);
    return (uint32_t)(h ^ h >> 32) | (h != 0);
}

int sc_python_stack(sc_py_frame *out, int max, uint16_t *state)
{
    sc_py_reader r;
    *state = SC_PY_NO_PYTHON;
    if (!sc_py_usable(&r)) return 0;
    const void *tstate = sc_py_this_tstate();
    if (!tstate) return 0;
    int n = 0, steps = 0;
    const void *frame = sc_py_innermost(&r, tstate);
    for (; frame && n < max && steps < SC_PY_MAX_WALK && !r.failed; steps++) {
        int offset = -1;
        const void *code = sc_py_frame_code(&r, frame, &offset);
        if (code) {
            const char *file = sc_py_text(&r, sc_py_ptr(&r, code, sc_py->code_filename));
            const char *name = sc_py_text(&r, sc_py_ptr(&r, code, sc_py->code_name));
            if (r.failed) break;
            out[n++] = (sc_py_frame){.file_id = sc_string_id(file),
                                     .function_id = sc_string_id(name),
                                     .line = sc_py_addr2line(code, offset)};
        }
        frame = sc_py_ptr(&r, frame, sc_py->frame_back);
    }
    /* Frames, and not one of them a code object where one should be: not the layout of this
     * interpreter (3.13's free-threaded build has another object header) */
    if (r.not_code > 0 && r.not_code == steps) r.failed = true;
    if (r.failed) {
        /* The layout does not fit this interpreter (a debug or free-threaded build): stop
         * reading it for good rather than risk a fault. */
        if (r.careful) {
            atomic_store(&sc_python_on, false);
            sc_stack_stop_at_code_of(NULL);     /* no Python stack stands in for them now */
        }
        if (r.careful && atomic_exchange(&sc_py_verified, -1) == 0)
            sc_py_note("Python frames could not be read (a build whose layout streamcheck "
                       "does not know, such as a debug or free-threaded one, or "
                       "process_vm_readv refused): call sites are native frames only");
        *state = SC_PY_UNREADABLE;
        return 0;
    }
    if (n == 0) return 0;
    if (r.careful) atomic_store_explicit(&sc_py_verified, 1, memory_order_release);
    *state = SC_PY_FRAMES;
    return n;
}
