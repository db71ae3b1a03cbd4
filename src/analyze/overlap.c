/* The overlap engine: see overlap.h. */
#include "analyze/overlap.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/work.h"
#include "analyze/work_order.h"
#include "trace/grow.h"
#include "trace/sort.h"
#include "trace/sort_u64.h"

/* A start or end point of an interval. At equal times ends sort before starts, so intervals
 * that only touch ([a,b) and [b,c)) never count as overlapping. */
typedef struct sc_point {
    uint64_t t;
    uint8_t is_start;
    uint8_t is_copy;
    size_t pos;                 /* position in the input array of its kind */
} sc_point;

static int sc_point_cmp(const void *a, const void *b)
{
    const sc_point *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->is_start != y->is_start)
        return x->is_start < y->is_start ? -1 : 1;
    if (x->is_copy != y->is_copy)
        return x->is_copy > y->is_copy ? -1 : 1;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return 0;
}

/* What a sweep keeps to add the metrics up where its counts change instead of at every
 * point: since when kernels have run, two or more of them, copies (and memsets), both kernels
 * and copies, and when the last work ended before a stretch with nothing running. The sums
 * of those stretches are the sums of the lengths between points that the counts allowed. */
typedef struct sc_counts {
    uint64_t kernels_from, two_from, copies_from, both_from;
    uint64_t idle_from;
    bool begun;                 /* a point was taken: idle time counts from the next one */
} sc_counts;

/* Work starts at t with nothing running: the stretch since the last work ended was idle,
 * and it is one gap when it lasted SC_GAP_MIN_NS (the point before it ended the last work, the
 * one after it starts the next); none before the first point. */
static inline void sc_counts_idle_to(sc_overlap *m, sc_counts *c, uint64_t t)
{
    if (c->begun && t > c->idle_from) {
        uint64_t len = t - c->idle_from;
        m->idle_ns += len;
        if (len >= SC_GAP_MIN_NS) {
            m->gap_count++;
            if (len > m->longest_gap_ns)
                m->longest_gap_ns = len;
        }
    }
    c->begun = true;
}

/* A kernel starts at t while na kernels and nc copies run. */
static inline void sc_counts_kernel_start(sc_overlap *m, sc_counts *c, size_t na, size_t nc,
                                          uint64_t t)
{
    if (na == 0) {
        c->kernels_from = t;
        if (nc == 0)
            sc_counts_idle_to(m, c, t);
        else
            c->both_from = t;
    } else if (na == 1) {
        c->two_from = t;
    }
}

/* A kernel ends at t, after which na kernels and nc copies run. */
static inline void sc_counts_kernel_end(sc_overlap *m, sc_counts *c, size_t na, size_t nc,
                                        uint64_t t)
{
    if (na == 0) {
        m->busy_ns += t - c->kernels_from;
        if (nc == 0)
            c->idle_from = t;
        else
            m->copy_compute_ns += t - c->both_from;
    } else if (na == 1) {
        m->overlap_ns += t - c->two_from;
    }
}

static inline void sc_counts_copy_start(sc_overlap *m, sc_counts *c, size_t na, size_t nc,
                                        uint64_t t)
{
    if (nc == 0) {
        c->copies_from = t;
        if (na == 0)
            sc_counts_idle_to(m, c, t);
        else
            c->both_from = t;
    }
}

static inline void sc_counts_copy_end(sc_overlap *m, sc_counts *c, size_t na, size_t nc,
                                      uint64_t t)
{
    if (nc == 0) {
        m->copy_busy_ns += t - c->copies_from;
        if (na == 0)
            c->idle_from = t;
        else
            m->copy_compute_ns += t - c->both_from;
    }
}

/* Working state of one sweep. */
typedef struct sc_sweep {
    const sc_overlap_input *in;
    sc_overlap_output *out;
    const sc_overlap_span *kernels; /* what a kernel position is (its index), or NULL: the
                                       position is the index (sc_overlap_compute_work) */
    uint32_t device;            /* copied into every interval */
    uint32_t *active;           /* positions of the kernels running now */
    uint32_t *slot;             /* per kernel position: its place in active */
    /* With out->peak: each running kernel's peak is the count at its start (in out->peak)
     * until it ends, when it is raised to the highest count reached since: count L was last
     * reached by the start numbered reach[L], and since[] holds each running kernel's start
     * number (beside active). The count moves by one, so the counts reached after a start
     * are those above its own up to the first one not reached since: each start writes one
     * count, each end reads a few, where every start raised every running kernel's peak. */
    uint32_t *since, *reach;
    uint32_t n_starts;
    size_t n_active;
    size_t n_copies_active;
    bool in_interval;           /* two or more kernels are running */
    bool has_pending;           /* a closed interval not yet stored: the next may extend it */
    sc_overlap_interval cur, pending;
    sc_counts c;                /* c.kernels_from: where the busy list's open stretch began */
    size_t iv_cap;              /* room in out->intervals */
} sc_sweep;

