/* The fake CUPTI's entry points for the driver (tests/preload/driver.c). */
#ifndef SC_TESTS_FAKE_CUPTI_H
#define SC_TESTS_FAKE_CUPTI_H

#include <cupti.h>
#include <stdint.h>

/* One API call: the entry and exit callbacks, as CUPTI fires them around the call. A
 * non-NULL kernel makes it a launch whose kernel record (on stream_id) comes at the next
 * flush. Returns its correlation id. */
uint32_t fake_cupti_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name,
                         const void *params, const char *kernel, uint32_t stream_id);
/* The calling thread's next launch runs from start_ns to end_ns (cuptiGetTimestamp's clock)
 * instead of from 1 to 3 us after its call. */
void fake_cupti_next_kernel(uint64_t start_ns, uint64_t end_ns);
/* The calling thread's next call returns no earlier than end_ns (a synchronize that waits). */
void fake_cupti_next_call_ends(uint64_t end_ns);
/* A STREAM activity record (flag: CUpti_ActivityStreamFlag), handed over at the next flush. */
void fake_cupti_stream(uint32_t stream_id, uint32_t flag);
/* One NVTX callback (result: the call's return value, for nvtxRangeStart*). */
void fake_cupti_nvtx(CUpti_CallbackId cbid, const char *name, const void *params,
                     const void *result);
/* The next forced flush (the library's last, at its finish) sends sig to the calling thread
 * (to the process when that thread blocks it) before it hands anything over. */
void fake_cupti_signal_in_flush(int sig);

#endif
