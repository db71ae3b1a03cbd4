/* Assembling findings: see findings.h. */
#include "analyze/findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"
#include "trace/sort.h"

void sc_finding_begin(sc_finding_builder *b, const char *rule, const char *fix)
{
    memset(b, 0, sizeof(*b));
    b->finding.rule = rule;
    b->finding.fix = fix;
    b->finding.severity = SC_SEV_NOTE;
}

static void sc_evidence_put(sc_evidence *ev, size_t *n, const char *key, double value,
                            const char *unit)
{
    if (*n >= SC_MAX_EVIDENCE)
        return;
    ev[(*n)++] = (sc_evidence){key, value, unit};
}

/* What a text that could not be written points at: appends to it do nothing, and
 * sc_finding_finish fails the analysis for it, so no finding goes out with a text cut short. */
static char sc_text_oom[1];

static void sc_text_free(char **text)
{
    if (*text != sc_text_oom)
        free(*text);
    *text = NULL;
}

void sc_text_append(char **text, const char *fmt, ...)
{
    if (*text == sc_text_oom)
        return;
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    size_t used = *text ? strlen(*text) : 0;
    char *grown = realloc(*text, used + (size_t)w + 1);
    if (!grown) {
        sc_text_free(text);
        *text = sc_text_oom;
        return;
    }
    if ((size_t)w < sizeof small) {
        memcpy(grown + used, small, (size_t)w + 1);
    } else {    /* longer than the first try: write it again where it goes */
        va_start(ap, fmt);
        vsnprintf(grown + used, (size_t)w + 1, fmt, ap);
        va_end(ap);
    }
    *text = grown;
}

/* A copy of an instance's text for a second holder (first and worst both keep theirs). */
static char *sc_text_dup(const char *text)
{
    if (!text || text == sc_text_oom)
        return (char *)text;
    char *copy = strdup(text);
    return copy ? copy : sc_text_oom;
}

static bool sc_text_ok(const char *text)
{
    return text && text != sc_text_oom;
}

void sc_finding_free_texts(sc_finding *f)
{
    sc_text_free(&f->title);
    sc_text_free(&f->first.text);
    sc_text_free(&f->worst.text);
}

void sc_instance_evidence(sc_instance *inst, const char *key, double value, const char *unit)
{
    sc_evidence_put(inst->evidence, &inst->n_evidence, key, value, unit);
}

void sc_finding_total(sc_finding_builder *b, const char *key, double value, const char *unit)
{
    sc_evidence_put(b->finding.totals, &b->finding.n_totals, key, value, unit);
}

static uint64_t sc_fnv_text(uint64_t h, const char *c)
{
    for (; c && *c; c++) {
        h ^= (unsigned char)*c;
        h *= 1099511628211ull;
    }
    return h;
}

/* A text's hash, the last two texts' kept: the entries of a finding name a few calls and
 * Python files, the same pointers over and over, and hashing a path per entry cost more than
 * the rest of the grouping. */
typedef struct sc_text_memo {
    const char *text[2];
    uint64_t hash[2];
    unsigned next;
} sc_text_memo;

static uint64_t sc_memo_text(sc_text_memo *m, const char *c)
{
    for (unsigned k = 0; k < 2; k++)
        if (m->text[k] == c && c)
            return m->hash[k];
    uint64_t h = sc_fnv_text(1469598103934665603ull, c);
    m->text[m->next] = c;
    m->hash[m->next] = h;
    m->next ^= 1;
    return h;
}

/* A word into the hash: a multiply per word, not per byte (FNV-1a's step on 64 bits). */
static uint64_t sc_hash_word(uint64_t h, uint64_t w)
{
    return (h ^ w) * 1099511628211ull;
}

/* The identity of a call site: its frames, the function name and the user's Python line.
 * Only equal sites must hash alike: the grouping compares the sites themselves. */
