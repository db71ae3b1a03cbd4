/* JSON text written as it is produced, byte for byte as jansson's json_dumpf(JSON_INDENT(2))
 * writes the same values: the JSON report's large arrays (one object per NVTX range) go out
 * one element at a time instead of as a jansson document of millions of allocated values.
 *
 * A jansson value (sc_json_out_value) is walked by the same writer, so a document can mix
 * both: the small parts built with jansson, the large arrays left empty in it and filled
 * while it is written (sc_json_out_defer). Numbers and strings come out as jansson writes
 * them: integers as signed 64-bit, reals as its "%.17g" (json_real.h), and any string with a
 * byte that needs escaping or checking through jansson itself. Errors (out of memory, a
 * failed write) are kept and returned by sc_json_out_finish. */
#ifndef SC_REPORT_JSON_OUT_H
#define SC_REPORT_JSON_OUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sc_json_out sc_json_out;

/* Fills an array left empty in a jansson document: writes its elements (each a value:
 * sc_json_out_begin_object ... sc_json_out_end_object, sc_json_out_int, ...). */
typedef void (*sc_json_fill_fn)(sc_json_out *w, const void *arg);

/* NULL when out of memory. */
sc_json_out *sc_json_out_new(FILE *out);
/* Writes what is buffered and frees the writer. Returns 0, or -1 when anything failed. */
int sc_json_out_finish(sc_json_out *w);

/* The empty jansson array `at` (json_array(), in the document given to sc_json_out_value)
 * is written with the elements `fill` writes. */
void sc_json_out_defer(sc_json_out *w, const json_t *at, sc_json_fill_fn fill, const void *arg);

void sc_json_out_begin_object(sc_json_out *w);
void sc_json_out_end_object(sc_json_out *w);
void sc_json_out_begin_array(sc_json_out *w);
void sc_json_out_end_array(sc_json_out *w);
/* The next member's key; its value follows. */
void sc_json_out_key(sc_json_out *w, const char *key);
/* sc_json_out_key for a key of n bytes of printable ASCII without '"' or '\\', such as an
 * identifier written in the source (SC_JSON_OUT_KEY), without the test of each byte that
 * sc_json_out_key makes (a build with assertions still makes it). */
void sc_json_out_key_plain(sc_json_out *w, const char *key, size_t n);
#define SC_JSON_OUT_KEY(w, literal) sc_json_out_key_plain((w), "" literal, sizeof(literal) - 1)

/* jansson's json_integer: the value as json_int_t (a uint64_t above INT64_MAX reads
 * negative, as the jansson document showed it). */
void sc_json_out_int(sc_json_out *w, json_int_t v);
/* A finite real; anything else is written as null (jansson has no value for it). */
void sc_json_out_real(sc_json_out *w, double v);
/* sc_json_str's string: null for NULL, invalid UTF-8 with its non-ASCII bytes as '?'. */
void sc_json_out_string(sc_json_out *w, const char *s);
void sc_json_out_bool(sc_json_out *w, bool v);
void sc_json_out_null(sc_json_out *w);
/* Any jansson value, with its deferred arrays filled. */
void sc_json_out_value(sc_json_out *w, const json_t *v);

#endif
