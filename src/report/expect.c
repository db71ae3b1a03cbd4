/* Expectations: see expect.h for the grammar and the metrics.
 *
 * Each expectation is parsed once into a small tree (recursive descent over a hand-written
 * lexer) when the options are read, so a typo stops the run before any trace is loaded;
 * checking walks the tree over the analyses. Numbers that carry a time are milliseconds. */
#include "report/expect.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/units.h"
#include "trace/grow.h"

/* The finding catalogue of DESIGN.md: rule ids are stable. Checked at parse time because a
 * misspelt "no legacy-streams" would otherwise pass forever. */
enum metric {
    M_CONCURRENCY, M_SPEEDUP, M_COPY_OVERLAP, M_BUSY, M_KERNEL_TIME, M_OVERLAP, M_IDLE,
    M_WALL, M_TIME, M_KERNELS, M_COPIES, M_INSTANCES,
};

static const struct {
    const char *name;
    enum metric metric;
    bool time;                  /* a time, in ms */
} metrics[] = {
    {"concurrency", M_CONCURRENCY, false}, {"speedup", M_SPEEDUP, false},
    {"copy-overlap", M_COPY_OVERLAP, false}, {"busy", M_BUSY, true},
    {"kernel-time", M_KERNEL_TIME, true},  {"overlap", M_OVERLAP, true},
    {"idle", M_IDLE, true},                {"wall", M_WALL, true},
    {"time", M_TIME, true},                {"kernels", M_KERNELS, false},
    {"copies", M_COPIES, false},           {"instances", M_INSTANCES, false},
};
#define N_METRICS (sizeof metrics / sizeof metrics[0])

enum scope { S_ALL, S_RANGE, S_DEVICE };
enum cmp { C_GE, C_LE, C_GT, C_LT, C_EQ };
static const char *const cmp_text[] = {">=", "<=", ">", "<", "=="};

typedef enum node_kind { N_NUM, N_METRIC, N_ADD, N_SUB, N_MUL, N_DIV, N_NEG } node_kind;

typedef struct node {
    node_kind kind;
    double num;                 /* N_NUM */
    bool num_time;              /* N_NUM with a time unit */
    size_t metric;              /* N_METRIC: index into metrics[] */
    enum scope scope;
    char *range;                /* S_RANGE */
    uint32_t device;            /* S_DEVICE */
    struct node *l, *r;
} node;

typedef struct expectation {
    char *text;                 /* as given, trimmed */
    bool is_no;                 /* "no RULE [in range=NAME]" */
    char *rule;
    int min_severity;           /* "no error|warning|note": an sc_severity; -1 with a rule */
    char *in_range;
    node *lhs, *rhs;
    enum cmp cmp;
} expectation;

struct sc_expect_set {
    expectation *v;
    size_t n, cap;
};

static void node_free(node *n)
{
    if (!n)
        return;
    node_free(n->l);
    node_free(n->r);
    free(n->range);
    free(n);
}

static void expectation_free(expectation *e)
{
    free(e->text);
    free(e->rule);
    free(e->in_range);
    node_free(e->lhs);
    node_free(e->rhs);
}

sc_expect_set *sc_expect_new(void)
{
    return calloc(1, sizeof(sc_expect_set));
}

void sc_expect_free(sc_expect_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        expectation_free(&set->v[i]);
    free(set->v);
    free(set);
}

size_t sc_expect_count(const sc_expect_set *set)
{
    return set ? set->n : 0;
}

/* ---- lexer -------------------------------------------------------------------------- */

typedef enum tkind {
    T_END, T_NUM, T_IDENT, T_RANGE, T_DEVICE, T_CMP, T_PLUS, T_MINUS, T_STAR, T_SLASH,
    T_LPAREN, T_RPAREN,
} tkind;

typedef struct token {
    tkind kind;
    const char *at;             /* where it starts in the text, for messages */
    double num;
    bool num_time;
    enum cmp cmp;
    char *name;                 /* T_IDENT: the word; T_RANGE: the range name (owned) */
    uint32_t device;
} token;

