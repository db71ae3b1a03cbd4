/* A call's Python site as the outputs show it: the frame of the user's own code
 * (sc_pystack_user_frame, analysis.h: `train.py:12`, not torch/nn/modules/linear.py) and
 * that line's text, read from the source file at report time. */
#ifndef SC_REPORT_PYSITE_H
#define SC_REPORT_PYSITE_H

#include <stdbool.h>
#include <stddef.h>

#include "streamcheck/trace.h"

/* The text of `line` in `file`, spaces trimmed, into buf; NULL when the file cannot be read
 * here (moved, not a regular file, too large) or has no such line. */
const char *sc_pysite_source(const char *file, int line, char *buf, size_t n);
/* The innermost NVTX range open on the call's thread when it was made (looking back a bounded
 * number of ranges), or NULL. On a thread without Python this is what names the work:
 * PyTorch's autograd thread, under torch.autograd.profiler.emit_nvtx(), runs each backward
 * operation inside a range named after it ("MmBackward0") with the sequence number of its
 * forward operation. */
const sc_range *sc_pysite_enclosing_range(const sc_trace *trace, const sc_api_call *call);
/* "step at prog.py:7: x = batch.to(...)" for a call with a Python stack; "(a thread without
 * Python)" when the trace says it had none, with the innermost NVTX range open on that thread
 * when there is one ("(a thread without Python, in NVTX range 'MmBackward0')"); NULL when
 * the trace has no Python stack for the call (then the native site is the site). */
const char *sc_pysite_format(const sc_trace *trace, const sc_api_call *call, char *buf,
                             size_t n);

#endif
