/* The JSON writer (json_out.h): jansson's JSON_INDENT(2) layout, kept by a stack of open
 * containers. jansson writes "{" or "[", then before each member or element a "," (not before
 * the first), a newline and two spaces per open container; at the end a newline and the
 * indent of the container's own level before "}" or "]"; an empty container as "{}" or "[]";
 * a key as a string followed by ": ". */
#include "report/json_out.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/decimal.h"
#include "report/json_real.h"
#include "report/json_str.h"
#include "trace/grow.h"

#define SC_JSON_OUT_DEPTH 64    /* the report nests a dozen levels */
#define SC_JSON_OUT_INDENT 2

typedef struct sc_json_deferred {
    const json_t *at;
    sc_json_fill_fn fill;
    const void *arg;
} sc_json_deferred;

struct sc_json_out {
    FILE *out;
    bool failed;
    size_t depth;               /* open containers */
    bool is_array[SC_JSON_OUT_DEPTH];
    size_t count[SC_JSON_OUT_DEPTH];    /* members or elements written so far */
    sc_json_deferred *deferred;
    size_t n_deferred, cap_deferred;
    size_t used;
    char buf[1 << 16];
};

sc_json_out *sc_json_out_new(FILE *out)
{
    sc_json_out *w = malloc(sizeof *w);
    if (!w)
        return NULL;
    memset(w, 0, offsetof(sc_json_out, buf));
    w->out = out;
    return w;
}

static void sc_json_out_flush(sc_json_out *w)
{
    size_t n = w->used;
    w->used = 0;
    if (n && fwrite(w->buf, 1, n, w->out) != n)
        w->failed = true;
}

int sc_json_out_finish(sc_json_out *w)
{
    if (!w)
        return -1;
    sc_json_out_flush(w);
    int rc = w->failed || w->depth ? -1 : 0;
    free(w->deferred);
    free(w);
    return rc;
}

static void sc_put(sc_json_out *w, const char *text, size_t n)
{
    if (n > sizeof w->buf - w->used) {
        sc_json_out_flush(w);
        if (n > sizeof w->buf) {
            if (fwrite(text, 1, n, w->out) != n)
                w->failed = true;
            return;
        }
    }
    memcpy(w->buf + w->used, text, n);
    w->used += n;
}

/* Room for n more bytes at the buffer's end, n at most the buffer's size: what is buffered
 * goes out first when short. The caller writes there and adds what it wrote to used. */
static inline char *sc_room(sc_json_out *w, size_t n)
{
    if (n > sizeof w->buf - w->used)
        sc_json_out_flush(w);
    return w->buf + w->used;
}

static int sc_put_cb(const char *text, size_t n, void *data)
{
    sc_put(data, text, n);
    return 0;
}

/* A newline and the indent of 32 levels: a line's start, in one copy. */
static const char sc_spaces[] = "\n                                "
                                "                                ";
#define SC_INDENT_MAX (sizeof sc_spaces - 2)
#define SC_LINE_COPY 32                 /* a line's start copied whole: an indent up to 31 */

static void sc_newline_indent(sc_json_out *w, size_t level)
{
    size_t n = level * SC_JSON_OUT_INDENT;
    if (n <= SC_INDENT_MAX) {
        sc_put(w, sc_spaces, 1 + n);
        return;
    }
    sc_put(w, "\n", 1);
    for (size_t k; n; n -= k) {     /* deeper than the report nests: in pieces */
        k = n < SC_INDENT_MAX ? n : SC_INDENT_MAX;
        sc_put(w, sc_spaces + 1, k);
    }
}

/* Before a member's key or an element: the separator and the indent. */
static void sc_next_entry(sc_json_out *w)
{
    size_t top = w->depth - 1;
    if (w->count[top]++)
        sc_put(w, ",", 1);
    sc_newline_indent(w, w->depth);
}

/* Before any value: an element of an array takes its place; a member's value follows its
 * key, which took it. */
static void sc_before_value(sc_json_out *w)
{
    if (w->depth && w->is_array[w->depth - 1])
        sc_next_entry(w);
}

