/* The overlap engine against a brute-force count over elementary segments, plus a few cases
 * worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/overlap.h"
#include "synthetic.h"

#define MAX_SPANS 40

/* ---- brute force ------------------------------------------------------------------------ */

typedef struct brute {
    sc_overlap m;
    sc_overlap_interval iv[4 * MAX_SPANS];
    size_t n_iv;
    bool overlapped[MAX_SPANS + 1];
    uint32_t peak[MAX_SPANS + 1];   /* most kernels running at one instant of its run */
} brute;

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t covering(const sc_overlap_span *s, size_t n, uint64_t a, uint64_t b)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += s[i].end_ns > s[i].start_ns && s[i].start_ns <= a && s[i].end_ns >= b;
    return c;
}

/* The first start and last end of the non-empty spans: where idle gaps can be. */
static void work_bounds(const sc_overlap_span *s, size_t n, uint64_t *lo, uint64_t *hi)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i].end_ns <= s[i].start_ns)
            continue;
        *lo = s[i].start_ns < *lo ? s[i].start_ns : *lo;
        *hi = s[i].end_ns > *hi ? s[i].end_ns : *hi;
    }
}

/* Ends a run of idle segments: all of it is idle time, a gap only from 1 us on. */
static void gap_close(sc_overlap *m, uint64_t *gap)
{
    m->idle_ns += *gap;
    if (*gap >= 1000) {
        m->gap_count++;
        m->longest_gap_ns = *gap > m->longest_gap_ns ? *gap : m->longest_gap_ns;
    }
    *gap = 0;
}

/* Counts what covers each segment between two consecutive endpoints: no sweep, no state. */
static void brute_force(const sc_overlap_span *k, size_t nk, const sc_overlap_span *c,
                        size_t nc, brute *out)
{
    memset(out, 0, sizeof(*out));
    uint64_t pts[4 * MAX_SPANS];
    size_t np = 0;
    for (size_t i = 0; i < nk; i++) {
        pts[np++] = k[i].start_ns;
        pts[np++] = k[i].end_ns;
    }
    for (size_t i = 0; i < nc; i++) {
        pts[np++] = c[i].start_ns;
        pts[np++] = c[i].end_ns;
    }
    qsort(pts, np, sizeof(pts[0]), u64_cmp);
    uint64_t lo = UINT64_MAX, hi = 0, gap = 0;
    work_bounds(k, nk, &lo, &hi);
    work_bounds(c, nc, &lo, &hi);
    bool open = false;
    for (size_t i = 0; i + 1 < np; i++) {
        uint64_t a = pts[i], b = pts[i + 1], len = b - a;
        if (len == 0)
            continue;
        size_t kc = covering(k, nk, a, b), cc = covering(c, nc, a, b);
        if (a >= lo && b <= hi && kc == 0 && cc == 0)
            gap += len;     /* idle segments next to each other are one gap */
        else
            gap_close(&out->m, &gap);
        out->m.busy_ns += kc > 0 ? len : 0;
        out->m.overlap_ns += kc >= 2 ? len : 0;
        out->m.copy_busy_ns += cc > 0 ? len : 0;
        out->m.copy_compute_ns += cc > 0 && kc > 0 ? len : 0;
        if (kc >= 2 && !open) {
            out->iv[out->n_iv++] = (sc_overlap_interval){.start_ns = a, .max_kernels = 0};
            open = true;
        }
        if (kc >= 2) {
            sc_overlap_interval *iv = &out->iv[out->n_iv - 1];
            iv->end_ns = b;
            if (kc > iv->max_kernels)
                iv->max_kernels = (uint32_t)kc;
        } else {
            open = false;
        }
    }
    gap_close(&out->m, &gap);
    for (size_t i = 0; i < nk; i++) {
        out->m.kernel_sum_ns += k[i].end_ns - k[i].start_ns;
        for (size_t j = 0; j < nk; j++) {
            uint64_t lo = k[i].start_ns > k[j].start_ns ? k[i].start_ns : k[j].start_ns;
            uint64_t hi = k[i].end_ns < k[j].end_ns ? k[i].end_ns : k[j].end_ns;
            if (i != j && lo < hi)
                out->overlapped[i] = true;
        }
        /* the count is highest just at some start: each start during kernel i's run */
        for (size_t j = 0; k[i].end_ns > k[i].start_ns && j < nk; j++) {
            uint64_t at = k[j].start_ns;
            if (k[j].end_ns <= k[j].start_ns || at < k[i].start_ns || at >= k[i].end_ns)
                continue;
            uint32_t n = 0;
            for (size_t l = 0; l < nk; l++)
                n += k[l].end_ns > k[l].start_ns && k[l].start_ns <= at && at < k[l].end_ns;
            out->peak[i] = n > out->peak[i] ? n : out->peak[i];
        }
    }
}

