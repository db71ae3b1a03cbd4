/* The module map: which ELF object is loaded where, so the report tool can turn a return
 * address into a function and a line. Written at start and again whenever the set of
 * loaded objects changed (checked off the hot path: activity buffers, exit). */
#ifndef SC_PRELOAD_MODULES_H
#define SC_PRELOAD_MODULES_H

/* Writes MODULE records for objects loaded since the last call. Thread-safe. */
void sc_modules_update(void);
/* Forgets what was written (a forked child writes its own trace). */
void sc_modules_reset(void);

#endif
