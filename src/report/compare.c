/* Comparing two runs: see compare.h. The rows are built once per process (range instances
 * grouped by name), matched, then printed as text or JSON. */
#include "report/compare.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/frame.h"
#include "report/json_str.h"
#include "report/units.h"

/* ---- rows --------------------------------------------------------------------------- */

typedef struct rule_sum {
    const char *rule;
    int severity;               /* the highest seen */
    uint64_t count, cost_ns;
} rule_sum;

typedef struct rule_list {
    rule_sum *v;
    size_t n;
} rule_list;

typedef struct row {
    const char *name;           /* NULL: the whole run */
    size_t first;               /* index of the first instance: rows keep that order */
    uint64_t instances, wall_ns, busy_ns, kernel_sum_ns, kernels, solo_ns;
    rule_list rules;
} row;

typedef struct proc_rows {
    const sc_analysis *a;
    row run;
    row *ranges;
    size_t n_ranges;
} proc_rows;

static int rules_add(rule_list *l, const char *rule, int severity, uint64_t count,
                     uint64_t cost_ns)
{
    if (!rule)
        return 0;
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].rule, rule) == 0) {
            l->v[i].count += count;
            l->v[i].cost_ns += cost_ns;
            if (severity > l->v[i].severity)
                l->v[i].severity = severity;
            return 0;
        }
    }
    rule_sum *v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (!v)
        return -1;
    l->v = v;
    l->v[l->n++] = (rule_sum){rule, severity, count, cost_ns};
    return 0;
}

static const rule_sum *rules_find(const rule_list *l, const char *rule)
{
    for (size_t i = 0; l && i < l->n; i++)
        if (strcmp(l->v[i].rule, rule) == 0)
            return &l->v[i];
    return NULL;
}

static void add_overlap(row *r, const sc_overlap *o)
{
    r->busy_ns += o->busy_ns;
    r->kernel_sum_ns += o->kernel_sum_ns;
    r->kernels += o->kernel_count;
    r->solo_ns += o->solo_sum_ns;
}

static const sc_range_summary *sort_base;

static int range_name_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const char *na = sort_base[a].range && sort_base[a].range->name ? sort_base[a].range->name
                                                                     : "";
    const char *nb = sort_base[b].range && sort_base[b].range->name ? sort_base[b].range->name
                                                                     : "";
    int c = strcmp(na, nb);
    return c ? c : (a < b ? -1 : a > b);
}

static int row_first_cmp(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    return a->first < b->first ? -1 : a->first > b->first;
}

static void free_rows(proc_rows *p)
{
    free(p->run.rules.v);
    for (size_t i = 0; i < p->n_ranges; i++)
        free(p->ranges[i].rules.v);
    free(p->ranges);
    memset(p, 0, sizeof *p);
}

static int build_rows(const sc_analysis *a, proc_rows *p)
{
    memset(p, 0, sizeof *p);
    p->a = a;
    p->run.instances = 1;
    p->run.wall_ns = a->run_end_ns > a->run_start_ns ? a->run_end_ns - a->run_start_ns : 0;
    for (size_t d = 0; d < a->n_devices; d++)
        add_overlap(&p->run, &a->devices[d].overlap);
    for (size_t f = 0; f < a->n_findings; f++)
        if (rules_add(&p->run.rules, a->findings[f].rule, (int)a->findings[f].severity,
                      a->findings[f].count, a->findings[f].cost_ns) != 0)
            return -1;
    if (!a->n_ranges)
        return 0;

    /* Instances grouped by name (sorted by name, then by index), then put back in the order
     * of each name's first instance. */
    size_t *idx = malloc(a->n_ranges * sizeof *idx);
    p->ranges = calloc(a->n_ranges, sizeof *p->ranges);
    if (!idx || !p->ranges) {
        free(idx);
        return -1;
    }
    for (size_t i = 0; i < a->n_ranges; i++)
        idx[i] = i;
    sort_base = a->ranges;
    qsort(idx, a->n_ranges, sizeof *idx, range_name_cmp);
    for (size_t k = 0; k < a->n_ranges; k++) {
        const sc_range_summary *rs = &a->ranges[idx[k]];
        const char *name = rs->range && rs->range->name ? rs->range->name : "";
        row *r = p->n_ranges ? &p->ranges[p->n_ranges - 1] : NULL;
        if (!r || strcmp(r->name, name) != 0) {
            r = &p->ranges[p->n_ranges++];
            r->name = name;
            r->first = idx[k];
        }
        r->instances++;
        r->wall_ns += rs->wall_ns;
        add_overlap(r, &rs->overlap);
        for (size_t f = 0; f < rs->n_findings; f++)
            if (rules_add(&r->rules, sc_range_finding_rule(a, &rs->findings[f]),
                          (int)rs->findings[f].severity,
                          rs->findings[f].count, rs->findings[f].cost_ns) != 0) {
                free(idx);
                return -1;
            }
    }
    free(idx);
    qsort(p->ranges, p->n_ranges, sizeof *p->ranges, row_first_cmp);
    return 0;
}

