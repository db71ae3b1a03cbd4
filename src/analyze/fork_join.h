/* Two parts of one analysis side by side: two of the context's indexes that read what is
 * built and write apart from each other (context.c), the rules that may run beside the
 * others and those others (analyze.c), on this thread and on a second one when the caller
 * allows it (sc_analyze_options.two_threads); in turn on this thread otherwise, or when no
 * thread can be made. Either way the outputs are the same, and so is the stage table
 * (stage_clock.h): the second part's rows come after the first's, as in turn. */
#ifndef SC_ANALYZE_FORK_JOIN_H
#define SC_ANALYZE_FORK_JOIN_H

#include <stdbool.h>

/* A part: returns 0, or -1 (out of memory). */
typedef struct sc_part {
    int (*run)(void *arg);
    void *arg;
} sc_part;

/* Runs `here` on this thread and `there` on a second one when two_threads, and waits for
 * both; otherwise here, then there unless here failed. Returns 0 when both returned 0. The
 * two must not write what the other reads. */
int sc_fork_join(bool two_threads, sc_part here, sc_part there);

#endif
