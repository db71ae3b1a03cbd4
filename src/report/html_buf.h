/* The HTML report's output: bytes to a FILE in 64 KiB blocks, numbers as text, and strings
 * escaped for JSON inside a <script> element or for HTML markup, any byte that starts no
 * UTF-8 sequence written as '?' (the page never carries invalid UTF-8). A failed write sets
 * `failed` and stops nothing: the writer looks at it once, at the end. */
#ifndef SC_REPORT_HTML_BUF_H
#define SC_REPORT_HTML_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sc_html_buf {
    FILE *f;
    size_t n;
    bool failed;
    char buf[1 << 16];
} sc_html_buf;

void sc_hb_flush(sc_html_buf *o);
void sc_hb_write(sc_html_buf *o, const char *s, size_t len);
void sc_hb_puts(sc_html_buf *o, const char *s);
void sc_hb_putc(sc_html_buf *o, char c);
void sc_hb_u64(sc_html_buf *o, uint64_t v);
void sc_hb_i64(sc_html_buf *o, int64_t v);
/* A number for JSON, 4 significant digits: NaN and infinities have no JSON form and
 * become 0. */
void sc_hb_real(sc_html_buf *o, double v);
/* At most 1023 bytes of formatted text. */
void sc_hb_printf(sc_html_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string (NULL as ""): safe inside <script>, since '<', '>' and '&' are escaped. */
void sc_hb_jstr(sc_html_buf *o, const char *s);
/* Text for HTML content and attribute values (NULL as ""). */
void sc_hb_html(sc_html_buf *o, const char *s);

#endif
