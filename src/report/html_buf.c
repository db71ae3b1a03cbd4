#include "report/html_buf.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void sc_hb_flush(sc_html_buf *o)
{
    if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
        o->failed = true;
    o->n = 0;
}

void sc_hb_write(sc_html_buf *o, const char *s, size_t len)
{
    if (len > sizeof o->buf - o->n) {
        sc_hb_flush(o);
        if (len > sizeof o->buf) {
            if (fwrite(s, 1, len, o->f) != len)
                o->failed = true;
            return;
        }
    }
    memcpy(o->buf + o->n, s, len);
    o->n += len;
}

void sc_hb_puts(sc_html_buf *o, const char *s)
{
    sc_hb_write(o, s, strlen(s));
}

void sc_hb_putc(sc_html_buf *o, char c)
{
    if (o->n == sizeof o->buf)
        sc_hb_flush(o);
    o->buf[o->n++] = c;
}

void sc_hb_u64(sc_html_buf *o, uint64_t v)
{
    char b[24];
    size_t i = sizeof b;
    do
        b[--i] = (char)('0' + v % 10);
    while (v /= 10);
    sc_hb_write(o, b + i, sizeof b - i);
}

void sc_hb_i64(sc_html_buf *o, int64_t v)
{
    if (v < 0) {
        sc_hb_putc(o, '-');
        sc_hb_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        sc_hb_u64(o, (uint64_t)v);
    }
}

void sc_hb_real(sc_html_buf *o, double v)
{
    char b[32];
    snprintf(b, sizeof b, "%.4g", isfinite(v) ? v : 0.0);
    sc_hb_puts(o, b);
}

void sc_hb_printf(sc_html_buf *o, const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n > 0)
        sc_hb_write(o, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

/* Length of the valid UTF-8 sequence at p (1..4), 0 if it is not one. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;              /* no UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* Writes s (NULL as ""): valid UTF-8 sequences as they are, a byte that starts none as '?'
 * (so the page never carries invalid UTF-8), and each ASCII byte through `ascii`, which
 * escapes it for JSON or for HTML. */
static void sc_hb_text(sc_html_buf *o, const char *s, void (*ascii)(sc_html_buf *, unsigned))
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        if (*p < 0x80) {
            ascii(o, *p++);
            continue;
        }
        size_t len = utf8_len(p);
        if (len == 0) {
            sc_hb_putc(o, '?');
            p++;
        } else {
            sc_hb_write(o, (const char *)p, len);
            p += len;
        }
    }
}

/* JSON that is also safe inside <script>: no '<', '>' or '&' appear literally, so neither
 * "</script>" nor "<!--" can end or change the element. */
static void sc_hb_json_char(sc_html_buf *o, unsigned c)
{
    switch (c) {
    case '"': sc_hb_puts(o, "\\\""); break;
    case '\\': sc_hb_puts(o, "\\\\"); break;
    case '\n': sc_hb_puts(o, "\\n"); break;
    case '\t': sc_hb_puts(o, "\\t"); break;
    case '<': case '>': case '&':
        sc_hb_printf(o, "\\u%04x", c);
        break;
    default:
        if (c < 0x20 || c == 0x7f)
            sc_hb_printf(o, "\\u%04x", c);
        else
            sc_hb_putc(o, (char)c);
    }
}

/* Text for HTML content and attribute values; control bytes become spaces. */
static void sc_hb_html_char(sc_html_buf *o, unsigned c)
{
    switch (c) {
    case '&': sc_hb_puts(o, "&amp;"); break;
    case '<': sc_hb_puts(o, "&lt;"); break;
    case '>': sc_hb_puts(o, "&gt;"); break;
    case '"': sc_hb_puts(o, "&quot;"); break;
    case '\'': sc_hb_puts(o, "&#39;"); break;
    default:
        sc_hb_putc(o, (char)(c < 0x20 || c == 0x7f ? ' ' : c));
    }
}

void sc_hb_jstr(sc_html_buf *o, const char *s)
{
    sc_hb_putc(o, '"');
    sc_hb_text(o, s, sc_hb_json_char);
    sc_hb_putc(o, '"');
}

void sc_hb_html(sc_html_buf *o, const char *s)
{
    sc_hb_text(o, s, sc_hb_html_char);
}