int sc_busy_append(sc_busy_list *list, uint64_t start_ns, uint64_t end_ns)
{
    if (end_ns <= start_ns)
        return 0;
    if (list->n > 0 && list->ivals[list->n - 1].end_ns >= start_ns) {
        sc_ival *last = &list->ivals[list->n - 1];
        if (end_ns > last->end_ns)
            last->end_ns = end_ns;
        return 0;
    }
    if (!SC_GROW(list->ivals, list->cap, list->n + 1, 16))
        return -1;
    list->ivals[list->n++] = (sc_ival){start_ns, end_ns};
    return 0;
}

void sc_busy_free(sc_busy_list *list)
{
    free(list->ivals);
    memset(list, 0, sizeof(*list));
}

uint64_t sc_busy_uncovered(const sc_busy_list *list, uint64_t start_ns, uint64_t end_ns)
{
    if (end_ns <= start_ns)
        return 0;
    uint64_t covered = 0;
    size_t lo = 0, hi = list ? list->n : 0;
    /* first interval that ends after start_ns */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (list->ivals[mid].end_ns <= start_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; list && i < list->n && list->ivals[i].start_ns < end_ns; i++) {
        uint64_t a = list->ivals[i].start_ns > start_ns ? list->ivals[i].start_ns : start_ns;
        uint64_t b = list->ivals[i].end_ns < end_ns ? list->ivals[i].end_ns : end_ns;
        covered += sc_dur(a, b);
    }
    return (end_ns - start_ns) - covered;
}

static int sc_sweep_store(sc_sweep *s, const sc_overlap_interval *iv)
{
    sc_overlap_output *out = s->out;
    out->n_intervals_total++;
    if (out->n_intervals >= out->max_intervals)
        return 0;   /* over the cap: counted, not kept */
    if (out->n_intervals == s->iv_cap) {
        size_t cap = s->iv_cap ? s->iv_cap * 2 : 16;
        if (cap > out->max_intervals)
            cap = out->max_intervals;
        sc_overlap_interval *p = realloc(out->intervals, cap * sizeof(*p));
        if (!p)
            return -1;
        out->intervals = p;
        s->iv_cap = cap;
    }
    out->intervals[out->n_intervals++] = *iv;
    return 0;
}

/* Two or more kernels are now running: start an interval, or continue the one that just
 * closed at this same instant (so a stretch of overlap is reported once, not in pieces). */
static void sc_sweep_open_interval(sc_sweep *s, uint64_t t, size_t a, size_t b)
{
    if (s->has_pending && s->pending.end_ns == t) {
        s->cur = s->pending;
        s->has_pending = false;
    } else {
        s->cur = (sc_overlap_interval){.start_ns = t, .device = s->device, .max_kernels = 2,
                                       .kernel_a = s->kernels ? s->kernels[a].index : a,
                                       .kernel_b = s->kernels ? s->kernels[b].index : b};
    }
    s->in_interval = true;
}

static int sc_sweep_close_interval(sc_sweep *s, uint64_t t)
{
    int rc = 0;
    if (s->has_pending)
        rc = sc_sweep_store(s, &s->pending);
    s->cur.end_ns = t;
    s->pending = s->cur;
    s->has_pending = true;
    s->in_interval = false;
    return rc;
}

static inline int sc_sweep_kernel_start(sc_sweep *s, const sc_point *p)
{
    sc_overlap_output *out = s->out;
    uint32_t *active = s->active, pos = (uint32_t)p->pos;
    size_t na = s->n_active;
    sc_counts_kernel_start(out->metrics, &s->c, na, s->n_copies_active, p->t);
    if (na > 0 && out->overlapped) {
        out->overlapped[pos] = true;
        if (na == 1)
            out->overlapped[active[0]] = true;  /* the others were marked when they met */
    }
    if (na == 1 && out->max_intervals > 0)
        sc_sweep_open_interval(s, p->t, active[0], pos);
    s->slot[pos] = (uint32_t)na;
    active[na] = pos;
    if (out->peak) {
        uint32_t at = ++s->n_starts;
        s->since[na] = at;
        s->reach[na + 1] = at;
        out->peak[pos] = (uint32_t)(na + 1);
    }
    s->n_active = ++na;
    if (s->in_interval && na > s->cur.max_kernels)
        s->cur.max_kernels = (uint32_t)na;
    return 0;
}

