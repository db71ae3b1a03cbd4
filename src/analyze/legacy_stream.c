/* Rule "legacy-stream": device work issued to the legacy NULL stream.
 *
 * The legacy stream synchronizes with every blocking stream of its device (one made by
 * cudaStreamCreate, or a per-thread default stream): work issued to it waits for such work
 * already in flight, and such work issued after it waits for it. Non-blocking streams are
 * unaffected, so a PyTorch-style program (legacy stream + non-blocking side streams)
 * serializes nothing. The waits are measured once in legacy_waits.c (shared with the rule
 * blocking-stream); this file charges them to the legacy operations and reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/legacy_waits.h"
#include "analyze/rules.h"
#include "analyze/work.h"
#include "streamcheck/units.h"

static const char *const sc_legacy_fix =
    "create streams with cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), or move this "
    "work off the legacy stream (nvcc --default-stream per-thread)";
static const char *const sc_legacy_fix_note =
    "nothing to change while no blocking stream runs beside it; nvcc --default-stream "
    "per-thread makes the default stream independent";

/* ---- reporting ------------------------------------------------------------------------ */

typedef struct sc_legacy_totals {
    uint64_t operations, serialized, wait_ns, worst_wait_ns, blocking_work;
    bool *involved;             /* per stream slot: a blocking stream that took part */
    size_t n_involved;
} sc_legacy_totals;

/* The blocking stream a wait involved: the other item's for a legacy item, its own else. */
static uint32_t sc_legacy_blocking_stream(const sc_ctx *ctx, const sc_legacy_waits *set,
                                          const sc_legacy_op *x)
{
    return ctx->analysis->streams[sc_legacy_waits_blocking_slot(set, x)].stream_id;
}

static void sc_legacy_count(const sc_legacy_waits *set, sc_legacy_totals *tot)
{
    for (size_t i = 0; i < set->n; i++) {
        const sc_legacy_op *x = &set->ops[i];
        tot->operations += x->legacy;
        tot->blocking_work += !x->legacy;
        if (x->wait_ns == 0)
            continue;
        tot->serialized++;
        tot->wait_ns += x->wait_ns;
        if (x->wait_ns > tot->worst_wait_ns)
            tot->worst_wait_ns = x->wait_ns;
        size_t slot = sc_legacy_waits_blocking_slot(set, x);
        if (!tot->involved[slot]) {
            tot->involved[slot] = true;
            tot->n_involved++;
        }
    }
}

/* One instance per legacy operation; its cost is its own wait plus the waits it caused. */
static void sc_legacy_instance(const sc_ctx *ctx, const sc_legacy_waits *set,
                               const sc_legacy_op *x, sc_instance *inst)
{
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = x->start_ns;
    inst->end_ns = x->end_ns;
    inst->cost_ns = x->wait_ns + x->caused_ns;
    inst->call = x->call;
    const char *what = sc_work_kind_name(x->work);
    char t1[SC_FMT_SIZE];
    if (x->wait_ns > 0)
        sc_text_append(&inst->text, "%s on the legacy stream waited %s for blocking stream %u",
                       what, sc_fmt_ns(x->wait_ns, t1), sc_legacy_blocking_stream(ctx, set, x));
    else if (x->caused_ns > 0)
        sc_text_append(&inst->text,
                       "%s on the legacy stream held back blocking-stream work for %s", what,
                       sc_fmt_ns(x->caused_ns, t1));
    else
        sc_text_append(&inst->text, "%s on the legacy stream", what);
    sc_instance_evidence(inst, "duration_us", sc_ns_to_us(x->end_ns - x->start_ns), "us");
    sc_instance_evidence(inst, "wait_us", sc_ns_to_us(x->wait_ns), "us");
    sc_instance_evidence(inst, "caused_wait_us", sc_ns_to_us(x->caused_ns), "us");
    if (x->wait_ns > 0)
        sc_instance_evidence(inst, "blocking_stream", sc_legacy_blocking_stream(ctx, set, x),
                             "");
}

