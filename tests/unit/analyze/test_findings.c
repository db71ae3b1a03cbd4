/* A finding's sites (findings.c: sc_finding_finish groups its instances' calls by site in a
 * table by hash) against their definition worked out by a look at every site before
 * (findings.h, sc_site: the same user's Python line and call name where the call has a
 * Python stack, else the same native frames and call name; a launch without frames of its own
 * at its sampled twin's site; a site's call its first instance's, the sites by cost, then
 * count, then first instance), on random built traces: frames drawn from a few stacks that
 * differ in one frame or in length, names and Python files equal in text under different
 * pointers, library frames above the user's line, launches that share a stack, ties of cost
 * and count, and more sites than the table's first size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/findings.h"
#include "analyze/internal.h"
#include "synthetic.h"

static uint64_t rnd(uint64_t *st, uint64_t n)
{
    return syn_rand(st) % n;
}

/* Texts equal to others under their own pointers. */
static char name_a[] = "cudaStreamSynchronize", name_a2[] = "cudaStreamSynchronize";
static char file_a[] = "/work/train.py", file_a2[] = "/work/train.py";

/* ---- the sites by their definition ---------------------------------------------------- */

typedef struct ref_site {
    const sc_api_call *site;    /* the first instance's site call */
    uint64_t count, cost_ns;
    size_t first;
} ref_site;

static const sc_pyframe *py_of(const sc_ctx *ctx, const sc_api_call *site)
{
    return sc_pystack_user_frame(sc_trace_pystack(ctx->trace, site->rec.correlation_id));
}

static bool same_site(const sc_ctx *ctx, const sc_api_call *a, const sc_api_call *b)
{
    const sc_trace *t = ctx->trace;
    const sc_pyframe *p = py_of(ctx, a), *q = py_of(ctx, b);
    if (!p != !q)
        return false;
    if (strcmp(sc_call_name(t, a), sc_call_name(t, b)) != 0)
        return false;
    if (p)
        return p->line == q->line && strcmp(p->file, q->file) == 0;
    return sc_call_n_frames(t, a) == sc_call_n_frames(t, b) &&
           memcmp(sc_call_frames(t, a), sc_call_frames(t, b),
                  sc_call_n_frames(t, a) * sizeof(uint64_t)) == 0;
}

static size_t ref_sites(const sc_ctx *ctx, const sc_api_call *const *calls,
                        const uint64_t *costs, size_t n, ref_site *out)
{
    size_t n_sites = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_api_call *site = sc_ctx_site(ctx, calls[i]);
        size_t k = 0;
        while (k < n_sites && !same_site(ctx, out[k].site, site))
            k++;
        if (k == n_sites)
            out[n_sites++] = (ref_site){site, 0, 0, i};
        out[k].count++;
        out[k].cost_ns += costs[i];
    }
    for (size_t a = 1; a < n_sites; a++)     /* by cost, count, first: insertion sort */
        for (size_t b = a; b > 0; b--) {
            const ref_site *x = &out[b - 1], *y = &out[b];
            bool after = x->cost_ns != y->cost_ns ? x->cost_ns < y->cost_ns
                         : x->count != y->count   ? x->count < y->count
                                                  : x->first > y->first;
            if (!after)
                break;
            ref_site tmp = out[b];
            out[b] = out[b - 1];
            out[b - 1] = tmp;
        }
    return n_sites;
}

/* ---- a trace of calls at many sites -------------------------------------------------- */

enum { STACKS = 6, DEPTH = 5 };

/* Calls with frames from `n_stacks` stacks (each a base stack with one frame changed, or one
 * frame shorter), names of three texts under four pointers, a Python stack for some (a user's
 * line under library frames), launches without frames that share a sampled launch's stack. */
