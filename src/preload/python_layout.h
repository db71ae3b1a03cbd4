/* Where CPython keeps what a Python call site needs: the thread's innermost frame, each
 * frame's code object, its position and its caller, and the code's file and function names.
 *
 * These are CPython's internal structs, different in each minor version and not part of its
 * C API. They are read, never written, and only from the thread that owns the frames, while
 * that thread is inside a CUDA call: its frames cannot change then, with or without the GIL
 * (PyTorch releases the GIL around its CUDA work, so the public API, which needs the GIL and
 * may allocate, cannot be used there). Every pointer is checked against the type it should
 * have before it is followed further (python.c).
 *
 * One row per supported version, generated from that version's own headers by
 * tools/python-layouts (offsetof against Include/internal); tests/unit/test_python_layout.py
 * regenerates the rows of every Python installed and compares. x86-64 and aarch64 share them
 * (LP64, the same alignment rules). */
#ifndef SC_PRELOAD_PYTHON_LAYOUT_H
#define SC_PRELOAD_PYTHON_LAYOUT_H

#include <stdint.h>

typedef struct sc_python_layout {
    int minor;                  /* 3.minor */
    /* PyThreadState: the innermost frame, directly (3.10: a PyFrameObject; 3.13: an
     * interpreter frame) or through a _PyCFrame (3.11, 3.12: cframe, then current_frame) */
    int16_t tstate_frame;       /* -1 where the frame is reached through the cframe */
    int16_t tstate_cframe;      /* -1 where it is not */
    int16_t cframe_current;
    /* the frame (PyFrameObject before 3.11, _PyInterpreterFrame since) */
    int16_t frame_code;         /* f_code (3.13: f_executable) */
    int16_t frame_back;         /* f_back / previous */
    int16_t frame_instr;        /* 3.10: f_lasti (int, code units); 3.11, 3.12: prev_instr;
                                   3.13: instr_ptr */
    int16_t frame_owner;        /* char owner; -1 before 3.11 */
    /* PyCodeObject */
    int16_t code_filename;
    int16_t code_name;          /* co_qualname where there is one (3.11+), else co_name */
    int16_t code_units;         /* co_code_adaptive: the instructions, inline; -1 before 3.11 */
    int16_t code_first_traceable; /* _co_firsttraceable (int); -1 before 3.11 */
    /* PyASCIIObject: where a compact ASCII string's characters start */
    int16_t ascii_data;
} sc_python_layout;

/* The row for 3.minor, or NULL when that version is not supported. */
const sc_python_layout *sc_python_layout_for(int minor);

#endif