static inline int sc_sweep_kernel_end(sc_sweep *s, const sc_point *p)
{
    /* swap-remove from the active set */
    uint32_t pos = (uint32_t)p->pos, at = s->slot[pos];
    uint32_t last = s->active[--s->n_active];
    uint32_t *peak = s->out->peak;
    if (peak) {
        uint32_t since = s->since[at], top = peak[pos];
        while (s->reach[top + 1] > since)   /* reach[top + 1] is 0 until reached */
            top++;
        peak[pos] = top;
        s->since[at] = s->since[s->n_active];
    }
    s->active[at] = last;
    s->slot[last] = at;
    sc_counts_kernel_end(s->out->metrics, &s->c, s->n_active, s->n_copies_active, p->t);
    if (s->n_active == 1 && s->in_interval && sc_sweep_close_interval(s, p->t) != 0)
        return -1;
    if (s->n_active == 0 && s->out->busy &&
        sc_busy_append(s->out->busy, s->c.kernels_from, p->t) != 0)
        return -1;
    return 0;
}

/* The sweep's working arrays for n kernels (their peaks followed when out->peak is given):
 * only as much of them is touched as kernels run at once. False without memory. */
static bool sc_sweep_alloc(sc_sweep *s, size_t n)
{
    size_t m = n + 2;
    s->active = malloc(m * sizeof *s->active);
    s->slot = malloc(m * sizeof *s->slot);
    if (s->out->peak) {
        s->since = malloc(m * sizeof *s->since);
        s->reach = calloc(m, sizeof *s->reach);
    }
    return s->active && s->slot && (!s->out->peak || (s->since && s->reach));
}

static void sc_sweep_release(sc_sweep *s)
{
    free(s->active);
    free(s->slot);
    free(s->since);
    free(s->reach);
}

/* Adds the time since the previous point to every metric the current counts (kernels and
 * copies running) allow. */
static inline void sc_account(sc_overlap *m, size_t n_active, size_t n_copies_active,
                              uint64_t len)
{
    if (n_active > 0)
        m->busy_ns += len;
    if (n_active >= 2)
        m->overlap_ns += len;
    if (n_copies_active > 0) {
        m->copy_busy_ns += len;
        if (n_active > 0)
            m->copy_compute_ns += len;
    }
    /* Nothing running between two points: the sweep starts at the first point and ends at
     * the last, so this is inside the span, and one such stretch is a whole gap (the point
     * before it ended the last work, the one after it starts the next). */
    if (n_active == 0 && n_copies_active == 0 && len > 0) {
        m->idle_ns += len;
        if (len >= SC_GAP_MIN_NS) {
            m->gap_count++;
            if (len > m->longest_gap_ns)
                m->longest_gap_ns = len;
        }
    }
}

static size_t sc_points_fill(const sc_overlap_span *spans, size_t n, uint8_t is_copy,
                             sc_point *pts)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (spans[i].end_ns <= spans[i].start_ns)
            continue;   /* an empty interval overlaps nothing */
        pts[k++] = (sc_point){spans[i].start_ns, 1, is_copy, i};
        pts[k++] = (sc_point){spans[i].end_ns, 0, is_copy, i};
    }
    return k;
}

/* The points in sc_point_cmp's order through one 64-bit key each: the time relative to the
 * earliest, then the start flag (ends first), the copy flag (copies first) and the position,
 * below it. The keys are unique (a point is its span's start or end, and empty spans have
 * none), so their order is the points' order whichever order they are made in, and the sweep
 * reads each point back from its key: no array of 24-byte points (185 MB for the 7.7M points
 * of a 10M-record trace, every page of it a fault, each sweep). A key holds all of its point,
 * so the keys themselves are sorted (sort_u64.h), not positions by key: the merges compare
 * the values they move instead of looking each one up through its position. */
typedef struct sc_point_keys {
    uint64_t *key;              /* ascending: key[k] is the k-th point */
    size_t n;
    uint64_t lo;                /* the earliest time */
    unsigned pos_bits, low;     /* the position's bits; the bits below the time */
} sc_point_keys;

static size_t sc_keys_fill(const sc_point_keys *pk, const sc_overlap_span *spans, size_t n,
                           uint8_t is_copy, uint64_t *key)
{
    size_t k = 0;
    uint64_t copy = (uint64_t)!is_copy << pk->pos_bits, start = (uint64_t)1 << (pk->pos_bits + 1);
    for (size_t i = 0; i < n; i++) {
        if (spans[i].end_ns <= spans[i].start_ns)
            continue;   /* as sc_points_fill */
        key[k++] = (spans[i].start_ns - pk->lo) << pk->low | start | copy | i;
        key[k++] = (spans[i].end_ns - pk->lo) << pk->low | copy | i;
    }
    return k;
}

/* Fills *pk for the input's points. Returns 0, or -1 when the times span too much for the
 * keys or memory is short (*pk then holds nothing). */
