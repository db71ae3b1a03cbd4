/* Human units, one formatter per quantity: the analyzer writes findings' titles and texts
 * with them and the report writers format every other time and size with them, so one
 * finding never reads "9850.7 us" beside "34.1 ms" or "268435456 bytes" beside "256 MiB".
 * Three significant digits are what a reader compares at a glance; exact values stay in the
 * evidence (JSON). */
#ifndef STREAMCHECK_UNITS_H
#define STREAMCHECK_UNITS_H

#include <stdint.h>

#define SC_FMT_SIZE 32

/* "850 ns", "12.3 us", "4.81 ms", "2.05 s": the largest unit that keeps the number at 1 or
 * more. Returns buf so calls can sit inside printf. */
const char *sc_fmt_ns(uint64_t ns, char buf[SC_FMT_SIZE]);
/* "512 B", "1.50 KiB", "256 MiB", "3.00 GiB". */
const char *sc_fmt_bytes(double bytes, char buf[SC_FMT_SIZE]);

#endif
