/* The capture's life: started once when CUDA starts (cuInit calls InitializeInjection),
 * finished once at exit, dropped in a forked child. */
#ifndef SC_PRELOAD_CAPTURE_H
#define SC_PRELOAD_CAPTURE_H

#include <stdint.h>

void sc_capture_start(uint32_t attach);   /* enum sc_attach; idempotent */
void sc_capture_finish(uint32_t reason);  /* enum sc_end_reason; idempotent */
void sc_capture_forked_child(void);

#endif
