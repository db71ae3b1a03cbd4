/* One process of a job as the merged report over ranks needs it, and that merged report.
 *
 * A rank summary is what is left of a process once its own report is written: its rank (from
 * the ENV records: torchrun, Open MPI, MPICH/PMI, SLURM), compute and communication time per
 * device, its wall time, its findings by rule and its line of the merged summary. It is a few
 * hundred bytes, so the report tool keeps it and frees the trace (bounded memory), and it is
 * written as a small versioned JSON file (schema "streamcheck-summary/1": --summary-out,
 * --save-summaries) that a merged report reads instead of the trace: across machines each
 * rank's summary is made where its trace was written. */
#ifndef SC_REPORT_RANKS_H
#define SC_REPORT_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamcheck/analysis.h"

#define SC_RANK_SCHEMA "streamcheck-summary/1"

typedef struct sc_rank_device {
    uint32_t device;
    uint64_t kernels, busy_ns, kernel_sum_ns;       /* compute kernels (analysis.h) */
    uint64_t comm_kernels, comm_ns, comm_overlapped_ns, comm_exposed_ns;
} sc_rank_device;

typedef struct sc_rank_finding {
    char *rule;
    sc_severity severity;
    uint64_t count, cost_ns;
} sc_rank_finding;

typedef struct sc_rank_summary {
    char *path;                 /* the trace it was made from */
    char *exe;
    char *line;                 /* the process's line of the merged summary, no newline */
    uint32_t pid;
    int64_t rank, local_rank, world_size;   /* -1: not known */
    char *rank_from;            /* the variable the rank came from; NULL when not known */
    bool complete;              /* the trace was complete */
    uint64_t wall_ns;           /* the run's span */
    sc_rank_device *devices;    size_t n_devices;
    sc_rank_finding *findings;  size_t n_findings;     /* by cost, as the analysis had them */
    uint64_t suppressed;        /* findings left out by suppressions */
} sc_rank_summary;

/* The rank of a process from its recorded environment: RANK (torchrun), OMPI_COMM_WORLD_RANK,
 * PMI_RANK, SLURM_PROCID, the first set; the same order for the local rank (LOCAL_RANK, ...)
 * and the world size (WORLD_SIZE, ...). Fills rank, local_rank, world_size and rank_from. */
void sc_rank_from_env(const sc_trace *t, sc_rank_summary *s);

/* The summary of one analysis (a view's: after suppressions). Returns 0, or -1 when out of
 * memory. */
int sc_rank_summary_of(const sc_analysis *a, uint64_t suppressed, sc_rank_summary *out);
void sc_rank_summary_free(sc_rank_summary *s);

/* Compute totals over the devices. */
uint64_t sc_rank_kernels(const sc_rank_summary *s);
uint64_t sc_rank_busy(const sc_rank_summary *s);
double sc_rank_concurrency(const sc_rank_summary *s);
void sc_rank_comm(const sc_rank_summary *s, uint64_t *comm, uint64_t *overlapped,
                  uint64_t *exposed);
/* The highest severity of its findings, or -1 with none. */
int sc_rank_worst(const sc_rank_summary *s);

#endif
