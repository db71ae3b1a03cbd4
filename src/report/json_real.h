/* A real as jansson writes it (json_dumps, no JSON_REAL_PRECISION): printf's "%.17g", with
 * ".0" added where that has neither a point nor an exponent, and the exponent without its
 * '+' and leading zeros. The JSON report writes one or two reals per NVTX range (a range's
 * concurrency, its speedup), and printf's exact conversion takes most of the time a range
 * takes to write: the values in [1e-3, 1e17), the only ones a report's ratios take, are
 * converted here with 128-bit integers, exactly as printf rounds them; the rest go through
 * snprintf. */
#ifndef SC_REPORT_JSON_REAL_H
#define SC_REPORT_JSON_REAL_H

#include <stddef.h>

#define SC_JSON_REAL_MAX 32     /* the longest text, "-2.2250738585072014e-308", and a NUL */

/* Writes finite v's text and a NUL into out; returns its length, or -1 for a value jansson
 * has no text for (not finite). */
int sc_json_real_text(double v, char out[SC_JSON_REAL_MAX]);

#endif
