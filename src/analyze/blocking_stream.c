/* Rule "blocking-stream": a stream the program created without cudaStreamNonBlocking.
 *
 * Such a stream (cudaStreamCreate, or cudaStreamCreateWithFlags with cudaStreamDefault)
 * synchronizes with the legacy NULL stream: legacy work waits for it and it waits for legacy
 * work. The harm is only real when the legacy stream is used too, so the rule reports what
 * this run showed, per stream:
 *   error    legacy-stream work serialized against it; cost = the waits attributed to it
 *            (both directions, as measured by legacy_waits.c, the legacy-stream rule's own
 *            measure)
 *   warning  it had work and so did the legacy stream of its device, but nothing waited: a
 *            risk that timing alone kept away
 *   note     the legacy stream of its device ran nothing, or the stream itself ran nothing:
 *            harmless in this run
 * Only streams with a creating call are judged: CUDA's own internal streams and per-thread
 * default streams have none, and the program cannot change how they were made. Streams of
 * one severity are one finding; each stream is an instance whose call is its creation site.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/legacy_waits.h"
#include "analyze/rules.h"
#include "analyze/stream_kind.h"
#include "streamcheck/units.h"

static const char *const sc_blocking_stream_fix =
    "create the stream with cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)";
static const char *const sc_blocking_stream_fix_note =
    "nothing lost in this run; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) keeps the "
    "stream independent should legacy-stream work appear (a library, a synchronous cudaMemcpy)";

/* What the legacy waits say about each stream slot and each device. */
typedef struct sc_bs_tally {
    uint64_t *wait_ns;          /* per slot: waits attributed to it */
    uint64_t *serialized;       /* per slot: how many operations waited */
    uint64_t *legacy_ops;       /* per analysis->devices entry: legacy operations */
} sc_bs_tally;

/* The analysis->devices entry of a device ordinal; n_devices for a stream whose device the
 * trace could not tell (a STREAM record of a context that ran nothing). */
static size_t sc_bs_device(const sc_ctx *ctx, uint32_t device)
{
    size_t i = 0;
    while (i < ctx->analysis->n_devices && ctx->analysis->devices[i].device != device)
        i++;
    return i;
}

static uint64_t sc_bs_legacy_ops(const sc_ctx *ctx, const sc_bs_tally *t, size_t slot)
{
    return t->legacy_ops[sc_bs_device(ctx, ctx->analysis->streams[slot].device)];
}

static void sc_bs_tally_free(sc_bs_tally *t)
{
    free(t->wait_ns);
    free(t->serialized);
    free(t->legacy_ops);
}

static int sc_bs_tally_build(const sc_ctx *ctx, const sc_legacy_waits *w, sc_bs_tally *t)
{
    size_t n = ctx->analysis->n_streams + 1;
    t->wait_ns = calloc(n, sizeof(uint64_t));
    t->serialized = calloc(n, sizeof(uint64_t));
    t->legacy_ops = calloc(ctx->analysis->n_devices + 1, sizeof(uint64_t));
    if (!t->wait_ns || !t->serialized || !t->legacy_ops)
        return -1;
    for (size_t i = 0; i < w->n; i++) {
        const sc_legacy_op *op = &w->ops[i];
        if (op->legacy)
            t->legacy_ops[sc_bs_device(ctx, op->device)]++;
        if (op->wait_ns == 0)
            continue;
        size_t slot = sc_legacy_waits_blocking_slot(w, op);
        t->wait_ns[slot] += op->wait_ns;
        t->serialized[slot]++;
    }
    return 0;
}

static bool sc_bs_applies(const sc_stream_summary *s)
{
    return s->flag == SC_STREAM_FLAG_BLOCKING && !s->per_thread && s->created_by != NULL;
}

static uint64_t sc_bs_work(const sc_stream_summary *s)
{
    return s->overlap.kernel_count + s->copy_count + s->memset_count;
}

static sc_severity sc_bs_severity(const sc_ctx *ctx, const sc_bs_tally *t, size_t slot)
{
    if (t->wait_ns[slot] > 0)
        return SC_SEV_ERROR;
    if (sc_bs_work(&ctx->analysis->streams[slot]) > 0 && sc_bs_legacy_ops(ctx, t, slot) > 0)
        return SC_SEV_WARNING;
    return SC_SEV_NOTE;
}

