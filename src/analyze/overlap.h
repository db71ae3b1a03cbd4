/* The overlap engine: a sweep line over the start and end points of a set of intervals.
 *
 * One sort, one pass in time order; the working state is the set of kernels running at the
 * current point (bounded by the largest concurrency reached), so memory stays proportional
 * to the input. Used for a device, a stream, or any other scope.
 */
#ifndef SC_ANALYZE_OVERLAP_H
#define SC_ANALYZE_OVERLAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"

/* One interval given to the engine; index is what overlap intervals report (for kernels an
 * index into trace->kernels). */
typedef struct sc_overlap_span {
    uint64_t start_ns, end_ns;
    size_t index;
} sc_overlap_span;

typedef struct sc_overlap_input {
    const sc_overlap_span *kernels;
    size_t n_kernels;
    const sc_overlap_span *copies;  /* memcpy and memset intervals */
    size_t n_copies;
    uint32_t device;                /* copied into every overlap interval */
} sc_overlap_input;

/* What the engine fills. Only metrics is required; the rest is computed when non-NULL. */
typedef struct sc_overlap_output {
    sc_overlap *metrics;            /* all fields but the solo ones */
    sc_overlap_interval *intervals; /* NULL on entry; grown with realloc, the caller frees it */
    size_t n_intervals;             /* how many are stored (at most max_intervals) */
    size_t n_intervals_total;       /* how many there were */
    size_t max_intervals;           /* 0: do not collect intervals */
    sc_busy_list *busy;             /* when kernels ran, merged */
    bool *overlapped;               /* per kernel span: it ran at the same time as another */
    uint32_t *peak;                 /* per kernel span: most kernels running at once while it
                                       ran, itself included */
} sc_overlap_output;

/* Returns 0, or -1 when out of memory. */
int sc_overlap_compute(const sc_overlap_input *in, sc_overlap_output *out);

/* Each stream's metrics, as sc_overlap_metrics fills them for the stream's kernels (its
 * collectives too) and its copies and memsets, taken by the sweeps of the devices
 * (sc_overlap_compute_work) beside their own: a stream's work lies on one device, so no
 * sweep of its own, no spans bucketed per stream, no keys made and sorted per stream. */
struct sc_slot_sweep;
typedef struct sc_overlap_streams {
    const uint8_t *slot8;       /* per work position its stream's slot, a byte a piece, */
    const uint32_t *slot32;     /* or (slot8 NULL) 32 bits a piece */
    size_t n_slots;
    sc_overlap *metrics;        /* per slot */
    struct sc_slot_sweep *state;
} sc_overlap_streams;

/* Zeroed metrics and sweeps for n_slots streams. Returns 0, or -1 when out of memory. */
int sc_overlap_streams_begin(sc_overlap_streams *st, const uint8_t *slot8,
                             const uint32_t *slot32, size_t n_slots);
/* After the last device's sweep: each stream's concurrency; the sweeps' state freed. */
void sc_overlap_streams_end(sc_overlap_streams *st);
void sc_overlap_streams_free(sc_overlap_streams *st);

/* A device's work as the shared order gives it (work_order.h): its positions by start and by
 * end, the kernels of shapes marked in shape_comm (collectives) left out. */
typedef struct sc_overlap_work {
    const sc_trace *trace;
    const uint32_t *by_start, *by_end;
    size_t n;
    const bool *shape_comm;         /* per trace->kernel_shapes entry */
    uint32_t device;
    sc_overlap_streams *streams;    /* the device's streams' metrics taken too; NULL: none */
} sc_overlap_work;

/* What sc_overlap_compute fills for the kernels and the copies and memsets of in (the same
 * metrics, intervals and busy list), swept in the order's time order without a sort of their
 * points. out->overlapped and out->peak, when given, are per trace->kernels entry and zeroed by
 * the caller (only the device's kernels are written). Returns 0, or -1 when out of memory. */
int sc_overlap_compute_work(const sc_overlap_work *in, sc_overlap_output *out);

/* Room for sc_overlap_metrics' keys, kept from one call to the next (zeroed at first; the
 * caller frees key). */
typedef struct sc_overlap_scratch {
    uint64_t *key;
    size_t cap;
} sc_overlap_scratch;

/* *m as sc_overlap_compute fills out->metrics, and nothing else, for the many small scopes that
 * want no more (NVTX ranges): it follows only how many kernels and copies run, not which, and
 * allocates nothing past *scratch but what the sort needs. Returns 0, or -1 when out of
 * memory. */
int sc_overlap_metrics(const sc_overlap_input *in, sc_overlap *m, sc_overlap_scratch *scratch);

/* Fills the productive-overlap fields from a solo sum: speedup = solo_sum / busy, or 0
 * (unknown) when not every kernel's solo time is known. */
void sc_overlap_set_solo(sc_overlap *m, uint64_t solo_sum_ns, uint64_t solo_known);

/* Appends [start, end) to a sorted busy list, merging with the last interval when they touch
 * or overlap. Returns 0 or -1 when out of memory. */
int sc_busy_append(sc_busy_list *list, uint64_t start_ns, uint64_t end_ns);
void sc_busy_free(sc_busy_list *list);
/* How much of [start, end) the busy list does not cover. */
uint64_t sc_busy_uncovered(const sc_busy_list *list, uint64_t start_ns, uint64_t end_ns);

#endif