/* An expectation is a line a person writes: these bounds are far above any, and keep the
 * recursive parser, evaluator and free within a small stack whatever the input. */
#define SC_EXPECT_MAX_NODES 256
#define SC_EXPECT_MAX_DEPTH 32     /* parentheses and unary minus, nested */

typedef struct parser {
    const char *p;
    token tok;
    char *err;
    size_t err_size;
    bool failed;
    size_t nodes;               /* made so far for this expectation */
    size_t depth;               /* nesting of the factor being parsed */
} parser;

static void fail(parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err, ps->err_size, fmt, ap);
    va_end(ap);
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The unit after a number: its factor to the number's value, and whether it is a time. */
static size_t number_unit(const char *s, double *factor, bool *time)
{
    static const struct {
        const char *text;
        double factor;
        bool time;
    } units[] = {
        {"ns", 1e-6, true}, {"us", 1e-3, true}, {"ms", 1.0, true}, {"s", 1e3, true},
        {"%", 0.01, false}, {"x", 1.0, false},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t len = strlen(units[i].text);
        if (strncmp(s, units[i].text, len) == 0 && !ident_char(s[len])) {
            *factor = units[i].factor;
            *time = units[i].time;
            return len;
        }
    }
    *factor = 1.0;
    *time = false;
    return 0;
}

static void lex(parser *ps)
{
    free(ps->tok.name);
    memset(&ps->tok, 0, sizeof ps->tok);
    token *t = &ps->tok;
    while (isspace((unsigned char)*ps->p))
        ps->p++;
    const char *s = ps->p;
    t->at = s;
    if (ps->failed || !*s) {
        t->kind = T_END;
        return;
    }
    if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        size_t len = 0;     /* digits, one '.', an exponent: no hex, inf or nan */
        while (isdigit((unsigned char)s[len]) || s[len] == '.')
            len++;
        if ((s[len] == 'e' || s[len] == 'E') &&
            (isdigit((unsigned char)s[len + 1]) ||
             ((s[len + 1] == '-' || s[len + 1] == '+') && isdigit((unsigned char)s[len + 2])))) {
            len += 2;
            while (isdigit((unsigned char)s[len]))
                len++;
        }
        char buf[64];
        char *end = NULL;
        if (len >= sizeof buf) {
            fail(ps, "number too long at '%s'", s);
            return;
        }
        memcpy(buf, s, len);
        buf[len] = '\0';
        errno = 0;
        double v = strtod(buf, &end);
        if (errno || *end || !isfinite(v)) {
            fail(ps, "bad number '%.*s'", (int)len, s);
            return;
        }
        double factor;
        size_t ulen = number_unit(s + len, &factor, &t->num_time);
        if (ident_char(s[len + ulen])) {
            size_t bad = len + ulen;
            while (ident_char(s[bad]))
                bad++;
            fail(ps, "bad number '%.*s' (units: ns, us, ms, s, %%, x)", (int)bad, s);
            return;
        }
        t->kind = T_NUM;
        t->num = v * factor;
        ps->p = s + len + ulen;
        return;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        size_t len = 0;
        while (ident_char(s[len]))
            len++;
        if (s[len] == '=' && s[len + 1] != '=' && len == 5 && strncmp(s, "range", 5) == 0) {
            const char *n = s + len + 1;
            size_t nlen = 0;
            if (*n == '"' || *n == '\'') {
                const char *close = strchr(n + 1, *n);
                if (!close) {
                    fail(ps, "unterminated quote in '%s'", s);
                    return;
                }
                nlen = (size_t)(close - n - 1);
                t->name = dup_n(n + 1, nlen);
                ps->p = close + 1;
            } else {
                while (n[nlen] && !isspace((unsigned char)n[nlen]))
                    nlen++;
                t->name = dup_n(n, nlen);
                ps->p = n + nlen;
            }
            if (!t->name) {
                fail(ps, "out of memory");
                return;
            }
            if (nlen == 0) {
                fail(ps, "range= wants a name");
                return;
            }
            t->kind = T_RANGE;
            return;
        }
        if (s[len] == '=' && s[len + 1] != '=' && len == 6 && strncmp(s, "device", 6) == 0) {
            const char *d = s + len + 1;
            char *end;
            errno = 0;
            unsigned long v = isdigit((unsigned char)*d) ? strtoul(d, &end, 10) : 0;
            if (!isdigit((unsigned char)*d) || errno || v > UINT32_MAX || ident_char(*end)) {
                fail(ps, "device= wants a device ordinal, at '%s'", s);
                return;
            }
            t->kind = T_DEVICE;
            t->device = (uint32_t)v;
            ps->p = end;
            return;
        }
        t->name = dup_n(s, len);
        if (!t->name) {
            fail(ps, "out of memory");
            return;
        }
        t->kind = T_IDENT;
        ps->p = s + len;
        return;
    }
    static const struct {
        const char *text;
        tkind kind;
        enum cmp cmp;
    } ops[] = {
        {">=", T_CMP, C_GE}, {"<=", T_CMP, C_LE}, {"==", T_CMP, C_EQ}, {">", T_CMP, C_GT},
        {"<", T_CMP, C_LT},  {"+", T_PLUS, 0},    {"-", T_MINUS, 0},   {"*", T_STAR, 0},
        {"/", T_SLASH, 0},   {"(", T_LPAREN, 0},  {")", T_RPAREN, 0},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t len = strlen(ops[i].text);
        if (strncmp(s, ops[i].text, len) == 0) {
            t->kind = ops[i].kind;
            t->cmp = ops[i].cmp;
            ps->p = s + len;
            return;
        }
    }
    if (*s == '=')
        fail(ps, "'=' alone: compare with == (or write range=NAME without blanks)");
    else if (s[0] == '!' && s[1] == '=')
        fail(ps, "!= is not supported: use < or > (or \"no RULE\" for findings)");
    else
        fail(ps, "unexpected '%c' at '%s'", *s, s);
}