/* "13, 14" for the title: the blocking streams involved, the first few. */
static void sc_legacy_stream_list(const sc_ctx *ctx, const sc_legacy_totals *tot, char *buf,
                                  size_t size)
{
    size_t used = 0, shown = 0;
    buf[0] = '\0';
    for (size_t s = 0; s < ctx->analysis->n_streams && used < size; s++) {
        if (!tot->involved[s])
            continue;
        if (shown == 4) {
            snprintf(buf + used, size - used, ", ...");
            break;
        }
        int w = snprintf(buf + used, size - used, "%s%u", shown ? ", " : "",
                         ctx->analysis->streams[s].stream_id);
        used += w > 0 ? (size_t)w : 0;
        shown++;
    }
}

static void sc_legacy_conclude(const sc_ctx *ctx, const sc_legacy_totals *tot,
                               sc_finding_builder *b)
{
    sc_finding *f = &b->finding;
    unsigned long long ops = (unsigned long long)tot->operations;
    if (tot->wait_ns > 0) {
        char streams[64];
        sc_legacy_stream_list(ctx, tot, streams, sizeof(streams));
        char t1[SC_FMT_SIZE];
        sc_text_append(&f->title,
                       "legacy stream serialized with blocking stream(s) %s: %llu operations "
                       "waited %s",
                       streams, (unsigned long long)tot->serialized, sc_fmt_ns(tot->wait_ns, t1));
    } else if (tot->blocking_work > 0) {
        f->fix = sc_legacy_fix;
        sc_text_append(&f->title,
                       "%llu operations on the legacy stream beside blocking streams; nothing "
                       "serialized in this run", ops);
    } else {
        f->fix = sc_legacy_fix_note;
        sc_text_append(&f->title, "%llu operations on the legacy stream; nothing serialized",
                       ops);
    }
    sc_finding_total(b, "operations", (double)tot->operations, "count");
    sc_finding_total(b, "serialized", (double)tot->serialized, "count");
    sc_finding_total(b, "wait_us", sc_ns_to_us(tot->wait_ns), "us");
    sc_finding_total(b, "worst_wait_us", sc_ns_to_us(tot->worst_wait_ns), "us");
    sc_finding_total(b, "blocking_streams", (double)tot->n_involved, "count");
}

static int sc_legacy_report(const sc_ctx *ctx, const sc_legacy_waits *set, sc_finding_list *out)
{
    sc_legacy_totals tot = {0};
    tot.involved = calloc(ctx->analysis->n_streams + 1, sizeof(bool));
    if (!tot.involved)
        return -1;
    sc_legacy_count(set, &tot);
    if (tot.operations == 0) {
        free(tot.involved);
        return 0;
    }
    sc_finding_builder b;
    sc_finding_begin(&b, "legacy-stream", sc_legacy_fix);
    int rc = 0;
    for (size_t i = 0; i < set->n && rc == 0; i++) {
        const sc_legacy_op *op = &set->ops[i];
        /* the fix: the streams that waited or were waited for no longer sync with it */
        if (op->wait_ns > 0)
            rc = sc_finding_fix(&b, SC_FIX_BARRIER, sc_legacy_waits_blocking_slot(set, op));
        if (rc != 0 || !op->legacy)
            continue;
        sc_instance inst;
        sc_legacy_instance(ctx, set, op, &inst);
        rc = sc_finding_add(&b, &inst);
    }
    sc_legacy_conclude(ctx, &tot, &b);
    free(tot.involved);
    if (rc != 0) {
        sc_finding_discard(&b);
        return -1;
    }
    return sc_finding_finish(&b, ctx, out);
}

int sc_rule_legacy_stream(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    int rc = sc_legacy_report(ctx, ctx->legacy_waits, out);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "legacy-stream: out of memory");
    return rc;
}
