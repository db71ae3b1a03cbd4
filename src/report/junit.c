/* Written with libxml2's xmlTextWriter, which escapes markup in text and attributes. Names
 * and titles come from the traced program: bytes XML 1.0 cannot carry (control characters,
 * invalid UTF-8) become '?' first. libxml2 is loaded when the first document is written
 * (libxml2_api.h). */
#include "report/junit.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/libxml2_api.h"
#include "report/range_share.h"
#include "report/units.h"

/* libxml2's functions; sc_junit_write returns before any of them is called when it is
 * missing. */
static const sc_libxml2 *xml(void)
{
    return sc_libxml2_get();
}

/* A copy of s that XML 1.0 can hold; NULL when out of memory. */
static char *xml_safe(const char *s)
{
    char *c = strdup(s ? s : "");
    if (!c)
        return NULL;
    bool utf8 = xml()->xmlCheckUTF8((const xmlChar *)c) != 0;
    for (unsigned char *p = (unsigned char *)c; *p; p++)
        if ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f ||
            (!utf8 && *p >= 0x80))
            *p = '?';
    return c;
}

static int attr(xmlTextWriterPtr w, const char *name, const char *value)
{
    char *v = xml_safe(value);
    if (!v)
        return -1;
    int rc = xml()->xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST v);
    free(v);
    return rc < 0 ? -1 : 0;
}

static int attr_u64(xmlTextWriterPtr w, const char *name, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return attr(w, name, buf);
}

static int text(xmlTextWriterPtr w, const char *s)
{
    char *v = xml_safe(s);
    if (!v)
        return -1;
    int rc = xml()->xmlTextWriterWriteString(w, BAD_CAST v);
    free(v);
    return rc < 0 ? -1 : 0;
}

/* "legacy-stream (error): TITLE; fixing this saves ~9.77 ms (34.1% of the run)", malloc'd
 * and whole however long the title (NULL when out of memory). */
static char *describe(const char *rule, sc_severity sev, const char *title, uint64_t count,
                      uint64_t cost_ns, double share)
{
    char b1[SC_FMT_SIZE], *s = NULL;
    if (asprintf(&s, "%s (%s): %s; %" PRIu64 " occurrence%s; fixing this saves ~%s (%.1f%% "
                 "of the run)", rule, sc_severity_name(sev), title, count, count == 1 ? "" : "s",
                 sc_report_fmt_ns(cost_ns, b1), 100.0 * share) < 0)
        return NULL;
    return s;
}

static const char *proc_name(const sc_analysis *a, char *buf, size_t n)
{
    const sc_trace *t = a->trace;
    const char *exe = t->exe && t->exe[0] ? t->exe : "?";
    if (t->has_process)
        snprintf(buf, n, "%s (pid %u)", exe, t->process.pid);
    else
        snprintf(buf, n, "%s", exe);
    return buf;
}

/* One test case; `failures` are lines of text, the first one the failure's message. */
static int testcase(xmlTextWriterPtr w, const char *classname, const char *name,
                    const char *type, char **failures, size_t n_failures)
{
    int rc = xml()->xmlTextWriterStartElement(w, BAD_CAST "testcase") < 0 ? -1 : 0;
    rc |= attr(w, "classname", classname);
    rc |= attr(w, "name", name);
    rc |= attr(w, "time", "0");
    if (n_failures) {
        rc |= xml()->xmlTextWriterStartElement(w, BAD_CAST "failure") < 0 ? -1 : 0;
        rc |= attr(w, "type", type);
        rc |= attr(w, "message", failures[0]);
        for (size_t i = 0; i < n_failures; i++) {
            rc |= text(w, failures[i]);
            rc |= text(w, "\n");
        }
        rc |= xml()->xmlTextWriterEndElement(w) < 0 ? -1 : 0;
    }
    rc |= xml()->xmlTextWriterEndElement(w) < 0 ? -1 : 0;
    return rc;
}

