/* Rank summaries made from an analysis: see ranks.h. */
#include "report/ranks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/text.h"

/* The value of NAME in the trace's ENV records, or NULL. */
static const char *env_get(const sc_trace *t, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < t->n_env; i++)
        if (t->env[i] && strncmp(t->env[i], name, len) == 0 && t->env[i][len] == '=')
            return t->env[i] + len + 1;
    return NULL;
}

/* A non-negative decimal below 2^31 (ranks and sizes), or -1. */
static int64_t parse_rank(const char *v)
{
    if (!v || !*v)
        return -1;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    return errno || *end || n < 0 || n > INT32_MAX ? -1 : (int64_t)n;
}

/* The first of names that is set to a rank: its value, and its name in *from. */
static int64_t first_of(const sc_trace *t, const char *const *names, size_t n, const char **from)
{
    for (size_t i = 0; i < n; i++) {
        int64_t v = parse_rank(env_get(t, names[i]));
        if (v >= 0) {
            if (from)
                *from = names[i];
            return v;
        }
    }
    return -1;
}

void sc_rank_from_env(const sc_trace *t, sc_rank_summary *s)
{
    /* one launcher each, in the same order: torchrun, Open MPI, MPICH/Hydra, SLURM */
    static const char *const rank[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    static const char *const local[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                        "SLURM_LOCALID"};
    static const char *const size[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                       "SLURM_NTASKS"};
    const char *from = NULL;
    s->rank = first_of(t, rank, 4, &from);
    s->local_rank = first_of(t, local, 3, NULL);
    s->world_size = first_of(t, size, 4, NULL);
    s->rank_from = from ? strdup(from) : NULL;
}

/* sc_text_summary_line's text, without its newline. */
static char *summary_line(const sc_analysis *a)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    sc_text_summary_line(f, a);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    if (len && buf[len - 1] == '\n')
        buf[len - 1] = '\0';
    return buf;
}

int sc_rank_summary_of(const sc_analysis *a, uint64_t suppressed, sc_rank_summary *out)
{
    memset(out, 0, sizeof *out);
    const sc_trace *t = a->trace;
    sc_rank_from_env(t, out);
    out->path = strdup(t->path ? t->path : "?");
    out->exe = strdup(t->exe ? t->exe : "?");
    out->line = summary_line(a);
    out->pid = t->has_process ? t->process.pid : 0;
    out->complete = t->status == SC_TRACE_COMPLETE;
    out->wall_ns = a->run_end_ns > a->run_start_ns ? a->run_end_ns - a->run_start_ns : 0;
    out->suppressed = suppressed;
    out->devices = calloc(a->n_devices ? a->n_devices : 1, sizeof *out->devices);
    out->findings = calloc(a->n_findings ? a->n_findings : 1, sizeof *out->findings);
    if (!out->path || !out->exe || !out->line || !out->devices || !out->findings) {
        sc_rank_summary_free(out);
        return -1;
    }
    for (size_t i = 0; i < a->n_devices; i++) {
        const sc_device_summary *d = &a->devices[i];
        out->devices[out->n_devices++] = (sc_rank_device){
            d->device, d->overlap.kernel_count, d->overlap.busy_ns, d->overlap.kernel_sum_ns,
            d->comm.kernel_count, d->comm.busy_ns, d->comm.overlapped_ns, d->comm.exposed_ns};
    }
    for (size_t i = 0; i < a->n_findings; i++) {
        const sc_finding *f = &a->findings[i];
        sc_rank_finding *r = &out->findings[out->n_findings];
        if (!(r->rule = strdup(f->rule))) {
            sc_rank_summary_free(out);
            return -1;
        }
        r->severity = f->severity;
        r->count = f->count;
        r->cost_ns = f->cost_ns;
        out->n_findings++;
    }
    return 0;
}

void sc_rank_summary_free(sc_rank_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->findings && i < s->n_findings; i++)
        free(s->findings[i].rule);
    free(s->findings);
    free(s->devices);
    free(s->path);
    free(s->exe);
    free(s->line);
    free(s->rank_from);
    memset(s, 0, sizeof *s);
}

uint64_t sc_rank_kernels(const sc_rank_summary *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->n_devices; i++)
        n += s->devices[i].kernels;
    return n;
}

uint64_t sc_rank_busy(const sc_rank_summary *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->n_devices; i++)
        n += s->devices[i].busy_ns;
    return n;
}

/* Summed kernel time over summed busy time: one device's concurrency, or the devices'
 * together (a rank drives one GPU under torchrun). */
double sc_rank_concurrency(const sc_rank_summary *s)
{
    uint64_t sum = 0, busy = sc_rank_busy(s);
    for (size_t i = 0; i < s->n_devices; i++)
        sum += s->devices[i].kernel_sum_ns;
    return busy ? (double)sum / (double)busy : 0.0;
}

void sc_rank_comm(const sc_rank_summary *s, uint64_t *comm, uint64_t *overlapped,
                  uint64_t *exposed)
{
    *comm = *overlapped = *exposed = 0;
    for (size_t i = 0; i < s->n_devices; i++) {
        *comm += s->devices[i].comm_ns;
        *overlapped += s->devices[i].comm_overlapped_ns;
        *exposed += s->devices[i].comm_exposed_ns;
    }
}

int sc_rank_worst(const sc_rank_summary *s)
{
    int worst = -1;
    for (size_t i = 0; i < s->n_findings; i++)
        if ((int)s->findings[i].severity > worst)
            worst = (int)s->findings[i].severity;
    return worst;
}
