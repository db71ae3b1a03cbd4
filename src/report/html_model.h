/* The HTML report's model of its timeline, built from the analyses before a byte is written:
 * every repeated string (kernel, call and range names) and every event description ("grid
 * 8x1x1, block 128x1x1, ...") interned once, and the timeline's rows (a process, its
 * findings, each device and stream, NVTX ranges and host threads) with their events.
 * html_data.c writes it as the page's JSON, html_markup.c as its labels and tables. */
#ifndef SC_REPORT_HTML_MODEL_H
#define SC_REPORT_HTML_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/html.h"
#include "streamcheck/analysis.h"

/* An interning table: keys are byte strings; values are their insertion index. Open
 * addressing, FNV-1a. */
typedef struct sc_html_itab {
    char **keys;
    size_t *lens;
    size_t n, cap;
    uint32_t *slots;            /* index + 1, 0 = empty */
    size_t n_slots;
} sc_html_itab;

/* What an event is (the data's desc kind) */
enum sc_html_ev_kind {
    SC_HTML_EV_KERNEL = 0,
    SC_HTML_EV_COPY = 1,
    SC_HTML_EV_MEMSET = 2,
    SC_HTML_EV_CALL = 3,
    SC_HTML_EV_RANGE = 4,
};

typedef struct sc_html_name {
    char *shortn, *full;
} sc_html_name;

typedef struct sc_html_desc {
    uint32_t kind, name, sub;
    char *detail;
} sc_html_desc;

typedef struct sc_html_event {
    uint64_t start, end;
    uint32_t desc;
    uint32_t range;             /* NVTX rows: 1 + index into the process's range metrics */
} sc_html_event;

enum sc_html_row_type {
    SC_HTML_ROW_PROCESS,
    SC_HTML_ROW_FINDINGS,
    SC_HTML_ROW_DEVICE,
    SC_HTML_ROW_STREAM,
    SC_HTML_ROW_NVTX,
    SC_HTML_ROW_THREAD,
};

/* "process", "findings", ...: the data's "ty" and the labels' class */
extern const char *const sc_html_row_type_names[];

typedef struct sc_html_row {
    size_t proc;
    enum sc_html_row_type type;
    uint64_t sec, k1, k2;       /* order inside the process */
    uint32_t device, context_id, stream_id, tid, depth;
    char label[96], sub[96], title[640];
    sc_html_event *ev;
    size_t n, cap;
} sc_html_row;

typedef struct sc_html_model {
    const sc_html_options *opt;
    uint64_t *t0;               /* per process: its time 0 (sc_html_model_time_zeros) */
    uint64_t span;              /* the longest time from a process's time 0 to its end */
    bool shared;                /* one time 0 for all processes */
    sc_html_itab names_tab;
    sc_html_name *names;
    size_t names_cap;
    sc_html_itab descs_tab;
    sc_html_desc *descs;
    size_t descs_cap;
    sc_html_row *rows;
    size_t n_rows, cap_rows;
    bool oom;
} sc_html_model;

/* Each process's time 0 and the span they share (or not); -1 when out of memory. */
int sc_html_model_time_zeros(sc_html_model *c, const sc_analysis *const *as, size_t n);
/* The rows of process `proc` (range_metric: 1 + index of each trace range's summary, or
 * NULL), sorted; out of memory sets c->oom. */
void sc_html_model_add_process(sc_html_model *c, size_t proc, const sc_analysis *a,
                               const uint32_t *range_metric);
void sc_html_model_free(sc_html_model *c);

/* How the timeline, its data and every table name things. */
const char *sc_html_site_text(const sc_html_options *opt, const sc_trace *t,
                              const sc_api_call *call, char *buf, size_t n);
unsigned sc_html_pid_of(const sc_trace *t);
uint64_t sc_html_span_of(const sc_overlap *o);
/* "app (pid 1234)" */
const char *sc_html_proc_label(const sc_trace *t, char *buf, size_t n);
/* ns as a time of process `proc`: from its time 0 */
uint64_t sc_html_rel(const sc_html_model *c, size_t proc, uint64_t ns);
/* "rule xN (cost), ..." for a range's findings */
void sc_html_range_findings_text(const sc_analysis *a, const sc_range_summary *rs, char *buf,
                                 size_t n);

#endif
