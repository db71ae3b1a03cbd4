/* The communication line of a device in the text report (NCCL kernels: analysis.h, sc_comm). */
#ifndef SC_REPORT_TEXT_COMM_H
#define SC_REPORT_TEXT_COMM_H

#include <stdio.h>

#include "streamcheck/analysis.h"

/* "  communication  3 NCCL kernels, 300 us: 150 us overlapped compute, 150 us exposed (50.0%)"
 * and a newline; nothing when the device ran no communication kernel. */
void sc_text_comm(FILE *out, const sc_comm *c);

#endif