static int sc_point_keys_make(const sc_overlap_input *in, sc_point_keys *pk)
{
    *pk = (sc_point_keys){0};
    size_t n = 0, n_spans = in->n_kernels > in->n_copies ? in->n_kernels : in->n_copies;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int c = 0; c < 2; c++) {
        const sc_overlap_span *sp = c ? in->copies : in->kernels;
        for (size_t i = 0, m = c ? in->n_copies : in->n_kernels; i < m; i++) {
            if (sp[i].end_ns <= sp[i].start_ns)
                continue;
            n += 2;
            lo = sp[i].start_ns < lo ? sp[i].start_ns : lo;
            hi = sp[i].end_ns > hi ? sp[i].end_ns : hi;
        }
    }
    if (n < 2)
        return 0;
    if (n > UINT32_MAX)
        return -1;
    unsigned pos_bits = 1;
    while (pos_bits < 64 && (n_spans >> pos_bits) != 0)
        pos_bits++;
    unsigned low = pos_bits + 2;
    if (low >= 64 || hi - lo > UINT64_MAX >> low)
        return -1;
    *pk = (sc_point_keys){.n = n, .lo = lo, .pos_bits = pos_bits, .low = low};
    pk->key = malloc(n * sizeof *pk->key);
    if (!pk->key)
        return -1;
    size_t k = sc_keys_fill(pk, in->kernels, in->n_kernels, 0, pk->key);
    sc_keys_fill(pk, in->copies, in->n_copies, 1, pk->key + k);
    sc_sort_u64(pk->key, n);
    return 0;
}

static sc_point sc_point_at(const sc_point_keys *pk, size_t k)
{
    uint64_t x = pk->key[k];
    return (sc_point){(x >> pk->low) + pk->lo, (uint8_t)(x >> (pk->pos_bits + 1) & 1),
                      (uint8_t)!(x >> pk->pos_bits & 1),
                      (size_t)(x & (((uint64_t)1 << pk->pos_bits) - 1))};
}

static void sc_overlap_totals(const sc_overlap_input *in, sc_overlap *m)
{
    for (size_t i = 0; i < in->n_kernels; i++) {
        const sc_overlap_span *k = &in->kernels[i];
        uint64_t end = k->end_ns > k->start_ns ? k->end_ns : k->start_ns;
        if (m->kernel_count == 0 || k->start_ns < m->first_ns)
            m->first_ns = k->start_ns;
        if (m->kernel_count == 0 || end > m->last_ns)
            m->last_ns = end;
        m->kernel_count++;
        m->kernel_sum_ns += sc_dur(k->start_ns, k->end_ns);
    }
}

/* One point of the sweep, in order. */
static inline __attribute__((always_inline)) int sc_sweep_point(sc_sweep *s, const sc_point *p)
{
    if (!p->is_copy)
        return p->is_start ? sc_sweep_kernel_start(s, p) : sc_sweep_kernel_end(s, p);
    if (p->is_start)
        sc_counts_copy_start(s->out->metrics, &s->c, s->n_active, s->n_copies_active++, p->t);
    else
        sc_counts_copy_end(s->out->metrics, &s->c, s->n_active, --s->n_copies_active, p->t);
    return 0;
}

static int sc_sweep_finish(sc_sweep *s)
{
    if (s->has_pending && sc_sweep_store(s, &s->pending) != 0)
        return -1;
    return 0;
}

/* The sweep over the points as keys; when they cannot be keys, over an array of points put in
 * order by the general sort. */
static int sc_sweep_run(sc_sweep *s, const sc_overlap_input *in)
{
    sc_point_keys pk;
    if (sc_point_keys_make(in, &pk) == 0) {
        int rc = 0;
        for (size_t k = 0; rc == 0 && k < pk.n; k++) {
            sc_point p = sc_point_at(&pk, k);
            rc = sc_sweep_point(s, &p);
        }
        free(pk.key);
        return rc != 0 ? -1 : sc_sweep_finish(s);
    }
    size_t n_max = 2 * (in->n_kernels + in->n_copies);
    sc_point *pts = malloc((n_max ? n_max : 1) * sizeof(*pts));
    if (!pts)
        return -1;
    size_t n = sc_points_fill(in->kernels, in->n_kernels, 0, pts);
    n += sc_points_fill(in->copies, in->n_copies, 1, pts + n);
    sc_sort(pts, n, sizeof(*pts), sc_point_cmp);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = sc_sweep_point(s, &pts[i]);
    free(pts);
    return rc != 0 ? -1 : sc_sweep_finish(s);
}

