/* The copy-bandwidth line of a device in the text report (analysis.h, sc_copy_rate). */
#ifndef SC_REPORT_TEXT_COPIES_H
#define SC_REPORT_TEXT_COPIES_H

#include <stdio.h>

#include "streamcheck/analysis.h"

/* "  copies  HtoD 4 (64.0 MiB, 51.2 GB/s); peer 2 (128.0 MiB, 310.5 GB/s)" and a newline,
 * the directions that had copies; nothing when the device had none. */
void sc_text_copy_rates(FILE *out, const sc_device_summary *d);

#endif