/* ---- parser ------------------------------------------------------------------------- */

static node *new_node(parser *ps, node_kind kind)
{
    if (++ps->nodes > SC_EXPECT_MAX_NODES) {
        fail(ps, "expression too long (more than %d numbers, metrics and operators)",
             SC_EXPECT_MAX_NODES);
        return NULL;
    }
    node *n = calloc(1, sizeof *n);
    if (!n)
        fail(ps, "out of memory");
    else
        n->kind = kind;
    return n;
}

static void metric_list(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_METRICS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", metrics[i].name);
}

static void where(parser *ps, char *buf, size_t n)
{
    if (ps->tok.kind == T_END)
        snprintf(buf, n, "at the end");
    else
        snprintf(buf, n, "at '%s'", ps->tok.at);
}

static node *parse_expr(parser *ps);

static node *parse_metric(parser *ps, enum scope scope, char *range, uint32_t device)
{
    if (ps->tok.kind != T_IDENT) {
        char at[256];
        where(ps, at, sizeof at);
        fail(ps, "expected a metric %s", at);
        free(range);
        return NULL;
    }
    size_t m = 0;
    while (m < N_METRICS && strcmp(metrics[m].name, ps->tok.name) != 0)
        m++;
    if (m == N_METRICS) {
        char list[256];
        metric_list(list, sizeof list);
        if (strcmp(ps->tok.name, "no") == 0)
            fail(ps, "\"no RULE\" stands alone: write \"no RULE in range=NAME\"");
        else
            fail(ps, "unknown metric '%s' (metrics: %s)", ps->tok.name, list);
        free(range);
        return NULL;
    }
    node *n = new_node(ps, N_METRIC);
    if (!n) {
        free(range);
        return NULL;
    }
    n->metric = m;
    n->scope = scope;
    n->range = range;
    n->device = device;
    lex(ps);
    return n;
}

static node *parse_factor_nested(parser *ps);

static node *parse_factor(parser *ps)
{
    if (ps->failed)
        return NULL;
    if (ps->depth >= SC_EXPECT_MAX_DEPTH) {
        fail(ps, "expression nested too deeply (more than %d parentheses or signs)",
             SC_EXPECT_MAX_DEPTH);
        return NULL;
    }
    ps->depth++;
    node *n = parse_factor_nested(ps);
    ps->depth--;
    return n;
}

