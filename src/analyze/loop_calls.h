/* Calls a loop re-does: what "move it out of the loop" takes away. Shared by the rules whose
 * fix is that (implicit-sync, pin-per-step), so both price the same calls.
 *
 * Calls of one family on one thread (a scope) form a pattern: a thread that acquires again
 * what it released (device allocations, pinned host memory) or sets a limit again is in a
 * loop. Moving the acquisition out of the loop leaves the first acquisition and the last
 * release where they are (the program still needs one buffer), and takes out every release
 * followed by an acquisition and every acquisition that followed a release; for limits,
 * every call after the first. A set-up loop that acquires each buffer once has no release in
 * between: nothing of it moves.
 */
#ifndef SC_ANALYZE_LOOP_CALLS_H
#define SC_ANALYZE_LOOP_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

enum sc_loop_family {
    SC_LOOP_NONE = 0,
    SC_LOOP_DEVICE_MEMORY = 1,  /* cudaMalloc, cudaFree */
    SC_LOOP_PINNED = 2,         /* cudaMallocHost, cudaHostAlloc, cudaFreeHost,
                                   cudaHostRegister, cudaHostUnregister */
    SC_LOOP_MEMCPY = 3,         /* synchronous copies */
    SC_LOOP_MEMSET = 4,         /* synchronous memsets */
    SC_LOOP_LIMITS = 5,         /* cudaDeviceSetLimit, cudaDeviceSetCacheConfig */
};

typedef struct sc_loop_scope {
    uint32_t tid;
    int family;                 /* enum sc_loop_family */
} sc_loop_scope;

int sc_loop_family(uint16_t call_class);
/* A call that gives back what an acquisition of its family took. */
bool sc_loop_releases(uint16_t call_class);
/* The scope a call belongs to, or NULL. */
const sc_loop_scope *sc_loop_in_scope(const sc_trace *t, const sc_loop_scope *scopes, size_t n,
                                      const sc_api_call *call);
/* moved[k] (per entry of `calls`, cleared by the caller): the calls of the scopes a move out
 * of the loop takes away. `calls`: trace->calls positions in call order, among them every call
 * of a loop family (the calls that may hold the host, sc_blocking_index.holding: every family
 * is a class that synchronizes implicitly); the others are passed over. Returns 0, or -1 when
 * out of memory. */
int sc_loop_moved(const sc_trace *t, const uint32_t *calls, size_t n_calls,
                  const sc_loop_scope *scopes, size_t n, bool *moved);

#endif
