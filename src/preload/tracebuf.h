/* Per-thread record buffers between the hot path and the trace writer.
 *
 * A thread encodes records into its own buffer (no shared lock: each buffer's flag is
 * only contended at a flush); a full buffer is handed to the writer in one write. All
 * buffers are in a registry so the exit path can flush every thread's records, and a
 * thread's buffer is kept for reuse when the thread ends, so memory stays bounded by the
 * number of threads alive at once. */
#ifndef SC_PRELOAD_TRACEBUF_H
#define SC_PRELOAD_TRACEBUF_H

#include <stddef.h>
#include <stdint.h>

#include "trace/writer.h"

/* Starts the buffers; records go to w from now on. */
void sc_tbuf_start(sc_writer *w);
/* Returns space for a record of `size` bytes (at most SC_TBUF_MAX_RECORD) in the calling
 * thread's buffer, or NULL if recording stopped. Must be followed by sc_tbuf_commit. */
void *sc_tbuf_reserve(size_t size);
void sc_tbuf_commit(size_t size);
/* Between reserve and commit: the record is an API call (counted for the END record). */
void sc_tbuf_count_api(void);
uint64_t sc_tbuf_api_records(void);
/* Encodes and appends one record (see trace/record.h). */
void sc_tbuf_put(uint16_t kind, const void *fixed, size_t fixed_size, const void *tail,
                 size_t tail_size);
/* Writes out every thread's buffered records. */
void sc_tbuf_flush_all(void);
/* Writes out the buffers nobody is using right now, waiting for nothing: the periodic flush
 * (so a crash loses little) and the fatal-signal path. */
void sc_tbuf_flush_idle(void);
/* Stops taking records, writes out every buffer and detaches from the writer: after this,
 * nothing more reaches the file (the END record is written after it). */
void sc_tbuf_close(void);
/* Forgets every buffer without writing (a forked child). */
void sc_tbuf_drop_all(void);

#define SC_TBUF_MAX_RECORD 8192

#endif