/* ---- random sets ------------------------------------------------------------------------ */

static size_t random_spans(uint64_t *rng, sc_overlap_span *s, size_t max, uint64_t horizon,
                           uint64_t max_len, size_t index_base)
{
    size_t n = syn_rand(rng) % (max + 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t a = syn_rand(rng) % horizon;
        uint64_t len = syn_rand(rng) % 8 == 0 ? 0 : syn_rand(rng) % (max_len + 1);
        s[i] = (sc_overlap_span){a, a + len, index_base + i};
    }
    return n;
}

/* The two kernels an interval names must really overlap, inside that interval. */
static void check_interval_names(const sc_overlap_interval *iv, const sc_overlap_span *k,
                                 size_t nk)
{
    const sc_overlap_span *a = NULL, *b = NULL;
    for (size_t i = 0; i < nk; i++) {
        if (k[i].index == iv->kernel_a)
            a = &k[i];
        if (k[i].index == iv->kernel_b)
            b = &k[i];
    }
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a != b);
    uint64_t lo = a->start_ns > b->start_ns ? a->start_ns : b->start_ns;
    uint64_t hi = a->end_ns < b->end_ns ? a->end_ns : b->end_ns;
    assert_true(lo < hi);
    assert_true(lo >= iv->start_ns && hi <= iv->end_ns);
}

/* sc_overlap_metrics gives every byte of the full engine's metrics, with scratch room that
 * starts too small and is then kept from the call before. */
static void check_metrics_only(const sc_overlap_input *in, const sc_overlap *full)
{
    static sc_overlap_scratch scratch;  /* kept between calls on purpose: reuse is checked */
    sc_overlap_scratch fresh = {0};
    sc_overlap m;
    memset(&m, 0xA5, sizeof m);
    assert_int_equal(sc_overlap_metrics(in, &m, &fresh), 0);
    assert_memory_equal(&m, full, sizeof m);
    memset(&m, 0x5A, sizeof m);
    assert_int_equal(sc_overlap_metrics(in, &m, &scratch), 0);
    assert_memory_equal(&m, full, sizeof m);
    free(fresh.key);
}

/* Returns the brute-force metrics, so callers can see what the sets exercised. far: a last
 * kernel that starts there (0: none). */
static sc_overlap check_one_set_far(uint64_t seed, uint64_t horizon, uint64_t max_len,
                                    uint64_t far)
{
    uint64_t rng = seed;
    sc_overlap_span k[MAX_SPANS + 1], c[MAX_SPANS];
    size_t nk = random_spans(&rng, k, MAX_SPANS, horizon, max_len, 100);
    if (far)
        k[nk++] = (sc_overlap_span){far, far + 5, 99};
    size_t nc = random_spans(&rng, c, MAX_SPANS / 2, horizon, max_len, 500);
    brute want;
    brute_force(k, nk, c, nc, &want);

    sc_overlap got;
    sc_busy_list busy = {0};
    bool ov[MAX_SPANS + 1];
    uint32_t peak[MAX_SPANS + 1];
    sc_overlap_input in = {k, nk, c, nc, 3};
    sc_overlap_output out = {.metrics = &got, .max_intervals = 1000, .busy = &busy,
                             .overlapped = ov, .peak = peak};
    assert_int_equal(sc_overlap_compute(&in, &out), 0);

    assert_int_equal(got.kernel_count, nk);
    assert_int_equal(got.kernel_sum_ns, want.m.kernel_sum_ns);
    assert_int_equal(got.busy_ns, want.m.busy_ns);
    assert_int_equal(got.overlap_ns, want.m.overlap_ns);
    assert_int_equal(got.copy_busy_ns, want.m.copy_busy_ns);
    assert_int_equal(got.copy_compute_ns, want.m.copy_compute_ns);
    assert_int_equal(got.idle_ns, want.m.idle_ns);
    assert_int_equal(got.gap_count, want.m.gap_count);
    assert_int_equal(got.longest_gap_ns, want.m.longest_gap_ns);
    if (want.m.busy_ns)
        assert_true(got.concurrency == (double)want.m.kernel_sum_ns / (double)want.m.busy_ns);
    assert_int_equal(out.n_intervals, want.n_iv);
    assert_int_equal(out.n_intervals_total, want.n_iv);
    for (size_t i = 0; i < want.n_iv; i++) {
        assert_int_equal(out.intervals[i].start_ns, want.iv[i].start_ns);
        assert_int_equal(out.intervals[i].end_ns, want.iv[i].end_ns);
        assert_int_equal(out.intervals[i].max_kernels, want.iv[i].max_kernels);
        assert_int_equal(out.intervals[i].device, 3);
        check_interval_names(&out.intervals[i], k, nk);
    }
    for (size_t i = 0; i < nk; i++) {
        assert_int_equal(ov[i], want.overlapped[i]);
        assert_int_equal(peak[i], want.peak[i]);
    }
    /* the busy list is the union: its length is busy_ns and it is sorted and disjoint */
    uint64_t total = 0;
    for (size_t i = 0; i < busy.n; i++) {
        total += busy.ivals[i].end_ns - busy.ivals[i].start_ns;
        if (i > 0)
            assert_true(busy.ivals[i - 1].end_ns < busy.ivals[i].start_ns);
    }
    assert_int_equal(total, want.m.busy_ns);
    free(out.intervals);
    sc_busy_free(&busy);
    check_metrics_only(&in, &got);
    return want.m;
}