static uint64_t sc_site_hash(const sc_site_entry *e, sc_text_memo *names, sc_text_memo *files)
{
    uint64_t h = 1469598103934665603ull;
    const sc_pyframe *py = e->py;
    if (py) {   /* the line the user would change names the site; the native frames below
                   it are the library's way there (one .item() line reached two ways) */
        h = sc_hash_word(h, sc_memo_text(files, py->file));
        h = sc_hash_word(h, (uint32_t)py->line);
        return sc_hash_word(h, sc_memo_text(names, e->name));
    }
    for (uint16_t i = 0; i < e->n_frames; i++)
        h = sc_hash_word(h, e->frames[i]);
    return sc_hash_word(h, sc_memo_text(names, e->name));
}

static bool sc_worse(const sc_instance *a, const sc_instance *b)
{
    if (a->cost_ns != b->cost_ns)
        return a->cost_ns > b->cost_ns;
    return sc_dur(a->start_ns, a->end_ns) > sc_dur(b->start_ns, b->end_ns);
}

static int sc_site_entry_push(sc_finding_builder *b, const sc_api_call *call, uint64_t cost)
{
    if (!SC_GROW(b->entries, b->cap_entries, b->n_entries + 1, 16))
        return -1;
    b->entries[b->n_entries] = (sc_site_entry){.call = call, .cost_ns = cost,
                                               .order = b->n_entries};
    b->n_entries++;
    return 0;
}

/* The place of an instance in host time: where its call started, on the call's thread. */
static int sc_mark_push(sc_mark_list *list, const sc_instance *inst)
{
    if (!SC_GROW(list->items, list->cap, list->n + 1, 16))
        return -1;
    const sc_api_call *call = inst->call;
    list->items[list->n++] = (sc_instance_mark){
        .t = call ? call->rec.start_ns : inst->start_ns, .cost_ns = inst->cost_ns,
        .call = call};
    return 0;
}

static bool sc_finding_is_first(const sc_finding_builder *b, const sc_instance *inst)
{
    return !b->has_instance || inst->start_ns < b->finding.first.start_ns;
}

static bool sc_finding_is_worst(const sc_finding_builder *b, const sc_instance *inst)
{
    return !b->has_instance || sc_worse(inst, &b->finding.worst);
}

bool sc_finding_would_keep(const sc_finding_builder *b, const sc_instance *inst)
{
    return sc_finding_is_first(b, inst) || sc_finding_is_worst(b, inst);
}

int sc_finding_add(sc_finding_builder *b, sc_instance *inst)
{
    sc_finding *f = &b->finding;
    char *text = inst->text;    /* taken: at most one holder gets this, the other a copy */
    inst->text = NULL;
    bool first = sc_finding_is_first(b, inst);
    bool worst = sc_finding_is_worst(b, inst);
    if (first) {
        sc_text_free(&f->first.text);
        f->first = *inst;
        f->first.text = worst ? sc_text_dup(text) : text;
    }
    if (worst) {
        sc_text_free(&f->worst.text);
        f->worst = *inst;
        f->worst.text = text;
    }
    if (!first && !worst)
        sc_text_free(&text);
    b->has_instance = true;
    f->count++;
    f->waited_ns += inst->cost_ns;
    if (sc_mark_push(&b->marks, inst) != 0)
        return -1;
    return inst->call ? sc_site_entry_push(b, inst->call, inst->cost_ns) : 0;
}

int sc_finding_fix(sc_finding_builder *b, sc_fix_kind kind, size_t index)
{
    return sc_finding_fix_ns(b, kind, index, 0);
}

int sc_finding_fix_ns(sc_finding_builder *b, sc_fix_kind kind, size_t index, uint64_t ns)
{
    sc_fix_list *l = &b->fixes;
    if (l->n && l->items[l->n - 1].kind == (uint32_t)kind && l->items[l->n - 1].index == index)
        return 0;   /* the same as the last one: rules often name one stream many times */
    if (!SC_GROW(l->items, l->cap, l->n + 1, 16))
        return -1;
    l->items[l->n++] = (sc_fix){(uint32_t)kind, index, ns};
    return 0;
}

