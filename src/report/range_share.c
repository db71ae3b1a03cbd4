#include "report/range_share.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"

/* The latest end of the matching push/pop ranges seen so far on one thread. */
typedef struct thread_end {
    uint32_t tid;
    uint64_t end_ns;
} thread_end;

typedef struct thread_ends {
    thread_end *v;
    size_t n, cap;
} thread_ends;

/* The entry of `tid`, added (end 0) when new; NULL when out of memory. A run has a handful
 * of threads with ranges, so a list is enough. */
static thread_end *thread_of(thread_ends *t, uint32_t tid)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].tid == tid)
            return &t->v[i];
    if (!SC_GROW(t->v, t->cap, t->n + 1, 8))
        return NULL;
    t->v[t->n] = (thread_end){tid, 0};
    return &t->v[t->n++];
}

static bool is_start_end(const sc_range *r)
{
    return r->rec.depth == UINT32_MAX;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

int sc_range_shares_build(const sc_analysis *a, sc_range_test test, const void *arg,
                          sc_range_shares *out)
{
    memset(out, 0, sizeof *out);
    out->per_finding = calloc(a->n_findings ? a->n_findings : 1, sizeof *out->per_finding);
    if (!out->per_finding)
        return -1;
    thread_ends threads = {0};
    /* Ranges come by start time, so an earlier matching range that ends no earlier than this
     * one contains it. Start/end ranges count every thread's calls, push/pop ranges their
     * own thread's: a push/pop range lies inside either kind, a start/end one only inside
     * another start/end one. */
    bool any_se = false, any_pp = false;
    uint64_t se_end = 0, pp_end_any = 0;
    for (size_t i = 0; i < a->n_ranges; i++) {
        const sc_range_summary *rs = &a->ranges[i];
        const sc_range *r = rs->range;
        if (!r || !test(r->name ? r->name : "", arg))
            continue;
        out->n_ranges++;
        uint64_t start = r->rec.start_ns, end = r->rec.end_ns;
        bool covered, overlaps;
        if (is_start_end(r)) {
            covered = any_se && end <= se_end;
            overlaps = !covered && ((any_se && start <= se_end) ||
                                    (any_pp && start <= pp_end_any));
            se_end = any_se ? max_u64(se_end, end) : end;
            any_se = true;
        } else {
            thread_end *t = thread_of(&threads, r->rec.tid);
            if (!t) {
                free(threads.v);
                sc_range_shares_free(out);
                return -1;
            }
            bool seen = t->end_ns != 0;
            covered = (any_se && end <= se_end) || (seen && end <= t->end_ns);
            overlaps = !covered && ((seen && start <= t->end_ns) ||
                                    (any_se && start <= se_end));
            t->end_ns = max_u64(t->end_ns, end);
            pp_end_any = any_pp ? max_u64(pp_end_any, end) : end;
            any_pp = true;
        }
        if (overlaps)
            out->overlapping = true;
        if (rs->n_findings >= SC_MAX_RANGE_FINDINGS)
            out->truncated = true;
        if (covered)
            continue;
        for (size_t k = 0; k < rs->n_findings; k++) {
            size_t f = rs->findings[k].finding;
            if (f >= a->n_findings)
                continue;
            out->per_finding[f].count += rs->findings[k].count;
            out->per_finding[f].cost_ns += rs->findings[k].cost_ns;
        }
    }
    free(threads.v);
    return 0;
}

void sc_range_shares_free(sc_range_shares *s)
{
    free(s->per_finding);
    memset(s, 0, sizeof *s);
}

bool sc_range_name_glob(const char *name, const void *pattern)
{
    return fnmatch((const char *)pattern, name, 0) == 0;
}

bool sc_range_name_equals(const char *name, const void *text)
{
    return strcmp(name, (const char *)text) == 0;
}

sc_severity sc_report_severity_of(uint64_t cost_ns, const sc_analysis *a)
{
    uint64_t span = a->run_end_ns > a->run_start_ns ? a->run_end_ns - a->run_start_ns : 0;
    double share = span ? (double)cost_ns / (double)span : 0.0;
    if (cost_ns >= SC_ERROR_MIN_NS && share >= SC_ERROR_SHARE)
        return SC_SEV_ERROR;
    if (cost_ns >= SC_WARNING_MIN_NS && share >= SC_WARNING_SHARE)
        return SC_SEV_WARNING;
    return SC_SEV_NOTE;
}
