/* Python call sites: the Python stack (file, line, function) of a sampled CUDA call made
 * from a Python program, so that a PyTorch user sees `train.py:12`, not an offset in
 * libtorch_cuda.so.
 *
 * CPython is found at run time (dlsym: no link to libpython); in a process without it all of
 * this is one branch on a flag. The frames are read from the interpreter's own structs
 * (python_layout.h), not through its C API: the API needs the GIL and may allocate, and
 * PyTorch releases the GIL around the calls that reach CUDA; taking it from inside a CUDA
 * call could deadlock with a thread that holds it and waits for CUDA. */
#ifndef SC_PRELOAD_PYTHON_H
#define SC_PRELOAD_PYTHON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "streamcheck/trace_format.h"

enum { SC_PYTHON_MAX_FRAMES = 64 };

/* Looks for CPython in the process (capture start). Says once, in a note, when it finds a
 * version whose frames it cannot read. */
void sc_python_start(void);
/* Whether sc_python_start found a Python it reads (and its frames did not turn out
 * unreadable). Inline: the hot path asks on every call. */
extern atomic_bool sc_python_on;
static inline bool sc_python_active(void)
{
    return atomic_load_explicit(&sc_python_on, memory_order_relaxed);
}
/* A hash of the calling thread's innermost Python frames (their code and position): what a
 * stack sample's key holds, so that calls from two Python lines never share a site. 0 when
 * the thread runs no Python. Cheap: a few loads. */
uint64_t sc_python_key(void);
/* A hash of the calling thread's whole Python stack as sc_python_stack would record it
 * (every frame's code and position): two calls with the same hash have the same Python
 * stack. Walks every frame; asked only of the calls that would otherwise take a stack
 * (sample.h). 0 when the thread runs no Python. */
uint32_t sc_python_stack_key(void);
/* The calling thread's Python stack, innermost first, names interned (strings.h); returns
 * the number of frames and sets *state (enum sc_py_state). */
int sc_python_stack(sc_py_frame *out, int max, uint16_t *state);

#endif
