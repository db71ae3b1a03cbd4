#include "preload/out_path.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where an expansion is going: buf may be NULL (a syntax check only). */
typedef struct sc_out_sink {
    char *buf;
    size_t size, len;
    bool overflow;
} sc_out_sink;

static void sc_out_put(sc_out_sink *s, const char *text, size_t n)
{
    if (!s->buf) return;
    if (s->len + n >= s->size) {
        s->overflow = true;
        return;
    }
    memcpy(s->buf + s->len, text, n);
    s->len += n;
    s->buf[s->len] = '\0';
}

/* A value from outside the pattern (a host name, a variable) stays within one path
 * component: RANK="../../etc" must not move the traces. */
static void sc_out_put_value(sc_out_sink *s, const char *value)
{
    for (size_t i = 0; value[i]; i++) {
        char c = value[i];
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || (c == '.' && i > 0);
        sc_out_put(s, plain ? &c : "_", 1);
    }
}

/* One walk for the check and the expansion, so that they cannot disagree. */
static int sc_out_walk(const char *pattern, pid_t pid, sc_out_sink *s, char *msg, size_t msg_size)
{
    if (msg_size) msg[0] = '\0';
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') {
            sc_out_put(s, p, 1);
            continue;
        }
        p++;
        if (*p == '%') {
            sc_out_put(s, "%", 1);
        } else if (*p == 'p') {
            char num[24];
            int n = snprintf(num, sizeof num, "%d", (int)pid);
            sc_out_put(s, num, (size_t)n);
        } else if (*p == 'h') {
            char host[256] = "";
            if (s->buf && gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "host");
            host[sizeof host - 1] = '\0';
            sc_out_put_value(s, host);
        } else if (*p == 'q' && p[1] == '{') {
            const char *name = p + 2, *close = strchr(name, '}');
            char var[256];
            if (!close || close == name || (size_t)(close - name) >= sizeof var) {
                snprintf(msg, msg_size, "%%q wants {VARIABLE}");
                return -1;
            }
            memcpy(var, name, (size_t)(close - name));
            var[close - name] = '\0';
            const char *value = s->buf ? getenv(var) : "";
            if (s->buf && (!value || !*value) && msg_size && !msg[0])
                snprintf(msg, msg_size, "%s is unset or empty: %%q{%s} expanded to nothing", var,
                         var);
            sc_out_put_value(s, value ? value : "");
            p = close;
        } else {
            snprintf(msg, msg_size,
                     "unknown %%-sequence '%%%.1s' (known: %%p, %%h, %%q{VAR}, %%%%)", p);
            return -1;
        }
    }
    return 0;
}

int sc_out_path_check(const char *pattern, char *msg, size_t msg_size)
{
    sc_out_sink none = {0};
    return sc_out_walk(pattern, 0, &none, msg, msg_size);
}

int sc_out_path_expand(const char *pattern, pid_t pid, char *buf, size_t size, char *msg,
                       size_t msg_size)
{
    if (size == 0) return -1;
    buf[0] = '\0';
    sc_out_sink s = {.buf = buf, .size = size};
    if (sc_out_walk(pattern, pid, &s, msg, msg_size) != 0) return -1;
    if (s.overflow) {
        snprintf(msg, msg_size, "the expanded folder name is longer than %zu characters", size - 1);
        return -1;
    }
    if (s.len == 0) {
        snprintf(msg, msg_size, "it expanded to an empty folder name");
        return -1;
    }
    return 0;
}

void sc_out_rank_tag(char *buf, size_t size)
{
    static const char *const vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    if (size == 0) return;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *value = getenv(vars[i]);
        if (!value || !*value) continue;
        sc_out_sink s = {.buf = buf, .size = size};
        sc_out_put(&s, "-rank", 5);
        sc_out_put_value(&s, value);
        if (s.overflow) buf[0] = '\0';
        return;
    }
}

void sc_out_path_make_parents(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n >= sizeof path) return;
    memcpy(path, dir, n + 1);
    int saved = errno;
    for (size_t i = 1; i < n; i++) {
        if (path[i] != '/' || path[i - 1] == '/') continue;
        path[i] = '\0';
        mkdir(path, 0777); /* EEXIST is the common case; any other error is the writer's */
        path[i] = '/';
    }
    errno = saved;
}