sc_severity sc_severity_of_saving(uint64_t saving_ns, uint64_t run_span_ns)
{
    double share = run_span_ns ? (double)saving_ns / (double)run_span_ns : 0.0;
    if (saving_ns >= SC_ERROR_MIN_NS && share >= SC_ERROR_SHARE)
        return SC_SEV_ERROR;
    if (saving_ns >= SC_WARNING_MIN_NS && share >= SC_WARNING_SHARE)
        return SC_SEV_WARNING;
    return SC_SEV_NOTE;
}

/* 0 when two entries are of one site: the same user's Python line and call where there is
 * one, else the same native stack and call (an order otherwise). */
/* strcmp, NULL as "", a text against itself without a look (the names and files of a
 * finding's entries are a few pointers). */
static int sc_text_cmp(const char *a, const char *b)
{
    return a == b ? 0 : strcmp(a ? a : "", b ? b : "");
}

static int sc_site_stack_cmp(const sc_site_entry *x, const sc_site_entry *y)
{
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    const sc_pyframe *p = x->py, *q = y->py;
    if (!p != !q)
        return p ? 1 : -1;
    if (p) {
        if (p->line != q->line)
            return p->line < q->line ? -1 : 1;
        int c = p->file == q->file ? 0 : strcmp(p->file, q->file);
        return c ? c : sc_text_cmp(x->name, y->name);
    }
    if (x->n_frames != y->n_frames)
        return x->n_frames < y->n_frames ? -1 : 1;
    for (uint16_t i = 0; i < x->n_frames; i++)
        if (x->frames[i] != y->frames[i])
            return x->frames[i] < y->frames[i] ? -1 : 1;
    return sc_text_cmp(x->name, y->name);
}

/* A grouped site, with the order of its first instance to break ties. */
typedef struct sc_site_rank {
    sc_site site;
    size_t order;
} sc_site_rank;

static int sc_site_rank_cmp(const void *pa, const void *pb)
{
    const sc_site_rank *x = pa, *y = pb;
    if (x->site.cost_ns != y->site.cost_ns)
        return x->site.cost_ns > y->site.cost_ns ? -1 : 1;
    if (x->site.count != y->site.count)
        return x->site.count > y->site.count ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* A table slot's start for a hash: its high bits folded in (the low bits of a frames' hash
 * are the low bits of the words, which a multiply never carries upwards). */
static size_t sc_site_slot(uint64_t hash, size_t mask)
{
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdull;
    hash ^= hash >> 33;
    return (size_t)hash & mask;
}

/* Groups the entries by stack and keeps the SC_MAX_SITES costliest. The entries are taken in
 * the order they were added and each finds its site in an open-addressed table by hash (a
 * finding of 19k synchronizations from two lines sorted all 19k to group them): a site's
 * first entry, the one it ranks by, is its earliest. */
static int sc_finding_sites(sc_finding_builder *b)
{
    size_t n = b->n_entries;
    if (n == 0)
        return 0;
    sc_site_rank *ranks = malloc(n * sizeof(*ranks));
    const sc_site_entry **first = malloc(n * sizeof(*first));
    size_t cap = 64;
    uint32_t *slots = calloc(cap, sizeof(*slots));  /* a rank + 1, 0: empty */
    if (!ranks || !first || !slots || n >= UINT32_MAX) {
        free(ranks);
        free(first);
        free(slots);
        return -1;
    }
    size_t n_ranks = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_site_entry *e = &b->entries[i];
        size_t at = sc_site_slot(e->hash, cap - 1);
        while (slots[at] && (first[slots[at] - 1]->hash != e->hash ||
                             sc_site_stack_cmp(first[slots[at] - 1], e) != 0))
            at = (at + 1) & (cap - 1);
        if (!slots[at]) {
            ranks[n_ranks] = (sc_site_rank){{e->call, 0, 0}, e->order};
            first[n_ranks] = e;
            slots[at] = (uint32_t)++n_ranks;
            if (2 * n_ranks > cap) {    /* kept at most half full: probes stay short */
                uint32_t *grown = calloc(2 * cap, sizeof(*grown));
                if (!grown) {
                    free(ranks);
                    free(first);
                    free(slots);
                    return -1;
                }
                cap *= 2;
                for (size_t r = 0; r < n_ranks; r++) {
                    size_t j = sc_site_slot(first[r]->hash, cap - 1);
                    while (grown[j])
                        j = (j + 1) & (cap - 1);
                    grown[j] = (uint32_t)(r + 1);
                }
                free(slots);
                slots = grown;
                at = SIZE_MAX;
            }
        }
        size_t r = at == SIZE_MAX ? n_ranks - 1 : slots[at] - 1;
        ranks[r].site.count++;
        ranks[r].site.cost_ns += e->cost_ns;
    }
    free(first);
    free(slots);
    sc_sort(ranks, n_ranks, sizeof(*ranks), sc_site_rank_cmp);
    b->finding.n_sites = n_ranks < SC_MAX_SITES ? n_ranks : SC_MAX_SITES;
    for (size_t i = 0; i < b->finding.n_sites; i++)
        b->finding.sites[i] = ranks[i].site;
    free(ranks);
    return 0;
}

