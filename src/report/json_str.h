/* Strings from the traced program (paths, kernel and range names, messages) for jansson,
 * which refuses invalid UTF-8: such a string goes out with its non-ASCII bytes replaced by
 * '?' rather than going missing. Shared by the JSON report, the comparison and the Chrome
 * export, so a name reads the same in all three. */
#ifndef SC_REPORT_JSON_STR_H
#define SC_REPORT_JSON_STR_H

#include <jansson.h>

/* A JSON string for s (not NULL); NULL only when out of memory. */
json_t *sc_json_lossy_string(const char *s);

/* The same for a value of the JSON report: null for a NULL s, and when out of memory. */
json_t *sc_json_str(const char *s);

#endif
