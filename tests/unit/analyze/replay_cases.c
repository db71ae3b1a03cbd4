/* What the replay's whole-graph tests share: replay_cases.h. */
#include "replay_cases.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

uint64_t rc_rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

void rc_graph_build(rc_graph *g, const sc_trace *t, const uint64_t *calls, size_t n,
                    bool runs)
{
    memset(g, 0, sizeof *g);
    g->a.trace = t;
    g->ctx = (sc_ctx){.trace = t, .analysis = &g->a};
    assert_int_equal(sc_ctx_build(&g->ctx, &g->a), 0);
    sc_ctx_free_rule_indexes(&g->ctx);
    uint64_t *copy = malloc((n + 1) * sizeof *copy);
    assert_non_null(copy);
    if (n)
        memcpy(copy, calls, n * sizeof *copy);
    assert_int_equal(sc_replay_build_as(&g->ctx, copy, n, runs, &g->r), 0);
    free(copy);
}

void rc_graph_free(rc_graph *g)
{
    sc_replay_free(g->r);
    sc_ctx_free(&g->ctx);
    sc_analysis_free(&g->a);
}

uint64_t *rc_some_calls(const sc_trace *t, uint64_t *seed, size_t *n)
{
    *seed = 0x9E3779B97F4A7C15ull ^ t->n_calls;
    uint64_t *calls = malloc((t->n_calls + 1) * sizeof *calls);
    assert_non_null(calls);
    *n = 0;
    for (size_t c = 0; c < t->n_calls; c++)
        if (rc_rnd(seed) % 3 == 0)
            calls[(*n)++] = c;
    return calls;
}

bool rc_load(const char *path, void (*check)(const sc_trace *t, void *arg), void *arg)
{
    sc_trace t;
    char err[512];
    if (sc_trace_load(path, &t, err, sizeof err) != 0)
        return false;
    check(&t, arg);
    sc_trace_free(&t);
    return true;
}

size_t rc_random_fixes(const sc_replay *r, uint32_t kind, const uint64_t *calls,
                       size_t n_calls, sc_fix *out, size_t n, uint64_t *seed)
{
    static const uint32_t kinds[] = {
        SC_FIX_BARRIER, SC_FIX_UNWAIT, SC_FIX_PINNED, SC_FIX_UNHOLD, SC_FIX_ROOM,
        SC_FIX_NO_LOAD, SC_FIX_REMOVE, SC_FIX_ARRIVAL, SC_FIX_QUEUES, SC_FIX_UNEVENT,
        SC_FIX_PREFETCH, SC_FIX_DURATION,
    };
    const sc_trace *t = r->ctx->trace;
    for (size_t k = 0; k < n; k++) {
        uint32_t kd = kind ? kind : kinds[rc_rnd(seed) % (sizeof kinds / sizeof *kinds)];
        size_t span = 1;
        switch (kd) {
        case SC_FIX_BARRIER: span = r->n_slots; break;
        case SC_FIX_UNWAIT: case SC_FIX_NO_LOAD: case SC_FIX_REMOVE: case SC_FIX_UNEVENT:
            span = t->n_calls; break;
        case SC_FIX_PINNED: span = t->n_copies; break;
        case SC_FIX_UNHOLD: span = r->n_ops; break;
        default: span = t->n_kernels; break;
        }
        size_t index = (size_t)(rc_rnd(seed) % (span + 2));
        bool names_call = kd == SC_FIX_UNWAIT || kd == SC_FIX_NO_LOAD || kd == SC_FIX_REMOVE;
        if (names_call && n_calls > 0 && rc_rnd(seed) % 8 != 0)
            index = (size_t)calls[rc_rnd(seed) % n_calls];
        if (kd == SC_FIX_UNHOLD && rc_rnd(seed) % 16 == 0)
            index = SC_FIX_ALL;
        out[k] = (sc_fix){.kind = kd, .index = index,
                          .ns = kd == SC_FIX_DURATION ? rc_rnd(seed) % 100000 : 0};
    }
    return n;
}

void rc_fix_lists(const sc_replay *r, const uint64_t *calls, size_t n_calls, uint64_t *seed,
                  void (*pass)(const sc_fix *fixes, size_t n, bool plain, void *arg),
                  void *arg)
{
    enum { N = 64, MANY = 4096 };
    sc_fix fixes[N];
    for (int plain = 0; plain < 2; plain++) {
        pass(NULL, 0, plain, arg);
        for (uint32_t kind = 0; kind <= SC_FIX_DURATION; kind++)
            pass(fixes, rc_random_fixes(r, kind, calls, n_calls, fixes, N, seed), plain, arg);
    }
    sc_fix *many = malloc(MANY * sizeof *many);
    assert_non_null(many);
    size_t n_many = rc_random_fixes(r, 0, calls, n_calls, many, MANY, seed);
    for (size_t k = 0; k < n_many; k++)
        if (many[k].index == SC_FIX_ALL)
            many[k].index = 0;
    pass(many, n_many, true, arg);
    free(many);
}

void rc_args(int argc, char **argv, char ***folders, int *n_folders, const char **synthetic)
{
    *n_folders = 0;
    *synthetic = NULL;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--synthetic") == 0 && k + 1 < argc) {
            *synthetic = argv[++k];
            continue;
        }
        argv[1 + (*n_folders)++] = argv[k];
    }
    *folders = argv + 1;
}

static bool rc_is_trace(const char *name)
{
    size_t n = strlen(name);
    return n > 8 && strcmp(name + n - 8, ".sctrace") == 0;
}

size_t rc_each_trace(char **folders, int n_folders, bool (*check)(const char *path, void *arg),
                     void *arg)
{
    size_t loaded = 0;
    for (int f = 0; f < n_folders; f++) {
        DIR *dir = opendir(folders[f]);
        assert_non_null(dir);
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            if (!rc_is_trace(e->d_name))
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", folders[f], e->d_name);
            loaded += check(path, arg);
        }
        closedir(dir);
    }
    return loaded;
}

bool rc_synthetic(const char *program, unsigned threads, unsigned records,
                  bool (*check)(const char *path, void *arg), void *arg)
{
    char dir[] = "/tmp/sc-replay-case-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[8192], path[4096];
    snprintf(cmd, sizeof cmd, "'%s' --threads %u '%s' %u >/dev/null", program, threads, dir,
             records);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/synthetic-4242.sctrace", dir);
    bool built = check(path, arg);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    return built;
}
