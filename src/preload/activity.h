/* CUPTI activity records (what the device did, with the GPU's own timestamps) turned into
 * trace records. Runs on CUPTI's buffer-completion thread, never on the application's. */
#ifndef SC_PRELOAD_ACTIVITY_H
#define SC_PRELOAD_ACTIVITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Registers the buffer callbacks and enables the activity kinds streamcheck needs:
 * CONCURRENT_KERNEL (never KERNEL, which serializes kernels), MEMCPY, MEMSET, STREAM,
 * SYNCHRONIZATION and DEVICE. Returns the number of kinds that could not be enabled; their
 * names are appended to `failed`. */
int sc_activity_start(char *failed, size_t failed_size);
/* STREAMCHECK_UNIFIED_MEMORY=1: configures CUPTI's unified-memory counters (migrations
 * both ways, GPU page faults) and enables them. CUPTI takes the configuration only once the
 * driver is initialized: called when the first context is created, on that thread, once.
 * Writes a NOTE record when it cannot. */
void sc_activity_unified_start(void);
/* Forces out every buffered record (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) and returns the
 * number of records CUPTI dropped. */
uint64_t sc_activity_finish(void);
uint64_t sc_activity_records(void);
/* After a device-wide synchronization every record so far is complete: hands CUPTI's
 * buffers over now (at most every 200 ms), so that a crash soon after loses no device work
 * that was already finished. Nothing once sc_activity_finish has begun. */
void sc_activity_checkpoint(void);
/* A context is being destroyed (cudaDeviceReset mid-run): its records leave CUPTI before it
 * goes. Nothing once sc_activity_finish has begun, for the same reason. */
void sc_activity_context_going(void);
/* Whether a checkpoint now would hand buffers over (200 ms since the last one): asked on
 * the program's thread before waking the agent, so that a program synchronizing every step
 * does not wake it (a futex call, a thread beside the program's) for nothing. */
bool sc_activity_checkpoint_due(void);

#endif