int sc_overlap_compute(const sc_overlap_input *in, sc_overlap_output *out)
{
    memset(out->metrics, 0, sizeof(*out->metrics));
    out->n_intervals = out->n_intervals_total = 0;
    if (out->overlapped && in->n_kernels)
        memset(out->overlapped, 0, in->n_kernels * sizeof(bool));
    if (out->peak && in->n_kernels)
        memset(out->peak, 0, in->n_kernels * sizeof(uint32_t));
    sc_overlap_totals(in, out->metrics);

    sc_sweep s = {.in = in, .out = out, .kernels = in->kernels, .device = in->device};
    /* kernel positions are held in 32 bits */
    int rc = in->n_kernels < UINT32_MAX && sc_sweep_alloc(&s, in->n_kernels)
                 ? sc_sweep_run(&s, in) : -1;
    sc_sweep_release(&s);
    sc_overlap *m = out->metrics;
    m->concurrency = m->busy_ns ? (double)m->kernel_sum_ns / (double)m->busy_ns : 0.0;
    return rc;
}

/* The points of a metrics-only sweep as keys: the time, then the start flag (ends first) and
 * the kernel flag. No position: which span a point ends is not needed when only counts are
 * kept. Points of one instant may come in any order between them, since no time passes
 * between them and sc_sweep_account adds nothing.
 *
 * Each span's start and end go side by side, in the order the spans come: a range's work
 * comes grouped by stream in issue order and a stream's spans follow one another, so its keys
 * are a few ascending runs (one per stream's kernels, one for the copies), which are merged,
 * not sorted. The keys are made in one pass over the spans that also finds where the runs
 * break and sums the kernels' totals. Up to SC_KEY_RUNS_MAX runs are merged by pairs down to
 * the two the sweep takes as it goes; more go to sc_sort_u64. */
enum { SC_KEY_RUNS_MAX = 64 };

typedef struct sc_key_runs {
    uint64_t *key;
    size_t n;                       /* keys made */
    size_t r;                       /* breaks between runs met */
    size_t at[SC_KEY_RUNS_MAX + 1]; /* where the runs after the first begin, the first r */
    uint64_t last;                  /* the key before */
    uint64_t hi;                    /* the latest end */
} sc_key_runs;

static inline void sc_key_span(sc_key_runs *kr, const sc_overlap_span *sp, uint64_t kernel)
{
    uint64_t s = sp->start_ns << 2 | 2 | kernel, e = sp->end_ns << 2 | kernel;
    if (s < kr->last) {
        if (kr->r < SC_KEY_RUNS_MAX)
            kr->at[kr->r] = kr->n;
        kr->r++;
    }
    kr->key[kr->n++] = s;
    kr->key[kr->n++] = e;   /* after s: a span with a length ends after it starts */
    kr->last = e;
    kr->hi = sp->end_ns > kr->hi ? sp->end_ns : kr->hi;
}

/* The kernels' keys and their totals (as sc_overlap_totals: every kernel, an empty one too). */
static void sc_key_kernels(sc_key_runs *kr, const sc_overlap_span *k, size_t n, sc_overlap *m)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t end = k[i].end_ns > k[i].start_ns ? k[i].end_ns : k[i].start_ns;
        if (m->kernel_count == 0 || k[i].start_ns < m->first_ns)
            m->first_ns = k[i].start_ns;
        if (m->kernel_count == 0 || end > m->last_ns)
            m->last_ns = end;
        m->kernel_count++;
        m->kernel_sum_ns += end - k[i].start_ns;
        if (k[i].end_ns > k[i].start_ns)
            sc_key_span(kr, &k[i], 1);  /* an empty span makes no points */
    }
}

static void sc_key_copies(sc_key_runs *kr, const sc_overlap_span *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].end_ns > c[i].start_ns)
            sc_key_span(kr, &c[i], 0);
}

/* Merges the ascending src[lo, mid) and src[mid, hi) into dst[lo, hi). The runs are short (a
 * stream's few points in a range): a plain merge, no loop of steps around a select. */
static void sc_keys_merge(const uint64_t *src, uint64_t *dst, size_t lo, size_t mid, size_t hi)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = src[j] < src[i] ? src[j++] : src[i++];
    while (i < mid)
        dst[k++] = src[i++];
    while (j < hi)
        dst[k++] = src[j++];
}

/* The keys as at most two ascending runs, the second beginning at *mid (n when one): merged
 * by pairs between key[0 .. n) and key[n .. 2n), or sorted. Returns where they lie. */