static node *parse_factor_nested(parser *ps)
{
    token *t = &ps->tok;
    node *n;
    switch (t->kind) {
    case T_NUM:
        n = new_node(ps, N_NUM);
        if (n) {
            n->num = t->num;
            n->num_time = t->num_time;
        }
        lex(ps);
        return n;
    case T_LPAREN:
        lex(ps);
        n = parse_expr(ps);
        if (!ps->failed && ps->tok.kind != T_RPAREN) {
            char at[256];
            where(ps, at, sizeof at);
            fail(ps, "expected ')' %s", at);
        }
        if (ps->failed) {
            node_free(n);
            return NULL;
        }
        lex(ps);
        return n;
    case T_MINUS:
        lex(ps);
        n = new_node(ps, N_NEG);
        if (n)
            n->l = parse_factor(ps);
        return n;
    case T_RANGE: {
        char *range = t->name;
        t->name = NULL;
        lex(ps);
        return parse_metric(ps, S_RANGE, range, 0);
    }
    case T_DEVICE: {
        uint32_t device = t->device;
        lex(ps);
        return parse_metric(ps, S_DEVICE, NULL, device);
    }
    case T_IDENT:
        return parse_metric(ps, S_ALL, NULL, 0);
    default: {
        char at[256];
        where(ps, at, sizeof at);
        fail(ps, "expected a number or a metric %s", at);
        return NULL;
    }
    }
}

static node *parse_binary(parser *ps, bool additive)
{
    node *l = additive ? parse_binary(ps, false) : parse_factor(ps);
    for (;;) {
        tkind k = ps->tok.kind;
        node_kind nk;
        if (additive && (k == T_PLUS || k == T_MINUS))
            nk = k == T_PLUS ? N_ADD : N_SUB;
        else if (!additive && (k == T_STAR || k == T_SLASH))
            nk = k == T_STAR ? N_MUL : N_DIV;
        else
            return l;
        if (ps->failed)
            return l;
        lex(ps);
        node *n = new_node(ps, nk);
        node *r = additive ? parse_binary(ps, false) : parse_factor(ps);
        if (!n) {
            node_free(l);
            node_free(r);
            return NULL;
        }
        n->l = l;
        n->r = r;
        l = n;
    }
}

static node *parse_expr(parser *ps)
{
    return parse_binary(ps, true);
}

static bool known_rule(const char *rule)
{
    for (size_t i = 0; i < sc_rule_count(); i++)    /* the analyzer's own list */
        if (strcmp(rule, sc_rule_id(i)) == 0)
            return true;
    return false;
}

static void parse_no(parser *ps, expectation *e)
{
    e->is_no = true;
    lex(ps);
    if (ps->tok.kind != T_IDENT) {
        fail(ps, "\"no\" wants a rule id, e.g. no legacy-stream");
        return;
    }
    static const char *const severities[] = {"note", "warning", "error"};
    e->min_severity = -1;
    for (int s = 0; s < 3; s++)
        if (strcmp(ps->tok.name, severities[s]) == 0)
            e->min_severity = s;
    if (e->min_severity < 0 && !known_rule(ps->tok.name)) {
        char list[512];
        size_t used = 0;
        list[0] = '\0';
        for (size_t i = 0; i < sc_rule_count() && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     sc_rule_id(i));
        fail(ps, "unknown rule '%s' (rules: %s; or a severity: error, warning, note)",
             ps->tok.name, list);
        return;
    }
    e->rule = ps->tok.name;
    ps->tok.name = NULL;
    lex(ps);
    if (ps->tok.kind == T_IDENT && strcmp(ps->tok.name, "in") == 0) {
        lex(ps);
        if (ps->tok.kind != T_RANGE) {
            fail(ps, "\"in\" wants range=NAME");
            return;
        }
        e->in_range = ps->tok.name;
        ps->tok.name = NULL;
        lex(ps);
    }
    if (!ps->failed && ps->tok.kind != T_END)
        fail(ps, "unexpected '%s' after \"no %s\"", ps->tok.at, e->rule);
}