/* ---- matching ----------------------------------------------------------------------- */

typedef struct row_pair {
    const row *old, *cur;
} row_pair;

typedef struct proc_pair {
    const proc_rows *old, *cur;
    row_pair *rows;             /* [0] is the whole run */
    size_t n_rows;
} proc_pair;

static const char *exe_base(const sc_analysis *a)
{
    const char *exe = a->trace->exe;
    return exe && exe[0] ? sc_frame_basename(exe) : "?";
}

static const row *find_row(const proc_rows *p, const char *name, bool *used)
{
    for (size_t i = 0; p && i < p->n_ranges; i++) {
        if (!used[i] && strcmp(p->ranges[i].name, name) == 0) {
            used[i] = true;
            return &p->ranges[i];
        }
    }
    return NULL;
}

static int pair_rows(proc_pair *pp)
{
    size_t n_old = pp->old ? pp->old->n_ranges : 0, n_cur = pp->cur ? pp->cur->n_ranges : 0;
    pp->rows = calloc(1 + n_old + n_cur, sizeof *pp->rows);
    bool *used = calloc(n_old ? n_old : 1, sizeof *used);
    if (!pp->rows || !used) {
        free(used);
        return -1;
    }
    pp->rows[pp->n_rows++] = (row_pair){pp->old ? &pp->old->run : NULL,
                                        pp->cur ? &pp->cur->run : NULL};
    for (size_t i = 0; i < n_cur; i++) {
        const row *c = &pp->cur->ranges[i];
        pp->rows[pp->n_rows++] = (row_pair){find_row(pp->old, c->name, used), c};
    }
    for (size_t i = 0; i < n_old; i++)
        if (!used[i])
            pp->rows[pp->n_rows++] = (row_pair){&pp->old->ranges[i], NULL};
    free(used);
    return 0;
}

typedef struct comparison {
    proc_rows *old, *cur;
    size_t n_old, n_cur;
    proc_pair *pairs;
    size_t n_pairs;
} comparison;

static void comparison_free(comparison *c)
{
    for (size_t i = 0; i < c->n_old; i++)
        free_rows(&c->old[i]);
    for (size_t i = 0; i < c->n_cur; i++)
        free_rows(&c->cur[i]);
    for (size_t i = 0; i < c->n_pairs; i++)
        free(c->pairs[i].rows);
    free(c->old);
    free(c->cur);
    free(c->pairs);
}

static int comparison_build(comparison *c, const sc_compare_side *o, const sc_compare_side *n)
{
    memset(c, 0, sizeof *c);
    c->old = calloc(o->n ? o->n : 1, sizeof *c->old);
    c->cur = calloc(n->n ? n->n : 1, sizeof *c->cur);
    c->pairs = calloc(o->n + n->n ? o->n + n->n : 1, sizeof *c->pairs);
    bool *taken = calloc(o->n ? o->n : 1, sizeof *taken);
    int rc = c->old && c->cur && c->pairs && taken ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < o->n; i++, c->n_old++)
        rc = build_rows(o->analyses[i], &c->old[i]);
    for (size_t i = 0; rc == 0 && i < n->n; i++, c->n_cur++)
        rc = build_rows(n->analyses[i], &c->cur[i]);
    /* By basename, then by order: the first unmatched baseline process of the same name. */
    for (size_t i = 0; rc == 0 && i < n->n; i++) {
        const proc_rows *match = NULL;
        for (size_t j = 0; j < o->n && !match; j++) {
            if (!taken[j] && strcmp(exe_base(o->analyses[j]), exe_base(n->analyses[i])) == 0) {
                taken[j] = true;
                match = &c->old[j];
            }
        }
        c->pairs[c->n_pairs++] = (proc_pair){match, &c->cur[i], NULL, 0};
    }
    for (size_t j = 0; rc == 0 && j < o->n; j++)
        if (!taken[j])
            c->pairs[c->n_pairs++] = (proc_pair){&c->old[j], NULL, NULL, 0};
    for (size_t i = 0; rc == 0 && i < c->n_pairs; i++)
        rc = pair_rows(&c->pairs[i]);
    free(taken);
    return rc;
}

