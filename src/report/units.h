/* Human units for report output: times, byte counts and analyzer evidence values. */
#ifndef SC_REPORT_UNITS_H
#define SC_REPORT_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "streamcheck/analysis.h"
#include "streamcheck/units.h"

/* sc_fmt_ns(): "850 ns", "12.3 us", "4.81 ms", "2.05 s". Returns buf. */
const char *sc_report_fmt_ns(uint64_t ns, char buf[SC_FMT_SIZE]);
/* Productive speedup: "1.42x", or "unknown" when not every kernel's solo time is known. */
const char *sc_report_fmt_speedup(const sc_overlap *o, char buf[SC_FMT_SIZE]);
/* sc_fmt_bytes(): "512 B", "1.50 KiB", "256 MiB". */
const char *sc_report_fmt_bytes(double bytes, char buf[SC_FMT_SIZE]);
/* An evidence value in its unit: "us" as a time, "bytes" as a size, "ratio" as "1.84x". */
const char *sc_report_fmt_evidence(const sc_evidence *e, char buf[SC_FMT_SIZE]);
/* Its key as a label beside that value: "wait" for "wait_us" printed as "2.96 ms" (the value
 * carries the unit), the key itself otherwise. Cut to n - 1 bytes (keys are short). */
const char *sc_report_evidence_label(const sc_evidence *e, char *buf, size_t n);

#endif