static void sc_begin(sc_json_out *w, bool array)
{
    sc_before_value(w);
    sc_put(w, array ? "[" : "{", 1);
    if (w->depth == SC_JSON_OUT_DEPTH) {
        w->failed = true;
        return;
    }
    w->is_array[w->depth] = array;
    w->count[w->depth] = 0;
    w->depth++;
}

static void sc_end(sc_json_out *w, bool array)
{
    if (!w->depth || w->is_array[w->depth - 1] != array) {
        w->failed = true;
        return;
    }
    w->depth--;
    if (w->count[w->depth])
        sc_newline_indent(w, w->depth);
    sc_put(w, array ? "]" : "}", 1);
}

void sc_json_out_begin_object(sc_json_out *w) { sc_begin(w, false); }
void sc_json_out_end_object(sc_json_out *w) { sc_end(w, false); }
void sc_json_out_begin_array(sc_json_out *w) { sc_begin(w, true); }
void sc_json_out_end_array(sc_json_out *w) { sc_end(w, true); }

/* Written as is: printable ASCII without a quote or a backslash, which jansson copies
 * unchanged. Anything else goes through jansson (escapes, UTF-8 checks). */
static bool sc_plain_ascii(const char *s, size_t *len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (unsigned c; (c = *p) != 0; p++)
        if (c - 0x20u > 0x7eu - 0x20u || c == '"' || c == '\\')
            return false;
    *len = (size_t)(p - (const unsigned char *)s);
    return true;
}

/* A jansson value written by jansson itself (scalars: no layout of ours involved). */
static void sc_dump_scalar(sc_json_out *w, const json_t *v)
{
    if (!v || json_dump_callback(v, sc_put_cb, w, JSON_ENCODE_ANY) != 0)
        w->failed = true;
}

static void sc_put_quoted(sc_json_out *w, const char *s, size_t n)
{
    sc_put(w, "\"", 1);
    sc_put(w, s, n);
    sc_put(w, "\"", 1);
}

static void sc_string_text(sc_json_out *w, const char *s)
{
    size_t n;
    if (sc_plain_ascii(s, &n)) {
        sc_put_quoted(w, s, n);
        return;
    }
    json_t *j = sc_json_lossy_string(s);
    sc_dump_scalar(w, j);
    json_decref(j);
}

/* The separator, the line's start, the quoted key and ": " in one piece of the buffer, for a
 * plain key of n bytes that fits it with the indent: a range's object has thirty members. */
static bool sc_key_in_one(sc_json_out *w, const char *key, size_t n)
{
    size_t indent = w->depth * SC_JSON_OUT_INDENT;
    if (indent > SC_LINE_COPY - 1 || n + SC_LINE_COPY + 5 > sizeof w->buf)
        return false;
    char *p = sc_room(w, n + SC_LINE_COPY + 5), *q = p;
    if (w->count[w->depth - 1]++)
        *q++ = ',';
    memcpy(q, sc_spaces, SC_LINE_COPY);     /* a fixed length: two moves, not a call */
    q += 1 + indent;
    *q++ = '"';
    memcpy(q, key, n);
    q += n;
    memcpy(q, "\": ", 3);
    w->used += (size_t)(q + 3 - p);
    return true;
}

static bool sc_key_allowed(sc_json_out *w)
{
    if (!w->depth || w->is_array[w->depth - 1]) {
        w->failed = true;
        return false;
    }
    return true;
}

void sc_json_out_key(sc_json_out *w, const char *key)
{
    size_t n;
    if (!sc_key_allowed(w) || (sc_plain_ascii(key, &n) && sc_key_in_one(w, key, n)))
        return;
    sc_next_entry(w);
    sc_string_text(w, key);
    sc_put(w, ": ", 2);
}

void sc_json_out_key_plain(sc_json_out *w, const char *key, size_t n)
{
#ifndef NDEBUG
    size_t len;
    assert(sc_plain_ascii(key, &len) && len == n);
#endif
    if (!sc_key_allowed(w) || sc_key_in_one(w, key, n))
        return;
    sc_next_entry(w);
    sc_put_quoted(w, key, n);
    sc_put(w, ": ", 2);
}