static void sc_bs_instance(const sc_ctx *ctx, const sc_bs_tally *t, size_t slot,
                           sc_instance *inst)
{
    const sc_stream_summary *s = &ctx->analysis->streams[slot];
    memset(inst, 0, sizeof(*inst));
    inst->call = s->created_by;
    inst->start_ns = s->created_by->rec.start_ns;
    inst->end_ns = sc_call_end(ctx->trace, s->created_by);
    inst->cost_ns = t->wait_ns[slot];
    unsigned long long work = (unsigned long long)sc_bs_work(s);
    unsigned long long legacy = (unsigned long long)sc_bs_legacy_ops(ctx, t, slot);
    switch (sc_bs_severity(ctx, t, slot)) {
    case SC_SEV_ERROR: {
        char t1[SC_FMT_SIZE];
        sc_text_append(&inst->text,
                       "blocking stream %u: %llu operations serialized with the legacy stream, "
                       "%s of waits", s->stream_id, (unsigned long long)t->serialized[slot],
                       sc_fmt_ns(t->wait_ns[slot], t1));
        break;
    }
    case SC_SEV_WARNING:
        sc_text_append(&inst->text,
                       "blocking stream %u ran %llu operations beside %llu on the legacy "
                       "stream; nothing serialized in this run", s->stream_id, work, legacy);
        break;
    default:
        if (work)
            sc_text_append(&inst->text,
                           "blocking stream %u: the legacy stream of device %u ran nothing",
                           s->stream_id, s->device);
        else
            sc_text_append(&inst->text, "blocking stream %u ran nothing (device %u)",
                           s->stream_id, s->device);
        break;
    }
    sc_instance_evidence(inst, "stream", s->stream_id, "");
    sc_instance_evidence(inst, "operations", (double)work, "count");
    sc_instance_evidence(inst, "legacy_operations", (double)legacy, "count");
    sc_instance_evidence(inst, "serialized", (double)t->serialized[slot], "count");
    sc_instance_evidence(inst, "wait_us", sc_ns_to_us(t->wait_ns[slot]), "us");
}

/* "13, 14" : the streams of one severity, the first few. */
static void sc_bs_stream_list(const sc_ctx *ctx, const sc_bs_tally *t, sc_severity sev,
                              char *buf, size_t size)
{
    size_t used = 0, shown = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ctx->analysis->n_streams && used < size; i++) {
        const sc_stream_summary *s = &ctx->analysis->streams[i];
        if (!sc_bs_applies(s) || sc_bs_severity(ctx, t, i) != sev)
            continue;
        if (shown == 4) {
            snprintf(buf + used, size - used, ", ...");
            break;
        }
        int w = snprintf(buf + used, size - used, "%s%u", shown ? ", " : "", s->stream_id);
        used += w > 0 ? (size_t)w : 0;
        shown++;
    }
}

static void sc_bs_conclude(const sc_ctx *ctx, const sc_bs_tally *t, sc_severity sev,
                           uint64_t serialized, sc_finding_builder *b)
{
    sc_finding *f = &b->finding;
    char list[64];
    sc_bs_stream_list(ctx, t, sev, list, sizeof(list));
    f->severity = sev;
    char t1[SC_FMT_SIZE];
    if (sev == SC_SEV_ERROR)
        sc_text_append(&f->title,
                       "blocking stream(s) %s serialized with legacy-stream work: %llu "
                       "operations waited %s", list, (unsigned long long)serialized,
                       sc_fmt_ns(f->waited_ns, t1));
    else if (sev == SC_SEV_WARNING)
        sc_text_append(&f->title,
                       "blocking stream(s) %s ran beside legacy-stream work; nothing serialized "
                       "in this run", list);
    else
        sc_text_append(&f->title,
                       "blocking stream(s) %s created without cudaStreamNonBlocking; harmless "
                       "in this run", list);
    if (sev == SC_SEV_NOTE)
        f->fix = sc_blocking_stream_fix_note;
    sc_finding_total(b, "streams", (double)f->count, "count");
    sc_finding_total(b, "serialized", (double)serialized, "count");
    sc_finding_total(b, "wait_us", sc_ns_to_us(f->waited_ns), "us");
}

/* One finding for the streams of one severity, none when there are none. */
static int sc_bs_report(const sc_ctx *ctx, const sc_bs_tally *t, sc_severity sev,
                        sc_finding_list *out)
{
    sc_finding_builder b;
    sc_finding_begin(&b, "blocking-stream", sc_blocking_stream_fix);
    uint64_t serialized = 0;
    int rc = 0;
    for (size_t i = 0; i < ctx->analysis->n_streams && rc == 0; i++) {
        const sc_stream_summary *s = &ctx->analysis->streams[i];
        if (!sc_bs_applies(s) || sc_bs_severity(ctx, t, i) != sev)
            continue;
        sc_instance inst;
        sc_bs_instance(ctx, t, i, &inst);
        serialized += t->serialized[i];
        rc = sc_finding_add(&b, &inst);
        if (rc == 0)    /* the fix: this stream made non-blocking */
            rc = sc_finding_fix(&b, SC_FIX_BARRIER, i);
    }
    if (rc != 0 || !b.has_instance) {
        sc_finding_discard(&b);
        return rc;
    }
    sc_bs_conclude(ctx, t, sev, serialized, &b);
    return sc_finding_finish(&b, ctx, out);
}

int sc_rule_blocking_stream(const sc_ctx *ctx, sc_finding_list *out, char *err, size_t err_size)
{
    sc_bs_tally t = {0};
    int rc = sc_bs_tally_build(ctx, ctx->legacy_waits, &t);
    for (int sev = SC_SEV_ERROR; rc == 0 && sev >= SC_SEV_NOTE; sev--)
        rc = sc_bs_report(ctx, &t, (sc_severity)sev, out);
    sc_bs_tally_free(&t);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "blocking-stream: out of memory");
    return rc;
}
