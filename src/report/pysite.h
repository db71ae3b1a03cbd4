/* A call's Python site: the frame of the user's own code a PyTorch user would change, and
 * that line's text, read from the source file at report time.
 *
 * "The user's own code" is the innermost frame outside the installed packages
 * (site-packages, dist-packages), the standard library (lib/pythonX.Y) and the interpreter's
 * frozen modules (<frozen ...>): `train.py:12`, not torch/nn/modules/linear.py. When every
 * frame is such a library's, the outermost is the closest to the program. */
#ifndef SC_REPORT_PYSITE_H
#define SC_REPORT_PYSITE_H

#include <stdbool.h>
#include <stddef.h>

#include "streamcheck/trace.h"

/* Whether a Python frame's file belongs to a library rather than to the program. */
bool sc_pysite_is_library(const char *file);
/* The frame of s to show first (see above), or NULL when s has no frames. */
const sc_pyframe *sc_pysite_user_frame(const sc_pystack *s);
/* The text of `line` in `file`, spaces trimmed, into buf; NULL when the file cannot be read
 * here (moved, not a regular file, too large) or has no such line. */
const char *sc_pysite_source(const char *file, int line, char *buf, size_t n);
/* "step at prog.py:7: x = batch.to(...)" for a call with a Python stack, "(a thread without
 * Python)" when the trace says it had none; NULL when the trace has no Python stack for the
 * call (then the native site is the site). */
const char *sc_pysite_format(const sc_trace *trace, const sc_api_call *call, char *buf,
                             size_t n);

#endif