static const uint64_t *sc_keys_two_runs(sc_key_runs *kr, size_t *mid)
{
    size_t n = kr->n, r = kr->r + 1, *b = kr->at;
    uint64_t *src = kr->key, *dst = kr->key + n;
    if (r > SC_KEY_RUNS_MAX) {
        sc_sort_u64(src, n);
        *mid = n;
        return src;
    }
    memmove(b + 1, b, kr->r * sizeof *b);   /* b[i]: where run i begins; b[r] the end */
    b[0] = 0;
    b[r] = n;
    while (r > 2) {
        size_t k = 0;
        for (size_t i = 0; i < r; i += 2, k++) {
            if (i + 1 < r)
                sc_keys_merge(src, dst, b[i], b[i + 1], b[i + 2]);
            else
                memcpy(dst + b[i], src + b[i], (b[i + 1] - b[i]) * sizeof *dst);
            b[k] = b[i];
        }
        b[k] = n;
        r = k;
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    *mid = r == 2 ? b[1] : n;
    return src;
}

/* Room for n keys in the scratch (kept, grown by doubling); false without memory. */
static bool sc_scratch_room(sc_overlap_scratch *scratch, size_t n)
{
    if (n <= scratch->cap)
        return true;
    size_t cap = n > 2 * scratch->cap ? n : 2 * scratch->cap;
    uint64_t *p = realloc(scratch->key, cap * sizeof *p);
    if (!p)
        return false;
    scratch->key = p;
    scratch->cap = cap;
    return true;
}

static bool sc_spans_have_length(const sc_overlap_span *sp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sp[i].end_ns > sp[i].start_ns)
            return true;
    return false;
}

int sc_overlap_metrics(const sc_overlap_input *in, sc_overlap *m, sc_overlap_scratch *scratch)
{
    sc_overlap_output out = {.metrics = m};
    /* room for the keys; none is made while no span has a length (no key to put there) */
    size_t room = 2 * (in->n_kernels + in->n_copies);
    if (room > scratch->cap && (sc_spans_have_length(in->kernels, in->n_kernels) ||
                                sc_spans_have_length(in->copies, in->n_copies)) &&
        !sc_scratch_room(scratch, room))
        return -1;
    memset(m, 0, sizeof(*m));
    sc_key_runs kr = {.key = scratch->key};
    sc_key_kernels(&kr, in->kernels, in->n_kernels, m);
    sc_key_copies(&kr, in->copies, in->n_copies);
    size_t n = kr.n;
    if (n == 0)
        return 0;   /* no span with a length: nothing to sweep */
    if (kr.hi > UINT64_MAX >> 2)
        return sc_overlap_compute(in, &out);   /* too late for the keys */
    if (kr.r > 1 && kr.r < SC_KEY_RUNS_MAX) {  /* runs to merge, into room after the keys */
        if (!sc_scratch_room(scratch, 2 * n))
            return -1;
        kr.key = scratch->key;
    }
    size_t mid;
    const uint64_t *key = sc_keys_two_runs(&kr, &mid);
    sc_counts c = {0};
    size_t na = 0, nc = 0;
    /* the smaller head of the two runs each step (equal keys are the same point: either) */
    for (size_t a = 0, b = mid; a < mid || b < n;) {
        uint64_t x = b >= n || (a < mid && key[a] <= key[b]) ? key[a++] : key[b++];
        uint64_t t = x >> 2;
        switch (x & 3) {
        case 3: sc_counts_kernel_start(m, &c, na++, nc, t); break;
        case 2: sc_counts_copy_start(m, &c, na, nc++, t); break;
        case 1: sc_counts_kernel_end(m, &c, --na, nc, t); break;
        default: sc_counts_copy_end(m, &c, na, --nc, t); break;
        }
    }
    m->concurrency = m->busy_ns ? (double)m->kernel_sum_ns / (double)m->busy_ns : 0.0;
    return 0;
}

/* A stream's part of its device's sweep (sc_overlap_streams). A stream's work runs one piece
 * after another, so its metrics are taken at each start alone: the time since its last work
 * ended is idle (a gap from SC_GAP_MIN_NS), the piece's length busy (a kernel) or copy busy
 * (a copy or memset), which is what a count sweep of its points adds up. A piece that starts
 * before the stream's last one ended (work of one stream overlapping, as no device runs it)
 * makes the stream general: its metrics are then taken again by the count sweep of its points
 * after its device's sweep. */
typedef struct sc_slot_sweep {
    uint64_t prev;              /* the end of its last work; in the count sweep, the time of
                                   its previous point */
    uint32_t n_active, n_copies_active;     /* in the count sweep: how many of its kernels,
                                               and of its copies and memsets, run */
    bool started;
    uint8_t kind;               /* enum sc_slot_kind */
} sc_slot_sweep;

enum sc_slot_kind {
    SC_SLOT_SERIAL = 0,         /* its work one piece after another so far */
    SC_SLOT_GENERAL,            /* its work overlaps: the count sweep takes it */
    SC_SLOT_SWEPT,              /* taken by the count sweep of its device */
};

