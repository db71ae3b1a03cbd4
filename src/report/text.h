/* Plain-text report of one analysed trace, and of several at once.
 *
 * Static library sc_report_text: no libelf, no libstdc++, no jansson, so that test drivers
 * link it alone. Symbolization comes in through a resolver callback (see frame.h) that only
 * the report tool supplies. (The preload library links none of this: it only records.) */
#ifndef SC_REPORT_TEXT_H
#define SC_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/frame.h"
#include "report/merge.h"
#include "streamcheck/analysis.h"

typedef struct sc_text_options {
    sc_frame_resolver resolve;  /* NULL: frames print as module+0xoffset or raw hex */
    void *resolve_ctx;
    size_t max_sites;           /* call sites per finding (at most SC_MAX_SITES) */
    size_t max_intervals;       /* overlap intervals per device */
    bool brief;                 /* exit-summary form: a few lines prefixed "streamcheck: " */
    const char *trace_path;     /* file named in the brief form's pointer; NULL: trace->path */
    size_t suppressed;          /* findings left out by suppressions: said under findings */
    const char *range_filter;   /* --range NAME: the findings are their part inside it */
    const char *symbols;        /* how the frames resolved (symbolize.h), or NULL */
} sc_text_options;

/* Defaults: no resolver, 3 sites, 5 intervals, full form. */
void sc_text_options_init(sc_text_options *opt);

/* True for a stream that ran no kernels, copies or memsets. CUDA makes several such streams
 * with every context; the text table hides the ones nobody created, JSON marks them. */
bool sc_text_stream_idle(const sc_stream_summary *s);

/* The report of one process (full or brief, per opt->brief). */
void sc_text_process(FILE *out, const sc_analysis *a, const sc_text_options *opt);

/* One line, no newline prefix/suffix decoration: "app (pid 42): 40 kernels, concurrency
 * 1.84x, ...; 2 findings, worst error legacy-stream cost 4.81 ms". Ends with '\n'. */
void sc_text_summary_line(FILE *out, const sc_analysis *a);

/* The merged summary over several processes: one line each, then findings per rule with
 * counts and costs summed over the processes. */
void sc_text_merged(FILE *out, const sc_analysis *const *analyses, size_t n,
                    const sc_text_options *opt);
/* Its rule lines ("findings by rule ...", or "findings: none") and what was suppressed: also
 * the merged report from rank summaries (ranks_text.c). */
void sc_text_rule_totals(FILE *out, const sc_rule_total *rules, size_t nr,
                         size_t with_findings, size_t n, uint64_t suppressed);

#endif
