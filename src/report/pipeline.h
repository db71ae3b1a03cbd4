/* Work on N items by several threads, consumed in order on the calling thread.
 *
 * The report tool loads and analyzes traces on worker threads (the expensive part: reading
 * and analyzing each trace is independent of the others) and writes each process's report
 * on the main thread in input order, so the output does not depend on which thread finished
 * first. At most `window` items are produced and not yet consumed: with the consumer freeing
 * each item, memory holds at most that many traces at once, however many there are. */
#ifndef SC_REPORT_PIPELINE_H
#define SC_REPORT_PIPELINE_H

#include <stddef.h>

typedef struct sc_pipeline {
    size_t n;                           /* items 0 .. n-1 */
    size_t jobs;                        /* worker threads; 0 or 1: all on the calling thread */
    size_t window;                      /* produced but not consumed, at most (>= jobs) */
    void (*work)(void *ctx, size_t i);  /* a worker thread, once per item, any order */
    void (*consume)(void *ctx, size_t i);   /* the calling thread, i = 0, 1, ... in order;
                                               NULL: nothing */
    void *ctx;
} sc_pipeline;

/* Runs every item through work and consume. Threads that cannot be started leave their
 * share to the others (with none, the calling thread does all of it). */
void sc_pipeline_run(const sc_pipeline *p);

/* The number of CPUs this process may run on (at least 1): -j's default. */
size_t sc_pipeline_cpus(void);

#endif