static sc_overlap check_one_set(uint64_t seed, uint64_t horizon, uint64_t max_len)
{
    return check_one_set_far(seed, horizon, max_len, 0);
}

static void test_overlap_random_vs_brute_force(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++)
    {
        uint64_t horizon = seed % 3 == 0 ? 30 : 1000;
        check_one_set(seed * 0x9E3779B97F4A7C15ull, horizon, horizon / 3);
    }
}

/* Spans of up to 2 us over 10 to 40 us: idle stretches fall on both sides of the 1 us gap
 * threshold. The sums at the end prove both kinds were exercised. */
static void test_overlap_gaps_random_vs_brute_force(void **state)
{
    (void)state;
    uint64_t gaps = 0, sub_us_only = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        uint64_t horizon = seed % 2 ? 10000 : 40000;
        sc_overlap m = check_one_set(seed * 0xD1B54A32D192ED03ull, horizon, 2000);
        gaps += m.gap_count;
        sub_us_only += m.idle_ns > 0 && m.gap_count == 0;
    }
    assert_true(gaps > 100);
    assert_true(sub_us_only > 0);
}

/* A kernel 2^61 ns after the others: the times span more than the sort keys hold beside the
 * flags and positions, and the points are sorted as an array instead. */
static void test_overlap_wide_times_vs_brute_force(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 100; seed++)
        check_one_set_far(seed * 0x9E3779B97F4A7C15ull, 1000, 300, (uint64_t)1 << 61);
}

/* Spans one after another, as one stream's: gaps of 0 to 3 us (touching ones included), and
 * with overlap, one span in 50 begun before the one before it ended. */
static size_t serial_spans(uint64_t *rng, sc_overlap_span *s, size_t n, bool overlap,
                           size_t index_base)
{
    uint64_t at = syn_rand(rng) % 1000;
    for (size_t i = 0; i < n; i++) {
        uint64_t len = 1 + syn_rand(rng) % 2000;
        if (overlap && i > 0 && syn_rand(rng) % 50 == 0)
            at -= at > 500 ? 500 : at;
        s[i] = (sc_overlap_span){at, at + len, index_base + i};
        at += len + (syn_rand(rng) % 4 == 0 ? 0 : syn_rand(rng) % 3000);
    }
    return n;
}

/* One stream's work, many kernels and copies one after another: the metrics-only sweep takes
 * the two runs of points as they are (no sort), or sorts them when a span overlaps the one
 * before; either way every byte of the full engine's metrics. */
static void test_overlap_metrics_serial_streams(void **state)
{
    (void)state;
    enum { N_K = 600, N_C = 300 };
    static sc_overlap_span k[N_K], c[N_C];
    for (uint64_t seed = 1; seed <= 60; seed++) {
        uint64_t rng = seed * 0x9E3779B97F4A7C15ull;
        size_t nk = serial_spans(&rng, k, 100 + syn_rand(&rng) % (N_K - 100), seed % 3 == 0, 0);
        size_t nc = serial_spans(&rng, c, syn_rand(&rng) % N_C, seed % 5 == 0, 1000);
        sc_overlap full;
        sc_overlap_input in = {k, nk, c, nc, 1};
        sc_overlap_output out = {.metrics = &full};
        assert_int_equal(sc_overlap_compute(&in, &out), 0);
        assert_true(full.busy_ns > 0);
        check_metrics_only(&in, &full);
    }
}

