/* sc_analyze(): builds the shared context (context.c), then runs every rule of the table,
 * prices the findings (costs.c) and sorts them. */
#include "streamcheck/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/costs.h"
#include "analyze/findings.h"
#include "analyze/fork_join.h"
#include "analyze/internal.h"
#include "analyze/kernel_names.h"
#include "analyze/legacy_waits.h"
#include "analyze/ranges.h"
#include "analyze/rules.h"
#include "analyze/stage_clock.h"

/* Adding a rule: write src/analyze/<rule>.c, declare it in rules.h, add it here. */
static const sc_rule sc_rules[] = {
    SC_RULE("legacy-stream", sc_rule_legacy_stream),
    SC_RULE("pageable-async", sc_rule_pageable_async),
    SC_RULE("implicit-sync", sc_rule_implicit_sync),
    SC_RULE_BESIDE("host-sync", sc_rule_host_sync),
    SC_RULE("serializing-env", sc_rule_serializing_env),
    SC_RULE("blocking-stream", sc_rule_blocking_stream),
    SC_RULE("lazy-loading", sc_rule_lazy_loading),
    SC_RULE("no-room", sc_rule_no_room),
    SC_RULE("host-func", sc_rule_host_func),
    SC_RULE("priority", sc_rule_priority),
    SC_RULE("managed-faults", sc_rule_managed_faults),
    SC_RULE("pin-per-step", sc_rule_pin_per_step),
    SC_RULE("hardware-queue", sc_rule_hardware_queue),
    SC_RULE("peer-access", sc_rule_peer_access),
    SC_RULE("cross-device-wait", sc_rule_cross_device),
};
#define SC_N_RULES (sizeof(sc_rules) / sizeof(sc_rules[0]))

size_t sc_rule_count(void)
{
    return SC_N_RULES;
}

const char *sc_rule_id(size_t i)
{
    return i < sc_rule_count() ? sc_rules[i].id : NULL;
}

const char *sc_severity_name(sc_severity severity)
{
    switch (severity) {
    case SC_SEV_NOTE: return "note";
    case SC_SEV_WARNING: return "warning";
    case SC_SEV_ERROR: return "error";
    }
    return "?";
}

/* ---- entry points ------------------------------------------------------------------- */

/* The rules of one thread: the table's rules that are (or are not) `beside`, each into its
 * own list (sc_rules_each joins them in the table's order). */
typedef struct sc_rule_run {
    const sc_ctx *ctx;
    bool beside;
    sc_finding_list *lists;     /* per table entry */
    char err[256];
} sc_rule_run;

static int sc_rules_some(void *arg)
{
    sc_rule_run *run = arg;
    for (size_t i = 0; i < SC_N_RULES; i++) {
        if (sc_rules[i].beside != run->beside)
            continue;
        if (sc_rules[i].run(run->ctx, &run->lists[i], run->err, sizeof run->err) != 0)
            return -1;
        sc_stage_mark(sc_rules[i].stage);
    }
    return 0;
}

/* Each rule of the table, with the measures two rules share made once for them; the rules
 * marked beside on a second thread when the analysis may use one (fork_join.h), their
 * stages after the others'. The findings come out in the table's order either way. */
static int sc_rules_each(sc_ctx *ctx, sc_finding_list *list, char *err, size_t err_size)
{
    sc_legacy_waits legacy = {0};
    if (sc_legacy_waits_compute(ctx, &legacy) != 0) {
        if (err && err_size)
            snprintf(err, err_size, "legacy-stream: out of memory");
        return -1;
    }
    ctx->legacy_waits = &legacy;
    sc_stage_mark("rules: legacy waits");
    sc_finding_list lists[SC_N_RULES] = {0};
    sc_rule_run here = {.ctx = ctx, .beside = false, .lists = lists};
    sc_rule_run there = {.ctx = ctx, .beside = true, .lists = lists};
    int rc = sc_fork_join(ctx->two_threads, (sc_part){sc_rules_some, &here},
                          (sc_part){sc_rules_some, &there});
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "%s", here.err[0] ? here.err : there.err);
    for (size_t i = 0; i < SC_N_RULES; i++) {
        if (rc == 0 && sc_finding_list_append(list, &lists[i]) != 0) {
            if (err && err_size)
                snprintf(err, err_size, "findings: out of memory");
            rc = -1;
        }
        sc_finding_list_free(&lists[i]);
    }
    ctx->legacy_waits = NULL;
    sc_legacy_waits_free(&legacy);
    return rc;
}

