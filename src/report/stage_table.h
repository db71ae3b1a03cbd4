/* The report tool's stage table (STREAMCHECK_REPORT_STAGES): each trace's stages as the
 * analyzer's clock saw them (analyze/stage_clock.h), written to standard error. */
#ifndef SC_REPORT_STAGE_TABLE_H
#define SC_REPORT_STAGE_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/stage_clock.h"

/* Whether STREAMCHECK_REPORT_STAGES asks for the table: set, and neither empty nor "0". */
bool sc_stage_table_wanted(void);

/* One trace's rows, a line a stage and their total, under a line naming `path`: written in
 * one call, so that tables of traces analyzed on several threads do not mix. */
void sc_stage_table_print(FILE *out, const char *path, const sc_stage_rows *rows);

#endif
