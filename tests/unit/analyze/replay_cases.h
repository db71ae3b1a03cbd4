/* What the replay's whole-graph tests share (test_replay_fast.c, test_replay_runs.c): a
 * seeded random source, random fix lists of every kind, the traces of the folders named on
 * the command line, and the synthetic trace of the benchmark's mix. */
#ifndef SC_TEST_REPLAY_CASES_H
#define SC_TEST_REPLAY_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/replay_parts.h"
#include "streamcheck/analysis.h"
#include "streamcheck/trace.h"

/* A replay graph of a trace with its own context (a build frees parts of its context): built
 * in place, as the context names the analysis beside it. */
typedef struct rc_graph {
    sc_analysis a;
    sc_ctx ctx;
    sc_replay *r;
} rc_graph;

/* Builds g's graph of t, the calls fixes may name calls[0 .. n) (the build sorts a copy),
 * with runs of calls or every call its own item (sc_replay_build_as). */
void rc_graph_build(rc_graph *g, const sc_trace *t, const uint64_t *calls, size_t n,
                    bool runs);
void rc_graph_free(rc_graph *g);

/* The calls the tests let fixes name: every third at random, from a seed made of the call
 * count (*seed, which goes on from there); *n of them, in a list the caller frees. */
uint64_t *rc_some_calls(const sc_trace *t, uint64_t *seed, size_t *n);

/* Loads the trace at `path` and calls check(trace, arg) on it; false when it did not load. */
bool rc_load(const char *path, void (*check)(const sc_trace *t, void *arg), void *arg);

/* xorshift64: the same sequence from the same seed. */
uint64_t rc_rnd(uint64_t *seed);

/* n random fixes of `kind` (0: of every kind) into out, their indices in the ranges each
 * kind names (and some past them, which a pass ignores); the fixes that name a call name one
 * of calls[0 .. n_calls) seven times in eight (none of them when n_calls is 0: any call). */
size_t rc_random_fixes(const sc_replay *r, uint32_t kind, const uint64_t *calls,
                       size_t n_calls, sc_fix *out, size_t n, uint64_t *seed);

/* Calls pass(fixes, n, plain, arg) with each fix list the tests replay: none, 64 random fixes
 * of each kind and of every kind, as recorded and plain; then, plain, 4096 of every kind at
 * once (the costs' last pass), without the fix of all. The lists are rc_random_fixes'. */
void rc_fix_lists(const sc_replay *r, const uint64_t *calls, size_t n_calls, uint64_t *seed,
                  void (*pass)(const sc_fix *fixes, size_t n, bool plain, void *arg),
                  void *arg);

/* The command line: folders of traces, and --synthetic PROGRAM (*synthetic, NULL without). */
void rc_args(int argc, char **argv, char ***folders, int *n_folders, const char **synthetic);

/* Calls check(path, arg) for each .sctrace file of the folders; returns how many it
 * answered true (the traces that loaded). */
size_t rc_each_trace(char **folders, int n_folders, bool (*check)(const char *path, void *arg),
                     void *arg);

/* Writes the benchmark's mix of `records` records on `threads` host threads with the
 * synthetic-trace program into a fresh folder, and calls check on it; false when it did not
 * load. The folder is removed after. */
bool rc_synthetic(const char *program, unsigned threads, unsigned records,
                  bool (*check)(const char *path, void *arg), void *arg);

#endif
