/* Interned strings (kernel names, NVTX range names and domains): each distinct text is written
 * once as a STRING record and referred to by id, so a million launches of one kernel do not
 * repeat its name.
 *
 * The table is lock-free (open addressing, slots claimed with compare-and-swap, never
 * removed) and bounded: at most SC_STRINGS_MAX names, of which at most SC_STRINGS_MAX_NVTX
 * are NVTX range names (a program that names every step "step 17" must not crowd out its
 * kernels). A name past its share is recorded under an overflow name ("(NVTX names past
 * 4096)", "(names past 32768)") and each such use is counted (SC_LOSS_NAMES). A small
 * per-thread cache keyed by the text's address answers most lookups without hashing. */
#ifndef SC_PRELOAD_STRINGS_H
#define SC_PRELOAD_STRINGS_H

#include <stdint.h>

enum {
    SC_STRINGS_MAX = 32768,
    SC_STRINGS_MAX_NVTX = 4096,
    SC_STRING_CACHE = 64,
};

/* Per thread (thread.h), no lock: CUPTI hands the same name pointer for every launch of a
 * kernel, and a program usually names a range with the same literal. */
typedef struct sc_string_cache {
    struct {
        const char *ptr;
        const char *interned; /* our copy: the text is compared, so a reused pointer is safe */
        uint32_t id;
    } slot[SC_STRING_CACHE];
} sc_string_cache;

/* Allocates the table (capture start). */
void sc_strings_start(void);
/* The id of text (written out on first sight), 0 for NULL or when no memory. Thread-safe,
 * lock-free. */
uint32_t sc_string_id(const char *text);
/* The same for an NVTX range's name: counted against SC_STRINGS_MAX_NVTX. */
uint32_t sc_string_id_nvtx(const char *text);
/* Forgets the table without freeing (a forked child). */
void sc_strings_reset(void);

#endif