/* ---- numbers ------------------------------------------------------------------------ */

static bool ratio(uint64_t num, uint64_t den, double *out)
{
    if (!den)
        return false;
    *out = (double)num / (double)den;
    return true;
}

static const char *status_of(const void *old, const void *cur)
{
    return old && cur ? "matched" : cur ? "new" : "gone";
}

/* ---- text --------------------------------------------------------------------------- */

#define NAME_COL_MAX 40

static void cell_time(char *buf, size_t n, const row *o, const row *c, uint64_t ov, uint64_t cv)
{
    char a[SC_FMT_SIZE], b[SC_FMT_SIZE];
    if (o && c) {
        if (ov)
            snprintf(buf, n, "%s -> %s (%+.1f%%)", sc_report_fmt_ns(ov, a),
                     sc_report_fmt_ns(cv, b), 100.0 * ((double)cv - (double)ov) / (double)ov);
        else
            snprintf(buf, n, "%s -> %s", sc_report_fmt_ns(ov, a), sc_report_fmt_ns(cv, b));
    } else if (c) {
        snprintf(buf, n, "- -> %s", sc_report_fmt_ns(cv, b));
    } else {
        snprintf(buf, n, "%s -> -", sc_report_fmt_ns(ov, a));
    }
}

static void cell_conc(char *buf, size_t n, const row *o, const row *c)
{
    double ov = 0, cv = 0;
    bool has_o = o && ratio(o->kernel_sum_ns, o->busy_ns, &ov);
    bool has_c = c && ratio(c->kernel_sum_ns, c->busy_ns, &cv);
    char a[24], b[24];
    snprintf(a, sizeof a, has_o ? "%.2fx" : "-", ov);
    snprintf(b, sizeof b, has_c ? "%.2fx" : "-", cv);
    if (has_o && has_c)
        snprintf(buf, n, "%s -> %s (%+.2f)", a, b, cv - ov);
    else
        snprintf(buf, n, "%s -> %s", a, b);
}

static void cell_findings(char *buf, size_t n, const row *o, const row *c)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; c && i < c->rules.n && used < n; i++)
        if (!rules_find(o ? &o->rules : NULL, c->rules.v[i].rule))
            used += (size_t)snprintf(buf + used, n - used, "%s+%s", used ? " " : "",
                                     c->rules.v[i].rule);
    for (size_t i = 0; o && i < o->rules.n && used < n; i++)
        if (!rules_find(c ? &c->rules : NULL, o->rules.v[i].rule))
            used += (size_t)snprintf(buf + used, n - used, "%s-%s", used ? " " : "",
                                     o->rules.v[i].rule);
}

static void proc_title(char *buf, size_t n, const proc_rows *p)
{
    const sc_trace *t = p->a->trace;
    if (t->has_process)
        snprintf(buf, n, "pid %u", t->process.pid);
    else
        snprintf(buf, n, "%s", t->path ? t->path : "?");
}

