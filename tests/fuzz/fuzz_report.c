/* fuzz_report: a libFuzzer target over everything streamcheck-report does with a trace file:
 * loading it, the analysis, and every output (text, JSON, Chrome, HTML, --dump, --baseline
 * against itself). The input is written to a file and the report tool's run (sc_report_main)
 * runs on it, in process, as a user would run it.
 *
 * Built with -Dfuzz=enabled by a clang build (tools/fuzz, which also seeds it with
 * tests/fixtures and runs it for a bounded time). An input that crashes it goes into
 * tests/fuzz/regressions/, which the cli suite replays through the same outputs on every
 * build (tests/cli/test_fuzz_regressions.py). */
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report_main.h"    /* the run without the process's entry (tool_main.c) */

/* demangle.c references the demangler weakly; keep libstdc++'s linked, as the tool does. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
__attribute__((used)) static char *(*const keep_demangler)(const char *, char *, size_t *,
                                                           int *) = __cxa_demangle;

static char trace_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* the report tool takes its traces by name: one file, rewritten for every input */
    snprintf(trace_path, sizeof trace_path, "/tmp/fuzz_report-%d.sctrace", (int)getpid());
    return 0;
}

static void run(int argc, char **argv)
{
    optind = 0;     /* getopt starts over: each run is a fresh command line */
    sc_report_main(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    char *every[] = {"streamcheck-report", "--no-symbols", "-o", "/dev/null",
                     "--json=/dev/null", "--chrome", "/dev/null", "--html", "/dev/null",
                     trace_path, NULL};
    char *dump[] = {"streamcheck-report", "--dump", "-o", "/dev/null", trace_path, NULL};
    char *baseline[] = {"streamcheck-report", "--no-symbols", "-o", "/dev/null",
                        "--baseline", trace_path, trace_path, NULL};
    char *baseline_json[] = {"streamcheck-report", "--no-symbols", "--json=/dev/null",
                             "--baseline", trace_path, trace_path, NULL};
    run(10, every);
    run(5, dump);
    run(7, baseline);
    run(6, baseline_json);
    return 0;
}
