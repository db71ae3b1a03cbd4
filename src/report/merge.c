#include "report/merge.h"

#include <stdlib.h>
#include <string.h>

int sc_rule_total_cmp(const void *pa, const void *pb)
{
    const sc_rule_total *x = pa, *y = pb;
    if (x->cost_ns != y->cost_ns)
        return x->cost_ns < y->cost_ns ? 1 : -1;
    if (x->severity != y->severity)
        return x->severity < y->severity ? 1 : -1;
    return strcmp(x->rule, y->rule);
}

sc_rule_total *sc_report_merge_rules(const sc_analysis *const *as, size_t n, size_t *n_out)
{
    size_t cap = 0, nr = 0;
    *n_out = 0;
    for (size_t i = 0; i < n; i++)
        cap += as[i]->n_findings;
    sc_rule_total *rules = cap ? calloc(cap, sizeof *rules) : NULL;
    if (!rules)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < as[i]->n_findings; j++) {
            const sc_finding *f = &as[i]->findings[j];
            size_t k = 0;
            while (k < nr && strcmp(rules[k].rule, f->rule) != 0)
                k++;
            if (k == nr) {
                rules[nr].rule = f->rule;
                rules[nr++].severity = f->severity;
            }
            if (f->severity > rules[k].severity)
                rules[k].severity = f->severity;
            rules[k].count += f->count;
            rules[k].cost_ns += f->cost_ns;
            rules[k].processes++;   /* the analyzer reports each rule once per process */
        }
    }
    qsort(rules, nr, sizeof *rules, sc_rule_total_cmp);
    *n_out = nr;
    return rules;
}