void sc_json_out_int(sc_json_out *w, json_int_t v)
{
    sc_before_value(w);
    /* the magnitude as unsigned: -INT64_MIN does not fit json_int_t */
    unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    size_t n = (v < 0) + sc_decimal_digits(m);
    char *start = sc_room(w, n), *p = start + n;     /* written from its last digit back */
    /* two digits a division: a range's nanosecond times have ten to twenty */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    for (; m >= 100; m /= 100) {
        p -= 2;
        memcpy(p, pairs + 2 * (m % 100), 2);
    }
    if (m >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * m, 2);
    } else {
        *--p = (char)('0' + m);
    }
    if (v < 0)
        *--p = '-';
    w->used += n;
}

void sc_json_out_real(sc_json_out *w, double v)
{
    sc_before_value(w);
    char text[SC_JSON_REAL_MAX];
    int n = sc_json_real_text(v, text);
    if (n < 0) {
        sc_put(w, "null", 4);
        return;
    }
    sc_put(w, text, (size_t)n);
}

void sc_json_out_string(sc_json_out *w, const char *s)
{
    sc_before_value(w);
    if (!s) {
        sc_put(w, "null", 4);
        return;
    }
    sc_string_text(w, s);
}

void sc_json_out_bool(sc_json_out *w, bool v)
{
    sc_before_value(w);
    sc_put(w, v ? "true" : "false", v ? 4 : 5);
}

void sc_json_out_null(sc_json_out *w)
{
    sc_before_value(w);
    sc_put(w, "null", 4);
}

void sc_json_out_defer(sc_json_out *w, const json_t *at, sc_json_fill_fn fill, const void *arg)
{
    if (!SC_GROW(w->deferred, w->cap_deferred, w->n_deferred + 1, 8)) {
        w->failed = true;
        return;
    }
    w->deferred[w->n_deferred++] = (sc_json_deferred){at, fill, arg};
}

static const sc_json_deferred *sc_deferred_at(const sc_json_out *w, const json_t *v)
{
    for (size_t i = 0; i < w->n_deferred; i++)
        if (w->deferred[i].at == v)
            return &w->deferred[i];
    return NULL;
}

void sc_json_out_value(sc_json_out *w, const json_t *v)
{
    if (!v) {
        w->failed = true;
        return;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *member;
        sc_json_out_begin_object(w);
        /* insertion order, the order jansson writes them in without JSON_SORT_KEYS */
        json_object_foreach((json_t *)v, key, member) {
            sc_json_out_key(w, key);
            sc_json_out_value(w, member);
        }
        sc_json_out_end_object(w);
        break;
    }
    case JSON_ARRAY: {
        /* only an empty array can stand for one filled while written */
        const sc_json_deferred *d = json_array_size(v) ? NULL : sc_deferred_at(w, v);
        sc_json_out_begin_array(w);
        if (d)
            d->fill(w, d->arg);
        for (size_t i = 0; i < json_array_size(v); i++)
            sc_json_out_value(w, json_array_get(v, i));
        sc_json_out_end_array(w);
        break;
    }
    case JSON_STRING: {
        size_t n;
        sc_before_value(w);
        /* a jansson string may hold a NUL byte: the whole length must be plain */
        if (sc_plain_ascii(json_string_value(v), &n) && n == json_string_length(v))
            sc_put_quoted(w, json_string_value(v), n);
        else
            sc_dump_scalar(w, v);
        break;
    }
    case JSON_INTEGER:
        sc_json_out_int(w, json_integer_value(v));
        break;
    case JSON_REAL:             /* finite: jansson holds no other */
        sc_json_out_real(w, json_real_value(v));
        break;
    case JSON_TRUE: sc_json_out_bool(w, true); break;
    case JSON_FALSE: sc_json_out_bool(w, false); break;
    case JSON_NULL: sc_json_out_null(w); break;
    }
}
