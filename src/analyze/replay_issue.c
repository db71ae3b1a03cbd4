/* The replay's issue orders, merged (replay_parts.h, sc_rp_issue_orders): each stream slot's
 * work and each device's in issue order (issue time, recorded start, position).
 *
 * They were sorts: every device's work by its issue time (order_by_time.h, 31M instructions
 * of 43.5M at 1M records, with a key a piece and the sort's scratch), each slot's order read
 * off its device's after. But a stream runs its work in the order it was issued, and the
 * trace's loader keeps each kind of work in start order: a slot's kernels, in position
 * order, are already in issue order, and so are its copies and its memsets. Each slot's work,
 * dealt to it in position order, is a few ascending runs, merged; each device's order is the
 * merge of its slots' (through a tree of losers when they are many: a program of many host
 * threads). A slot of many runs (work the loader did not order, work without its call issued
 * out of turn), or work of no known stream on several devices: sorted as before
 * (sc_rp_issue_sort). */
#include <stdlib.h>
#include <string.h>

#include "analyze/replay_parts.h"

#define SC_RP_ISSUE_RUNS 16     /* lists merged through a row of heads; more through a tree */

/* A list being merged: what is left of it. */
typedef struct sc_rp_issue_run {
    const int32_t *next, *end;
} sc_rp_issue_run;

/* A piece's key: issue time, recorded start, position. */
typedef struct sc_rp_issue_key {
    uint64_t issue, start;
    int32_t op;
    uint32_t run;               /* in a merge: the list it heads */
} sc_rp_issue_key;

static inline bool sc_rp_issue_before(const sc_rp_issue_key *a, const sc_rp_issue_key *b)
{
    if (a->issue != b->issue)
        return a->issue < b->issue;
    if (a->start != b->start)
        return a->start < b->start;
    return a->op < b->op;
}

static inline sc_rp_issue_key sc_rp_issue_key_of(const sc_replay *r, int32_t op, uint32_t run)
{
    return (sc_rp_issue_key){sc_rp_issue(r, op), sc_rp_rec_start(r, op), op, run};
}

/* Two lists (the usual slot: its kernels and its copies) merged into out; false when one
 * turns out not to be in issue order (out then holds nothing of use). */
static bool sc_rp_issue_merge2(const sc_replay *r, const sc_rp_issue_run *runs,
                               int32_t *restrict out)
{
    const int32_t *a = runs[0].next, *ae = runs[0].end, *b = runs[1].next, *be = runs[1].end;
    sc_rp_issue_key ka = sc_rp_issue_key_of(r, *a, 0);
    sc_rp_issue_key kb = sc_rp_issue_key_of(r, *b, 1);
    for (;;) {
        if (sc_rp_issue_before(&kb, &ka)) {
            *out++ = *b;
            if (++b == be)
                break;
            sc_rp_issue_key prev = kb;
            kb = sc_rp_issue_key_of(r, *b, 1);
            if (sc_rp_issue_before(&kb, &prev))
                return false;
        } else {
            *out++ = *a;
            if (++a == ae) {
                a = b;      /* the rest of b follows */
                ae = be;
                break;
            }
            sc_rp_issue_key prev = ka;
            ka = sc_rp_issue_key_of(r, *a, 0);
            if (sc_rp_issue_before(&ka, &prev))
                return false;
        }
    }
    /* what is left of one list, checked as it is copied */
    for (; a < ae; a++) {
        if (a + 1 < ae) {
            sc_rp_issue_key x = sc_rp_issue_key_of(r, a[0], 0);
            sc_rp_issue_key y = sc_rp_issue_key_of(r, a[1], 0);
            if (sc_rp_issue_before(&y, &x))
                return false;
        }
        *out++ = *a;
    }
    return true;
}

/* Merges the lists (none empty) into out: their heads' keys kept in key order, the front's
 * next key put in its place. False when a list turns out not to be in issue order (out then
 * holds nothing of use). */
static bool sc_rp_issue_merge(const sc_replay *r, sc_rp_issue_run *runs, size_t n,
                              int32_t *restrict out)
{
    if (n == 2)
        return sc_rp_issue_merge2(r, runs, out);
    sc_rp_issue_key heads[SC_RP_ISSUE_RUNS];
    size_t live = 0;
    for (size_t k = 0; k < n; k++) {
        sc_rp_issue_key key = sc_rp_issue_key_of(r, *runs[k].next, (uint32_t)k);
        size_t at = live++;
        for (; at > 0 && sc_rp_issue_before(&key, &heads[at - 1]); at--)
            heads[at] = heads[at - 1];
        heads[at] = key;
    }
    size_t k = 0;
    while (live > 0) {
        sc_rp_issue_run *run = &runs[heads[0].run];
        out[k++] = heads[0].op;
        if (++run->next == run->end) {
            live--;
            memmove(heads, heads + 1, live * sizeof *heads);
            continue;
        }
        sc_rp_issue_key key = sc_rp_issue_key_of(r, *run->next, heads[0].run);
        if (sc_rp_issue_before(&key, &heads[0]))
            return false;
        size_t at = 0;
        for (; at + 1 < live && sc_rp_issue_before(&heads[at + 1], &key); at++)
            heads[at] = heads[at + 1];
        heads[at] = key;
    }
    return true;
}

