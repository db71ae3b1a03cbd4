/* The demangler is libstdc++'s __cxa_demangle, referenced weakly so that the text formatter
 * (sc_report_text) needs no C++ runtime of its own: the programs that link it (the report
 * tool, the test drivers) keep a strong reference that brings libstdc++ in; without one,
 * names stay mangled. */
#include "report/demangle.h"

#include <stdlib.h>
#include <string.h>

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status)
    __attribute__((weak));

char *sc_demangle(const char *name)
{
    if (!name || strncmp(name, "_Z", 2) != 0 || !__cxa_demangle)
        return NULL;
    int status = 0;
    char *out = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* End of the name proper: the '(' that opens the trailing parameter list, found by walking
 * back over balanced parentheses so "(anonymous namespace)::k(int)" keeps its namespace. */
static size_t name_end(const char *s, size_t len)
{
    size_t end = len;
    while (end > 0 && s[end - 1] != ')') /* " const", " &&" qualifiers after the list */
        end--;
    if (end == 0)
        return len;
    int depth = 0;
    for (size_t i = end; i-- > 0;) {
        if (s[i] == ')')
            depth++;
        else if (s[i] == '(' && --depth == 0)
            return i > 0 ? i : len;
    }
    return len;
}

/* Start of the name proper: after the last space outside <> and (), which separates a
 * template function's return type ("void k<int>"). */
static size_t name_start(const char *s, size_t end)
{
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < end; i++) {
        if (s[i] == '<' || s[i] == '(')
            depth++;
        else if ((s[i] == '>' || s[i] == ')') && depth > 0)
            depth--;
        else if (s[i] == ' ' && depth == 0)
            start = i + 1;
    }
    return start;
}

/* The short form's place inside a demangled name: [*start, *end). */
static void short_span(const char *dem, size_t *start, size_t *end)
{
    size_t len = strlen(dem);
    *end = name_end(dem, len);
    *start = name_start(dem, *end);
}

char *sc_demangle_kernel(const char *name)
{
    char *dem = sc_demangle(name);
    if (!dem)
        return NULL;
    size_t start, end;
    short_span(dem, &start, &end);
    memmove(dem, dem + start, end - start);     /* the short form, whole: never cut */
    dem[end - start] = '\0';
    return dem;
}

const char *sc_demangle_short(const char *name, char *buf, size_t n)
{
    if (n == 0)
        return "";
    if (!name)
        name = "?";
    char *dem = sc_demangle(name);
    const char *s = dem ? dem : name;
    size_t start = 0, end = strlen(s);
    if (dem)
        short_span(s, &start, &end);
    size_t m = end - start;
    if (m >= n) {
        /* Keep the head, which carries the name; mark the cut. */
        m = n - 1;
        memcpy(buf, s + start, m);
        if (m >= 3)
            memcpy(buf + m - 3, "...", 3);
    } else {
        memcpy(buf, s + start, m);
    }
    buf[m] = '\0';
    free(dem);
    return buf;
}
