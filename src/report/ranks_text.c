/* The merged report from rank summaries: see ranks_text.h. */
#include "report/ranks_text.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge.h"
#include "report/text.h"
#include "report/units.h"

/* The rule lists are sorted with their rank lists: an index sort keeps them paired. */
typedef struct rule_acc {
    sc_rule_total total;
    int64_t *ranks;
    size_t n_ranks;
} rule_acc;

static int cmp_acc(const void *a, const void *b)
{
    return sc_rule_total_cmp(&((const rule_acc *)a)->total, &((const rule_acc *)b)->total);
}

sc_rule_total *sc_ranks_merge_rules(sc_rank_summary *const *s, size_t n, size_t *n_out,
                                    int64_t ***ranks, size_t **n_ranks)
{
    size_t cap = 0, nr = 0;
    *n_out = 0;
    for (size_t i = 0; i < n; i++)
        cap += s[i]->n_findings;
    rule_acc *acc = cap ? calloc(cap, sizeof *acc) : NULL;
    if (!acc)
        return NULL;
    bool oom = false;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < s[i]->n_findings; j++) {
            const sc_rank_finding *f = &s[i]->findings[j];
            size_t k = 0;
            while (k < nr && strcmp(acc[k].total.rule, f->rule) != 0)
                k++;
            if (k == nr) {
                acc[nr].total.rule = f->rule;
                acc[nr++].total.severity = f->severity;
            }
            sc_rule_total *t = &acc[k].total;
            if (f->severity > t->severity)
                t->severity = f->severity;
            t->count += f->count;
            t->cost_ns += f->cost_ns;
            t->processes++;
            if (ranks) {
                int64_t *p = realloc(acc[k].ranks, (acc[k].n_ranks + 1) * sizeof *p);
                if (!p) {
                    oom = true;
                    continue;
                }
                acc[k].ranks = p;
                acc[k].ranks[acc[k].n_ranks++] = s[i]->rank;
            }
        }
    }
    qsort(acc, nr, sizeof *acc, cmp_acc);
    sc_rule_total *rules = calloc(nr ? nr : 1, sizeof *rules);
    int64_t **rl = ranks ? calloc(nr ? nr : 1, sizeof *rl) : NULL;
    size_t *nl = ranks ? calloc(nr ? nr : 1, sizeof *nl) : NULL;
    if (!rules || (ranks && (!rl || !nl)) || oom) {
        for (size_t k = 0; k < nr; k++)
            free(acc[k].ranks);
        free(acc);
        free(rules);
        free(rl);
        free(nl);
        return NULL;
    }
    for (size_t k = 0; k < nr; k++) {
        rules[k] = acc[k].total;
        if (ranks) {
            rl[k] = acc[k].ranks;
            nl[k] = acc[k].n_ranks;
        }
    }
    free(acc);
    if (ranks) {
        *ranks = rl;
        *n_ranks = nl;
    }
    *n_out = nr;
    return rules;
}

void sc_ranks_merged_summary(FILE *out, sc_rank_summary *const *s, size_t n,
                             uint64_t suppressed)
{
    size_t nr = 0, with_findings = 0;
    sc_rule_total *rules = sc_ranks_merge_rules(s, n, &nr, NULL, NULL);
    fprintf(out, "== streamcheck summary: %zu process%s ==\n", n, n == 1 ? "" : "es");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "  %s\n", s[i]->line);
        if (s[i]->n_findings)
            with_findings++;
    }
    sc_text_rule_totals(out, rules, nr, with_findings, n, suppressed);
    free(rules);
}

/* ---- ranks -------------------------------------------------------------------------- */

static int cmp_rank(const void *pa, const void *pb)
{
    const sc_rank_summary *x = *(sc_rank_summary *const *)pa, *y = *(sc_rank_summary *const *)pb;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

sc_rank_summary **sc_ranks_sorted(sc_rank_summary *const *s, size_t n, size_t *n_out)
{
    *n_out = 0;
    sc_rank_summary **r = calloc(n ? n : 1, sizeof *r);
    if (!r)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i]->rank >= 0)
            r[k++] = s[i];
    qsort(r, k, sizeof *r, cmp_rank);
    *n_out = k;
    return r;
}

