/* The log: one run; tool.driver names streamcheck and holds the rules of the analyzer's
 * catalogue (sc_rule_id), in its order, so a result's ruleIndex points into it. Each finding
 * is one result: its level from the severity, its title and saving as the message, and a
 * location per call site: a physical one (file URI and line) where the site resolved to
 * file:line, and always a logical one naming the function or module+0xoffset. */
#include "report/sarif.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_str.h"
#include "report/units.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

static const char *level_of(sc_severity s)
{
    switch (s) {
    case SC_SEV_ERROR: return "error";
    case SC_SEV_WARNING: return "warning";
    case SC_SEV_NOTE: return "note";
    }
    return "none";
}

/* The fix of the first finding of `rule` in any process: the analyzer keeps its rules' fix
 * texts on their findings only. */
static const char *fix_of(const sc_analysis *const *as, size_t n, const char *rule)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < as[i]->n_findings; j++)
            if (as[i]->findings[j].rule && strcmp(as[i]->findings[j].rule, rule) == 0 &&
                as[i]->findings[j].fix)
                return as[i]->findings[j].fix;
    return NULL;
}

static json_t *text_of(const char *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "text", sc_json_str(s));
    return o;
}

static json_t *rules_json(const sc_analysis *const *as, size_t n)
{
    json_t *rules = json_array();
    for (size_t i = 0; i < sc_rule_count(); i++) {
        const char *id = sc_rule_id(i);
        char help[512];
        const char *fix = fix_of(as, n, id);
        if (fix)
            snprintf(help, sizeof help, "Fix: %s. See streamcheck-rules(7).", fix);
        else
            snprintf(help, sizeof help, "See streamcheck-rules(7).");
        char desc[128];
        snprintf(desc, sizeof desc, "streamcheck rule %s", id);
        json_t *r = json_object();
        json_object_set_new(r, "id", json_string(id));
        json_object_set_new(r, "name", json_string(id));
        json_object_set_new(r, "shortDescription", text_of(desc));
        json_object_set_new(r, "help", text_of(help));
        json_array_append_new(rules, r);
    }
    return rules;
}

static size_t rule_index(const char *rule)
{
    for (size_t i = 0; rule && i < sc_rule_count(); i++)
        if (strcmp(sc_rule_id(i), rule) == 0)
            return i;
    return (size_t)-1;
}

/* A file path as a URI reference: absolute paths as file:// URIs, relative ones as they
 * are; bytes outside RFC 3986's unreserved set and '/' percent-encoded. */
static char *path_uri(const char *path)
{
    size_t n = strlen(path);
    char *uri = malloc(3 * n + 8);
    if (!uri)
        return NULL;
    size_t k = 0;
    if (path[0] == '/') {
        memcpy(uri, "file://", 7);
        k = 7;
    }
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("-._~/", c)) {
            uri[k++] = (char)c;
        } else {
            uri[k++] = '%';
            uri[k++] = hex[c >> 4];
            uri[k++] = hex[c & 15];
        }
    }
    uri[k] = '\0';
    return uri;
}

static json_t *location_json(const sc_trace *t, const sc_api_call *call,
                             const sc_sarif_options *opt)
{
    sc_frame fr;
    if (!call || sc_frame_call_site(opt->resolve, opt->resolve_ctx, t, call, &fr) < 0)
        return NULL;
    json_t *loc = json_object();
    if (fr.file && fr.line) {
        char *uri = path_uri(fr.file);
        json_t *art = json_object(), *region = json_object(), *phys = json_object();
        json_object_set_new(art, "uri", sc_json_str(uri));
        free(uri);
        json_object_set_new(region, "startLine", json_integer(fr.line));
        json_object_set_new(phys, "artifactLocation", art);
        json_object_set_new(phys, "region", region);
        json_object_set_new(loc, "physicalLocation", phys);
    }
    char where[256], name[1024];
    if (fr.module)
        snprintf(where, sizeof where, "%s+0x%llx", sc_frame_basename(fr.module),
                 (unsigned long long)fr.module_offset);
    else
        snprintf(where, sizeof where, "0x%llx", (unsigned long long)fr.addr);
    json_t *logical = json_object();
    if (fr.function) {
        snprintf(name, sizeof name, "%s (%s)", fr.function, where);
        json_object_set_new(logical, "name", sc_json_str(fr.function));
        json_object_set_new(logical, "fullyQualifiedName", sc_json_str(name));
        json_object_set_new(logical, "kind", json_string("function"));
    } else {
        json_object_set_new(logical, "name", sc_json_str(where));
        json_object_set_new(logical, "fullyQualifiedName", sc_json_str(where));
        json_object_set_new(logical, "kind", json_string("module"));
    }
    json_t *logicals = json_array();
    json_array_append_new(logicals, logical);
    json_object_set_new(loc, "logicalLocations", logicals);
    return loc;
}