static void text_findings(FILE *out, const proc_pair *pp)
{
    const rule_list *o = pp->old ? &pp->old->run.rules : NULL;
    const rule_list *c = pp->cur ? &pp->cur->run.rules : NULL;
    size_t shown = 0;
    char a[SC_FMT_SIZE], b[SC_FMT_SIZE];
    for (size_t i = 0; c && i < c->n; i++) {
        const rule_sum *r = &c->v[i];
        const rule_sum *was = rules_find(o, r->rule);
        if (!shown++)
            fprintf(out, "  findings:\n");
        if (!was) {
            fprintf(out, "    new      %s (%s): %llu, cost %s\n", r->rule,
                    sc_severity_name((sc_severity)r->severity), (unsigned long long)r->count,
                    sc_report_fmt_ns(r->cost_ns, a));
        } else if (was->cost_ns != r->cost_ns || was->count != r->count ||
                   was->severity != r->severity) {
            fprintf(out, "    changed  %s (%s): cost %s -> %s", r->rule,
                    sc_severity_name((sc_severity)r->severity), sc_report_fmt_ns(was->cost_ns, a),
                    sc_report_fmt_ns(r->cost_ns, b));
            if (was->cost_ns)
                fprintf(out, " (%+.1f%%)", 100.0 * ((double)r->cost_ns - (double)was->cost_ns) /
                                               (double)was->cost_ns);
            fprintf(out, ", count %llu -> %llu", (unsigned long long)was->count,
                    (unsigned long long)r->count);
            if (was->severity != r->severity)
                fprintf(out, ", was %s", sc_severity_name((sc_severity)was->severity));
            fputc('\n', out);
        } else {
            fprintf(out, "    same     %s (%s): %llu, cost %s\n", r->rule,
                    sc_severity_name((sc_severity)r->severity), (unsigned long long)r->count,
                    sc_report_fmt_ns(r->cost_ns, a));
        }
    }
    for (size_t i = 0; o && i < o->n; i++) {
        const rule_sum *r = &o->v[i];
        if (rules_find(c, r->rule))
            continue;
        if (!shown++)
            fprintf(out, "  findings:\n");
        fprintf(out, "    gone     %s (%s): was %llu, cost %s\n", r->rule,
                sc_severity_name((sc_severity)r->severity), (unsigned long long)r->count,
                sc_report_fmt_ns(r->cost_ns, a));
    }
    if (!shown)
        fprintf(out, "  findings: none in either run\n");
}

static void text_pair(FILE *out, const proc_pair *pp)
{
    const proc_rows *any = pp->cur ? pp->cur : pp->old;
    char o[64] = "-", c[64] = "-";
    if (pp->old)
        proc_title(o, sizeof o, pp->old);
    if (pp->cur)
        proc_title(c, sizeof c, pp->cur);
    fprintf(out, "== %s (%s -> %s)%s ==\n", exe_base(any->a), o, c,
            !pp->old ? ": only in the current run" : !pp->cur ? ": only in the baseline" : "");

    int width = (int)strlen("(whole run)");
    for (size_t i = 1; i < pp->n_rows; i++) {
        const row *r = pp->rows[i].cur ? pp->rows[i].cur : pp->rows[i].old;
        int len = (int)strlen(r->name);
        if (len > width)
            width = len > NAME_COL_MAX ? NAME_COL_MAX : len;
    }
    fprintf(out, "  %-*s  %-32s  %-32s  %-22s  %s\n", width, "range", "wall", "busy",
            "concurrency", "findings");
    for (size_t i = 0; i < pp->n_rows; i++) {
        const row *ro = pp->rows[i].old, *rc = pp->rows[i].cur;
        const row *r = rc ? rc : ro;
        char wall[64], busy[64], conc[64], finds[256], name[NAME_COL_MAX + 16];
        cell_time(wall, sizeof wall, ro, rc, ro ? ro->wall_ns : 0, rc ? rc->wall_ns : 0);
        cell_time(busy, sizeof busy, ro, rc, ro ? ro->busy_ns : 0, rc ? rc->busy_ns : 0);
        cell_conc(conc, sizeof conc, ro, rc);
        cell_findings(finds, sizeof finds, ro, rc);
        if (i == 0)
            snprintf(name, sizeof name, "(whole run)");
        else if ((int)strlen(r->name) > width)
            snprintf(name, sizeof name, "%.*s...", width - 3, r->name);
        else
            snprintf(name, sizeof name, "%s", r->name);
        fprintf(out, "  %-*s  %-32s  %-32s  %-22s  %s%s\n", width, name, wall, busy, conc,
                finds, i && !ro ? (finds[0] ? " (new range)" : "(new range)")
                       : i && !rc ? (finds[0] ? " (gone range)" : "(gone range)") : "");
    }
    text_findings(out, pp);
}

