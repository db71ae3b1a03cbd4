/* C++ name demangling without a hard dependency on libstdc++. */
#ifndef SC_REPORT_DEMANGLE_H
#define SC_REPORT_DEMANGLE_H

#include <stddef.h>

/* A malloc'd demangled name, or NULL when `name` is not an Itanium-mangled name or no
 * demangler is present in the process. */
char *sc_demangle(const char *name);

/* The short form of a kernel name for tables: demangled, without the parameter list and
 * without a leading return type ("void spin<int>(int*)" -> "spin<int>"). Never fails: falls
 * back to the name as given, cut to fit. */
const char *sc_demangle_short(const char *name, char *buf, size_t n);

#endif
