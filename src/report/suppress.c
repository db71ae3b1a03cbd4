#include "report/suppress.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/demangle.h"
#include "report/range_share.h"
#include "trace/grow.h"

/* ---- parsing ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    sc_suppress_scope scope;
} scopes[] = {
    {"kernel", SC_SUPPRESS_KERNEL},
    {"site", SC_SUPPRESS_SITE},
    {"range", SC_SUPPRESS_RANGE},
};

static bool known_rule(const char *id)
{
    for (size_t i = 0; i < sc_rule_count(); i++)
        if (strcmp(sc_rule_id(i), id) == 0)
            return true;
    return false;
}

/* The text without leading and trailing blanks, in a malloc'd copy. */
static char *trimmed(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return strndup(s, n);
}

static int parse(const char *text, sc_suppression *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    const char *colon = strchr(text, ':');
    out->rule = trimmed(text, colon ? (size_t)(colon - text) : strlen(text));
    if (!out->rule) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    if (!out->rule[0]) {
        snprintf(err, err_size, "'%s': no rule id before the ':'", text);
        return -1;
    }
    if (!known_rule(out->rule)) {
        snprintf(err, err_size, "unknown rule '%s' (the ids are in streamcheck-rules(7))",
                 out->rule);
        return -1;
    }
    if (!colon)
        return 0;
    const char *spec = colon + 1, *eq = strchr(spec, '=');
    char *scope = trimmed(spec, eq ? (size_t)(eq - spec) : strlen(spec));
    if (!scope) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    bool found = false;
    for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++) {
        if (strcmp(scope, scopes[i].name) == 0) {
            out->scope = scopes[i].scope;
            found = true;
        }
    }
    if (!found || !eq) {
        snprintf(err, err_size, "'%s': after '%s:' comes kernel=PATTERN, site=PATTERN or "
                 "range=PATTERN", text, out->rule);
        free(scope);
        return -1;
    }
    free(scope);
    out->pattern = trimmed(eq + 1, strlen(eq + 1));
    if (!out->pattern) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    if (!out->pattern[0]) {
        snprintf(err, err_size, "'%s': the pattern is empty", text);
        return -1;
    }
    return 0;
}

static void free_one(sc_suppression *s)
{
    free(s->rule);
    free(s->pattern);
    free(s->origin);
}