int sc_overlap_streams_begin(sc_overlap_streams *st, const uint8_t *slot8,
                             const uint32_t *slot32, size_t n_slots)
{
    size_t m = n_slots ? n_slots : 1;
    *st = (sc_overlap_streams){.slot8 = slot8, .slot32 = slot32, .n_slots = n_slots};
    st->metrics = calloc(m, sizeof *st->metrics);
    st->state = calloc(m, sizeof *st->state);
    if (!st->metrics || !st->state) {
        sc_overlap_streams_free(st);
        return -1;
    }
    return 0;
}

void sc_overlap_streams_end(sc_overlap_streams *st)
{
    for (size_t k = 0; k < st->n_slots; k++) {
        sc_overlap *m = &st->metrics[k];
        m->concurrency = m->busy_ns ? (double)m->kernel_sum_ns / (double)m->busy_ns : 0.0;
    }
    free(st->state);
    st->state = NULL;
}

void sc_overlap_streams_free(sc_overlap_streams *st)
{
    free(st->metrics);
    free(st->state);
    memset(st, 0, sizeof *st);
}

/* What the sweep reads of the work at a position: its span (the end clamped, as sc_work_at),
 * whether it is a kernel, and whether the device's own sweep leaves it out (a collective). */
typedef struct sc_work_span {
    uint64_t start, end;
    bool kernel, comm;
} sc_work_span;

static inline sc_work_span sc_span_of(const sc_overlap_work *in, uint32_t p)
{
    const sc_trace *t = in->trace;
    sc_work_records v = sc_work_records_of(t);
    sc_work_span w = {0};
    sc_work_records_times(&v, p, &w.start, &w.end);
    sc_work_ref ref = sc_work_ref_in(&v, p);
    if (ref.kind == SC_WORK_KERNEL) {
        w.kernel = true;
        w.comm = in->shape_comm[t->kernels[ref.index].rec.shape];
    }
    return w;
}

/* A kernel met in start order (the sweep's by_start) into metrics that start zeroed: the
 * first one's start is the earliest, and the latest end is a plain maximum from 0. */
static inline void sc_totals_add(sc_overlap *m, const sc_work_span *w)
{
    m->first_ns = m->kernel_count ? m->first_ns : w->start;
    m->last_ns = w->end > m->last_ns ? w->end : m->last_ns;
    m->kernel_count++;
    m->kernel_sum_ns += w->end - w->start;
}

/* A stream's work at its start (sc_slot_sweep); true when it overlaps the stream's last work,
 * which makes the stream general. */
static inline bool sc_slot_start(sc_overlap_streams *st, size_t slot, const sc_work_span *w)
{
    sc_slot_sweep *x = &st->state[slot];
    if (x->kind != SC_SLOT_SERIAL)
        return false;
    sc_overlap *m = &st->metrics[slot];
    if (x->started) {
        if (w->start < x->prev) {
            x->kind = SC_SLOT_GENERAL;
            return true;
        }
        uint64_t gap = w->start - x->prev;
        if (gap > 0) {
            m->idle_ns += gap;
            if (gap >= SC_GAP_MIN_NS) {
                m->gap_count++;
                if (gap > m->longest_gap_ns)
                    m->longest_gap_ns = gap;
            }
        }
    }
    x->started = true;
    x->prev = w->end;
    if (w->kernel)
        m->busy_ns += w->end - w->start;
    else
        m->copy_busy_ns += w->end - w->start;
    return false;
}

/* One point of a general stream's count sweep: as sc_overlap_metrics takes it. */
static inline void sc_slot_point(sc_overlap_streams *st, size_t slot, const sc_work_span *w,
                                 uint64_t at, bool is_start)
{
    sc_slot_sweep *x = &st->state[slot];
    if (!x->started) {
        x->prev = at;
        x->started = true;
    }
    sc_account(&st->metrics[slot], x->n_active, x->n_copies_active, at - x->prev);
    x->prev = at;
    uint32_t *count = w->kernel ? &x->n_active : &x->n_copies_active;
    if (is_start)
        (*count)++;
    else
        (*count)--;
}

static inline size_t sc_slot_of(const sc_overlap_streams *st, uint32_t p, bool small)
{
    return small ? (size_t)st->slot8[p] : (size_t)st->slot32[p];
}

/* The general streams' count sweeps, over the device's points again: each such stream's
 * metrics but its totals (taken at the starts, as for every stream) made anew. */