static void parse_expectation(parser *ps, expectation *e)
{
    lex(ps);
    if (ps->tok.kind == T_END) {
        fail(ps, "empty expectation");
        return;
    }
    if (ps->tok.kind == T_IDENT && strcmp(ps->tok.name, "no") == 0) {
        parse_no(ps, e);
        return;
    }
    e->lhs = parse_expr(ps);
    if (ps->failed)
        return;
    if (ps->tok.kind != T_CMP) {
        char at[256];
        where(ps, at, sizeof at);
        fail(ps, "expected a comparison (>=, <=, >, <, ==) %s", at);
        return;
    }
    e->cmp = ps->tok.cmp;
    lex(ps);
    e->rhs = parse_expr(ps);
    if (!ps->failed && ps->tok.kind == T_CMP)
        fail(ps, "one comparison per expectation: split '%s' in two", ps->tok.at);
    else if (!ps->failed && ps->tok.kind != T_END)
        fail(ps, "unexpected '%s'", ps->tok.at);
}

static char *trimmed(const char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    size_t n = strlen(text);
    while (n && isspace((unsigned char)text[n - 1]))
        n--;
    return dup_n(text, n);
}

int sc_expect_add(sc_expect_set *set, const char *text, char *err, size_t err_size)
{
    char msg[512] = "";
    expectation e = {0};
    e.text = trimmed(text);
    if (!e.text) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    parser ps = {.p = e.text, .err = msg, .err_size = sizeof msg};
    parse_expectation(&ps, &e);
    free(ps.tok.name);
    if (!ps.failed && !SC_GROW(set->v, set->cap, set->n + 1, 8))
        fail(&ps, "out of memory");
    if (ps.failed) {
        /* a long expression is cut, so that what is wrong with it still shows */
        bool cut = strlen(e.text) > 80;
        snprintf(err, err_size, "'%.80s%s': %s", e.text, cut ? "..." : "", msg);
        expectation_free(&e);
        return -1;
    }
    set->v[set->n++] = e;
    return 0;
}

int sc_expect_add_file(sc_expect_set *set, const char *path, char *err, size_t err_size)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned long lineno = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) != -1) {
        lineno++;
        /* A '#' outside quotes starts a comment. */
        char quote = 0;
        for (char *c = line; *c; c++) {
            if (quote) {
                if (*c == quote)
                    quote = 0;
            } else if (*c == '"' || *c == '\'') {
                quote = *c;
            } else if (*c == '#') {
                *c = '\0';
                break;
            }
        }
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            continue;
        char msg[600];
        if (sc_expect_add(set, s, msg, sizeof msg) != 0) {
            snprintf(err, err_size, "%s:%lu: %s", path, lineno, msg);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    if (!is_stdin)
        fclose(f);
    return rc;
}

/* ---- checking ----------------------------------------------------------------------- */

/* What one scope measured, its instances summed. */
typedef struct agg {
    size_t instances;
    uint64_t wall, busy, kernel_sum, kernels, solo, solo_known, copy_busy, copy_compute, idle,
        overlap, copies;
} agg;

static void add_overlap(agg *g, const sc_overlap *o)
{
    g->busy += o->busy_ns;
    g->kernel_sum += o->kernel_sum_ns;
    g->kernels += o->kernel_count;
    g->solo += o->solo_sum_ns;
    g->solo_known += o->solo_known;
    g->copy_busy += o->copy_busy_ns;
    g->copy_compute += o->copy_compute_ns;
    g->idle += o->idle_ns;
    g->overlap += o->overlap_ns;
}

static uint64_t span(uint64_t first, uint64_t last)
{
    return last > first ? last - first : 0;
}

typedef struct value {
    bool ok;
    double v;
    int dim;                    /* 1: a time in ms; 0: a plain number */
    char why[256];              /* when not ok */
} value;

typedef struct strbuf {
    char *s;
    size_t n, cap;
} strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0)
        return;
    if (!SC_GROW(b->s, b->cap, b->n + (size_t)need + 1, 128))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