/* A kernel 2^63 ns after the others: too far even for the metrics-only keys, which have no
 * position beside the time; sc_overlap_metrics hands such a scope to the full engine. */
static void test_overlap_metrics_wider_times_vs_brute_force(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 100; seed++)
        check_one_set_far(seed * 0x9E3779B97F4A7C15ull, 1000, 300, (uint64_t)1 << 63);
}

/* Sets of up to 400 kernels and 200 copies, beyond the brute force's reach: the metrics-only
 * sweep against the full engine, on both sides of the count of keys up to which it sorts them
 * itself (256) and in the piles beyond. */
static void test_overlap_metrics_many_spans(void **state)
{
    (void)state;
    enum { MANY = 400 };
    sc_overlap_span *k = malloc(MANY * sizeof *k), *c = malloc(MANY / 2 * sizeof *c);
    assert_non_null(k);
    assert_non_null(c);
    uint64_t rng = 0xD1B54A32D192ED03ull;
    size_t small = 0, large = 0;
    for (int round = 0; round < 200; round++) {
        size_t nk = random_spans(&rng, k, MANY, 50000, 3000, 0);
        size_t nc = random_spans(&rng, c, MANY / 2, 50000, 3000, 0);
        sc_overlap full;
        sc_overlap_input in = {k, nk, c, nc, 0};
        sc_overlap_output out = {.metrics = &full};
        assert_int_equal(sc_overlap_compute(&in, &out), 0);
        check_metrics_only(&in, &full);
        small += 2 * (nk + nc) <= 256;
        large += 2 * (nk + nc) > 256;
    }
    assert_true(small > 10 && large > 10);
    free(k);
    free(c);
}

/* A range's work as ranges.c gives it: grouped by stream, each stream's spans one after
 * another (now and then one begun before the one before it ended), kernels and copies each
 * in that order. Stream counts on both sides of the runs the metrics-only sweep merges itself
 * (SC_KEY_RUNS_MAX, 64): one, two, a few, 62 to 66, more; every byte of the full engine's
 * metrics either way. */
static void test_overlap_metrics_stream_runs(void **state)
{
    (void)state;
    enum { PER = 12, MOST = 80 };
    static sc_overlap_span k[MOST * PER], c[MOST * PER];
    static const size_t streams[] = {1, 2, 3, 4, 5, 8, 31, 32, 33, 62, 63, 64, 65, 66, 80};
    size_t checked = 0;
    for (size_t si = 0; si < sizeof streams / sizeof *streams; si++)
        for (uint64_t seed = 1; seed <= 12; seed++) {
            uint64_t rng = (seed + 100 * si) * 0x9E3779B97F4A7C15ull;
            size_t nk = 0, nc = 0, n_copy_streams = syn_rand(&rng) % (streams[si] + 1);
            for (size_t st = 0; st < streams[si]; st++)
                nk += serial_spans(&rng, k + nk, 1 + syn_rand(&rng) % PER, seed % 4 == 0, nk);
            for (size_t st = 0; st < n_copy_streams; st++)
                nc += serial_spans(&rng, c + nc, 1 + syn_rand(&rng) % 3, seed % 6 == 0, 5000 + nc);
            if (seed % 5 == 0 && nk > 1)
                k[nk / 2].end_ns = k[nk / 2].start_ns;  /* an empty one: no points */
            sc_overlap full;
            sc_overlap_input in = {k, nk, c, nc, 0};
            sc_overlap_output out = {.metrics = &full};
            assert_int_equal(sc_overlap_compute(&in, &out), 0);
            assert_true(full.busy_ns > 0);
            check_metrics_only(&in, &full);
            checked++;
        }
    assert_int_equal(checked, 15 * 12);
}

/* A kernel that ends at the last time the metrics-only keys hold beside their two flags
 * (2^62 - 1), and one that ends just past it, where the full engine takes the scope. */
static void test_overlap_metrics_key_limit_vs_brute_force(void **state)
{
    (void)state;
    uint64_t limit = UINT64_MAX >> 2;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        check_one_set_far(seed * 0x9E3779B97F4A7C15ull, 1000, 300, limit - 5);
        check_one_set_far(seed * 0x9E3779B97F4A7C15ull, 1000, 300, limit - 4);
    }
}