/* The failures of rule `rule` in process a: its findings at or above the threshold. */
static size_t rule_failures(const sc_analysis *a, const char *rule, int fail_on, char **out)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n_findings; i++) {
        const sc_finding *f = &a->findings[i];
        if (fail_on < 0 || !f->rule || strcmp(f->rule, rule) != 0 ||
            (int)f->severity < fail_on)
            continue;
        out[n++] = describe(f->rule, f->severity, f->title, f->count, f->cost_ns, f->share);
    }
    return n;
}

/* The failures of the ranges named `name`: the findings whose part inside them, rated as a
 * saving of its own, is at or above the threshold. */
static size_t range_failures(const sc_analysis *a, const char *name, int fail_on, char **out,
                             bool *oom)
{
    sc_range_shares sh;
    if (sc_range_shares_build(a, sc_range_name_equals, name, &sh) != 0) {
        *oom = true;
        return 0;
    }
    size_t n = 0;
    uint64_t span = a->run_end_ns > a->run_start_ns ? a->run_end_ns - a->run_start_ns : 0;
    for (size_t i = 0; i < a->n_findings; i++) {
        const sc_range_share *s = &sh.per_finding[i];
        sc_severity sev = sc_report_severity_of(s->cost_ns, a);
        if (fail_on < 0 || s->count == 0 || (int)sev < fail_on)
            continue;
        const sc_finding *f = &a->findings[i];
        out[n++] = describe(f->rule ? f->rule : "?", sev, f->title, s->count, s->cost_ns,
                            span ? (double)s->cost_ns / (double)span : 0.0);
    }
    sc_range_shares_free(&sh);
    return n;
}

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
}

/* A range name that makes a test case: "test:..." in any domain, the first row of it. */
static bool test_range_first(const sc_analysis *a, size_t k)
{
    const char *name = a->range_names[k].name;
    if (!name || strncmp(name, SC_JUNIT_RANGE_PREFIX, strlen(SC_JUNIT_RANGE_PREFIX)) != 0)
        return false;
    for (size_t j = 0; j < k; j++)
        if (a->range_names[j].name && strcmp(a->range_names[j].name, name) == 0)
            return false;
    return true;
}

/* The test cases of a process and how many of them fail. Returns 0, or -1 when out of
 * memory. `lines` holds a->n_findings entries (at least one). */
static int count_suite(const sc_analysis *a, const sc_junit_options *opt, char **lines,
                       size_t *tests, size_t *failed)
{
    *tests = sc_rule_count();
    *failed = 0;
    for (size_t r = 0; r < sc_rule_count(); r++) {
        size_t nf = rule_failures(a, sc_rule_id(r), opt->fail_on, lines);
        *failed += nf > 0;
        free_lines(lines, nf);
    }
    bool oom = false;
    for (size_t k = 0; k < a->n_range_names; k++) {
        if (!test_range_first(a, k))
            continue;
        (*tests)++;
        size_t nf = range_failures(a, a->range_names[k].name, opt->fail_on, lines, &oom);
        *failed += nf > 0;
        free_lines(lines, nf);
    }
    return oom ? -1 : 0;
}

