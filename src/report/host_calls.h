/* Which host calls held their thread, the one definition behind every output's host rows
 * (the HTML timeline's "blocking calls", the Chrome trace's "blocking calls" tracks): the
 * call classes that wait for the device or the driver (synchronizations, synchronous copies
 * and memsets, allocations and frees, pinned host allocations, host (un)registration), and
 * async copies from or to pageable memory, which the driver stages while the thread waits. */
#ifndef SC_REPORT_HOST_CALLS_H
#define SC_REPORT_HOST_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

typedef struct sc_host_calls {
    const sc_trace *t;      /* whose calls */
    uint32_t *pageable;     /* correlation ids of copies from or to pageable memory, sorted */
    size_t n_pageable;
} sc_host_calls;

/* Returns 0, or -1 when out of memory. */
int sc_host_calls_init(sc_host_calls *h, const sc_trace *t);
void sc_host_calls_free(sc_host_calls *h);

/* Whether a call of this class holds its thread whatever its arguments. */
bool sc_host_call_class_blocks(uint16_t call_class);
/* Whether the call with this correlation id copied from or to pageable memory. */
bool sc_host_call_pageable(const sc_host_calls *h, uint32_t correlation_id);
/* Whether this call held its thread: a blocking class, or an async copy of pageable memory. */
bool sc_host_call_held(const sc_host_calls *h, const sc_api_call *c);
/* What such a call is, in a few words ("stream synchronize", "async copy of pageable
 * memory"); NULL for a call that did not hold its thread. */
const char *sc_host_call_words(const sc_host_calls *h, const sc_api_call *c);

#endif