/* The rank the others waited for. With communication on every rank, the one whose
 * collectives waited least: a collective's kernel runs on each rank from that rank's arrival
 * until the last one arrives and the data has moved, so the last to arrive exposes the
 * least. Without it, the one with the most compute (then the longest run). */
size_t sc_ranks_slowest(sc_rank_summary *const *r, size_t n)
{
    bool all_comm = n > 0;
    for (size_t i = 0; i < n && all_comm; i++) {
        uint64_t comm, ov, exposed;
        sc_rank_comm(r[i], &comm, &ov, &exposed);
        all_comm = comm > 0;
    }
    size_t best = 0;
    for (size_t i = 1; i < n; i++) {
        uint64_t b = sc_rank_busy(r[i]), bb = sc_rank_busy(r[best]);
        bool later = b > bb || (b == bb && r[i]->wall_ns > r[best]->wall_ns);
        if (all_comm) {
            uint64_t comm, ov, e, be;
            sc_rank_comm(r[i], &comm, &ov, &e);
            sc_rank_comm(r[best], &comm, &ov, &be);
            later = e < be || (e == be && later);
        }
        if (later)
            best = i;
    }
    return best;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The lower median of vals[0..n); 0 for none. Sorts vals. */
static uint64_t median(uint64_t *vals, size_t n)
{
    if (n == 0)
        return 0;
    qsort(vals, n, sizeof *vals, cmp_u64);
    return vals[(n - 1) / 2];
}

uint64_t sc_ranks_median_busy(sc_rank_summary *const *r, size_t n)
{
    uint64_t *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return 0;
    for (size_t i = 0; i < n; i++)
        v[i] = sc_rank_busy(r[i]);
    uint64_t m = median(v, n);
    free(v);
    return m;
}

uint64_t sc_ranks_median_exposed(sc_rank_summary *const *r, size_t n, size_t slowest)
{
    uint64_t *v = calloc(n ? n : 1, sizeof *v), comm, ov;
    if (!v)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (i != slowest)
            sc_rank_comm(r[i], &comm, &ov, &v[k++]);
    uint64_t m = median(v, k);
    free(v);
    return m;
}

/* "0-3,5,7-8": ranks in ascending order, runs joined. */
static void print_rank_list(FILE *out, const int64_t *ranks, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && ranks[j + 1] <= ranks[j] + 1)
            j++;
        fprintf(out, "%s%" PRId64, i ? "," : "", ranks[i]);
        if (ranks[j] != ranks[i])
            fprintf(out, "-%" PRId64, ranks[j]);
        i = j + 1;
    }
}

static void print_table(FILE *out, sc_rank_summary *const *r, size_t n)
{
    char b[5][SC_FMT_SIZE];
    fprintf(out, "  %5s %5s %8s %9s %10s %11s %10s %13s %10s\n", "rank", "local", "pid",
            "kernels", "busy", "concurrency", "comm", "exposed comm", "wall");
    for (size_t i = 0; i < n; i++) {
        uint64_t comm, ov, exposed;
        sc_rank_comm(r[i], &comm, &ov, &exposed);
        char local[24] = "-";
        if (r[i]->local_rank >= 0)
            snprintf(local, sizeof local, "%" PRId64, r[i]->local_rank);
        fprintf(out, "  %5" PRId64 " %5s %8u %9" PRIu64 " %10s %10.2fx %10s %13s %10s%s\n",
                r[i]->rank, local, r[i]->pid, sc_rank_kernels(r[i]),
                sc_report_fmt_ns(sc_rank_busy(r[i]), b[0]), sc_rank_concurrency(r[i]),
                sc_report_fmt_ns(comm, b[1]), sc_report_fmt_ns(exposed, b[2]),
                sc_report_fmt_ns(r[i]->wall_ns, b[3]), r[i]->complete ? "" : "  [partial]");
    }
}

