/* The output folder's name: STREAMCHECK_OUT is a pattern, expanded when the trace is opened
 * (the process's first CUDA call), so that every process, a forked child included, expands
 * it with its own pid and environment:
 *
 *   %p       the process id
 *   %h       the host name
 *   %q{VAR}  the value of environment variable VAR (a rank: %q{OMPI_COMM_WORLD_RANK});
 *            unset or empty expands to nothing, with a warning
 *   %%       a %
 *
 * An expanded value never adds a folder level or climbs out of one: in %h and %q values,
 * every byte other than a letter, digit, '.', '-' or '_' becomes '_', and so does a leading
 * '.' ("../x" becomes "_._x"). The pattern names the folder; the file in it is
 * EXE-PID.sctrace, or EXE-rankR-PID.sctrace in a process of a job that names its rank
 * (sc_out_rank_tag). No allocation, no CUDA. */
#ifndef SC_PRELOAD_OUT_PATH_H
#define SC_PRELOAD_OUT_PATH_H

#include <stddef.h>
#include <sys/types.h>

/* Whether pattern is well formed (an unknown or unfinished %-sequence is not). Returns 0, or
 * -1 with a one-line reason in msg. */
int sc_out_path_check(const char *pattern, char *msg, size_t msg_size);

/* Expands pattern for process pid into buf. Returns 0 (msg then holds a warning, such as an
 * unset variable, or is empty), or -1 with the reason in msg: a malformed pattern, a result
 * that does not fit, or an empty result. */
int sc_out_path_expand(const char *pattern, pid_t pid, char *buf, size_t size, char *msg,
                       size_t msg_size);

/* "-rank3" when the environment names this process's rank in a job (torchrun's RANK, Open
 * MPI's OMPI_COMM_WORLD_RANK, MPICH/Hydra's PMI_RANK, SLURM's SLURM_PROCID, first found),
 * with the same character rules as %q; "" otherwise. */
void sc_out_rank_tag(char *buf, size_t size);

/* Creates the folders above dir that are missing (the trace writer creates dir itself and
 * says why when it cannot). Best effort: a failure shows up as the writer's error. */
void sc_out_path_make_parents(const char *dir);

#endif
