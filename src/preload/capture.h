/* The capture's life: started once when CUDA starts (cuInit calls InitializeInjection),
 * finished once at exit, dropped in a forked child. */
#ifndef SC_PRELOAD_CAPTURE_H
#define SC_PRELOAD_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

void sc_capture_start(uint32_t attach);   /* enum sc_attach; idempotent */
void sc_capture_finish(uint32_t reason);  /* enum sc_end_reason; idempotent */
void sc_capture_forked_child(void);
/* An exit handler of the program's is about to run (exits.c): while a terminating signal's
 * finish is under way (or about to be), waits for it, which ends the run. */
void sc_capture_exit_gate(void);
/* Whether records are being written now; if so, *start_ns (when not NULL) is when capture
 * started, on CUPTI's clock. One atomic load. */
bool sc_capture_running(uint64_t *start_ns);

#endif
