/* HTML report: a static page (header, tables) around a canvas timeline drawn by the page's
 * own script from data embedded as JSON. Built in three steps, each in its own file: the
 * timeline's model from the analyses (html_model.c), then the page (html_markup.c) with its
 * data (html_data.c), written through one output buffer (html_buf.c). */
#include "report/html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/html_buf.h"
#include "report/html_markup.h"
#include "report/html_model.h"

#define DEFAULT_MIN_CALL_NS 10000
#define DEFAULT_RANGE_ROWS 1000

void sc_html_options_init(sc_html_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->min_call_ns = DEFAULT_MIN_CALL_NS;
    opt->max_range_rows = DEFAULT_RANGE_ROWS;
}

/* range_metric[i] for trace range i: 1 + index of its summary in a->ranges, 0 if none. */
static uint32_t *range_metrics(const sc_analysis *a, bool *oom)
{
    const sc_trace *t = a->trace;
    if (t->n_ranges == 0 || a->n_ranges == 0)
        return NULL;
    uint32_t *m = calloc(t->n_ranges, sizeof *m);
    if (!m) {
        *oom = true;
        return NULL;
    }
    for (size_t j = 0; j < a->n_ranges; j++) {
        const sc_range *rg = a->ranges[j].range;
        if (rg >= t->ranges && rg < t->ranges + t->n_ranges)
            m[rg - t->ranges] = (uint32_t)(j + 1);
    }
    return m;
}

int sc_html_write(FILE *out, const sc_analysis *const *as, size_t n, const sc_html_options *opt,
                  char *err, size_t err_size)
{
    sc_html_options defaults;
    if (!opt) {
        sc_html_options_init(&defaults);
        opt = &defaults;
    }
    sc_html_model c = {.opt = opt};
    if (sc_html_model_time_zeros(&c, as, n) != 0) {
        snprintf(err, err_size, "out of memory while building the HTML report");
        return -1;
    }
    for (size_t i = 0; i < n && !c.oom; i++) {
        uint32_t *m = range_metrics(as[i], &c.oom);
        if (!c.oom)
            sc_html_model_add_process(&c, i, as[i], m);
        free(m);
    }
    if (c.oom) {
        sc_html_model_free(&c);
        snprintf(err, err_size, "out of memory while building the HTML report");
        return -1;
    }
    sc_html_buf *o = malloc(sizeof *o);
    if (!o) {
        sc_html_model_free(&c);
        snprintf(err, err_size, "out of memory while building the HTML report");
        return -1;
    }
    o->f = out;
    o->n = 0;
    o->failed = false;
    sc_html_page_write(o, &c, as, n);
    sc_hb_flush(o);
    bool failed = o->failed || fflush(out) != 0 || ferror(out);
    int why = errno;
    free(o);
    sc_html_model_free(&c);
    if (failed) {
        snprintf(err, err_size, "%s", why ? strerror(why) : "write error");
        return -1;
    }
    return 0;
}
