/* Copy bandwidth per device and direction (analysis.h, sc_copy_rate): how fast each device
 * moved bytes to and from the host and to its peers, so a two-device run shows which link
 * carried what. */
#ifndef SC_ANALYZE_COPY_RATES_H
#define SC_ANALYZE_COPY_RATES_H

#include "streamcheck/analysis.h"

/* Fills a->devices[i].copy_rates from the trace's copies. Returns 0. */
int sc_copy_rates_measure(const sc_trace *t, sc_analysis *a);

#endif
