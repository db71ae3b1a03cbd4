/* Capture scope (STREAMCHECK_OPTIONS capture=profiler, capture_range=NAME, capture_skip=N):
 * the library writes a call's record only while the scope is open, and the device records of
 * the calls it wrote. trace_format.h (SC_REC_SCOPE) says what the trace then holds.
 *
 * The calling path pays one relaxed atomic load (sc_scope_now): without a scope the state
 * is "open" forever. Windows open and close rarely (a training step, a profiler call), under
 * a lock. Each window remembers the lowest and highest correlation id of the calls made
 * inside it: CUPTI numbers calls in the order they are made, so the ids of a window's calls
 * form one interval, and a device record, which arrives later on CUPTI's thread, is kept
 * when its call's id lies in a window's interval. The last SC_SCOPE_RING windows are kept;
 * a device record older than that (it would have to arrive that many windows late) is kept,
 * never dropped unasked. */
#ifndef SC_PRELOAD_SCOPE_H
#define SC_PRELOAD_SCOPE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* bit 0: open; bit 1: a scope is set; bits 2..: the current window's number (from 1). */
extern _Atomic uint32_t sc_scope_state;
#define SC_SCOPE_OPEN 1u
#define SC_SCOPE_SET 2u

/* The state, for the calling path: one relaxed load. */
static inline uint32_t sc_scope_now(void)
{
    return atomic_load_explicit(&sc_scope_state, memory_order_relaxed);
}

/* At capture start, before any callback: reads the settings (options.h) and writes the
 * SCOPE record when a scope is set. name_id: the range's STRING id (0 for none). */
void sc_scope_start(uint32_t name_id);
/* A call made while the scope was open (state as sc_scope_now gave it): its id joins the
 * window's interval. Only when SC_SCOPE_SET. */
void sc_scope_note_call(uint32_t state, uint32_t correlation_id);

/* Whether a device record belongs in the trace: its call was made inside (by id), or, for a
 * record without a call, it started inside a window (by time). CUPTI's thread. */
bool sc_scope_keeps_call(uint32_t correlation_id);
bool sc_scope_keeps_time(uint64_t start_ns);
/* Whether an NVTX range that started at start_ns and ends now overlapped a window. */
bool sc_scope_keeps_range(uint64_t start_ns);

/* capture_range: a range of this name opened (returns true when it counts: past the
 * skipped occurrences; its close must then be reported) or a counted one closed. */
bool sc_scope_range_name(uint32_t name_id);
bool sc_scope_range_opened(uint64_t now_ns);
void sc_scope_range_closed(uint64_t now_ns);
/* capture=profiler: cudaProfilerStart (start = true) or cudaProfilerStop. */
void sc_scope_profiler(bool start, uint64_t now_ns);

/* At the end of capture: a window still open is written, closed at now_ns. */
void sc_scope_finish(uint64_t now_ns);
/* A forked child starts over. */
void sc_scope_reset(void);

#endif
