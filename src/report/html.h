/* HTML report: one self-contained file (inline CSS and JS, no network) with a zoomable
 * timeline and the findings, per-NVTX-range and per-device tables.
 *
 * Usage (what `streamcheck-report --html FILE` does):
 *
 *     sc_html_options h;
 *     sc_html_options_init(&h);
 *     h.resolve = sym ? sc_sym_resolve : NULL;      // call sites; NULL: module+offset
 *     h.resolve_ctx = sym;
 *     h.tool_version = SC_VERSION;
 *     char err[256];
 *     FILE *f = fopen(path, "w");
 *     if (!f || sc_html_write(f, analyses, n, &h, err, sizeof err) != 0) ... report err
 *     fclose(f);                                     // check its result too
 *
 * The page shows, on one time axis (relative to the earliest process start; processes that
 * ran far apart, e.g. traces of different runs, each start at 0): per process a findings
 * row (markers at each finding's first and worst instance), per device one row per stream
 * that had work or that the program created (kernels, copies and memsets as bars), per host
 * thread its NVTX ranges (one row per nesting depth; start/end ranges in shared lanes) and
 * its calls that can block it (synchronizations, synchronous copies/memsets, allocations,
 * host registration, async copies) of at least min_call_ns. Below: the findings table
 * (#findings), the per-range table (#ranges), the ranges-by-name table (#range-names, when
 * the analysis has one) and the per-device table (#devices). The tables and the row labels
 * (.row-label, one per timeline row) are static HTML; the timeline is drawn by the embedded
 * script on #timeline canvas.
 *
 * The data rides in <script type="application/json" id="sc-data"> (format: the top of
 * html.c), about 12-16 bytes per event; every string in it or in the markup is escaped, so
 * names from the traced program cannot break the page. Where events are narrower than 3
 * pixels a frame draws one aggregated bar per row and pixel column (shaded by busy time), so
 * it costs O(rows x width x log events) and stays responsive for millions of events. After
 * each draw the script sets window.scReport = {rows, events, drawnBars, aggregated,
 * findings, renderMs, view} and mirrors the counts into data-rows, data-events,
 * data-drawn-bars, data-aggregated, data-findings and data-render-ms on #timeline (tests
 * read them with chromium --dump-dom).
 *
 * Links libsc_report_text (frame, units, names, demangle) only: no libelf, no jansson.
 */
#ifndef SC_REPORT_HTML_H
#define SC_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/frame.h"
#include "streamcheck/analysis.h"

typedef struct sc_html_options {
    sc_frame_resolver resolve;  /* call sites in the findings; NULL: module+0xoffset */
    void *resolve_ctx;
    const char *title;          /* page title; NULL: "streamcheck report" */
    const char *tool_version;   /* shown in the footer; NULL: not shown */
    uint64_t min_call_ns;       /* host-thread rows show blocking calls at least this long;
                                   0 shows them all */
    size_t max_range_rows;      /* rows of the per-range and by-name tables; 0: no limit */
} sc_html_options;

/* Defaults: no resolver, default title, min_call_ns 10 us, 1000 range rows. */
void sc_html_options_init(sc_html_options *opt);

/* Writes the whole page for the n analyses (one process each; n may be 0) to out. opt may
 * be NULL (defaults). Returns 0, or -1 with a message in err (out of memory, write error);
 * the caller still owns and closes out. */
int sc_html_write(FILE *out, const sc_analysis *const *analyses, size_t n,
                  const sc_html_options *opt, char *err, size_t err_size);

#endif
