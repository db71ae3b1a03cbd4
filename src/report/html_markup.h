/* The HTML page around the timeline's model: markup, tables, data and script. */
#ifndef SC_REPORT_HTML_MARKUP_H
#define SC_REPORT_HTML_MARKUP_H

#include "report/html_buf.h"
#include "report/html_model.h"

void sc_html_page_write(sc_html_buf *o, const sc_html_model *c, const sc_analysis *const *as,
                        size_t n);

#endif