/* Room for one more finding, its marks and fixes: the arrays always have out->cap entries.
 * Grown from one capacity to one need, the three come out alike; when one fails, out->cap
 * stays as it was (the arrays grown before it merely have unused room). */
static int sc_finding_list_grow(sc_finding_list *out)
{
    size_t items_cap = out->cap, marks_cap = out->cap, fixes_cap = out->cap;
    if (!SC_GROW(out->items, items_cap, out->n + 1, 8) ||
        !SC_GROW(out->marks, marks_cap, out->n + 1, 8) ||
        !SC_GROW(out->fixes, fixes_cap, out->n + 1, 8))
        return -1;
    out->cap = items_cap;
    return 0;
}

int sc_finding_finish(sc_finding_builder *b, const sc_ctx *ctx, sc_finding_list *out)
{
    /* A launch without a stack of its own is counted at the site of its sampled twin; calls
     * from two lines of the user's Python are two sites, whatever native frames they share,
     * and one line reached from two callers is one. */
    sc_text_memo names = {0}, files = {0};
    for (size_t i = 0; i < b->n_entries; i++) {
        sc_site_entry *e = &b->entries[i];
        const sc_api_call *site = sc_ctx_site(ctx, e->call);
        e->py = site ? sc_pystack_user_frame(sc_trace_pystack(ctx->trace,
                                                              site->rec.correlation_id))
                     : NULL;
        e->call = site;
        e->name = sc_call_name(ctx->trace, site);
        e->frames = sc_call_frames(ctx->trace, site);
        e->n_frames = sc_call_n_frames(ctx->trace, site);
        e->hash = sc_site_hash(e, &names, &files);
    }
    int rc = sc_finding_sites(b);
    sc_finding *f = &b->finding;
    if (!sc_text_ok(f->title) ||
        (b->has_instance && (!sc_text_ok(f->first.text) || !sc_text_ok(f->worst.text))))
        rc = -1;    /* out of memory while writing them: no finding with a text cut short */
    f->first.site = sc_ctx_site(ctx, f->first.call);
    f->worst.site = sc_ctx_site(ctx, f->worst.call);
    f->share = ctx->run_span_ns ? (double)f->cost_ns / (double)ctx->run_span_ns : 0.0;
    if (rc == 0)
        rc = sc_finding_list_grow(out);
    if (rc == 0) {
        out->marks[out->n] = (sc_mark_list){0};
        if (ctx->trace->n_ranges > 0) {     /* only ranges read them: keep them for those */
            out->marks[out->n] = b->marks;
            b->marks = (sc_mark_list){0};
        }
        out->fixes[out->n] = b->fixes;
        b->fixes = (sc_fix_list){0};
        out->items[out->n++] = *f;
        *f = (sc_finding){0};   /* its texts are the list's now */
    }
    sc_finding_discard(b);
    return rc;
}