static void scope_text(const node *n, char *buf, size_t size)
{
    switch (n->scope) {
    case S_RANGE:
        if (strpbrk(n->range, " \t\"'"))
            snprintf(buf, size, strchr(n->range, '"') ? "range='%s'" : "range=\"%s\"", n->range);
        else
            snprintf(buf, size, "range=%s", n->range);
        break;
    case S_DEVICE:
        snprintf(buf, size, "device=%u", n->device);
        break;
    case S_ALL:
        buf[0] = '\0';
        break;
    }
}

/* Gathers the scope of a metric node; false with the reason when there is nothing. */
static bool gather(const node *n, const sc_analysis *const *as, size_t na, agg *g, char *why,
                   size_t wn)
{
    memset(g, 0, sizeof *g);
    if (na == 0) {
        snprintf(why, wn, "no trace was read");
        return false;
    }
    for (size_t i = 0; i < na; i++) {
        const sc_analysis *a = as[i];
        const sc_trace *t = a->trace;
        if (n->scope == S_RANGE) {
            for (size_t r = 0; r < a->n_ranges; r++) {
                const sc_range_summary *rs = &a->ranges[r];
                if (!rs->range || !rs->range->name || strcmp(rs->range->name, n->range) != 0)
                    continue;
                g->instances++;
                g->wall += rs->wall_ns;
                g->copies += rs->copy_count;
                add_overlap(g, &rs->overlap);
            }
        } else if (n->scope == S_DEVICE) {
            for (size_t d = 0; d < a->n_devices; d++) {
                const sc_device_summary *ds = &a->devices[d];
                if (ds->device != n->device)
                    continue;
                g->instances++;
                g->wall += span(ds->overlap.first_ns, ds->overlap.last_ns);
                add_overlap(g, &ds->overlap);
                for (size_t c = 0; c < t->n_copies; c++)
                    g->copies += sc_copy_device(t, &t->copies[c]) == n->device;
            }
        } else {
            g->instances++;
            g->wall += span(a->run_start_ns, a->run_end_ns);
            g->copies += t->n_copies;
            for (size_t d = 0; d < a->n_devices; d++)
                add_overlap(g, &a->devices[d].overlap);
        }
    }
    if (g->instances == 0) {
        if (n->scope == S_RANGE)
            snprintf(why, wn, "no range named \"%s\"", n->range);
        else
            snprintf(why, wn, "no device %u in any trace", n->device);
        return false;
    }
    return true;
}

static void fmt_value(double v, int dim, int digits, char *buf, size_t n)
{
    if (dim == 1) {
        if (digits <= 3 && v >= 0 && v < 1e12) {
            char t[SC_FMT_SIZE];
            snprintf(buf, n, "%s", sc_report_fmt_ns((uint64_t)llround(v * 1e6), t));
        } else {
            snprintf(buf, n, "%.*g ms", digits, v);
        }
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, n, "%.0f", v);
    else if (digits <= 3 && fabs(v) >= 1000)
        snprintf(buf, n, "%.1f", v);
    else
        snprintf(buf, n, "%.*g", digits, v);
}

/* A measured value next to the threshold it missed or met: enough digits that the two do
 * not print the same unless they are the same. */
static void fmt_against(double v, int dim, const double *other, char *buf, size_t n)
{
    for (int digits = 3; digits <= 15; digits += 3) {
        fmt_value(v, dim, digits, buf, n);
        if (!other || v == *other)
            return;
        char o[64];
        fmt_value(*other, dim, digits, o, sizeof o);
        if (strcmp(o, buf) != 0)
            return;
    }
}