/* The head of a leaf whose list is done, after every piece's key (op indices stay below
 * INT32_MAX). */
#define SC_RP_ISSUE_DONE ((sc_rp_issue_key){UINT64_MAX, UINT64_MAX, INT32_MAX, 0})

/* More lists than sc_rp_issue_merge's row of heads affords (a device of many streams: a
 * program of many host threads, each with streams of its own), every one in issue order,
 * merged into out through a tree of losers: one comparison a level of the tree for each
 * piece. It was a sort of the device's work (sc_rp_issue_sort), whose keys and scratch, 16
 * bytes a piece, were the build's peak of memory on such a trace. The tree is the loader's
 * (sc_merge_by_tree, trace/sort_keys.c), whose heads are a 64-bit key and a position; here a
 * head is the three-part key of sc_rp_issue_before, read through the replay's packed issue
 * times. runs: n_runs lists, none empty. -1 without memory. */
static int sc_rp_issue_merge_tree(const sc_replay *r, sc_rp_issue_run *runs, size_t n_runs,
                                  int32_t *restrict out)
{
    size_t n_leaves = 1;    /* a power of two: the leaves past the lists' are done at once */
    while (n_leaves < n_runs)
        n_leaves *= 2;
    sc_rp_issue_key *heads = malloc(n_leaves * sizeof *heads);
    uint32_t *loser = malloc(n_leaves * sizeof *loser);
    uint32_t *winner = malloc(2 * n_leaves * sizeof *winner);
    if (!heads || !loser || !winner) {
        free(heads);
        free(loser);
        free(winner);
        return -1;
    }
    size_t n = 0;
    for (uint32_t l = 0; l < n_leaves; l++) {
        if (l < n_runs) {
            heads[l] = sc_rp_issue_key_of(r, *runs[l].next, l);
            n += (size_t)(runs[l].end - runs[l].next);
        } else {
            heads[l] = SC_RP_ISSUE_DONE;
        }
        winner[n_leaves + l] = l;
    }
    for (size_t i = n_leaves - 1; i >= 1; i--) {
        uint32_t a = winner[2 * i], b = winner[2 * i + 1];
        bool first = sc_rp_issue_before(&heads[a], &heads[b]);
        winner[i] = first ? a : b;
        loser[i] = first ? b : a;
    }
    uint32_t win = winner[1];
    for (size_t j = 0; j < n; j++) {
        out[j] = heads[win].op;
        heads[win] = ++runs[win].next != runs[win].end
                         ? sc_rp_issue_key_of(r, *runs[win].next, win)
                         : SC_RP_ISSUE_DONE;
        for (size_t node = (n_leaves + win) / 2; node >= 1; node /= 2) {
            uint32_t other = loser[node];
            bool beaten = sc_rp_issue_before(&heads[other], &heads[win]);
            loser[node] = beaten ? win : other;
            win = beaten ? other : win;
        }
    }
    free(heads);
    free(loser);
    free(winner);
    return 0;
}

/* ops[0 .. n) (ascending positions) put in issue order, through tmp (n elements): its
 * kernels, its copies and its memsets, each in issue order as the loader keeps them, merged;
 * sorted when one is not. */
static int sc_rp_issue_list(const sc_replay *r, int32_t *ops, size_t n, int32_t *tmp)
{
    if (n < 2)
        return 0;
    size_t bounds[2] = {r->records.n_kernels, r->records.copies_end};  /* work.h */
    sc_rp_issue_run runs[3];
    size_t n_runs = 0, from = 0;
    for (int b = 0; b <= 2; b++) {
        size_t to = n;      /* the first of ops at or past the kind's end */
        if (b < 2) {
            size_t lo = from, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if ((size_t)ops[mid] < bounds[b])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            to = lo;
        }
        if (to > from)
            runs[n_runs++] = (sc_rp_issue_run){.next = ops + from, .end = ops + to};
        from = to;
    }
    if (n_runs == 1) {      /* one kind: in order unless it turns out not to be */
        for (size_t k = 1; k < n; k++) {
            sc_rp_issue_key x = sc_rp_issue_key_of(r, ops[k - 1], 0);
            sc_rp_issue_key y = sc_rp_issue_key_of(r, ops[k], 0);
            if (sc_rp_issue_before(&y, &x))
                return sc_rp_issue_sort(r, ops, n);
        }
        return 0;
    }
    if (!sc_rp_issue_merge(r, runs, n_runs, tmp))
        return sc_rp_issue_sort(r, ops, n);
    memcpy(ops, tmp, n * sizeof *ops);
    return 0;
}

