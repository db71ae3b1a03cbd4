/* The summary printed on stderr when a process exits (STREAMCHECK_SUMMARY=0 turns it off):
 * the trace just written is read back, analyzed and printed briefly, unsymbolized. */
#ifndef SC_PRELOAD_SUMMARY_H
#define SC_PRELOAD_SUMMARY_H

void sc_summary_print(const char *trace_path);

#endif
