/* Interned strings (kernel names): each distinct text is written once as a STRING record
 * and referred to by id, so a million launches of one kernel do not repeat its name. */
#ifndef SC_PRELOAD_STRINGS_H
#define SC_PRELOAD_STRINGS_H

#include <stdint.h>

/* The id of text (written out on first sight), 0 for NULL. Thread-safe. */
uint32_t sc_string_id(const char *text);
void sc_strings_reset(void);

#endif
