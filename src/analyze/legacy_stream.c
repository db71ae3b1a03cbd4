/* Rule "legacy-stream": device work issued to the legacy NULL stream.
 *
 * The legacy stream synchronizes with every *blocking* stream of its device (one made by
 * cudaStreamCreate): work issued to it waits for blocking-stream work already in flight, and
 * blocking-stream work issued after it waits for it. Non-blocking streams are unaffected, so
 * a PyTorch-style program (legacy stream + non-blocking side streams) serializes nothing.
 *
 * One pass over the legacy and blocking work of each device in issue order. The state is the
 * latest end of each kind issued so far (the only in-flight item a newcomer can wait for is
 * the one that ends last) and the last end per stream (a wait covered by the item's own
 * stream being busy is not the legacy stream's fault).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/rules.h"

#define SC_LEGACY_TOLERANCE_NS 1000u    /* clock noise between "ended" and "started" */
#define SC_LEGACY_NONE ((size_t)-1)

static const char *const sc_legacy_fix =
    "create streams with cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), or move this "
    "work off the legacy stream (nvcc --default-stream per-thread)";
static const char *const sc_legacy_fix_note =
    "nothing to change while no blocking stream runs beside it; nvcc --default-stream "
    "per-thread makes the default stream independent";

enum sc_legacy_work { SC_WORK_KERNEL, SC_WORK_MEMCPY, SC_WORK_MEMSET };

typedef struct sc_legacy_item {
    uint64_t issue_ns, start_ns, end_ns;
    const sc_api_call *call;
    size_t slot;                /* index into analysis->streams */
    uint32_t device;
    uint8_t legacy;             /* 1: legacy stream, 0: blocking stream */
    uint8_t work;               /* enum sc_legacy_work */
    size_t order;               /* record order, for ties */
    uint64_t wait_ns;           /* how long it waited for the other kind */
    size_t waited_on;           /* position of the item it waited for, or SC_LEGACY_NONE */
    uint64_t caused_ns;         /* legacy items: waits of blocking work behind it */
} sc_legacy_item;

typedef struct sc_legacy_set {
    sc_legacy_item *items;
    size_t n;
} sc_legacy_set;

static int sc_legacy_item_cmp(const void *pa, const void *pb)
{
    const sc_legacy_item *x = pa, *y = pb;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->issue_ns != y->issue_ns)
        return x->issue_ns < y->issue_ns ? -1 : 1;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Adds one piece of device work when its stream is legacy or blocking. */
static void sc_legacy_consider(const sc_ctx *ctx, sc_legacy_set *set, uint32_t device,
                               uint32_t context_id, uint32_t stream_id, uint64_t start,
                               uint64_t end, uint32_t correlation_id, uint8_t work,
                               size_t order)
{
    const sc_stream_summary *s = sc_ctx_stream(ctx, device, context_id, stream_id);
    if (!s || (s->flag != SC_STREAM_FLAG_LEGACY && s->flag != SC_STREAM_FLAG_BLOCKING))
        return;
    const sc_api_call *call = sc_ctx_call(ctx, correlation_id);
    set->items[set->n++] = (sc_legacy_item){
        .issue_ns = call ? call->rec.start_ns : start, .start_ns = start,
        .end_ns = end > start ? end : start, .call = call,
        .slot = (size_t)(s - ctx->analysis->streams), .device = device,
        .legacy = s->flag == SC_STREAM_FLAG_LEGACY, .work = work, .order = order,
        .waited_on = SC_LEGACY_NONE};
}