static int suite(xmlTextWriterPtr w, const sc_analysis *a, const sc_junit_options *opt,
                 char **lines)
{
    char pname[512], classname[600];
    proc_name(a, pname, sizeof pname);
    const char *exe = a->trace->exe && a->trace->exe[0] ? a->trace->exe : "?";
    const char *slash = strrchr(exe, '/');
    snprintf(classname, sizeof classname, "streamcheck.%s", slash ? slash + 1 : exe);
    size_t tests, failed;
    if (count_suite(a, opt, lines, &tests, &failed) != 0)
        return -1;
    uint64_t span = a->run_end_ns > a->run_start_ns ? a->run_end_ns - a->run_start_ns : 0;
    char secs[32];
    snprintf(secs, sizeof secs, "%.6f", (double)span / 1e9);

    int rc = xml()->xmlTextWriterStartElement(w, BAD_CAST "testsuite") < 0 ? -1 : 0;
    rc |= attr(w, "name", pname);
    rc |= attr_u64(w, "tests", tests);
    rc |= attr_u64(w, "failures", failed);
    rc |= attr(w, "errors", "0");
    rc |= attr(w, "skipped", "0");
    rc |= attr(w, "time", secs);
    rc |= xml()->xmlTextWriterStartElement(w, BAD_CAST "properties") < 0 ? -1 : 0;
    rc |= xml()->xmlTextWriterStartElement(w, BAD_CAST "property") < 0 ? -1 : 0;
    rc |= attr(w, "name", "trace");
    rc |= attr(w, "value", a->trace->path);
    rc |= xml()->xmlTextWriterEndElement(w) < 0 ? -1 : 0;
    rc |= xml()->xmlTextWriterEndElement(w) < 0 ? -1 : 0;
    for (size_t r = 0; rc == 0 && r < sc_rule_count(); r++) {
        size_t nf = rule_failures(a, sc_rule_id(r), opt->fail_on, lines);
        rc |= testcase(w, classname, sc_rule_id(r), "finding", lines, nf);
        free_lines(lines, nf);
    }
    bool oom = false;
    for (size_t k = 0; rc == 0 && k < a->n_range_names; k++) {
        if (!test_range_first(a, k))
            continue;
        size_t nf = range_failures(a, a->range_names[k].name, opt->fail_on, lines, &oom);
        rc |= testcase(w, classname, a->range_names[k].name, "range", lines, nf);
        free_lines(lines, nf);
    }
    rc |= xml()->xmlTextWriterEndElement(w) < 0 ? -1 : 0;
    return oom ? -1 : rc;
}

int sc_junit_write(FILE *out, const sc_analysis *const *as, size_t n,
                   const sc_junit_options *opt, char *err, size_t err_size)
{
    if (!sc_libxml2_get()) {
        snprintf(err, err_size, "JUnit XML needs libxml2, which did not load (%s); "
                 "install libxml2 or name a copy in %s", sc_libxml2_missing(), SC_LIBXML2_ENV);
        return -1;
    }
    size_t most = 1;
    for (size_t i = 0; i < n; i++)
        most = as[i]->n_findings > most ? as[i]->n_findings : most;
    char **lines = calloc(most, sizeof *lines);
    xmlBufferPtr buf = xml()->xmlBufferCreate();
    xmlTextWriterPtr w = buf ? xml()->xmlNewTextWriterMemory(buf, 0) : NULL;
    if (!lines || !w) {
        snprintf(err, err_size, "out of memory");
        if (w)
            xml()->xmlFreeTextWriter(w);
        if (buf)
            xml()->xmlBufferFree(buf);
        free(lines);
        return -1;
    }
    size_t tests = 0, failed = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t t, f;
        rc = count_suite(as[i], opt, lines, &t, &f);
        tests += t;
        failed += f;
    }
    xml()->xmlTextWriterSetIndent(w, 1);
    xml()->xmlTextWriterSetIndentString(w, BAD_CAST "  ");
    rc |= xml()->xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0 ? -1 : 0;
    rc |= xml()->xmlTextWriterStartElement(w, BAD_CAST "testsuites") < 0 ? -1 : 0;
    rc |= attr(w, "name", "streamcheck");
    rc |= attr_u64(w, "tests", tests);
    rc |= attr_u64(w, "failures", failed);
    rc |= attr(w, "errors", "0");
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = suite(w, as[i], opt, lines);
    rc |= xml()->xmlTextWriterEndDocument(w) < 0 ? -1 : 0;
    xml()->xmlFreeTextWriter(w);       /* flushes into buf */
    size_t len = (size_t)xml()->xmlBufferLength(buf);
    if (rc == 0 && fwrite(xml()->xmlBufferContent(buf), 1, len, out) != len)
        rc = -1;
    if (rc != 0)
        snprintf(err, err_size, "%s", ferror(out) ? "write error" : "out of memory");
    xml()->xmlBufferFree(buf);
    free(lines);
    return rc;
}
