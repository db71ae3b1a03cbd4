/* A stable sort: equal keys keep their input order, so loading the same file twice always
 * yields the same order, whatever the C library's qsort does with ties. */
#ifndef SC_TRACE_SORT_H
#define SC_TRACE_SORT_H

#include <stddef.h>

/* Returns 0, or -1 when the scratch buffer could not be allocated (input left unchanged). */
int sc_stable_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* qsort, except that an array already in order costs one pass of comparisons and is left as
 * it is. Most of what the analyzer sorts was derived from time-ordered records and is in
 * order already. glibc's qsort is a stable merge sort at any size the report handles, which
 * leaves such an array unchanged too: the result is the same, only the work is skipped. */
void sc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