static int sc_legacy_collect(const sc_ctx *ctx, sc_legacy_set *set)
{
    const sc_trace *t = ctx->trace;
    size_t n = t->n_kernels + t->n_copies + t->n_memsets, order = 0;
    set->items = malloc((n ? n : 1) * sizeof(*set->items));
    set->n = 0;
    if (!set->items)
        return -1;
    for (size_t i = 0; i < t->n_kernels; i++, order++) {
        const sc_rec_kernel *r = &t->kernels[i].rec;
        sc_legacy_consider(ctx, set, r->device, r->context_id, r->stream_id, r->start_ns,
                           r->end_ns, r->correlation_id, SC_WORK_KERNEL, order);
    }
    for (size_t i = 0; i < t->n_copies; i++, order++) {
        const sc_rec_memcpy *r = &t->copies[i];
        sc_legacy_consider(ctx, set, r->device, r->context_id, r->stream_id, r->start_ns,
                           r->end_ns, r->correlation_id, SC_WORK_MEMCPY, order);
    }
    for (size_t i = 0; i < t->n_memsets; i++, order++) {
        const sc_rec_memset *r = &t->memsets[i];
        sc_legacy_consider(ctx, set, r->device, r->context_id, r->stream_id, r->start_ns,
                           r->end_ns, r->correlation_id, SC_WORK_MEMSET, order);
    }
    qsort(set->items, set->n, sizeof(*set->items), sc_legacy_item_cmp);
    return 0;
}

/* Per device and kind: the latest end among the work issued so far, and whose it is. */
typedef struct sc_legacy_front {
    uint64_t end_ns;
    size_t pos;                 /* SC_LEGACY_NONE before any work */
} sc_legacy_front;

/* How long item x waited for work of the other kind in flight when it was issued. */
static void sc_legacy_measure(sc_legacy_item *x, const sc_legacy_front *other,
                              uint64_t own_stream_end)
{
    if (other->pos == SC_LEGACY_NONE || other->end_ns <= x->issue_ns)
        return;     /* nothing of the other kind in flight */
    if (x->start_ns + SC_LEGACY_TOLERANCE_NS < other->end_ns)
        return;     /* it started before that work ended: it did not wait for it */
    uint64_t from = x->issue_ns > own_stream_end ? x->issue_ns : own_stream_end;
    uint64_t to = x->start_ns < other->end_ns ? x->start_ns : other->end_ns;
    if (to > from) {
        x->wait_ns = to - from;
        x->waited_on = other->pos;
    }
}

/* The pass: items are sorted by device, then issue time. */
static int sc_legacy_sweep(const sc_ctx *ctx, sc_legacy_set *set)
{
    uint64_t *stream_end = calloc(ctx->analysis->n_streams + 1, sizeof(uint64_t));
    if (!stream_end)
        return -1;
    sc_legacy_front front[2];   /* [0] blocking, [1] legacy */
    for (size_t i = 0; i < set->n; i++) {
        sc_legacy_item *x = &set->items[i];
        if (i == 0 || x->device != set->items[i - 1].device)
            front[0] = front[1] = (sc_legacy_front){0, SC_LEGACY_NONE};
        sc_legacy_measure(x, &front[!x->legacy], stream_end[x->slot]);
        if (x->wait_ns > 0 && !x->legacy)
            set->items[x->waited_on].caused_ns += x->wait_ns;
        sc_legacy_front *own = &front[x->legacy];
        if (own->pos == SC_LEGACY_NONE || x->end_ns > own->end_ns)
            *own = (sc_legacy_front){x->end_ns, i};
        if (x->end_ns > stream_end[x->slot])
            stream_end[x->slot] = x->end_ns;
    }
    free(stream_end);
    return 0;
}

/* ---- reporting ------------------------------------------------------------------------ */

typedef struct sc_legacy_totals {
    uint64_t operations, serialized, wait_ns, worst_wait_ns, blocking_work;
    bool *involved;             /* per stream slot: a blocking stream that took part */
    size_t n_involved;
} sc_legacy_totals;

static const char *sc_legacy_work_name(uint8_t work)
{
    static const char *const names[] = {"kernel", "memcpy", "memset"};
    return names[work];
}

/* The blocking stream a wait involved: the other item's for a legacy item, its own else. */
static uint32_t sc_legacy_blocking_stream(const sc_ctx *ctx, const sc_legacy_set *set,
                                          const sc_legacy_item *x)
{
    const sc_legacy_item *b = x->legacy ? &set->items[x->waited_on] : x;
    return ctx->analysis->streams[b->slot].stream_id;
}