/* ---- by hand ---------------------------------------------------------------------------- */

static void test_overlap_by_hand(void **state)
{
    (void)state;
    /* A [0,100) B [50,150) C [60,70): 2+ kernels in [50,100), 3 in [60,70).
     * busy 150, sum 100+100+10 = 210. Copy [90,200): copy busy 110, with kernels [90,150). */
    sc_overlap_span k[] = {{0, 100, 0}, {50, 150, 1}, {60, 70, 2}};
    sc_overlap_span c[] = {{90, 200, 0}};
    sc_overlap m;
    sc_overlap_input in = {k, 3, c, 1, 0};
    sc_overlap_output out = {.metrics = &m, .max_intervals = 10};
    assert_int_equal(sc_overlap_compute(&in, &out), 0);
    assert_int_equal(m.first_ns, 0);
    assert_int_equal(m.last_ns, 150);
    assert_int_equal(m.busy_ns, 150);
    assert_int_equal(m.kernel_sum_ns, 210);
    assert_int_equal(m.overlap_ns, 50);
    assert_true(m.concurrency > 1.39 && m.concurrency < 1.41);
    assert_int_equal(m.copy_busy_ns, 110);
    assert_int_equal(m.copy_compute_ns, 60);
    assert_int_equal(out.n_intervals, 1);
    assert_int_equal(out.intervals[0].start_ns, 50);
    assert_int_equal(out.intervals[0].end_ns, 100);
    assert_int_equal(out.intervals[0].max_kernels, 3);
    assert_int_equal(out.intervals[0].kernel_a, 0);
    assert_int_equal(out.intervals[0].kernel_b, 1);
    free(out.intervals);
}

static void test_overlap_touching_is_not_overlap(void **state)
{
    (void)state;
    sc_overlap_span k[] = {{0, 100, 0}, {100, 200, 1}};
    sc_overlap m;
    sc_overlap_input in = {k, 2, NULL, 0, 0};
    sc_overlap_output out = {.metrics = &m, .max_intervals = 10};
    assert_int_equal(sc_overlap_compute(&in, &out), 0);
    assert_int_equal(m.busy_ns, 200);
    assert_int_equal(m.overlap_ns, 0);
    assert_int_equal(out.n_intervals_total, 0);
    assert_true(m.concurrency == 1.0);
}

static void test_overlap_interval_cap(void **state)
{
    (void)state;
    /* 5 separate overlapping pairs, room for 3: 3 kept, 5 counted */
    sc_overlap_span k[10];
    for (size_t i = 0; i < 5; i++) {
        k[2 * i] = (sc_overlap_span){i * 100, i * 100 + 50, 2 * i};
        k[2 * i + 1] = (sc_overlap_span){i * 100 + 10, i * 100 + 60, 2 * i + 1};
    }
    sc_overlap m;
    sc_overlap_input in = {k, 10, NULL, 0, 0};
    sc_overlap_output out = {.metrics = &m, .max_intervals = 3};
    assert_int_equal(sc_overlap_compute(&in, &out), 0);
    assert_int_equal(out.n_intervals, 3);
    assert_int_equal(out.n_intervals_total, 5);
    assert_int_equal(out.intervals[2].start_ns, 210);
    assert_int_equal(out.intervals[2].end_ns, 250);
    assert_int_equal(m.overlap_ns, 5 * 40);
    free(out.intervals);
}

static void test_overlap_empty(void **state)
{
    (void)state;
    sc_overlap m;
    sc_overlap_input in = {0};
    sc_overlap_output out = {.metrics = &m, .max_intervals = 10};
    assert_int_equal(sc_overlap_compute(&in, &out), 0);
    assert_int_equal(m.busy_ns, 0);
    assert_int_equal(m.kernel_count, 0);
    assert_true(m.concurrency == 0.0);
    assert_null(out.intervals);
    /* the metrics alone, with scratch room never allocated: nothing, and no pointer arithmetic
     * on the missing room (clang's UBSan found that in the fuzz build, on a fixture) */
    sc_overlap_scratch none = {0};
    sc_overlap alone;
    assert_int_equal(sc_overlap_metrics(&in, &alone, &none), 0);
    assert_memory_equal(&alone, &m, sizeof m);
    assert_null(none.key);
    /* spans that have no length count as work but add no point */
    sc_overlap_span empty[2] = {{.start_ns = 50, .end_ns = 50}, {.start_ns = 70, .end_ns = 60}};
    sc_overlap_input zero = {.kernels = empty, .n_kernels = 2, .copies = empty + 1,
                             .n_copies = 1};
    out = (sc_overlap_output){.metrics = &m};
    assert_int_equal(sc_overlap_compute(&zero, &out), 0);
    assert_int_equal(sc_overlap_metrics(&zero, &alone, &none), 0);
    assert_memory_equal(&alone, &m, sizeof m);
    assert_null(none.key);
}

