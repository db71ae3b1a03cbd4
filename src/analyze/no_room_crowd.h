/* What room gives back beyond the wait: a kernel that found no room started late, and then
 * ran crowded. Its blocks took the few slots the full grid's retiring blocks freed, several
 * to an SM, and shared those SMs with the next full grid's blocks; both ran slower (on an
 * H200, killers nonblocking: a 5.1 ms spin ran 5.3-10.9 ms after waiting for room, a 0.86 ms
 * sweep beside it 5.7 ms). With room the kernel runs as its instances that had room did. */
#ifndef SC_ANALYZE_NO_ROOM_CROWD_H
#define SC_ANALYZE_NO_ROOM_CROWD_H

#include <stdint.h>

#include "analyze/findings.h"
#include "analyze/internal.h"

/* waited[k] != 0: kernel k waited for room (no-room's finding). Each of those, and each full
 * grid of another stream of its device that ran while it ran (crowded), that ran longer than
 * the median of its uncrowded instances (same device and launch shape, neither waited nor
 * crowded, and run beside other streams' work: sc_crowd_in_company) gets an SC_FIX_DURATION
 * of that median in `b`; *n_crowded says how many, *extra_ns how much longer they ran in
 * all. Returns 0, or -1 when out of memory. */
int sc_noroom_crowd_fixes(const sc_ctx *ctx, const uint8_t *waited, sc_finding_builder *b,
                          size_t *n_crowded, uint64_t *extra_ns);

#endif
