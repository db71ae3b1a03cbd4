#include "report/libxml2_api.h"

#include "report/dynlib.h"

static const char *const names[] = {
#define SC_LIBXML2_NAME(name) #name,
    SC_LIBXML2_FUNCTIONS(SC_LIBXML2_NAME)
#undef SC_LIBXML2_NAME
};

/* sc_libxml2 is function pointers only, one per name in the same order; POSIX gives function
 * and data pointers one representation (dlsym relies on it). */
static union {
    void *slots[sizeof names / sizeof names[0]];
    sc_libxml2 api;
} functions;
_Static_assert(sizeof functions.api == sizeof functions.slots, "one slot per name");

static sc_dynlib lib = {.soname = SC_LIBXML2_SONAME, .env = SC_LIBXML2_ENV, .names = names,
                        .slots = functions.slots, .n = sizeof names / sizeof names[0]};

const sc_libxml2 *sc_libxml2_get(void)
{
    return sc_dynlib_get(&lib) ? &functions.api : NULL;
}

const char *sc_libxml2_missing(void)
{
    return sc_dynlib_get(&lib) ? "" : lib.why;
}