static value eval(const node *n, const sc_analysis *const *as, size_t na, strbuf *terms)
{
    value out = {.ok = true};
    if (!n) {
        out.ok = false;
        snprintf(out.why, sizeof out.why, "nothing to evaluate");
        return out;
    }
    if (n->kind == N_NUM) {
        out.v = n->num;
        out.dim = n->num_time ? 1 : 0;
        return out;
    }
    if (n->kind == N_METRIC) {
        agg g;
        char scope[300];
        scope_text(n, scope, sizeof scope);
        if (!gather(n, as, na, &g, out.why, sizeof out.why)) {
            out.ok = false;
            return out;
        }
        const char *in = n->scope == S_ALL ? "" : " in ";
        switch (metrics[n->metric].metric) {
        case M_CONCURRENCY:
        case M_SPEEDUP:
            if (!g.busy) {
                out.ok = false;
                snprintf(out.why, sizeof out.why, "no kernels ran%s%s", in, scope);
                return out;
            }
            if (metrics[n->metric].metric == M_SPEEDUP && g.solo_known < g.kernels) {
                out.ok = false;
                snprintf(out.why, sizeof out.why,
                         "speedup unknown%s%s: %llu of %llu kernels have no solo time", in,
                         scope, (unsigned long long)(g.kernels - g.solo_known),
                         (unsigned long long)g.kernels);
                return out;
            }
            out.v = (double)(metrics[n->metric].metric == M_CONCURRENCY ? g.kernel_sum
                                                                         : g.solo) /
                    (double)g.busy;
            break;
        case M_COPY_OVERLAP:
            if (!g.copy_busy) {
                out.ok = false;
                snprintf(out.why, sizeof out.why, "no copies or memsets ran%s%s", in, scope);
                return out;
            }
            out.v = (double)g.copy_compute / (double)g.copy_busy;
            break;
        case M_BUSY: out.v = (double)g.busy / 1e6; break;
        case M_KERNEL_TIME: out.v = (double)g.kernel_sum / 1e6; break;
        case M_OVERLAP: out.v = (double)g.overlap / 1e6; break;
        case M_IDLE: out.v = (double)g.idle / 1e6; break;
        case M_WALL:
        case M_TIME: out.v = (double)g.wall / 1e6; break;
        case M_KERNELS: out.v = (double)g.kernels; break;
        case M_COPIES: out.v = (double)g.copies; break;
        case M_INSTANCES: out.v = (double)g.instances; break;
        }
        out.dim = metrics[n->metric].time ? 1 : 0;
        char val[64];
        fmt_value(out.v, out.dim, 3, val, sizeof val);
        sb_printf(terms, "%s%s%s%s %s", terms->n ? ", " : "", scope, scope[0] ? " " : "",
                  metrics[n->metric].name, val);
        if (n->scope == S_RANGE && g.instances > 1)
            sb_printf(terms, " (%zu instances)", g.instances);
        return out;
    }
    value l = eval(n->l, as, na, terms);
    if (!l.ok)
        return l;
    if (n->kind == N_NEG) {
        l.v = -l.v;
        return l;
    }
    value r = eval(n->r, as, na, terms);
    if (!r.ok)
        return r;
    switch (n->kind) {
    case N_ADD: out.v = l.v + r.v; out.dim = l.dim || r.dim; break;
    case N_SUB: out.v = l.v - r.v; out.dim = l.dim || r.dim; break;
    case N_MUL: out.v = l.v * r.v; out.dim = l.dim + r.dim == 1; break;
    case N_DIV:
        if (r.v == 0) {
            out.ok = false;
            snprintf(out.why, sizeof out.why, "division by zero");
            return out;
        }
        out.v = l.v / r.v;
        out.dim = l.dim - r.dim == 1;
        break;
    default: break;
    }
    return out;
}

static bool constant(const node *n)
{
    return !n || (n->kind != N_METRIC && constant(n->l) && constant(n->r));
}

static bool compare(double l, enum cmp c, double r)
{
    switch (c) {
    case C_GE: return l >= r;
    case C_LE: return l <= r;
    case C_GT: return l > r;
    case C_LT: return l < r;
    case C_EQ: return l == r;
    }
    return false;
}

/* The finding matches "no RULE" or "no SEVERITY" (that severity or higher). */
static bool no_matches(const expectation *e, const char *rule, sc_severity severity)
{
    if (e->min_severity >= 0)
        return (int)severity >= e->min_severity;
    return rule && strcmp(rule, e->rule) == 0;
}

