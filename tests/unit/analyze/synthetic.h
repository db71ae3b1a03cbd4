/* Building sc_trace values in memory for the analyzer tests: add records with given times,
 * then syn_finish() sorts them the way the trace loader does. Times are nanoseconds; US()
 * converts microseconds. Every record is in context 1. */
#ifndef SC_TEST_SYNTHETIC_H
#define SC_TEST_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/analysis.h"
#include "streamcheck/trace.h"

#define US(x) ((uint64_t)(x) * 1000ull)
#define SYN_CONTEXT 1u

typedef struct syn {
    sc_trace t;
    size_t cap_calls, cap_call_names, cap_call_frames, cap_call_extras, cap_kernels, cap_shapes,
        cap_copies, cap_copy_shapes, cap_memsets, cap_memset_shapes, cap_streams, cap_devices;
    size_t cap_ranges, cap_overheads, cap_unified;
} syn;

void syn_init(syn *s);
void syn_free(syn *s);
/* Sorts calls, kernels, copies, memsets and ranges by start time (stable), as the loader
 * does. */
void syn_finish(syn *s);

sc_device *syn_device(syn *s, uint32_t device, uint32_t sm_count);
sc_rec_stream *syn_stream(syn *s, uint32_t device, uint32_t stream, uint32_t flag,
                          uint32_t correlation_id);
/* An API call named "cudaLaunchKernel" (or name when non-NULL); frames are borrowed. */
sc_api_call *syn_call(syn *s, uint16_t call_class, uint64_t start, uint64_t end,
                      uint32_t correlation_id, const char *name, const uint64_t *frames,
                      uint16_t n_frames);
/* Sets call c's byte count (a copy's, a memset's, an allocation's): the call keeps it
 * out of line (sc_call_bytes). */
void syn_call_bytes(syn *s, sc_api_call *c, uint64_t bytes);
/* Sets call c's stream handle (SC_STREAM_NONE, as syn_call leaves it, for none) and its aux:
 * the call keeps their low halves, its extra their high ones (sc_call_stream_handle,
 * sc_call_aux). */
void syn_call_stream(syn *s, sc_api_call *c, uint64_t stream);
void syn_call_aux(syn *s, sc_api_call *c, uint64_t aux);
/* Sets call c's flags (enum sc_api_flags; syn_call leaves none), adds to them, or names it
 * after call_names entry name_at: its extra's (sc_call_flags, sc_call_name). */
void syn_call_flags(syn *s, sc_api_call *c, uint8_t flags);
void syn_call_add_flags(syn *s, sc_api_call *c, uint8_t flags);
void syn_call_name_at(syn *s, sc_api_call *c, uint32_t name_at);
/* Sets call c's thread and context (syn_call leaves thread 0 and SYN_CONTEXT): both are its
 * extra's (sc_call_tid, sc_call_context). */
void syn_call_tid(syn *s, sc_api_call *c, uint32_t tid);
void syn_call_context(syn *s, sc_api_call *c, uint32_t context_id);
/* Name id 1 ("kernel_a"), grid 1x1x1, block 128x1x1: change the fields of its shape
 * (syn_shape) to taste. */
sc_kernel *syn_kernel(syn *s, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                      uint32_t correlation_id);
/* Kernel k's shape, its own (each syn_kernel adds one): valid until the next syn_kernel. */
sc_kernel_shape *syn_shape(syn *s, const sc_kernel *k);
/* A copy of its own shape (syn_copy_shape), as the loader would keep it. */
sc_copy *syn_copy(syn *s, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                  uint64_t bytes, uint32_t correlation_id, uint8_t flags, uint8_t src_kind,
                  uint8_t dst_kind);
/* Copy c's shape, its own (each syn_copy adds one): valid until the next syn_copy. */
sc_copy_shape *syn_copy_shape(syn *s, const sc_copy *c);
/* A 4096-byte memset of device memory, of its own shape (syn_memset_shape). */
sc_memset *syn_memset(syn *s, uint32_t device, uint32_t stream, uint64_t start, uint64_t end,
                      uint32_t correlation_id);
/* Memset m's shape, its own: valid until the next syn_memset. */
sc_memset_shape *syn_memset_shape(syn *s, const sc_memset *m);
/* An NVTX range in the default domain; name is borrowed. depth UINT32_MAX: a start/end
 * range (any thread), else a push/pop range of thread tid. */
sc_range *syn_range(syn *s, const char *name, uint64_t start, uint64_t end, uint32_t tid,
                    uint32_t depth);

/* CUPTI's OVERHEAD record of a kind (enum sc_overhead_kind) inside the call with this
 * correlation id. */
sc_rec_overhead *syn_overhead(syn *s, uint32_t kind, uint64_t start, uint64_t end,
                              uint32_t correlation_id);

/* A unified-memory record (enum sc_unified_kind): a migration of `value` bytes to (HTOD) or
 * from (DTOH) `device` with cause `flags`, or a GPU fault group on `device`. */
sc_rec_unified *syn_unified(syn *s, uint32_t kind, uint64_t start, uint64_t end, uint64_t value,
                            uint32_t flags, uint32_t device);

/* syn_finish(), then sc_analyze() into a, which must succeed (a cmocka failure if not). */
void syn_analyze(syn *s, sc_analysis *a);

/* The finding of a rule, or NULL. */
const sc_finding *syn_finding(const sc_analysis *a, const char *rule);
/* The finding of a rule with this severity, or NULL. */
const sc_finding *syn_finding_sev(const sc_analysis *a, const char *rule, sc_severity sev);
/* How many findings a rule made. */
size_t syn_finding_count(const sc_analysis *a, const char *rule);
/* The value of a named evidence, or -1 when it is missing. */
double syn_evidence(const sc_evidence *ev, size_t n, const char *key);
/* syn_evidence() of one instance of a finding. */
double syn_ev(const sc_instance *inst, const char *key);

/* A fixed-seed generator, the same on every platform. */
uint64_t syn_rand(uint64_t *state);

#endif
