#include "report/libdw_api.h"

#include "report/dynlib.h"

static const char *const names[] = {
#define SC_LIBDW_NAME(name) #name,
    SC_LIBDW_FUNCTIONS(SC_LIBDW_NAME)
#undef SC_LIBDW_NAME
};

/* sc_libdw is function pointers only, one per name in the same order; POSIX gives function
 * and data pointers one representation (dlsym relies on it). */
static union {
    void *slots[sizeof names / sizeof names[0]];
    sc_libdw api;
} functions;
_Static_assert(sizeof functions.api == sizeof functions.slots, "one slot per name");

static sc_dynlib lib = {.soname = SC_LIBDW_SONAME, .env = SC_LIBDW_ENV, .names = names,
                        .slots = functions.slots, .n = sizeof names / sizeof names[0]};

const sc_libdw *sc_libdw_get(void)
{
    return sc_dynlib_get(&lib) ? &functions.api : NULL;
}

const char *sc_libdw_missing(void)
{
    return sc_dynlib_get(&lib) ? "" : lib.why;
}