static bool check_no(const expectation *e, const sc_analysis *const *as, size_t na,
                     char *detail, size_t dn)
{
    uint64_t count = 0, cost = 0;
    size_t where = 0, instances = 0;
    if (na == 0) {
        snprintf(detail, dn, "no trace was read");
        return false;
    }
    for (size_t i = 0; i < na; i++) {
        const sc_analysis *a = as[i];
        bool here = false;
        if (!e->in_range) {
            for (size_t f = 0; f < a->n_findings; f++) {
                if (no_matches(e, a->findings[f].rule, a->findings[f].severity)) {
                    count += a->findings[f].count;
                    cost += a->findings[f].cost_ns;
                    here = true;
                }
            }
        } else {
            for (size_t r = 0; r < a->n_ranges; r++) {
                const sc_range_summary *rs = &a->ranges[r];
                if (!rs->range || !rs->range->name || strcmp(rs->range->name, e->in_range) != 0)
                    continue;
                instances++;
                for (size_t f = 0; f < rs->n_findings; f++) {
                    if (no_matches(e, sc_range_finding_rule(a, &rs->findings[f]),
                                   rs->findings[f].severity)) {
                        count += rs->findings[f].count;
                        cost += rs->findings[f].cost_ns;
                        here = true;
                    }
                }
            }
        }
        where += here;
    }
    if (e->in_range && instances == 0) {
        snprintf(detail, dn, "no range named \"%s\"", e->in_range);
        return false;
    }
    if (count == 0) {
        snprintf(detail, dn, "measured 0 findings");
        return true;
    }
    char c[SC_FMT_SIZE];
    snprintf(detail, dn, "measured %llu finding%s, cost %s, in %zu process%s",
             (unsigned long long)count, count == 1 ? "" : "s", sc_report_fmt_ns(cost, c), where,
             where == 1 ? "" : "es");
    return false;
}

static bool check_one(const expectation *e, const sc_analysis *const *as, size_t na,
                      char *detail, size_t dn)
{
    if (e->is_no)
        return check_no(e, as, na, detail, dn);
    strbuf terms = {0};
    value l = eval(e->lhs, as, na, &terms);
    value r = l.ok ? eval(e->rhs, as, na, &terms) : l;
    bool pass = false;
    if (!l.ok || !r.ok) {
        snprintf(detail, dn, "%s", !l.ok ? l.why : r.why);
    } else {
        pass = compare(l.v, e->cmp, r.v);
        char lv[64], rv[64];
        bool lconst = constant(e->lhs), rconst = constant(e->rhs);
        if (rconst || lconst) {
            /* One side is the threshold: show the measured side. */
            const value *m = rconst ? &l : &r, *th = rconst ? &r : &l;
            const node *mn = rconst ? e->lhs : e->rhs;
            fmt_against(m->v, m->dim, &th->v, lv, sizeof lv);
            if (mn && mn->kind == N_METRIC)
                snprintf(detail, dn, "measured %s", lv);
            else
                snprintf(detail, dn, "measured %s; %s", lv, terms.s ? terms.s : "");
        } else {
            fmt_against(l.v, l.dim, &r.v, lv, sizeof lv);
            fmt_against(r.v, r.dim, &l.v, rv, sizeof rv);
            snprintf(detail, dn, "measured %s %s %s; %s", lv, pass ? cmp_text[e->cmp] : "vs",
                     rv, terms.s ? terms.s : "");
        }
    }
    free(terms.s);
    return pass;
}

size_t sc_expect_evaluate(const sc_expect_set *set, const sc_analysis *const *as, size_t n,
                          sc_expect_result *results)
{
    size_t failed = 0;
    for (size_t i = 0; set && i < set->n; i++) {
        results[i].text = set->v[i].text;
        results[i].pass = check_one(&set->v[i], as, n, results[i].detail,
                                    sizeof results[i].detail);
        failed += !results[i].pass;
    }
    return failed;
}

void sc_expect_print(const sc_expect_result *results, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "expect: %s %s (%s)\n", results[i].pass ? "PASS" : "FAIL",
                results[i].text, results[i].detail);
}
