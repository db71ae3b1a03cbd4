/* The device's hardware work queues and which streams share one.
 *
 * CUDA feeds a context's streams to the device through CUDA_DEVICE_MAX_CONNECTIONS hardware
 * queues (8 unless the program's environment sets it; at most 32). The streams a program
 * creates take them in turn, in creation order, so with more streams than queues, stream i
 * and stream i + N share one; a queue hands out its work in issue order, so work waits for
 * the work issued before it to its queue, from any stream, to have started. Streams CUDA
 * made with the context (the legacy stream, its internal ones) are left out: their queues
 * are not known.
 */
#ifndef SC_ANALYZE_HW_QUEUES_H
#define SC_ANALYZE_HW_QUEUES_H

#include <stdint.h>

#include "analyze/internal.h"

#define SC_HW_DEFAULT_CONNECTIONS 8u
#define SC_HW_MAX_CONNECTIONS 32u

/* CUDA_DEVICE_MAX_CONNECTIONS of the run, else CUDA's default. */
uint32_t sc_hw_connections(const sc_trace *t);

/* Per stream slot (analysis->streams): the slot of the first stream of its queue, or
 * UINT32_MAX when the stream's queue is not known. `queues` receives the queue count
 * (connections). The caller frees the array; NULL when out of memory. */
uint32_t *sc_hw_slot_queues(const sc_ctx *ctx, uint32_t *queues);

#endif