static void sc_slots_count_sweep(const sc_overlap_work *in, sc_overlap_streams *st, bool small)
{
    for (size_t k = 0; k < st->n_slots; k++) {
        sc_slot_sweep *x = &st->state[k];
        if (x->kind != SC_SLOT_GENERAL)
            continue;
        sc_overlap *m = &st->metrics[k];
        m->busy_ns = m->overlap_ns = m->copy_busy_ns = m->copy_compute_ns = 0;
        m->idle_ns = m->gap_count = m->longest_gap_ns = 0;
        x->prev = 0;
        x->n_active = x->n_copies_active = 0;
        x->started = false;
    }
    size_t i = 0, j = 0, n = in->n;
    while (i < n || j < n) {
        bool is_start = !(j < n && (i >= n || sc_work_end_at(in->trace, in->by_end[j]) <=
                                                  sc_work_start_at(in->trace, in->by_start[i])));
        uint32_t p = is_start ? in->by_start[i++] : in->by_end[j++];
        size_t slot = sc_slot_of(st, p, small);
        if (st->state[slot].kind != SC_SLOT_GENERAL)
            continue;
        sc_work_span w = sc_span_of(in, p);
        if (w.end > w.start)
            sc_slot_point(st, slot, &w, is_start ? w.start : w.end, is_start);
    }
    for (size_t k = 0; k < st->n_slots; k++)   /* its work was all on this device */
        if (st->state[k].kind == SC_SLOT_GENERAL)
            st->state[k].kind = SC_SLOT_SWEPT;
}

/* The sweep of sc_overlap_compute_work, made once with the streams' and once without. */
static inline __attribute__((always_inline)) int
sc_work_sweep(const sc_overlap_work *in, sc_sweep *s, sc_overlap_streams *st, bool small)
{
    sc_overlap *m = s->out->metrics;
    /* the starts and the ends merged, an end before a start of the same time (sc_point_cmp);
     * at one time the kernels' starts come in position order, as there, and the rest of that
     * order changes nothing: no time passes between such points, and which kernels run after
     * them is the same whichever came first. The next start's and the next end's work are
     * each read once. */
    size_t i = 0, j = 0, n = in->n;
    sc_work_span ws = {0}, we = {0};
    if (n) {
        ws = sc_span_of(in, in->by_start[0]);
        we = sc_span_of(in, in->by_end[0]);
    }
    bool general = false;
    int rc = 0;
    while (rc == 0 && (i < n || j < n)) {
        if (j < n && (i >= n || we.end <= ws.start)) {
            uint32_t p = in->by_end[j++];
            if (we.end > we.start && !we.comm) {   /* an empty span makes no points */
                sc_point pt = {we.end, 0, !we.kernel, p};
                rc = sc_sweep_point(s, &pt);
            }
            if (j < n)
                we = sc_span_of(in, in->by_end[j]);
            continue;
        }
        uint32_t p = in->by_start[i++];
        /* every kernel counts, an empty one too (sc_overlap_totals); the device's leave its
         * collectives out, its stream's do not */
        if (ws.kernel && !ws.comm)
            sc_totals_add(m, &ws);
        if (st) {
            size_t slot = sc_slot_of(st, p, small);
            if (ws.kernel)
                sc_totals_add(&st->metrics[slot], &ws);
            if (ws.end > ws.start)
                general |= sc_slot_start(st, slot, &ws);
        }
        if (ws.end > ws.start && !ws.comm) {
            sc_point pt = {ws.start, 1, !ws.kernel, p};
            rc = sc_sweep_point(s, &pt);
        }
        if (i < n)
            ws = sc_span_of(in, in->by_start[i]);
    }
    if (rc == 0 && general)
        sc_slots_count_sweep(in, st, small);
    return rc;
}

int sc_overlap_compute_work(const sc_overlap_work *in, sc_overlap_output *out)
{
    const sc_trace *t = in->trace;
    memset(out->metrics, 0, sizeof(*out->metrics));
    out->n_intervals = out->n_intervals_total = 0;
    if (t->n_kernels >= UINT32_MAX)
        return -1;  /* kernel positions in 32 bits */
    sc_sweep s = {.in = NULL, .out = out, .kernels = NULL, .device = in->device};
    int rc = sc_sweep_alloc(&s, t->n_kernels) ? 0 : -1;
    if (rc == 0) {
        if (!in->streams)
            rc = sc_work_sweep(in, &s, NULL, false);
        else if (in->streams->slot8)
            rc = sc_work_sweep(in, &s, in->streams, true);
        else
            rc = sc_work_sweep(in, &s, in->streams, false);
    }
    if (rc == 0)
        rc = sc_sweep_finish(&s);
    sc_sweep_release(&s);
    sc_overlap *m = out->metrics;
    m->concurrency = m->busy_ns ? (double)m->kernel_sum_ns / (double)m->busy_ns : 0.0;
    return rc;
}

void sc_overlap_set_solo(sc_overlap *m, uint64_t solo_sum_ns, uint64_t solo_known)
{
    m->solo_sum_ns = solo_sum_ns;
    m->solo_known = solo_known;
    m->speedup = m->busy_ns && solo_known >= m->kernel_count
                     ? (double)solo_sum_ns / (double)m->busy_ns : 0.0;
}
