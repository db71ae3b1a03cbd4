/* Assembling findings: a rule feeds instances to a builder, the builder keeps the count, the
 * first and worst instance, the call sites (deduplicated by stack) and the cost, so every rule
 * reports the same way and a new rule is one file plus one entry in the table in analyze.c.
 */
#ifndef SC_ANALYZE_FINDINGS_H
#define SC_ANALYZE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"
#include "analyze/replay.h"

/* One instance's contribution to the sites: kept until sc_finding_finish() groups them. */
typedef struct sc_site_entry {
    const sc_api_call *call;
    const sc_pyframe *py;       /* its user's Python frame, NULL if none (set when grouped) */
    const char *name;           /* the call's name and frames (from the trace, when grouped):
                                   what the comparisons read */
    const uint64_t *frames;
    uint16_t n_frames;
    uint64_t hash;              /* of the call's stacks: makes most comparisons one compare
                                   (set when grouped) */
    uint64_t cost_ns;
    size_t order;               /* when it was added: ties go to the earliest */
} sc_site_entry;

/* Where one instance happened, for the per-range counts (ranges.c): the start of its call and
 * the call (whose thread holds it), or without a call its own start and no call. */
typedef struct sc_instance_mark {
    uint64_t t;
    uint64_t cost_ns;
    const sc_api_call *call;
} sc_instance_mark;

typedef struct sc_mark_list {
    sc_instance_mark *items;
    size_t n, cap;
} sc_mark_list;

typedef struct sc_finding_builder {
    sc_finding finding;         /* filled as instances come; the rule sets the title */
    bool has_instance;
    sc_site_entry *entries;
    size_t n_entries, cap_entries;
    sc_mark_list marks;         /* one per instance: as much memory as the site entries */
    sc_fix_list fixes;
} sc_finding_builder;

typedef struct sc_finding_list {
    sc_finding *items;
    size_t n, cap;
    /* Per item, same order: its instances' marks while the ranges are measured (empty when
     * the trace has no range); sc_finding_list_drop_marks() frees them. */
    sc_mark_list *marks;
    sc_fix_list *fixes;         /* per item, same order, until the costs are set (costs.c) */
} sc_finding_list;

/* A rule's entry in the table of analyze.c. It appends zero or more findings to out and
 * returns 0, or -1 with a message in err. */
typedef int (*sc_rule_fn)(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size);
typedef struct sc_rule {
    const char *id;
    const char *stage;          /* "rule: ID", its row in the stage table (stage_clock.h) */
    sc_rule_fn run;
    bool beside;                /* may run on a second thread beside the others: it names no
                                   kernel (the names are remembered as rules ask them:
                                   kernel_names.h), the one thing of the context rules write */
} sc_rule;

/* A table entry: the rule's id, once. */
#define SC_RULE(id, run) {id, "rule: " id, run, false}
#define SC_RULE_BESIDE(id, run) {id, "rule: " id, run, true}

void sc_finding_begin(sc_finding_builder *b, const char *rule, const char *fix);
/* Counts an instance: first (earliest start), worst (cost, then duration), its site. The
 * instance's cost_ns is what it measured (a wait, device idle): it adds to the finding's
 * waited_ns, and the finding's saving (costs.c) is shared among instances in proportion.
 * Takes the instance's text (inst->text is NULL afterwards), also when it fails. */
int sc_finding_add(sc_finding_builder *b, sc_instance *inst);
/* Whether sc_finding_add would keep an instance with these start, end and cost as the
 * finding's first or worst: the only instances whose text and evidence are ever read. A rule
 * with many instances (a synchronization per step) skips writing them for the rest. */
bool sc_finding_would_keep(const sc_finding_builder *b, const sc_instance *inst);
/* Says what fixing the finding removes from the replay; duplicates are harmless. Returns 0,
 * or -1 when out of memory. */
int sc_finding_fix(sc_finding_builder *b, sc_fix_kind kind, size_t index);
/* The same, for a fix that carries a duration (SC_FIX_DURATION). */
int sc_finding_fix_ns(sc_finding_builder *b, sc_fix_kind kind, size_t index, uint64_t ns);
/* Adds a named total to the finding (ignored past SC_MAX_EVIDENCE). */
void sc_finding_total(sc_finding_builder *b, const char *key, double value, const char *unit);
/* Picks the top sites and the share of the run, appends the finding to out (which owns its
 * title and texts from then on), frees the builder. Returns 0 or -1 when out of memory (a
 * title or text that could not be written included). */
int sc_finding_finish(sc_finding_builder *b, const sc_ctx *ctx, sc_finding_list *out);
/* Frees the builder, its title and texts included, without producing a finding. */
void sc_finding_discard(sc_finding_builder *b);

/* Appends to a malloc'd one-line text (*text NULL: empty), growing it: titles and texts
 * are never cut, a writer wraps or ellipsizes them for display. Out of memory leaves *text
 * as it was (sc_finding_finish then fails the analysis when the title is missing). */
__attribute__((format(printf, 2, 3)))
void sc_text_append(char **text, const char *fmt, ...);

/* Adds a named number to an instance (ignored past SC_MAX_EVIDENCE). */
void sc_instance_evidence(sc_instance *inst, const char *key, double value, const char *unit);

/* The severity of a saving, as a share of a run (analysis.h's thresholds). */
sc_severity sc_severity_of_saving(uint64_t saving_ns, uint64_t run_span_ns);

/* By cost (largest first), then severity (worst first), then rule id. */
void sc_findings_sort(sc_finding *findings, size_t n);
/* The same order, for a list: its marks move with their findings. Returns 0, or -1 when out
 * of memory (the list is then unchanged). */
int sc_finding_list_sort(sc_finding_list *list);
/* Moves every finding of `from`, with its marks and fixes, to the end of `to`, in its order;
 * `from` is left empty. Returns 0, or -1 when out of memory (both lists then unchanged). */
int sc_finding_list_append(sc_finding_list *to, sc_finding_list *from);
/* Frees the marks only: the items stay (they go to the analysis). */
void sc_finding_list_drop_marks(sc_finding_list *list);
/* Frees the fixes only. */
void sc_finding_list_drop_fixes(sc_finding_list *list);
/* Frees the list, its findings' titles and texts included. */
void sc_finding_list_free(sc_finding_list *list);
/* Frees one finding's title and texts (the finding itself is the caller's). */
void sc_finding_free_texts(sc_finding *finding);

#endif
