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

/* The same short form, whole and malloc'd ("sweep_kernel", "reduce<float, 256>"), or NULL
 * when `name` is not mangled or no demangler is present: how findings name kernels (the
 * analyzer's sc_analyze_options.kernel_name hook). */
char *sc_demangle_kernel(const char *name);

#endif
