/* A stable sort: equal keys keep their input order, so loading the same file twice always
 * yields the same order, whatever the C library's qsort does with ties. */
#ifndef SC_TRACE_SORT_H
#define SC_TRACE_SORT_H

#include <stddef.h>

/* Returns 0, or -1 when the scratch buffer could not be allocated (input left unchanged). */
int sc_stable_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