static void print_slowest(FILE *out, sc_rank_summary *const *r, size_t n)
{
    char b[4][SC_FMT_SIZE];
    size_t w = sc_ranks_slowest(r, n);
    uint64_t busy = sc_rank_busy(r[w]), med = sc_ranks_median_busy(r, n), comm, ov, exposed;
    sc_rank_comm(r[w], &comm, &ov, &exposed);
    /* Its compute explains the others' wait when it is at least half of it; else its host
     * (Python, data loading, launches) kept it from its collectives. */
    uint64_t others = comm ? sc_ranks_median_exposed(r, n, w) : 0;
    uint64_t waited = others > exposed ? others - exposed : 0;
    if (busy > med && (!comm || 2 * (busy - med) >= waited))
        fprintf(out, "slowest rank: %" PRId64 " (pid %u): compute busy %s, %s over the median "
                "rank's %s\n", r[w]->rank, r[w]->pid, sc_report_fmt_ns(busy, b[0]),
                sc_report_fmt_ns(busy - med, b[1]), sc_report_fmt_ns(med, b[2]));
    else    /* late at its collectives, not for its GPU work: for its host's */
        fprintf(out, "slowest rank: %" PRId64 " (pid %u): the last to reach its collectives, "
                "not for its compute (busy %s, the median rank's %s): held by its host "
                "between them\n", r[w]->rank, r[w]->pid, sc_report_fmt_ns(busy, b[0]),
                sc_report_fmt_ns(med, b[1]));
    if (comm)
        fprintf(out, "  its exposed communication %s; the other ranks' median %s: what they "
                "waited for it at their collectives, at most\n", sc_report_fmt_ns(exposed, b[0]),
                sc_report_fmt_ns(others, b[1]));
    if (r[w]->n_findings == 0) {
        fprintf(out, "  what held it: no findings\n");
        return;
    }
    fprintf(out, "  what held it:");
    for (size_t i = 0; i < r[w]->n_findings && i < 3; i++) {
        const sc_rank_finding *f = &r[w]->findings[i];
        fprintf(out, "%s %s %s cost %s", i ? "," : "", sc_severity_name(f->severity), f->rule,
                sc_report_fmt_ns(f->cost_ns, b[0]));
    }
    fputc('\n', out);
}

void sc_ranks_text(FILE *out, sc_rank_summary *const *s, size_t n)
{
    size_t nr = 0;
    sc_rank_summary **r = sc_ranks_sorted(s, n, &nr);
    if (!r || nr < 2) {
        free(r);
        return;
    }
    int64_t world = r[0]->world_size;
    for (size_t i = 1; i < nr; i++)
        if (r[i]->world_size != world)
            world = -1;
    fprintf(out, "\n== ranks: %zu", nr);
    if (world >= 0)
        fprintf(out, " of world size %" PRId64, world);
    if (nr < n)
        fprintf(out, "; %zu process%s without a rank left out", n - nr, n - nr == 1 ? "" : "es");
    fprintf(out, " ==\n");
    print_table(out, r, nr);
    print_slowest(out, r, nr);

    size_t nrules = 0;
    int64_t **ranks = NULL;
    size_t *n_ranks = NULL;
    sc_rule_total *rules = sc_ranks_merge_rules(r, nr, &nrules, &ranks, &n_ranks);
    char b1[SC_FMT_SIZE];
    fprintf(out, "findings across ranks:%s\n", nrules ? "" : " none");
    for (size_t k = 0; k < nrules; k++) {
        fprintf(out, "  %-7s %-15s cost %-9s %6" PRIu64 " occurrence%s on rank%s ",
                sc_severity_name(rules[k].severity), rules[k].rule,
                sc_report_fmt_ns(rules[k].cost_ns, b1), rules[k].count,
                rules[k].count == 1 ? " " : "s", n_ranks[k] == 1 ? "" : "s");
        print_rank_list(out, ranks[k], n_ranks[k]);
        fputc('\n', out);
        free(ranks[k]);
    }
    free(ranks);
    free(n_ranks);
    free(rules);
    free(r);
}
