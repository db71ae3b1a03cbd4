/* NVTX ranges (push/pop and start/end, named domains) recorded as RANGE records.
 *
 * NVTX calls reach a tool through NVTX_INJECTION64_PATH. The constructor points it at this
 * library; our InitializeInjectionNvtx2 hands NVTX over to CUPTI's, and CUPTI delivers the
 * calls as callbacks of the NVTX domain once capture has started (at cuInit). Ranges opened
 * before the program's first CUDA call are therefore not seen. */
#ifndef SC_PRELOAD_NVTX_H
#define SC_PRELOAD_NVTX_H

#include <cupti.h>

/* Enables the NVTX callbacks on the subscriber. */
void sc_nvtx_enable(CUpti_SubscriberHandle subscriber);
/* One NVTX callback. No lock on any path (push/pop use the thread's own stack). */
void sc_nvtx_on_callback(CUpti_CallbackId cbid, const CUpti_NvtxData *data);
/* At the end of capture: counts the ranges still open (SC_LOSS_NVTX_UNCLOSED). */
void sc_nvtx_count_unclosed(void);

#endif
