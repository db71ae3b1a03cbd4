/* Communication kernels (NCCL) and how much of their time compute hid.
 *
 * A collective's kernel occupies the device while it waits for its peers: counted as compute
 * it would make a data-parallel step look concurrent when it only waited. So communication
 * kernels are told apart by name (sc_kernel_is_comm, analysis.h) and measured on their own:
 * the device overlap metrics leave them out (context.c), and this fills each device's
 * sc_comm. */
#ifndef SC_ANALYZE_COMM_H
#define SC_ANALYZE_COMM_H

#include "streamcheck/analysis.h"

/* Fills a->devices[i].comm from the trace's kernels; shape_comm[s] says whether the kernels
 * of shape s are collectives (sc_kernel_is_comm on the shape's name, asked once per shape
 * rather than per kernel). Returns 0, or -1 when out of memory. */
int sc_comm_measure(const sc_trace *t, const bool *shape_comm, sc_analysis *a);

#endif