int sc_compare_text(FILE *out, const sc_compare_side *o, const sc_compare_side *n)
{
    comparison c;
    if (comparison_build(&c, o, n) != 0) {
        comparison_free(&c);
        return -1;
    }
    fprintf(out, "comparison: baseline");
    for (size_t i = 0; i < o->n_paths; i++)
        fprintf(out, " %s", o->paths[i]);
    fprintf(out, " (%zu process%s) -> current", o->n, o->n == 1 ? "" : "es");
    for (size_t i = 0; i < n->n_paths; i++)
        fprintf(out, " %s", n->paths[i]);
    fprintf(out, " (%zu process%s)\n", n->n, n->n == 1 ? "" : "es");
    for (size_t i = 0; i < c.n_pairs; i++) {
        fputc('\n', out);
        text_pair(out, &c.pairs[i]);
    }
    comparison_free(&c);
    return ferror(out) ? -1 : 0;
}

/* ---- JSON --------------------------------------------------------------------------- */

static json_t *jnum(bool has, double v, bool integer)
{
    if (!has || !isfinite(v))
        return json_null();
    /* a cast out of json_int_t's range is undefined: such a number is no count of ns */
    if (integer && (v >= 0x1p63 || v < -0x1p63))
        return json_null();
    return integer ? json_integer((json_int_t)v) : json_real(v);
}

/* { "baseline", "current", "delta", "delta_pct" } */
static json_t *pair_json(bool has_o, double ov, bool has_c, double cv, bool integer)
{
    json_t *o = json_object();
    json_object_set_new(o, "baseline", jnum(has_o, ov, integer));
    json_object_set_new(o, "current", jnum(has_c, cv, integer));
    json_object_set_new(o, "delta", jnum(has_o && has_c, cv - ov, integer));
    json_object_set_new(o, "delta_pct", jnum(has_o && has_c && ov != 0,
                                             100.0 * (cv - ov) / (ov ? ov : 1), false));
    return o;
}

static json_t *rule_changes_json(const rule_list *o, const rule_list *c)
{
    json_t *arr = json_array();
    for (int side = 0; side < 2; side++) {
        const rule_list *l = side == 0 ? c : o;
        for (size_t i = 0; l && i < l->n; i++) {
            const rule_sum *cur = side == 0 ? &l->v[i] : NULL;
            const rule_sum *old = side == 0 ? rules_find(o, l->v[i].rule) : &l->v[i];
            if (side == 1 && rules_find(c, l->v[i].rule))
                continue;   /* listed with the current run's rules */
            const char *status = !old ? "new" : !cur ? "gone"
                               : old->count == cur->count && old->cost_ns == cur->cost_ns &&
                                         old->severity == cur->severity
                                     ? "unchanged" : "changed";
            json_t *f = json_object();
            json_object_set_new(f, "rule", sc_json_str(l->v[i].rule));
            json_object_set_new(f, "status", json_string(status));
            json_t *sev = json_object();
            json_object_set_new(sev, "baseline", old ? json_string(sc_severity_name(
                                                           (sc_severity)old->severity))
                                                     : json_null());
            json_object_set_new(sev, "current", cur ? json_string(sc_severity_name(
                                                          (sc_severity)cur->severity))
                                                    : json_null());
            json_object_set_new(f, "severity", sev);
            json_object_set_new(f, "count", pair_json(old, old ? (double)old->count : 0, cur,
                                                      cur ? (double)cur->count : 0, true));
            json_object_set_new(f, "cost_ns", pair_json(old, old ? (double)old->cost_ns : 0,
                                                        cur, cur ? (double)cur->cost_ns : 0,
                                                        true));
            json_array_append_new(arr, f);
        }
    }
    return arr;
}