static json_t *result_json(const sc_analysis *a, const sc_finding *f,
                           const sc_sarif_options *opt)
{
    const sc_trace *t = a->trace;
    char b1[SC_FMT_SIZE], *msg = NULL;    /* whole, however long the title */
    if (asprintf(&msg, "%s. Fixing this saves ~%s (%.1f%% of the run).%s%s", f->title,
                 sc_report_fmt_ns(f->cost_ns, b1), 100.0 * f->share, f->fix ? " Fix: " : "",
                 f->fix ? f->fix : "") < 0)
        msg = NULL;
    json_t *r = json_object();
    json_object_set_new(r, "ruleId", sc_json_str(f->rule));
    size_t idx = rule_index(f->rule);
    if (idx != (size_t)-1)
        json_object_set_new(r, "ruleIndex", json_integer((json_int_t)idx));
    json_object_set_new(r, "level", json_string(level_of(f->severity)));
    json_object_set_new(r, "message", text_of(msg ? msg : f->title));
    free(msg);
    json_t *locs = json_array();
    for (size_t i = 0; i < f->n_sites; i++) {
        json_t *loc = location_json(t, f->sites[i].call, opt);
        if (loc)
            json_array_append_new(locs, loc);
    }
    json_object_set_new(r, "locations", locs);
    json_t *props = json_object();
    json_object_set_new(props, "count", json_integer((json_int_t)f->count));
    json_object_set_new(props, "cost_ns", json_integer((json_int_t)f->cost_ns));
    json_object_set_new(props, "share", json_real(f->share));
    json_object_set_new(props, "pid", t->has_process ? json_integer(t->process.pid)
                                                     : json_null());
    json_object_set_new(props, "exe", sc_json_str(t->exe));
    json_object_set_new(props, "trace", sc_json_str(t->path));
    json_object_set_new(r, "properties", props);
    return r;
}

int sc_sarif_write(FILE *out, const sc_analysis *const *as, size_t n,
                   const sc_sarif_options *opt)
{
    json_t *doc = json_object();
    if (!doc)
        return -1;
    json_object_set_new(doc, "$schema", json_string(SARIF_SCHEMA));
    json_object_set_new(doc, "version", json_string("2.1.0"));
    json_t *driver = json_object();
    json_object_set_new(driver, "name", json_string("streamcheck"));
    json_object_set_new(driver, "version", sc_json_str(opt->tool_version));
    json_object_set_new(driver, "rules", rules_json(as, n));
    json_t *tool = json_object();
    json_object_set_new(tool, "driver", driver);
    json_t *results = json_array();
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < as[i]->n_findings; j++)
            json_array_append_new(results, result_json(as[i], &as[i]->findings[j], opt));
    json_t *run = json_object();
    json_object_set_new(run, "tool", tool);
    json_object_set_new(run, "results", results);
    json_t *runs = json_array();
    json_array_append_new(runs, run);
    json_object_set_new(doc, "runs", runs);
    int rc = json_dumpf(doc, out, JSON_INDENT(2)) == 0 ? 0 : -1;
    if (rc == 0 && fputc('\n', out) == EOF)
        rc = -1;
    json_decref(doc);
    return rc;
}
