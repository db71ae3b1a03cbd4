/* Stack frames as the report shows them, and the choice of a call's "call site".
 *
 * Symbolization proper (libelf, libdw, .syms files) lives in symbolize.c, which only the
 * report tool links. This part has no libelf dependency: without a resolver (--no-symbols, the test
 * drivers) a frame is named from the trace's module map alone. */
#ifndef SC_REPORT_FRAME_H
#define SC_REPORT_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

typedef struct sc_frame {
    uint64_t addr;              /* the return address as recorded */
    const char *module;         /* path of the module holding addr, NULL if none */
    uint64_t module_offset;     /* addr - the module's load bias: its ELF virtual address */
    const char *function;       /* demangled function name, NULL if unknown */
    uint64_t offset;            /* addr - function start, when function is known */
    const char *file;           /* source file, NULL if unknown */
    uint32_t line;              /* 0 if unknown */
    bool cuda_internal;         /* inside the CUDA runtime linked into the module, by address */
} sc_frame;

/* Fills `out` (already holding addr and the module-map fields) with what it knows; strings
 * stay owned by the resolver. Returns false if it learned nothing. */
typedef bool (*sc_frame_resolver)(void *ctx, const sc_trace *trace, uint64_t addr,
                                  sc_frame *out);

/* Names `addr`: module map first, then the resolver if there is one. */
void sc_frame_resolve(sc_frame_resolver resolve, void *ctx, const sc_trace *trace,
                      uint64_t addr, sc_frame *out);

/* True for frames of CUDA, CUPTI and streamcheck themselves, by module path or, since a
 * statically linked cudart lives inside the application binary, by its address range there
 * (cuda_internal, set by the resolver) or by function name. */
bool sc_frame_is_internal(const sc_frame *frame);

/* The call site of `call`: the innermost frame that is not internal, resolved into `out`.
 * Returns its index in call->frames; the outermost frame when every frame is internal (the
 * stack was cut short); -1 when the call has no frames (stack capture off). */
long sc_frame_call_site(sc_frame_resolver resolve, void *ctx, const sc_trace *trace,
                        const sc_api_call *call, sc_frame *out);

/* "main at app.cu:57 (app+0x1234)", "main+0x2c (app+0x1234)", "app+0x1234", "0x7f..". */
const char *sc_frame_format(const sc_frame *frame, char *buf, size_t n);

/* The last path component, for display. */
const char *sc_frame_basename(const char *path);

/* A call's site in one line, as every output shows it: in a Python program the user's
 * Python line first (pysite.h), then the native call site in brackets; otherwise the native
 * call site, or "NAME (no stack recorded)". */
const char *sc_frame_site_text(sc_frame_resolver resolve, void *ctx, const sc_trace *trace,
                               const sc_api_call *call, char *buf, size_t n);

#endif