static void build(syn *s, uint64_t seed, size_t n_calls, size_t n_stacks, sc_pystack *stacks,
                  sc_pyframe *frames)
{
    uint64_t st = seed;
    syn_init(s);
    static const char *const lib = "/usr/lib/python3.12/site-packages/torch/cuda/__init__.py";
    size_t n_py = 0;
    for (size_t i = 0; i < n_calls; i++) {
        uint32_t corr = 1 + (uint32_t)i;
        uint64_t f[DEPTH + 1];
        size_t k = (size_t)rnd(&st, n_stacks);
        for (size_t d = 0; d < DEPTH; d++)
            f[d] = 0x400000 + 0x100 * d + (d == k % DEPTH ? 0x10 * (1 + k / DEPTH) : 0);
        uint16_t depth = (uint16_t)(k % 3 == 2 ? DEPTH - 1 : DEPTH);
        uint64_t r = rnd(&st, 8);
        const char *name = r < 3 ? "cudaStreamSynchronize" : r < 5 ? "cudaMalloc" : "cudaFree";
        bool shared = rnd(&st, 6) == 0 && i > 0;
        sc_api_call *c = syn_call(s, shared ? SC_CALL_LAUNCH : SC_CALL_STREAM_SYNC, US(10 * i),
                                  US(10 * i + 5), corr, shared ? NULL : name, shared ? NULL : f,
                                  shared ? 0 : depth);
        if (shared) {   /* its stack is that of a call before it */
            syn_call_add_flags(s, c, SC_API_STACK_SHARED);
            syn_call_aux(s, c, 1 + rnd(&st, i));
        }
        if (!shared && rnd(&st, 3) == 0) {     /* a Python stack: the line picks the site */
            sc_pyframe *pf = &frames[2 * n_py];
            pf[0] = (sc_pyframe){lib, "synchronize", 800};
            uint64_t line = rnd(&st, 3);
            pf[1] = (sc_pyframe){rnd(&st, 2) ? file_a : file_a2, "step", 10 + (int32_t)line};
            if (rnd(&st, 5) == 0)
                pf[1].file = "/work/other.py";
            stacks[n_py] = (sc_pystack){.correlation_id = corr, .n_frames = 2, .frames = pf};
            n_py++;
        }
    }
    /* one name under a second pointer: the calls named by the placeholder take it */
    syn_call(s, SC_CALL_OTHER, US(10 * n_calls), US(10 * n_calls + 1), 0, "placeholder", NULL, 0);
    for (size_t i = 0; i < s->t.n_call_names; i++) {
        if (strcmp(s->t.call_names[i], "cudaStreamSynchronize") == 0)
            s->t.call_names[i] = name_a;
        if (strcmp(s->t.call_names[i], "placeholder") == 0)
            s->t.call_names[i] = name_a2;
    }
    size_t second = 0;
    while (strcmp(s->t.call_names[second], "cudaStreamSynchronize") != 0 ||
           s->t.call_names[second] != name_a2)
        second++;
    for (size_t i = 0; i < n_calls; i++)
        if (sc_call_name(&s->t, &s->t.calls[i]) == name_a && rnd(&st, 2) == 0)
            syn_call_name_at(s, &s->t.calls[i], (uint32_t)second);
    s->t.n_calls--;     /* the placeholder's call itself is no instance */
    s->t.pystacks = stacks;
    s->t.n_pystacks = n_py;
    syn_finish(s);
}

static void check(uint64_t seed, size_t n_calls, size_t n_stacks)
{
    syn s;
    sc_pystack *stacks = calloc(n_calls + 1, sizeof *stacks);
    sc_pyframe *frames = calloc(2 * n_calls + 2, sizeof *frames);
    build(&s, seed, n_calls, n_stacks, stacks, frames);
    sc_analysis a = {0};
    a.trace = &s.t;
    sc_ctx ctx = {.trace = &s.t, .analysis = &a};
    assert_int_equal(sc_ctx_build(&ctx, &a), 0);
    /* the instances in a random order, costs with ties */
    uint64_t st = seed * 7919;
    size_t n = s.t.n_calls;
    const sc_api_call **calls = malloc(n * sizeof *calls);
    uint64_t *costs = malloc(n * sizeof *costs);
    for (size_t i = 0; i < n; i++)
        calls[i] = &s.t.calls[i];
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rnd(&st, i);
        const sc_api_call *x = calls[i - 1];
        calls[i - 1] = calls[j];
        calls[j] = x;
    }
    sc_finding_builder b;
    sc_finding_begin(&b, "test", NULL);
    for (size_t i = 0; i < n; i++) {
        costs[i] = US(rnd(&st, 4));
        sc_instance inst = {.start_ns = calls[i]->rec.start_ns,
                            .end_ns = sc_call_end(&s.t, calls[i]),
                            .cost_ns = costs[i], .call = calls[i]};
        sc_text_append(&inst.text, "instance %zu", i);
        assert_int_equal(sc_finding_add(&b, &inst), 0);
    }
    sc_text_append(&b.finding.title, "test");
    sc_finding_list list = {0};
    assert_int_equal(sc_finding_finish(&b, &ctx, &list), 0);
    ref_site *want = malloc(n * sizeof *want);
    size_t n_want = ref_sites(&ctx, calls, costs, n, want);
    assert_true(n_want > 1);
    const sc_finding *f = &list.items[0];
    assert_int_equal(f->n_sites, n_want < SC_MAX_SITES ? n_want : SC_MAX_SITES);
    for (size_t k = 0; k < f->n_sites; k++) {
        assert_ptr_equal(f->sites[k].call, want[k].site);
        assert_int_equal(f->sites[k].count, want[k].count);
        assert_int_equal(f->sites[k].cost_ns, want[k].cost_ns);
    }
    free(want);
    free(calls);
    free(costs);
    sc_finding_list_free(&list);
    sc_ctx_free(&ctx);
    sc_analysis_free(&a);
    s.t.pystacks = NULL;
    s.t.n_pystacks = 0;
    syn_free(&s);
    free(stacks);
    free(frames);
}

/* A few sites, many instances each: the ranks hang on every instance's grouping. */
static void test_few_sites(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; seed++)
        check(seed, 60 + 5 * seed, 2 + seed % STACKS);
}

/* More sites than the table's first 64 slots hold at half: it grows while grouping. */
static void test_many_sites(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 106; seed++)
        check(seed, 2000, 5 * 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_few_sites),
        cmocka_unit_test(test_many_sites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