static int sc_rules_run(sc_ctx *ctx, sc_analysis *a, char *err, size_t err_size)
{
    sc_finding_list list = {0};
    if (sc_rules_each(ctx, &list, err, err_size) != 0) {
        sc_finding_list_free(&list);
        return -1;
    }
    sc_ctx_free_rule_indexes(ctx);    /* the replay below builds its graph in that room */
    uint64_t *walls = NULL;
    if (sc_costs_compute(ctx, &list, &a->replay, &walls) != 0 ||
        sc_finding_list_sort(&list) != 0) {
        sc_finding_list_free(&list);
        free(walls);
        if (err && err_size)
            snprintf(err, err_size, "findings: out of memory");
        return -1;
    }
    sc_stage_mark("cost passes");
    sc_finding_list_drop_fixes(&list);
    a->findings = list.items;
    a->n_findings = list.n;
    /* ranges count findings from their instances' marks, which only the list holds */
    int rc = sc_ranges_build(ctx, &list, a);
    sc_stage_mark("ranges");
    sc_finding_list_drop_marks(&list);
    for (size_t i = 0; rc == 0 && walls && i < a->n_ranges; i++) {
        size_t g = (size_t)(a->ranges[i].range - ctx->trace->ranges);
        a->ranges[i].replay_wall_ns = walls[2 * g];
        a->ranges[i].fixed_wall_ns = walls[2 * g + 1];
    }
    free(walls);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "NVTX ranges: out of memory");
    return rc;
}

int sc_analyze_with(const sc_trace *trace, const sc_analyze_options *opt, sc_analysis *out,
                    char *err, size_t err_size)
{
    memset(out, 0, sizeof(*out));
    if (err && err_size)
        err[0] = '\0';
    out->trace = trace;
    sc_ctx ctx = {.trace = trace, .analysis = out, .two_threads = opt && opt->two_threads};
    int rc = sc_ctx_build(&ctx, out);
    if (rc == 0 && opt && opt->kernel_name) {
        ctx.kernel_names = sc_kernel_names_new(opt->kernel_name);
        rc = ctx.kernel_names ? 0 : -1;
    }
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "%s: out of memory while analyzing",
                 trace->path ? trace->path : "trace");
    if (rc == 0)
        rc = sc_rules_run(&ctx, out, err, err_size);
    sc_kernel_names_free(ctx.kernel_names);    /* the titles hold copies */
    sc_ctx_free(&ctx);
    if (rc != 0)
        sc_analysis_free(out);
    return rc;
}

int sc_analyze(const sc_trace *trace, sc_analysis *out, char *err, size_t err_size)
{
    return sc_analyze_with(trace, NULL, out, err, err_size);
}

void sc_analysis_free(sc_analysis *analysis)
{
    if (!analysis)
        return;
    for (size_t d = 0; analysis->devices && d < analysis->n_devices; d++)
        free(analysis->devices[d].intervals);
    free(analysis->devices);
    free(analysis->streams);
    for (size_t f = 0; analysis->findings && f < analysis->n_findings; f++)
        sc_finding_free_texts(&analysis->findings[f]);
    free(analysis->findings);
    free(analysis->ranges);
    free(analysis->range_names);
    memset(analysis, 0, sizeof(*analysis));
}
