/* Test driver for the HTML report (src/report/html.c): loads traces, analyses them and
 * writes the page, the way `streamcheck-report --html` does, without the rest of the tool.
 * Built by tests/cli/meson.build (not installed), used by test_html.py.
 *
 * Usage: html_driver [--min-call-ns N] [--title T] OUT.html TRACE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/demangle.h"
#include "report/html.h"
#include "streamcheck/analysis.h"

/* demangle.c references the demangler weakly; this strong reference keeps libstdc++ linked
 * under --as-needed, as symbolize.c does for the report tool, so kernel names demangle. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
__attribute__((used)) static char *(*const keep_demangler)(const char *, char *, size_t *,
                                                           int *) = __cxa_demangle;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    sc_html_options opt;
    sc_html_options_init(&opt);
    opt.tool_version = "test";
    int i = 1;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--min-call-ns") == 0)
            opt.min_call_ns = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--title") == 0)
            opt.title = argv[i + 1];
        else
            break;
    }
    if (argc - i < 1) {
        fprintf(stderr, "usage: html_driver [--min-call-ns N] [--title T] OUT.html TRACE...\n");
        return 2;
    }
    const char *out_path = argv[i++];
    size_t n = (size_t)(argc - i);
    sc_trace *traces = calloc(n ? n : 1, sizeof *traces);
    sc_analysis *analyses = calloc(n ? n : 1, sizeof *analyses);
    const sc_analysis **as = calloc(n ? n : 1, sizeof *as);
    if (!traces || !analyses || !as)
        return 1;
    char err[512];
    const sc_analyze_options aopt = {.kernel_name = sc_demangle_kernel};  /* as the tool */
    double t0 = now_s();
    for (size_t k = 0; k < n; k++) {
        if (sc_trace_load(argv[i + (int)k], &traces[k], err, sizeof err) != 0 ||
            sc_analyze_with(&traces[k], &aopt, &analyses[k], err, sizeof err) != 0) {
            fprintf(stderr, "html_driver: %s\n", err);
            return 1;
        }
        as[k] = &analyses[k];
    }
    double t1 = now_s();
    FILE *out = fopen(out_path, "w");
    if (!out) {
        perror(out_path);
        return 1;
    }
    int rc = sc_html_write(out, as, n, &opt, err, sizeof err);
    if (fclose(out) != 0 && rc == 0) {
        snprintf(err, sizeof err, "closing %s failed", out_path);
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "html_driver: %s\n", err);
        return 1;
    }
    fprintf(stderr, "html_driver: load+analyze %.2f s, html %.2f s\n", t1 - t0, now_s() - t1);
    for (size_t k = 0; k < n; k++) {
        sc_analysis_free(&analyses[k]);
        sc_trace_free(&traces[k]);
    }
    free(traces);
    free(analyses);
    free(as);
    return 0;
}
