/* Counts of what the library could not record (trace_format.h, enum sc_loss_cause), kept as
 * the run goes and written as LOSS records at the end (and by the fatal-signal flush).
 * Nothing is dropped without landing here. Lock-free and async-signal-safe. */
#ifndef SC_PRELOAD_LOSS_H
#define SC_PRELOAD_LOSS_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace_format.h"
#include "trace/record.h"

void sc_loss_add(uint32_t cause, uint64_t n);
uint64_t sc_loss_get(uint32_t cause);
/* One LOSS record per cause, zeros included, encoded into buf; returns the bytes used. */
#define SC_LOSS_BYTES (SC_LOSS_CAUSES * (sizeof(sc_record_header) + sizeof(sc_rec_loss)))
size_t sc_loss_encode(uint8_t buf[SC_LOSS_BYTES]);
void sc_loss_reset(void);

#endif