static json_t *row_json(const row *o, const row *c, bool whole)
{
    json_t *j = json_object();
    const row *r = c ? c : o;
    json_object_set_new(j, "name", whole ? json_null() : sc_json_str(r->name));
    json_object_set_new(j, "status", json_string(status_of(o, c)));
#define PAIR(key, field)                                                                     \
    json_object_set_new(j, key, pair_json(o, o ? (double)o->field : 0, c,                    \
                                          c ? (double)c->field : 0, true))
    PAIR("instances", instances);
    PAIR("wall_ns", wall_ns);
    PAIR("busy_ns", busy_ns);
    PAIR("kernel_sum_ns", kernel_sum_ns);
    PAIR("kernels", kernels);
#undef PAIR
    double ov = 0, cv = 0;
    bool ho = o && ratio(o->kernel_sum_ns, o->busy_ns, &ov);
    bool hc = c && ratio(c->kernel_sum_ns, c->busy_ns, &cv);
    json_object_set_new(j, "concurrency", pair_json(ho, ov, hc, cv, false));
    ho = o && ratio(o->solo_ns, o->busy_ns, &ov);
    hc = c && ratio(c->solo_ns, c->busy_ns, &cv);
    json_object_set_new(j, "speedup", pair_json(ho, ov, hc, cv, false));
    json_object_set_new(j, "findings", rule_changes_json(o ? &o->rules : NULL,
                                                         c ? &c->rules : NULL));
    return j;
}

static json_t *side_ref(const proc_rows *p)
{
    if (!p)
        return json_null();
    const sc_trace *t = p->a->trace;
    json_t *o = json_object();
    json_object_set_new(o, "path", sc_json_str(t->path));
    json_object_set_new(o, "exe", sc_json_str(t->exe));
    json_object_set_new(o, "pid", t->has_process ? json_integer(t->process.pid) : json_null());
    return o;
}

static json_t *side_json(const sc_compare_side *s)
{
    json_t *o = json_object();
    json_t *paths = json_array(), *errors = json_array();
    for (size_t i = 0; i < s->n_paths; i++)
        json_array_append_new(paths, sc_json_str(s->paths[i]));
    for (size_t i = 0; i < s->n_errors; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "path", sc_json_str(s->errors[i].path));
        json_object_set_new(e, "message", sc_json_str(s->errors[i].message));
        json_array_append_new(errors, e);
    }
    json_object_set_new(o, "paths", paths);
    json_object_set_new(o, "processes", json_integer((json_int_t)s->n));
    json_object_set_new(o, "errors", errors);
    return o;
}

int sc_compare_json(FILE *out, const sc_compare_side *o, const sc_compare_side *n,
                    const char *tool_version)
{
    comparison c;
    if (comparison_build(&c, o, n) != 0) {
        comparison_free(&c);
        return -1;
    }
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string(SC_COMPARE_SCHEMA));
    json_t *tool = json_object();
    json_object_set_new(tool, "name", json_string("streamcheck-report"));
    json_object_set_new(tool, "version", sc_json_str(tool_version));
    json_object_set_new(doc, "tool", tool);
    json_object_set_new(doc, "baseline", side_json(o));
    json_object_set_new(doc, "current", side_json(n));
    json_t *procs = json_array();
    for (size_t i = 0; i < c.n_pairs; i++) {
        const proc_pair *pp = &c.pairs[i];
        const proc_rows *any = pp->cur ? pp->cur : pp->old;
        json_t *p = json_object();
        json_object_set_new(p, "exe", sc_json_str(exe_base(any->a)));
        json_object_set_new(p, "status", json_string(status_of(pp->old, pp->cur)));
        json_object_set_new(p, "baseline", side_ref(pp->old));
        json_object_set_new(p, "current", side_ref(pp->cur));
        json_object_set_new(p, "run", row_json(pp->rows[0].old, pp->rows[0].cur, true));
        json_t *ranges = json_array();
        for (size_t k = 1; k < pp->n_rows; k++)
            json_array_append_new(ranges, row_json(pp->rows[k].old, pp->rows[k].cur, false));
        json_object_set_new(p, "ranges", ranges);
        json_object_set_new(p, "findings",
                            rule_changes_json(pp->old ? &pp->old->run.rules : NULL,
                                              pp->cur ? &pp->cur->run.rules : NULL));
        json_array_append_new(procs, p);
    }
    json_object_set_new(doc, "processes", procs);
    comparison_free(&c);
    int rc = json_dumpf(doc, out, JSON_INDENT(2)) == 0 ? 0 : -1;
    if (rc == 0 && fputc('\n', out) == EOF)
        rc = -1;
    json_decref(doc);
    return rc;
}
