/* The ranges of one name summed into one row (sc_range_name_summary): see ranges.h. */
#include <stdlib.h>
#include <string.h>

#include "analyze/overlap.h"
#include "analyze/ranges.h"
#include "trace/sort.h"

typedef struct sc_name_key {
    const char *domain, *name;
    size_t index;               /* of the range in trace->ranges */
} sc_name_key;

static int sc_str_cmp(const char *a, const char *b)
{
    if (!a || !b)
        return a ? 1 : b ? -1 : 0;  /* the default domain (NULL) first */
    return strcmp(a, b);
}

static int sc_name_key_cmp(const void *pa, const void *pb)
{
    const sc_name_key *x = pa, *y = pb;
    int c = sc_str_cmp(x->domain, y->domain);
    if (c == 0)
        c = sc_str_cmp(x->name, y->name);
    if (c != 0)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

int sc_range_names_group(const sc_trace *t, size_t *group, size_t *n_groups)
{
    *n_groups = 0;
    sc_name_key *keys = malloc((t->n_ranges ? t->n_ranges : 1) * sizeof(*keys));
    if (!keys)
        return -1;
    for (size_t i = 0; i < t->n_ranges; i++)
        keys[i] = (sc_name_key){t->ranges[i].domain, t->ranges[i].name, i};
    sc_sort(keys, t->n_ranges, sizeof(*keys), sc_name_key_cmp);
    for (size_t i = 0; i < t->n_ranges; i++) {
        if (i == 0 || sc_str_cmp(keys[i - 1].domain, keys[i].domain) != 0 ||
            sc_str_cmp(keys[i - 1].name, keys[i].name) != 0)
            (*n_groups)++;
        group[keys[i].index] = *n_groups - 1;
    }
    free(keys);
    return 0;
}

/* Sums are plain sums; first/last and the longest gap are the extremes. */
static void sc_overlap_accumulate(sc_overlap *acc, const sc_overlap *m)
{
    if (m->kernel_count > 0) {
        if (acc->kernel_count == 0 || m->first_ns < acc->first_ns)
            acc->first_ns = m->first_ns;
        if (acc->kernel_count == 0 || m->last_ns > acc->last_ns)
            acc->last_ns = m->last_ns;
    }
    acc->busy_ns += m->busy_ns;
    acc->kernel_sum_ns += m->kernel_sum_ns;
    acc->kernel_count += m->kernel_count;
    acc->overlap_ns += m->overlap_ns;
    acc->solo_sum_ns += m->solo_sum_ns;
    acc->solo_known += m->solo_known;
    acc->copy_busy_ns += m->copy_busy_ns;
    acc->copy_compute_ns += m->copy_compute_ns;
    acc->idle_ns += m->idle_ns;
    acc->gap_count += m->gap_count;
    if (m->longest_gap_ns > acc->longest_gap_ns)
        acc->longest_gap_ns = m->longest_gap_ns;
}

/* The order of the rows: summed wall time, largest first, then the first range's index. */
typedef struct sc_name_rank {
    uint64_t wall_ns;
    size_t first;
    size_t group;
} sc_name_rank;

static int sc_name_rank_cmp(const void *pa, const void *pb)
{
    const sc_name_rank *x = pa, *y = pb;
    if (x->wall_ns != y->wall_ns)
        return x->wall_ns > y->wall_ns ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Reorders the rows by their rank (through a copy: rows are few next to the ranges). */
static int sc_range_names_order(sc_range_name_summary *names, size_t n, const size_t *first)
{
    sc_name_rank *rank = malloc((n ? n : 1) * sizeof(*rank));
    sc_range_name_summary *sorted = malloc((n ? n : 1) * sizeof(*sorted));
    if (!rank || !sorted) {
        free(rank);
        free(sorted);
        return -1;
    }
    for (size_t g = 0; g < n; g++)
        rank[g] = (sc_name_rank){names[g].wall_ns, first[g], g};
    sc_sort(rank, n, sizeof(*rank), sc_name_rank_cmp);
    for (size_t i = 0; i < n; i++)
        sorted[i] = names[rank[i].group];
    memcpy(names, sorted, n * sizeof(*names));
    free(rank);
    free(sorted);
    return 0;
}

int sc_range_names_sum(const sc_range_summary *ranges, size_t n_ranges, const size_t *group,
                       sc_range_name_summary *names, size_t n_names)
{
    size_t *first = malloc((n_names ? n_names : 1) * sizeof(*first));
    if (!first)
        return -1;
    for (size_t i = 0; i < n_ranges; i++) {
        const sc_range_summary *r = &ranges[i];
        sc_range_name_summary *s = &names[group[i]];
        if (s->count == 0) {
            s->name = r->range->name;
            s->domain = r->range->domain;
            first[group[i]] = i;
        }
        s->count++;
        s->wall_ns += r->wall_ns;
        if (r->wall_ns > s->max_wall_ns)
            s->max_wall_ns = r->wall_ns;
        s->call_count += r->call_count;
        s->copy_count += r->copy_count;
        s->memset_count += r->memset_count;
        sc_overlap_accumulate(&s->overlap, &r->overlap);
    }
    for (size_t g = 0; g < n_names; g++) {
        sc_overlap *o = &names[g].overlap;
        o->concurrency = o->busy_ns ? (double)o->kernel_sum_ns / (double)o->busy_ns : 0.0;
        sc_overlap_set_solo(o, o->solo_sum_ns, o->solo_known);
    }
    int rc = sc_range_names_order(names, n_names, first);
    free(first);
    return rc;
}
