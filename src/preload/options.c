#include "preload/options.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/out_path.h"

sc_options sc_opts;

typedef enum sc_option_kind {
    SC_OPT_FLAG,     /* bool: 1/0, yes/no, on/off, true/false */
    SC_OPT_DEPTH,    /* int: 0 .. SC_MAX_STACK_DEPTH */
    SC_OPT_TEXT,     /* char[size] */
    SC_OPT_OUT,      /* char[size], a well-formed output pattern (out_path.h) */
    SC_OPT_UNWINDER, /* char[size]: libgcc or libunwind */
    SC_OPT_CAPTURE,  /* char[size]: all or profiler */
    SC_OPT_COUNT,    /* int: 0 .. 999999999 */
} sc_option_kind;

/* Every setting once: its key in STREAMCHECK_OPTIONS, its own variable, where it goes. */
typedef struct sc_option_def {
    const char *key;
    const char *variable;
    sc_option_kind kind;
    size_t offset, size;
} sc_option_def;

#define SC_FIELD(f) offsetof(sc_options, f), sizeof(((sc_options *)0)->f)

static const sc_option_def sc_option_defs[] = {
    {"out", "STREAMCHECK_OUT", SC_OPT_OUT, SC_FIELD(out_dir)},
    {"summary", "STREAMCHECK_SUMMARY", SC_OPT_FLAG, SC_FIELD(summary)},
    {"disable", "STREAMCHECK_DISABLE", SC_OPT_FLAG, SC_FIELD(disabled)},
    {"stack_depth", "STREAMCHECK_STACK_DEPTH", SC_OPT_DEPTH, SC_FIELD(stack_depth)},
    {"cupti", "STREAMCHECK_CUPTI", SC_OPT_TEXT, SC_FIELD(cupti_path)},
    {"unwinder", "STREAMCHECK_UNWINDER", SC_OPT_UNWINDER, SC_FIELD(unwinder)},
    {"unified_memory", "STREAMCHECK_UNIFIED_MEMORY", SC_OPT_FLAG, SC_FIELD(unified_memory)},
    {"python", "STREAMCHECK_PYTHON", SC_OPT_FLAG, SC_FIELD(python)},
    {"compact", "STREAMCHECK_COMPACT", SC_OPT_FLAG, SC_FIELD(compact)},
    {"tsc", "STREAMCHECK_TSC", SC_OPT_FLAG, SC_FIELD(tsc)},
    {"capture", "STREAMCHECK_CAPTURE", SC_OPT_CAPTURE, SC_FIELD(capture)},
    {"capture_range", "STREAMCHECK_CAPTURE_RANGE", SC_OPT_TEXT, SC_FIELD(capture_range)},
    {"capture_skip", "STREAMCHECK_CAPTURE_SKIP", SC_OPT_COUNT, SC_FIELD(capture_skip)},
};
#define SC_N_OPTIONS (sizeof sc_option_defs / sizeof *sc_option_defs)

/* VALUE (LEN bytes) is WORD, in any case ("ON", "True"). No strncasecmp: the C locale's
 * rules are all that is wanted, whatever locale the program set. */
static bool sc_is(const char *value, size_t len, const char *word)
{
    if (strlen(word) != len) return false;
    for (size_t i = 0; i < len; i++) {
        char c = value[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != word[i]) return false;
    }
    return true;
}

static bool sc_parse_flag(const char *v, size_t len, bool *out)
{
    static const char *const yes[] = {"1", "yes", "on", "true"};
    static const char *const no[] = {"0", "no", "off", "false"};
    for (size_t i = 0; i < 4; i++) {
        if (sc_is(v, len, yes[i]) || sc_is(v, len, no[i])) {
            *out = sc_is(v, len, yes[i]);
            return true;
        }
    }
    return false;
}

/* Sets one setting from VALUE (LEN bytes, not necessarily terminated). Returns true when it
 * was set; why then holds a remark for the user (or is empty), or the reason it was not. */
static bool sc_option_set(sc_options *o, const sc_option_def *d, const char *value, size_t len,
                          char *why, size_t why_size)
{
    char *field = (char *)o + d->offset;
    why[0] = '\0';
    switch (d->kind) {
    case SC_OPT_FLAG:
        if (sc_parse_flag(value, len, (bool *)field)) return true;
        snprintf(why, why_size, "wants 1 or 0 (yes/no, on/off, true/false)");
        return false;
    case SC_OPT_COUNT:
    case SC_OPT_DEPTH: {
        long depth = 0;
        size_t i = 0;
        for (; i < len && i < 9 && value[i] >= '0' && value[i] <= '9'; i++)
            depth = depth * 10 + (value[i] - '0');
        if (len == 0 || i != len) {
            if (d->kind == SC_OPT_COUNT)
                snprintf(why, why_size, "wants a number from 0 to 999999999");
            else
                snprintf(why, why_size, "wants a number from 0 to %d", SC_MAX_STACK_DEPTH);
            return false;
        }
        if (d->kind == SC_OPT_COUNT) {
            *(int *)field = (int)depth;
            return true;
        }
        if (depth > SC_MAX_STACK_DEPTH) {
            snprintf(why, why_size, "at most %d; %d used", SC_MAX_STACK_DEPTH, SC_MAX_STACK_DEPTH);
            depth = SC_MAX_STACK_DEPTH;
        }
        *(int *)field = (int)depth;
        return true;
    }
    case SC_OPT_UNWINDER:
        if (!sc_is(value, len, "libgcc") && !sc_is(value, len, "libunwind")) {
            snprintf(why, why_size, "wants libgcc or libunwind");
            return false;
        }
        break;
    case SC_OPT_CAPTURE:
        if (!sc_is(value, len, "all") && !sc_is(value, len, "profiler")) {
            snprintf(why, why_size, "wants all or profiler");
            return false;
        }
        break;
    case SC_OPT_TEXT:
    case SC_OPT_OUT:
        break;
    }
    if (len >= d->size) {
        snprintf(why, why_size, "longer than %zu characters", d->size - 1);
        return false;
    }
    char text[2048];
    memcpy(text, value, len);
    text[len] = '\0';
    if (d->kind == SC_OPT_OUT && sc_out_path_check(text, why, why_size) != 0) return false;
    if (d->kind == SC_OPT_CAPTURE)  /* the C locale's lower case, as sc_is compared */
        for (size_t i = 0; i < len; i++)
            if (text[i] >= 'A' && text[i] <= 'Z') text[i] = (char)(text[i] - 'A' + 'a');
    memcpy(field, text, len + 1);
    return true;
}

