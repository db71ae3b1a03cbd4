/* What tracing adds to a host call: CUPTI's callbacks and activity bookkeeping, and
 * streamcheck's record of the call, on the application's thread. The replay prices the
 * program as it runs without streamcheck (replay.h, "plain"), so a plain pass leaves this
 * time out of each call, as it leaves out the stacks streamcheck took (OVERHEAD records).
 *
 * A trace cannot measure it: nothing in a traced run runs untraced. The values are measured
 * per call class by tools/bench/overhead (streamcheck minus plain, medians of interleaved
 * runs) on an H200 with driver 580.159.04 and CUDA 13.0, 2026-11-30, README "Overhead":
 *
 *   launch            5.890 - 4.226 us = 1.664 us
 *   cudaMemcpyAsync   3.171 - 2.516 us = 0.655 us   (pinned, 256 B)
 *   cudaEventRecord   0.607 - 0.149 us = 0.458 us
 *   cudaStreamWaitEvent 1.044 - 0.242 = 0.802 us
 *   cudaEventQuery    1.225 - 0.169 us   } the same path in streamcheck and CUPTI; their
 *   cudaStreamQuery   0.806 - 0.201 us   } mean, 0.830 us, for both (one run put them apart)
 *
 * Classes the benchmark does not time (synchronizations, allocations, ...) cost 0 here: their
 * own durations are microseconds to milliseconds of driver work, where a tracer's sub-
 * microsecond share does not move a saving. On another CPU these costs differ; they matter
 * where a finding's fix takes host work off the critical path (a step loop that waits for
 * the device, then launches), and there only in proportion to the calls on it. */
#ifndef SC_ANALYZE_TRACER_COST_H
#define SC_ANALYZE_TRACER_COST_H

#include <stdint.h>

/* ns a call of class call_class (enum sc_call_class) takes longer traced than plain. */
uint64_t sc_tracer_cost_ns(uint16_t call_class);

#endif