int sc_suppress_add(sc_suppress_set *set, const char *text, const char *origin, char *err,
                    size_t err_size)
{
    sc_suppression s;
    if (parse(text, &s, err, err_size) != 0) {
        free_one(&s);
        return -1;
    }
    if (!SC_GROW(set->items, set->cap, set->n + 1, 8)) {
        free_one(&s);
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    s.origin = strdup(origin);
    set->items[set->n++] = s;
    return 0;
}

int sc_suppress_add_file(sc_suppress_set *set, const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t first = set->n, line_no = 0, cap = 0;
    char *line = NULL;
    int rc = 0;
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        line_no++;
        if (strlen(line) != (size_t)len) {
            snprintf(err, err_size, "%s:%zu: a NUL byte in the line", path, line_no);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *text = trimmed(line, strlen(line));
        if (!text) {
            snprintf(err, err_size, "out of memory");
            rc = -1;
            break;
        }
        if (text[0]) {
            char origin[64], why[512];
            snprintf(origin, sizeof origin, "line %zu", line_no);
            if (sc_suppress_add(set, text, origin, why, sizeof why) != 0) {
                snprintf(err, err_size, "%s:%zu: %s", path, line_no, why);
                rc = -1;
            }
        }
        free(text);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(f);
    if (rc != 0) {
        while (set->n > first)
            free_one(&set->items[--set->n]);
    }
    return rc;
}

void sc_suppress_free(sc_suppress_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        free_one(&set->items[i]);
    free(set->items);
    memset(set, 0, sizeof *set);
}

/* ---- matching ----------------------------------------------------------------------- */

static bool glob(const char *pattern, const char *text)
{
    return text && fnmatch(pattern, text, 0) == 0;
}

/* The site as the report names it: its source file (full path or base name) with the line,
 * its function, or module+0xoffset. */
static bool site_matches(const char *pattern, const sc_trace *t, const sc_api_call *call,
                         const sc_suppress_env *env)
{
    sc_frame fr;
    if (!call || sc_frame_call_site(env->resolve, env->resolve_ctx, t, call, &fr) < 0)
        return false;
    char buf[1024];
    if (fr.file && fr.line) {
        snprintf(buf, sizeof buf, "%s:%u", fr.file, fr.line);
        if (glob(pattern, buf))
            return true;
        snprintf(buf, sizeof buf, "%s:%u", sc_frame_basename(fr.file), fr.line);
        if (glob(pattern, buf))
            return true;
    }
    if (glob(pattern, fr.function))
        return true;
    if (fr.module) {
        snprintf(buf, sizeof buf, "%s+0x%llx", sc_frame_basename(fr.module),
                 (unsigned long long)fr.module_offset);
        return glob(pattern, buf);
    }
    return false;
}

static bool kernel_name_matches(const char *pattern, const char *name)
{
    if (glob(pattern, name))
        return true;
    char *full = sc_demangle(name);
    bool hit = full && glob(pattern, full);
    free(full);
    if (hit)
        return true;
    char *shortn = sc_demangle_kernel(name);   /* whole, as findings name the kernel */
    hit = shortn && glob(pattern, shortn);
    free(shortn);
    return hit;
}

/* The site's call launched a kernel (activity records of its correlation id), and every
 * such kernel's name matches. */
static bool kernel_matches(const char *pattern, const sc_trace *t, const sc_api_call *call)
{
    if (!call || !call->rec.correlation_id)
        return false;
    bool any = false;
    for (size_t k = 0; k < t->n_kernels; k++) {
        if (t->kernels[k].rec.correlation_id != call->rec.correlation_id)
            continue;
        if (!kernel_name_matches(pattern, sc_kernel_name(t, &t->kernels[k])))
            return false;
        any = true;
    }
    return any;
}

/* Every site matches, and the sites account for every occurrence. */
static bool sites_match(const sc_suppression *s, const sc_analysis *a, const sc_finding *f,
                        const sc_suppress_env *env)
{
    uint64_t counted = 0;
    for (size_t i = 0; i < f->n_sites; i++) {
        const sc_api_call *call = f->sites[i].call;
        bool hit = s->scope == SC_SUPPRESS_SITE ? site_matches(s->pattern, a->trace, call, env)
                                                : kernel_matches(s->pattern, a->trace, call);
        if (!hit)
            return false;
        counted += f->sites[i].count;
    }
    return f->n_sites > 0 && counted >= f->count;
}

/* Every occurrence lies in a range the pattern names, as far as the per-range counts can
 * prove it. */
static bool ranges_match(const sc_suppression *s, const sc_analysis *a, size_t f)
{
    sc_range_shares sh;
    if (sc_range_shares_build(a, sc_range_name_glob, s->pattern, &sh) != 0)
        return false;
    bool hit = !sh.overlapping && sh.per_finding[f].count > 0 &&
               sh.per_finding[f].count >= a->findings[f].count;
    sc_range_shares_free(&sh);
    return hit;
}

bool sc_suppress_matches(const sc_suppress_set *set, const sc_analysis *a, size_t f,
                         const sc_suppress_env *env)
{
    const sc_finding *finding = &a->findings[f];
    for (size_t i = 0; i < set->n; i++) {
        const sc_suppression *s = &set->items[i];
        if (!finding->rule || strcmp(s->rule, finding->rule) != 0)
            continue;
        switch (s->scope) {
        case SC_SUPPRESS_RULE:
            return true;
        case SC_SUPPRESS_KERNEL:
        case SC_SUPPRESS_SITE:
            if (sites_match(s, a, finding, env))
                return true;
            break;
        case SC_SUPPRESS_RANGE:
            if (ranges_match(s, a, f))
                return true;
            break;
        }
    }
    return false;
}