void sc_finding_discard(sc_finding_builder *b)
{
    sc_finding_free_texts(&b->finding);
    free(b->entries);
    b->entries = NULL;
    b->n_entries = b->cap_entries = 0;
    free(b->marks.items);
    b->marks = (sc_mark_list){0};
    free(b->fixes.items);
    b->fixes = (sc_fix_list){0};
}

static int sc_finding_cmp(const void *pa, const void *pb)
{
    const sc_finding *x = pa, *y = pb;
    if (x->cost_ns != y->cost_ns)
        return x->cost_ns > y->cost_ns ? -1 : 1;
    if (x->severity != y->severity)
        return x->severity > y->severity ? -1 : 1;
    int c = strcmp(x->rule, y->rule);
    if (c != 0)
        return c;
    /* one rule with several findings: qsort is not stable, so order them by content */
    if (x->first.start_ns != y->first.start_ns)
        return x->first.start_ns < y->first.start_ns ? -1 : 1;
    return strcmp(x->title, y->title);
}

void sc_findings_sort(sc_finding *findings, size_t n)
{
    if (n > 1)
        sc_sort(findings, n, sizeof(*findings), sc_finding_cmp);
}

/* A finding, its marks and fixes, sorted as one. */
typedef struct sc_finding_pair {
    sc_finding finding;
    sc_mark_list marks;
    sc_fix_list fixes;
} sc_finding_pair;

static int sc_finding_pair_cmp(const void *pa, const void *pb)
{
    const sc_finding_pair *x = pa, *y = pb;
    return sc_finding_cmp(&x->finding, &y->finding);
}

int sc_finding_list_sort(sc_finding_list *list)
{
    if (list->n < 2)
        return 0;
    sc_finding_pair *pairs = malloc(list->n * sizeof(*pairs));
    if (!pairs)
        return -1;
    for (size_t i = 0; i < list->n; i++)
        pairs[i] = (sc_finding_pair){list->items[i], list->marks[i],
                                     list->fixes ? list->fixes[i] : (sc_fix_list){0}};
    sc_sort(pairs, list->n, sizeof(*pairs), sc_finding_pair_cmp);
    for (size_t i = 0; i < list->n; i++) {
        list->items[i] = pairs[i].finding;
        list->marks[i] = pairs[i].marks;
        if (list->fixes)
            list->fixes[i] = pairs[i].fixes;
    }
    free(pairs);
    return 0;
}

int sc_finding_list_append(sc_finding_list *to, sc_finding_list *from)
{
    if (from->n == 0)
        return 0;
    size_t n = to->n + from->n;
    size_t items_cap = to->cap, marks_cap = to->cap, fixes_cap = to->cap;
    if (!SC_GROW(to->items, items_cap, n, 8) || !SC_GROW(to->marks, marks_cap, n, 8) ||
        !SC_GROW(to->fixes, fixes_cap, n, 8))
        return -1;  /* the arrays grown before the one that failed merely have unused room */
    to->cap = items_cap;
    memcpy(to->items + to->n, from->items, from->n * sizeof *from->items);
    memcpy(to->marks + to->n, from->marks, from->n * sizeof *from->marks);
    memcpy(to->fixes + to->n, from->fixes, from->n * sizeof *from->fixes);
    to->n = n;
    free(from->items);
    free(from->marks);
    free(from->fixes);
    memset(from, 0, sizeof *from);
    return 0;
}

void sc_finding_list_drop_marks(sc_finding_list *list)
{
    for (size_t i = 0; list->marks && i < list->n; i++)
        free(list->marks[i].items);
    free(list->marks);
    list->marks = NULL;
}

void sc_finding_list_drop_fixes(sc_finding_list *list)
{
    for (size_t i = 0; list->fixes && i < list->n; i++)
        free(list->fixes[i].items);
    free(list->fixes);
    list->fixes = NULL;
}

void sc_finding_list_free(sc_finding_list *list)
{
    for (size_t i = 0; list->items && i < list->n; i++)
        sc_finding_free_texts(&list->items[i]);
    sc_finding_list_drop_marks(list);
    sc_finding_list_drop_fixes(list);
    free(list->items);
    memset(list, 0, sizeof(*list));
}
