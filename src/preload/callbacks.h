/* The CUPTI callback: the hot path. On every hooked API call it stamps entry and exit on
 * CUPTI's clock, reads the arguments, captures the stack as raw addresses and appends one
 * record to the calling thread's buffer. No locks shared between threads, no CUDA calls. */
#ifndef SC_PRELOAD_CALLBACKS_H
#define SC_PRELOAD_CALLBACKS_H

#include <cupti.h>
#include <stdbool.h>
#include <stdint.h>

/* Subscribes and enables the hooked callbacks. Returns CUPTI_SUCCESS or the error of
 * cuptiSubscribe (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: another profiler). */
CUptiResult sc_callbacks_start(void);
/* Unsubscribes: no record is written after this returns. */
void sc_callbacks_stop(void);
/* Marks the calling thread as inside streamcheck, so that CUDA calls streamcheck makes
 * itself (synchronizing at exit) are not recorded as the application's. */
void sc_callbacks_self(bool inside);

/* Contexts alive now, for synchronizing them at exit. Returns the count (at most max). */
int sc_callbacks_contexts(CUcontext *out, int max);

#endif