static const sc_option_def *sc_option_find(const char *key, size_t len)
{
    for (size_t i = 0; i < SC_N_OPTIONS; i++)
        if (strlen(sc_option_defs[i].key) == len && strncmp(sc_option_defs[i].key, key, len) == 0)
            return &sc_option_defs[i];
    return NULL;
}

static void sc_warnf(void (*warn)(const char *), const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sc_warnf(void (*warn)(const char *), const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    warn(line);
}

/* At most 200 characters of what the user wrote go into a warning line. */
static int sc_shown(size_t len)
{
    return len > 200 ? 200 : (int)len;
}

static bool sc_is_separator(char c)
{
    return c == ':' || c == ',';
}

/* STREAMCHECK_OPTIONS: key=value pairs separated by ':' or ','; a value in '...' or "..."
 * may hold either. Read in place: no copy of the string, no allocation. */
static void sc_options_parse(sc_options *o, const char *text, void (*warn)(const char *))
{
    const char *p = text;
    while (*p) {
        if (sc_is_separator(*p)) {
            p++;
            continue;
        }
        const char *key = p;
        while (*p && *p != '=' && !sc_is_separator(*p))
            p++;
        size_t key_len = (size_t)(p - key);
        if (*p != '=') {
            sc_warnf(warn, "STREAMCHECK_OPTIONS: '%.*s' is not key=value (ignored)",
                     sc_shown(key_len), key);
            continue;
        }
        const char *value = ++p;
        size_t value_len;
        if (*p == '\'' || *p == '"') {
            const char *close = strchr(p + 1, *p);
            if (!close) {
                sc_warnf(warn, "STREAMCHECK_OPTIONS: %.*s: the quote is not closed (ignored)",
                         sc_shown(key_len), key);
                return;
            }
            value = p + 1;
            value_len = (size_t)(close - value);
            p = close + 1;
            if (*p && !sc_is_separator(*p)) {
                sc_warnf(warn,
                         "STREAMCHECK_OPTIONS: %.*s: text after the closing quote "
                         "(ignored)",
                         sc_shown(key_len), key);
                while (*p && !sc_is_separator(*p))
                    p++;
                continue;
            }
        } else {
            while (*p && !sc_is_separator(*p))
                p++;
            value_len = (size_t)(p - value);
        }
        const sc_option_def *d = sc_option_find(key, key_len);
        if (!d) {
            sc_warnf(warn,
                     "STREAMCHECK_OPTIONS: unknown key '%.*s' (ignored; keys: out, "
                     "summary, disable, stack_depth, cupti, unwinder, unified_memory, python, "
                     "compact, tsc, capture, capture_range, capture_skip)",
                     sc_shown(key_len), key);
            continue;
        }
        char why[512];
        bool set = sc_option_set(o, d, value, value_len, why, sizeof why);
        if (why[0])
            sc_warnf(warn, "STREAMCHECK_OPTIONS: %s=%.*s: %s%s", d->key, sc_shown(value_len), value,
                     why, set ? "" : " (ignored)");
    }
}

void sc_options_load(sc_options *o, void (*warn)(const char *line))
{
    *o = (sc_options){.summary = true, .stack_depth = 24, .python = true, .compact = true, .tsc = true,
                      .out_dir = "streamcheck-out", .capture = "all"};
    const char *all = getenv("STREAMCHECK_OPTIONS");
    if (all) sc_options_parse(o, all, warn);
    /* Then each setting's own variable, set and not empty, over it. */
    for (size_t i = 0; i < SC_N_OPTIONS; i++) {
        const sc_option_def *d = &sc_option_defs[i];
        const char *value = getenv(d->variable);
        if (!value || !*value) continue;
        char why[512];
        size_t len = strlen(value);
        bool set = sc_option_set(o, d, value, len, why, sizeof why);
        if (why[0])
            sc_warnf(warn, "%s=%.*s: %s%s", d->variable, sc_shown(len), value, why,
                     set ? "" : " (ignored)");
    }
    /* One scope at a time: the profiler's calls bound it, or the range does. */
    if (strcmp(o->capture, "profiler") == 0 && o->capture_range[0]) {
        sc_warnf(warn, "capture=profiler and capture_range=%s: one scope at a time; "
                 "capture_range ignored", o->capture_range);
        o->capture_range[0] = '\0';
    }
    if (o->capture_skip && !o->capture_range[0]) {
        sc_warnf(warn, "capture_skip=%d: skips occurrences of capture_range's range, and "
                 "none is set (ignored)", o->capture_skip);
        o->capture_skip = 0;
    }
}

static void sc_options_warn(const char *line)
{
    fprintf(stderr, "streamcheck: %s\n", line);
}

static pthread_once_t sc_options_once = PTHREAD_ONCE_INIT;
static void sc_options_read_once(void)
{
    sc_options_load(&sc_opts, sc_options_warn);
}

void sc_options_read(void)
{
    pthread_once(&sc_options_once, sc_options_read_once);
}