static int sc_rp_issue_give_up(sc_replay *r, int rc)
{
    free(r->dev_first);
    free(r->dev_count);
    free(r->dev_order);
    free(r->slot_first);
    free(r->slot_count);
    free(r->slot_ops);
    r->dev_first = r->dev_count = r->slot_first = r->slot_count = NULL;
    r->dev_order = r->slot_ops = NULL;
    return rc;
}

int sc_rp_issue_orders(sc_replay *r)
{
    size_t n = r->n_ops, n_keys = r->n_slots + 1;
    r->dev_first = calloc(r->n_devs + 1, sizeof *r->dev_first);
    r->dev_count = calloc(r->n_devs + 1, sizeof *r->dev_count);
    r->dev_order = malloc((n ? n : 1) * sizeof *r->dev_order);
    r->slot_first = calloc(n_keys + 1, sizeof *r->slot_first);
    r->slot_count = calloc(n_keys + 1, sizeof *r->slot_count);
    r->slot_ops = malloc((n ? n : 1) * sizeof *r->slot_ops);
    size_t *fill = calloc(n_keys + 1, sizeof *fill);
    uint32_t *slot_dev = malloc((n_keys + 1) * sizeof *slot_dev);   /* a slot's device */
    if (!r->dev_first || !r->dev_count || !r->dev_order || !r->slot_first || !r->slot_count ||
        !r->slot_ops || !fill || !slot_dev) {
        free(fill);
        free(slot_dev);
        return sc_rp_issue_give_up(r, -1);
    }
    /* each slot's work in position order (the order the merge reads it in) */
    for (size_t i = 0; i < n; i++) {
        r->slot_count[r->op_slot[i]]++;
        r->dev_count[r->ops[i].dev]++;
    }
    for (size_t k = 1; k < n_keys; k++)
        r->slot_first[k] = r->slot_first[k - 1] + r->slot_count[k - 1];
    for (size_t d = 1; d < r->n_devs; d++)
        r->dev_first[d] = r->dev_first[d - 1] + r->dev_count[d - 1];
    for (size_t i = 0; i < n; i++) {
        uint32_t s = r->op_slot[i];
        r->slot_ops[r->slot_first[s] + fill[s]++] = (int32_t)i;
        slot_dev[s] = r->ops[i].dev;
    }
    free(fill);
    /* work of no known stream may span devices: its order then is no one device's list */
    int rc = 0;
    size_t unknown = r->n_slots;
    for (size_t k = r->slot_first[unknown]; k < r->slot_first[unknown] + r->slot_count[unknown];
         k++)
        if (r->ops[r->slot_ops[k]].dev != slot_dev[unknown])
            rc = 1;
    /* each slot's order, with the devices' order as the merge's scratch (not yet filled) */
    for (size_t s = 0; rc == 0 && s < n_keys; s++)
        rc = sc_rp_issue_list(r, r->slot_ops + r->slot_first[s], r->slot_count[s],
                              r->dev_order + r->slot_first[s]);
    /* each device's: its slots' merged */
    sc_rp_issue_run *runs = rc == 0 ? malloc(n_keys * sizeof *runs) : NULL;
    if (rc == 0 && !runs)
        rc = -1;
    for (size_t d = 0; rc == 0 && d < r->n_devs; d++) {
        size_t n_runs = 0;
        for (size_t s = 0; s < n_keys; s++) {
            if (r->slot_count[s] == 0 || slot_dev[s] != d)
                continue;
            const int32_t *first = r->slot_ops + r->slot_first[s];
            runs[n_runs++] = (sc_rp_issue_run){.next = first, .end = first + r->slot_count[s]};
        }
        int32_t *out = r->dev_order + r->dev_first[d];
        if (n_runs <= SC_RP_ISSUE_RUNS) {
            sc_rp_issue_merge(r, runs, n_runs, out);    /* lists in order: true */
            continue;
        }
        rc = sc_rp_issue_merge_tree(r, runs, n_runs, out);
    }
    free(runs);
    free(slot_dev);
    return rc == 0 ? 0 : sc_rp_issue_give_up(r, rc);
}
