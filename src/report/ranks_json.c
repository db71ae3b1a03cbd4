/* The ranks section of the JSON report: the same numbers as ranks_text.c. */
#include "report/ranks_json.h"

#include <stdlib.h>

#include "report/rank_file.h"
#include "report/ranks_text.h"

static json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *jrank(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

static json_t *rank_json(const sc_rank_summary *s)
{
    uint64_t comm, ov, exposed;
    sc_rank_comm(s, &comm, &ov, &exposed);
    json_t *o = json_object();
    json_object_set_new(o, "rank", jrank(s->rank));
    json_object_set_new(o, "local_rank", jrank(s->local_rank));
    json_object_set_new(o, "world_size", jrank(s->world_size));
    json_object_set_new(o, "rank_from", s->rank_from ? json_string(s->rank_from) : json_null());
    json_object_set_new(o, "pid", jint(s->pid));
    json_object_set_new(o, "path", json_string(s->path));
    json_object_set_new(o, "kernels", jint(sc_rank_kernels(s)));
    json_object_set_new(o, "busy_ns", jint(sc_rank_busy(s)));
    json_object_set_new(o, "concurrency", json_real(sc_rank_concurrency(s)));
    json_object_set_new(o, "comm_ns", jint(comm));
    json_object_set_new(o, "comm_overlapped_ns", jint(ov));
    json_object_set_new(o, "comm_exposed_ns", jint(exposed));
    json_object_set_new(o, "wall_ns", jint(s->wall_ns));
    json_object_set_new(o, "complete", json_boolean(s->complete));
    return o;
}

static json_t *slowest_json(sc_rank_summary *const *r, size_t n)
{
    size_t w = sc_ranks_slowest(r, n);
    json_t *o = json_object();
    json_object_set_new(o, "rank", jrank(r[w]->rank));
    json_object_set_new(o, "busy_ns", jint(sc_rank_busy(r[w])));
    json_object_set_new(o, "median_busy_ns", jint(sc_ranks_median_busy(r, n)));
    json_object_set_new(o, "others_median_exposed_comm_ns",
                        jint(sc_ranks_median_exposed(r, n, w)));
    json_object_set_new(o, "findings", sc_rank_findings_json(r[w]->findings, r[w]->n_findings));
    return o;
}

json_t *sc_ranks_json(sc_rank_summary *const *s, size_t n)
{
    size_t nr = 0;
    sc_rank_summary **r = sc_ranks_sorted(s, n, &nr);
    if (!r || nr < 2) {
        free(r);
        return NULL;
    }
    json_t *o = json_object(), *list = json_array(), *fs = json_array();
    for (size_t i = 0; i < nr; i++)
        json_array_append_new(list, rank_json(r[i]));
    json_object_set_new(o, "ranks", list);
    json_object_set_new(o, "unranked_processes", jint(n - nr));
    json_object_set_new(o, "slowest", slowest_json(r, nr));
    size_t nrules = 0;
    int64_t **ranks = NULL;
    size_t *n_ranks = NULL;
    sc_rule_total *rules = sc_ranks_merge_rules(r, nr, &nrules, &ranks, &n_ranks);
    for (size_t k = 0; k < nrules; k++) {
        json_t *j = json_object(), *rl = json_array();
        json_object_set_new(j, "rule", json_string(rules[k].rule));
        json_object_set_new(j, "severity", json_string(sc_severity_name(rules[k].severity)));
        json_object_set_new(j, "count", jint(rules[k].count));
        json_object_set_new(j, "cost_ns", jint(rules[k].cost_ns));
        for (size_t i = 0; i < n_ranks[k]; i++)
            json_array_append_new(rl, json_integer(ranks[k][i]));
        json_object_set_new(j, "ranks", rl);
        json_array_append_new(fs, j);
        free(ranks[k]);
    }
    json_object_set_new(o, "findings", fs);
    free(ranks);
    free(n_ranks);
    free(rules);
    free(r);
    return o;
}
