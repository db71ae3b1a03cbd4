/* Rank summaries to and from JSON (jansson): see rank_file.h. */
#include "report/rank_file.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *jrank(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

json_t *sc_rank_findings_json(const sc_rank_finding *findings, size_t n)
{
    json_t *fs = json_array();
    for (size_t i = 0; i < n; i++) {
        const sc_rank_finding *f = &findings[i];
        json_t *j = json_object();
        json_object_set_new(j, "rule", json_string(f->rule));
        json_object_set_new(j, "severity", json_string(sc_severity_name(f->severity)));
        json_object_set_new(j, "count", jint(f->count));
        json_object_set_new(j, "cost_ns", jint(f->cost_ns));
        json_array_append_new(fs, j);
    }
    return fs;
}

static json_t *summary_json(const sc_rank_summary *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "schema", json_string(SC_RANK_SCHEMA));
    json_object_set_new(o, "path", json_string(s->path));
    json_object_set_new(o, "exe", json_string(s->exe));
    json_object_set_new(o, "pid", jint(s->pid));
    json_object_set_new(o, "rank", jrank(s->rank));
    json_object_set_new(o, "local_rank", jrank(s->local_rank));
    json_object_set_new(o, "world_size", jrank(s->world_size));
    json_object_set_new(o, "rank_from", s->rank_from ? json_string(s->rank_from) : json_null());
    json_object_set_new(o, "complete", json_boolean(s->complete));
    json_object_set_new(o, "wall_ns", jint(s->wall_ns));
    json_object_set_new(o, "summary_line", json_string(s->line));
    json_object_set_new(o, "suppressed", jint(s->suppressed));
    json_t *devs = json_array();
    for (size_t i = 0; i < s->n_devices; i++) {
        const sc_rank_device *d = &s->devices[i];
        json_t *j = json_object();
        json_object_set_new(j, "device", jint(d->device));
        json_object_set_new(j, "kernels", jint(d->kernels));
        json_object_set_new(j, "busy_ns", jint(d->busy_ns));
        json_object_set_new(j, "kernel_time_ns", jint(d->kernel_sum_ns));
        json_object_set_new(j, "comm_kernels", jint(d->comm_kernels));
        json_object_set_new(j, "comm_ns", jint(d->comm_ns));
        json_object_set_new(j, "comm_overlapped_ns", jint(d->comm_overlapped_ns));
        json_object_set_new(j, "comm_exposed_ns", jint(d->comm_exposed_ns));
        json_array_append_new(devs, j);
    }
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "findings", sc_rank_findings_json(s->findings, s->n_findings));
    return o;
}

int sc_rank_file_write(const char *path, const sc_rank_summary *s, char *err, size_t err_size)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    json_t *o = summary_json(s);
    int rc = o && json_dump_file(o, tmp, JSON_INDENT(1) | JSON_ENSURE_ASCII) == 0 ? 0 : -1;
    json_decref(o);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0) {
        snprintf(err, err_size, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
    }
    return rc;
}

/* ---- reading ------------------------------------------------------------------------ */

static uint64_t get_u64(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v > 0 ? (uint64_t)v : 0;
}

static int64_t get_rank(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    json_int_t n = json_integer_value(v);
    return json_is_integer(v) && n >= 0 && n <= INT32_MAX ? (int64_t)n : -1;
}

static char *get_str(const json_t *o, const char *key, const char *fallback)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v || fallback ? strdup(v ? v : fallback) : NULL;
}

static int severity_of(const char *name, sc_severity *out)
{
    for (int s = SC_SEV_NOTE; s <= SC_SEV_ERROR; s++)
        if (name && strcmp(name, sc_severity_name((sc_severity)s)) == 0) {
            *out = (sc_severity)s;
            return 0;
        }
    return -1;
}

/* Checks the schema: "streamcheck-summary/1", or a later minor of it. */
static const char *schema_problem(const json_t *o)
{
    const char *schema = json_string_value(json_object_get(o, "schema"));
    const char *base = "streamcheck-summary/";
    if (!schema || strncmp(schema, base, strlen(base)) != 0)
        return "not a streamcheck summary (no \"schema\": \"" SC_RANK_SCHEMA "\")";
    if (atoi(schema + strlen(base)) != 1)
        return "a summary of a newer schema than " SC_RANK_SCHEMA ": update streamcheck";
    return NULL;
}

static int read_arrays(const json_t *o, sc_rank_summary *s)
{
    const json_t *devs = json_object_get(o, "devices"), *fs = json_object_get(o, "findings");
    size_t nd = json_array_size(devs), nf = json_array_size(fs);
    s->devices = calloc(nd ? nd : 1, sizeof *s->devices);
    s->findings = calloc(nf ? nf : 1, sizeof *s->findings);
    if (!s->devices || !s->findings)
        return -1;
    for (size_t i = 0; i < nd; i++) {
        const json_t *d = json_array_get(devs, i);
        s->devices[s->n_devices++] = (sc_rank_device){
            (uint32_t)get_u64(d, "device"), get_u64(d, "kernels"), get_u64(d, "busy_ns"),
            get_u64(d, "kernel_time_ns"), get_u64(d, "comm_kernels"), get_u64(d, "comm_ns"),
            get_u64(d, "comm_overlapped_ns"), get_u64(d, "comm_exposed_ns")};
    }
    for (size_t i = 0; i < nf; i++) {
        const json_t *f = json_array_get(fs, i);
        sc_rank_finding *r = &s->findings[s->n_findings];
        const char *rule = json_string_value(json_object_get(f, "rule"));
        if (!rule || severity_of(json_string_value(json_object_get(f, "severity")),
                                 &r->severity) != 0)
            return -2;
        if (!(r->rule = strdup(rule)))
            return -1;
        r->count = get_u64(f, "count");
        r->cost_ns = get_u64(f, "cost_ns");
        s->n_findings++;
    }
    return 0;
}

int sc_rank_file_read(const char *path, sc_rank_summary *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *o = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        snprintf(err, err_size, "%s: not a summary: %s (line %d)", path, je.text, je.line);
        return -1;
    }
    const char *problem = json_is_object(o) ? schema_problem(o) : "not a JSON object";
    if (problem) {
        snprintf(err, err_size, "%s: %s", path, problem);
        json_decref(o);
        return -1;
    }
    out->path = get_str(o, "path", path);
    out->exe = get_str(o, "exe", "?");
    out->line = get_str(o, "summary_line", "?");
    out->rank_from = get_str(o, "rank_from", NULL);
    out->pid = (uint32_t)get_u64(o, "pid");
    out->rank = get_rank(o, "rank");
    out->local_rank = get_rank(o, "local_rank");
    out->world_size = get_rank(o, "world_size");
    out->complete = json_is_true(json_object_get(o, "complete"));
    out->wall_ns = get_u64(o, "wall_ns");
    out->suppressed = get_u64(o, "suppressed");
    int rc = (out->path && out->exe && out->line) ? read_arrays(o, out) : -1;
    json_decref(o);
    if (rc != 0) {
        snprintf(err, err_size, "%s: %s", path,
                 rc == -2 ? "a finding without a rule or a known severity" : "out of memory");
        sc_rank_summary_free(out);
        return -1;
    }
    return 0;
}
