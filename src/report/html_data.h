/* The HTML page's data: its timeline model (html_model.h) and each process's findings and
 * range metrics as one JSON object, for the page's script (the layout: html_data.c). */
#ifndef SC_REPORT_HTML_DATA_H
#define SC_REPORT_HTML_DATA_H

#include "report/html_buf.h"
#include "report/html_model.h"

void sc_html_data_write(sc_html_buf *o, const sc_html_model *c, const sc_analysis *const *as,
                        size_t n);

#endif
