/* Optional libraries loaded at run time, not at start: the report tool must start on a
 * machine without them (the GPU machines the wrapper runs on often have libelf and jansson
 * but not libdw or libxml2), and lose only what needs them, saying so.
 *
 * A library is named by its soname, or by the file in an environment variable (for a copy
 * carried beside the tool); every symbol must resolve, or the library counts as missing. */
#ifndef SC_REPORT_DYNLIB_H
#define SC_REPORT_DYNLIB_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sc_dynlib {
    const char *soname;             /* "libdw.so.1" */
    const char *env;                /* "STREAMCHECK_LIBDW": a file to load instead */
    const char *const *names;       /* the symbols, in the order of `slots` */
    void **slots;                   /* filled with their addresses */
    size_t n;
    int state;                      /* 0 not tried, 1 loaded, -1 missing (under a lock) */
    char why[256];                  /* why it is missing, when it is */
} sc_dynlib;

/* Loads the library and every symbol on the first call (from any thread); true when they
 * are in lib->slots, false with the reason in lib->why. */
bool sc_dynlib_get(sc_dynlib *lib);

/* Defines `const T *GET(void)` (the functions, or NULL when the library cannot be loaded)
 * and `const char *MISSING(void)` (why not; "" when it can) for a struct T of function
 * pointers only, one per name LIST(X) gives, in the same order. POSIX gives function and
 * data pointers one representation (dlsym relies on it), so the union's views agree. */
#define SC_DYNLIB_NAME_(name) #name,
#define SC_DYNLIB_DEFINE(T, LIST, SONAME, ENV, GET, MISSING)                                \
    static const char *const GET##_names[] = {LIST(SC_DYNLIB_NAME_)};                    \
    static union {                                                                         \
        void *slots[sizeof GET##_names / sizeof GET##_names[0]];                           \
        T api;                                                                             \
    } GET##_functions;                                                                     \
    _Static_assert(sizeof GET##_functions.api == sizeof GET##_functions.slots,             \
                   "one slot per name");                                                   \
    static sc_dynlib GET##_lib = {.soname = SONAME, .env = ENV, .names = GET##_names,     \
                                  .slots = GET##_functions.slots,                          \
                                  .n = sizeof GET##_names / sizeof GET##_names[0]};        \
    const T *GET(void) { return sc_dynlib_get(&GET##_lib) ? &GET##_functions.api : NULL; } \
    const char *MISSING(void) { return sc_dynlib_get(&GET##_lib) ? "" : GET##_lib.why; }

#endif