/* Kernels [0,10us) [15us,20us) [20.5us,30us) [30us,31us), copy [40us,41us), empty kernel
 * at 35 us, memset [49.999us,52us). Idle: 5 us, 0.5 us, 9 us, 8.999 us (the empty kernel
 * neither ends nor splits the gap; [30,31) touches [20.5,30): no gap). Total 23.499 us;
 * gaps of 1 us or more: 5, 9 and 8.999 us: three, the longest 9 us. */
static void test_overlap_gaps_by_hand(void **state)
{
    (void)state;
    sc_overlap_span k[] = {{0, US(10), 0},       {US(15), US(20), 1}, {20500, US(30), 2},
                           {US(30), US(31), 3},  {US(35), US(35), 4}};
    sc_overlap_span c[] = {{US(40), US(41), 0}, {49999, US(52), 1}};
    sc_overlap m;
    sc_overlap_input in = {k, 5, c, 2, 0};
    sc_overlap_output out = {.metrics = &m};
    assert_int_equal(sc_overlap_compute(&in, &out), 0);
    assert_int_equal(m.idle_ns, 23499);
    assert_int_equal(m.gap_count, 3);
    assert_int_equal(m.longest_gap_ns, US(9));
    /* gaps only: the kernel span still ends with the last kernel */
    assert_int_equal(m.last_ns, US(35));
}

/* One gap of exactly 1 us counts; 999 ns is idle time but no gap. */
static void test_overlap_gap_threshold(void **state)
{
    (void)state;
    sc_overlap_span k[] = {{0, 100, 0}, {1100, 1200, 1}, {2199, 2300, 2}};
    sc_overlap m;
    sc_overlap_input in = {k, 3, NULL, 0, 0};
    sc_overlap_output out = {.metrics = &m};
    assert_int_equal(sc_overlap_compute(&in, &out), 0);
    assert_int_equal(m.idle_ns, 1000 + 999);
    assert_int_equal(m.gap_count, 1);
    assert_int_equal(m.longest_gap_ns, 1000);
}

static void test_busy_uncovered(void **state)
{
    (void)state;
    sc_busy_list b = {0};
    assert_int_equal(sc_busy_append(&b, 10, 20), 0);
    assert_int_equal(sc_busy_append(&b, 20, 30), 0);   /* touches: merged */
    assert_int_equal(sc_busy_append(&b, 50, 60), 0);
    assert_int_equal(b.n, 2);
    assert_int_equal(sc_busy_uncovered(&b, 0, 100), 100 - 20 - 10);
    assert_int_equal(sc_busy_uncovered(&b, 15, 55), 40 - 15 - 5);
    assert_int_equal(sc_busy_uncovered(&b, 12, 18), 0);
    assert_int_equal(sc_busy_uncovered(NULL, 5, 9), 4);
    sc_busy_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_random_vs_brute_force),
        cmocka_unit_test(test_overlap_wide_times_vs_brute_force),
        cmocka_unit_test(test_overlap_metrics_wider_times_vs_brute_force),
        cmocka_unit_test(test_overlap_metrics_many_spans),
        cmocka_unit_test(test_overlap_gaps_random_vs_brute_force),
        cmocka_unit_test(test_overlap_by_hand),
        cmocka_unit_test(test_overlap_gaps_by_hand),
        cmocka_unit_test(test_overlap_gap_threshold),
        cmocka_unit_test(test_overlap_touching_is_not_overlap),
        cmocka_unit_test(test_overlap_metrics_serial_streams),
        cmocka_unit_test(test_overlap_metrics_stream_runs),
        cmocka_unit_test(test_overlap_metrics_key_limit_vs_brute_force),
        cmocka_unit_test(test_overlap_interval_cap),
        cmocka_unit_test(test_overlap_empty),
        cmocka_unit_test(test_busy_uncovered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
