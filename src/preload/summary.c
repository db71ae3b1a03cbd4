#include "preload/summary.h"

#include <stdio.h>

#include "report/text.h"
#include "streamcheck/analysis.h"
#include "streamcheck/trace.h"

void sc_summary_print(const char *trace_path)
{
    char err[512];
    sc_trace trace;
    if (sc_trace_load(trace_path, &trace, err, sizeof err) != 0) {
        fprintf(stderr, "streamcheck: %s\n", err);
        return;
    }
    sc_analysis analysis;
    if (sc_analyze(&trace, &analysis, err, sizeof err) != 0) {
        fprintf(stderr, "streamcheck: analyzing %s: %s\n", trace_path, err);
    } else {
        sc_text_options opt;
        sc_text_options_init(&opt);
        opt.brief = true;
        opt.trace_path = trace_path;
        sc_text_process(stderr, &analysis, &opt);
        sc_analysis_free(&analysis);
    }
    sc_trace_free(&trace);
}
