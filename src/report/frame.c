#include "report/frame.h"

#include "report/pysite.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

const char *sc_frame_basename(const char *path)
{
    if (!path)
        return "?";
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void sc_frame_resolve(sc_frame_resolver resolve, void *ctx, const sc_trace *trace,
                      uint64_t addr, sc_frame *out)
{
    memset(out, 0, sizeof *out);
    out->addr = addr;
    const sc_module *m = trace ? sc_trace_module_at(trace, addr) : NULL;
    if (m) {
        out->module = m->path;
        out->module_offset = addr - m->rec.bias;
    }
    if (resolve)
        resolve(ctx, trace, addr, out);
}

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool internal_module(const char *path)
{
    static const char *const prefixes[] = {"libstreamcheck", "libcupti", "libcuda.so",
                                           "libcudart"};
    const char *base = sc_frame_basename(path);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (has_prefix(base, prefixes[i]))
            return true;
    return false;
}

static bool internal_function(const char *name)
{
    static const char *const prefixes[] = {"cuda", "__cuda", "__cudart", "cudart::",
                                           "libcudart_static_", "_Unwind", "cupti"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (has_prefix(name, prefixes[i]))
            return true;
    /* nvcc's host stub of a kernel (__device_stub__Z...), demangled or mangled inside an
     * _Z name: the launch site is its caller. */
    if (strstr(name, "__device_stub_"))
        return true;
    /* Driver API entry points: cuLaunchKernel, cuMemcpyAsync, ... but not "cub::" or
     * a user's "cumsum". */
    return name[0] == 'c' && name[1] == 'u' && isupper((unsigned char)name[2]);
}

/* CUDA's headers (cuda_runtime.h's template wrappers, crt/...) by their file name. */
static bool cuda_header(const char *file)
{
    return has_prefix(sc_frame_basename(file), "cuda") || strstr(file, "/crt/") != NULL;
}

bool sc_frame_is_internal(const sc_frame *frame)
{
    if (frame->cuda_internal || (frame->module && internal_module(frame->module)))
        return true;
    if (!frame->function)
        return false;
    /* The runtime linked into a program carries no line tables; a cuda* function with a line
     * in a file of the program's is the program's own (NVIDIA's simpleCudaGraphs launches its
     * graphs from cudaGraphsManual()). */
    if (has_prefix(frame->function, "cuda") && frame->file && frame->line &&
        !cuda_header(frame->file))
        return false;
    return internal_function(frame->function);
}

long sc_frame_call_site(sc_frame_resolver resolve, void *ctx, const sc_trace *trace,
                        const sc_api_call *call, sc_frame *out)
{
    memset(out, 0, sizeof *out);
    if (!call || sc_call_n_frames(trace, call) == 0)
        return -1;
    size_t n = sc_call_n_frames(trace, call);
    const uint64_t *frames = sc_call_frames(trace, call);
    for (size_t i = 0; i < n; i++) {
        sc_frame_resolve(resolve, ctx, trace, frames[i], out);
        if (!sc_frame_is_internal(out))
            return (long)i;
    }
    /* Every frame is internal: the stack depth limit cut it before the application. The
     * outermost frame is still the closest to the caller. */
    return (long)(n - 1);
}

const char *sc_frame_format(const sc_frame *f, char *buf, size_t n)
{
    char where[256];
    if (f->module)
        snprintf(where, sizeof where, "%s+0x%llx", sc_frame_basename(f->module),
                 (unsigned long long)f->module_offset);
    else
        snprintf(where, sizeof where, "0x%llx", (unsigned long long)f->addr);

    if (f->function && f->file && f->line)
        snprintf(buf, n, "%s at %s:%u (%s)", f->function, sc_frame_basename(f->file),
                 f->line, where);
    else if (f->function)
        snprintf(buf, n, "%s+0x%llx (%s)", f->function, (unsigned long long)f->offset, where);
    else if (f->file && f->line)
        snprintf(buf, n, "%s:%u (%s)", sc_frame_basename(f->file), f->line, where);
    else
        snprintf(buf, n, "%s", where);
    return buf;
}

const char *sc_frame_site_text(sc_frame_resolver resolve, void *ctx, const sc_trace *trace,
                               const sc_api_call *call, char *buf, size_t n)
{
    char native[512];
    sc_frame f;
    if (sc_frame_call_site(resolve, ctx, trace, call, &f) < 0)
        snprintf(native, sizeof native, "%s (no stack recorded)",
                 call && sc_call_name(trace, call) ? sc_call_name(trace, call) : "?");
    else
        sc_frame_format(&f, native, sizeof native);
    char py[400];
    if (sc_pysite_format(trace, call, py, sizeof py))
        snprintf(buf, n, "%s  [%s]", py, native);
    else
        snprintf(buf, n, "%s", native);
    return buf;
}