static void sc_legacy_count(const sc_legacy_set *set, sc_legacy_totals *tot)
{
    for (size_t i = 0; i < set->n; i++) {
        const sc_legacy_item *x = &set->items[i];
        tot->operations += x->legacy;
        tot->blocking_work += !x->legacy;
        if (x->wait_ns == 0)
            continue;
        tot->serialized++;
        tot->wait_ns += x->wait_ns;
        if (x->wait_ns > tot->worst_wait_ns)
            tot->worst_wait_ns = x->wait_ns;
        size_t slot = x->legacy ? set->items[x->waited_on].slot : x->slot;
        if (!tot->involved[slot]) {
            tot->involved[slot] = true;
            tot->n_involved++;
        }
    }
}

/* One instance per legacy operation; its cost is its own wait plus the waits it caused. */
static void sc_legacy_instance(const sc_ctx *ctx, const sc_legacy_set *set,
                               const sc_legacy_item *x, sc_instance *inst)
{
    memset(inst, 0, sizeof(*inst));
    inst->start_ns = x->start_ns;
    inst->end_ns = x->end_ns;
    inst->cost_ns = x->wait_ns + x->caused_ns;
    inst->call = x->call;
    const char *what = sc_legacy_work_name(x->work);
    if (x->wait_ns > 0)
        snprintf(inst->text, sizeof(inst->text),
                 "%s on the legacy stream waited %.1f us for blocking stream %u", what,
                 sc_ns_to_us(x->wait_ns), sc_legacy_blocking_stream(ctx, set, x));
    else if (x->caused_ns > 0)
        snprintf(inst->text, sizeof(inst->text),
                 "%s on the legacy stream held back blocking-stream work for %.1f us", what,
                 sc_ns_to_us(x->caused_ns));
    else
        snprintf(inst->text, sizeof(inst->text), "%s on the legacy stream", what);
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
        f->severity = SC_SEV_ERROR;
        snprintf(f->title, sizeof(f->title),
                 "legacy stream serialized with blocking stream(s) %s: %llu operations "
                 "waited %.3f ms",
                 streams, (unsigned long long)tot->serialized, tot->wait_ns / 1e6);
    } else if (tot->blocking_work > 0) {
        f->severity = SC_SEV_WARNING;
        f->fix = sc_legacy_fix;
        snprintf(f->title, sizeof(f->title),
                 "%llu operations on the legacy stream beside blocking streams; nothing "
                 "serialized in this run", ops);
    } else {
        f->severity = SC_SEV_NOTE;
        f->fix = sc_legacy_fix_note;
        snprintf(f->title, sizeof(f->title),
                 "%llu operations on the legacy stream; nothing serialized", ops);
    }
    sc_finding_total(b, "operations", (double)tot->operations, "count");
    sc_finding_total(b, "serialized", (double)tot->serialized, "count");
    sc_finding_total(b, "wait_us", sc_ns_to_us(tot->wait_ns), "us");
    sc_finding_total(b, "worst_wait_us", sc_ns_to_us(tot->worst_wait_ns), "us");
    sc_finding_total(b, "blocking_streams", (double)tot->n_involved, "count");
}

static int sc_legacy_report(const sc_ctx *ctx, const sc_legacy_set *set, sc_finding_list *out)
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
        if (!set->items[i].legacy)
            continue;
        sc_instance inst;
        sc_legacy_instance(ctx, set, &set->items[i], &inst);
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
    sc_legacy_set set = {0};
    int rc = sc_legacy_collect(ctx, &set);
    if (rc == 0)
        rc = sc_legacy_sweep(ctx, &set);
    if (rc == 0)
        rc = sc_legacy_report(ctx, &set, out);
    free(set.items);
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "legacy-stream: out of memory");
    return rc;
}
