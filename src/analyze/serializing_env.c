/* Rule "serializing-env": environment variables that take concurrency away from the whole
 * process, read from the trace's ENV records ("NAME=value", the CUDA_*, PYTORCH_*, NCCL_*
 * and TORCH_* variables the library saw at start).
 *
 * One finding per variable that is set to its harmful value. Its cost is the replay's
 * (costs.c), with the fix the variable's removal means: CUDA_LAUNCH_BLOCKING=1 gone, no
 * launch waits for its kernel; CUDA_DEVICE_MAX_CONNECTIONS=1 gone, no work is held behind
 * another stream's work for a reason the trace does not name (one queue is such a reason);
 * PYTORCH_NO_CUDA_MEMORY_CACHING=1 gone, no cudaMalloc or cudaFree waits. An explicit
 * CUDA_MODULE_LOADING=LAZY is only named: the lazy-loading rule costs its effects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/blocking.h"
#include "analyze/findings.h"
#include "analyze/rules.h"

/* A variable this rule knows. */
typedef struct sc_env_rule {
    const char *name;
    const char *value;          /* the harmful value, compared ignoring case */
    int (*judge)(const sc_ctx *ctx, sc_finding_builder *b, sc_instance *inst);
    const char *fix;
} sc_env_rule;

/* The value of NAME in the trace's environment, or NULL. */
static const char *sc_env_get(const sc_trace *t, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < t->n_env; i++)
        if (t->env[i] && strncmp(t->env[i], name, len) == 0 && t->env[i][len] == '=')
            return t->env[i] + len + 1;
    return NULL;
}

static uint64_t sc_count_launches(const sc_trace *t)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->n_calls; i++)
        n += sc_call_class_id(t, &t->calls[i]) == SC_CALL_LAUNCH;
    return n;
}

/* Fixes: every outermost call of one of two classes no longer waits. */
static int sc_env_unwait(const sc_ctx *ctx, sc_finding_builder *b, uint16_t a, uint16_t c)
{
    const sc_trace *t = ctx->trace;
    for (size_t i = 0; i < t->n_calls; i++) {
        uint16_t k = sc_call_class_id(t, &t->calls[i]);
        if ((k == a || k == c) && !sc_blocking_is_inner(ctx, &t->calls[i]) &&
            sc_finding_fix(b, SC_FIX_UNWAIT, i) != 0)
            return -1;
    }
    return 0;
}

static int sc_env_launch_blocking(const sc_ctx *ctx, sc_finding_builder *b, sc_instance *inst)
{
    sc_finding *f = &b->finding;
    uint64_t launches = sc_count_launches(ctx->trace);
    sc_text_append(&f->title,
                   "CUDA_LAUNCH_BLOCKING=1: each of the %llu kernel launches waited for its "
                   "kernel to finish; no two kernels can overlap and the host never runs ahead",
                   (unsigned long long)launches);
    sc_instance_evidence(inst, "launches", (double)launches, "count");
    sc_instance_evidence(inst, "kernels", (double)ctx->trace->n_kernels, "count");
    return sc_env_unwait(ctx, b, SC_CALL_LAUNCH, SC_CALL_LAUNCH);
}

/* Streams that ran at least one kernel: with one hardware queue they are what serializes. */
static uint64_t sc_kernel_streams(const sc_ctx *ctx)
{
    uint64_t n = 0;
    for (size_t i = 0; i < ctx->analysis->n_streams; i++)
        n += ctx->analysis->streams[i].overlap.kernel_count > 0;
    return n;
}

static int sc_env_max_connections(const sc_ctx *ctx, sc_finding_builder *b, sc_instance *inst)
{
    sc_finding *f = &b->finding;
    uint64_t streams = sc_kernel_streams(ctx);
    sc_text_append(&f->title,
                   "CUDA_DEVICE_MAX_CONNECTIONS=1: one hardware work queue, so the %llu "
                   "streams with kernels feed the device through one queue and independent "
                   "work serializes",
                   (unsigned long long)streams);
    sc_instance_evidence(inst, "kernel_streams", (double)streams, "count");
    return sc_finding_fix(b, SC_FIX_UNHOLD, SC_FIX_ALL);
}

static uint64_t sc_count_class(const sc_trace *t, uint16_t a, uint16_t b)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        uint8_t k = sc_call_class_id(t, &t->calls[i]);
        n += k == a || k == b;
    }
    return n;
}

static int sc_env_no_caching(const sc_ctx *ctx, sc_finding_builder *b, sc_instance *inst)
{
    sc_finding *f = &b->finding;
    uint64_t allocs = sc_count_class(ctx->trace, SC_CALL_MALLOC, SC_CALL_FREE);
    sc_text_append(&f->title,
                   "PYTORCH_NO_CUDA_MEMORY_CACHING=1: every tensor allocation is a cudaMalloc "
                   "and every release a cudaFree (%llu calls), each of which may synchronize "
                   "the device",
                   (unsigned long long)allocs);
    sc_instance_evidence(inst, "malloc_free_calls", (double)allocs, "count");
    return sc_env_unwait(ctx, b, SC_CALL_MALLOC, SC_CALL_FREE);
}

static int sc_env_lazy(const sc_ctx *ctx, sc_finding_builder *b, sc_instance *inst)
{
    (void)ctx;
    (void)inst;
    sc_text_append(&b->finding.title,
                   "CUDA_MODULE_LOADING=LAZY set explicitly: a kernel's module loads at its "
                   "first launch, which can delay work on other streams (see lazy-loading)");
    return 0;
}

static const sc_env_rule sc_env_rules[] = {
    {"CUDA_LAUNCH_BLOCKING", "1", sc_env_launch_blocking,
     "unset CUDA_LAUNCH_BLOCKING (it is a debugging aid that makes every launch synchronous)"},
    {"CUDA_DEVICE_MAX_CONNECTIONS", "1", sc_env_max_connections,
     "unset CUDA_DEVICE_MAX_CONNECTIONS or raise it (default 8) unless a library (e.g. "
     "Megatron's overlap of communication) needs the strict ordering"},
    {"PYTORCH_NO_CUDA_MEMORY_CACHING", "1", sc_env_no_caching,
     "unset PYTORCH_NO_CUDA_MEMORY_CACHING (a debugging aid); PyTorch's caching allocator "
     "reuses memory without calling cudaMalloc/cudaFree"},
    {"CUDA_MODULE_LOADING", "LAZY", sc_env_lazy,
     "CUDA_MODULE_LOADING=EAGER, or warm every kernel up before the concurrent part"},
};

static int sc_env_report(const sc_ctx *ctx, const sc_env_rule *r, const char *value,
                         sc_finding_list *out)
{
    sc_finding_builder b;
    sc_instance inst;
    sc_finding_begin(&b, "serializing-env", r->fix);
    memset(&inst, 0, sizeof(inst));
    inst.start_ns = ctx->analysis->run_start_ns;
    inst.end_ns = ctx->analysis->run_end_ns;
    sc_text_append(&inst.text, "%s=%s in the process's environment", r->name, value);
    /* the numeric value for JSON consumers; LAZY has none */
    char *end = NULL;
    double v = strtod(value, &end);
    if (end && end != value && *end == '\0')
        sc_instance_evidence(&inst, "value", v, "");
    if (r->judge(ctx, &b, &inst) != 0 || sc_finding_add(&b, &inst) != 0) {
        free(inst.text);    /* still the instance's when judge failed */
        sc_finding_discard(&b);
        return -1;
    }
    return sc_finding_finish(&b, ctx, out);
}

int sc_rule_serializing_env(const sc_ctx *ctx, sc_finding_list *out, char *err,
                            size_t err_size)
{
    int rc = 0;
    for (size_t i = 0; i < sizeof(sc_env_rules) / sizeof(sc_env_rules[0]) && rc == 0; i++) {
        const char *value = sc_env_get(ctx->trace, sc_env_rules[i].name);
        if (value && strcasecmp(value, sc_env_rules[i].value) == 0)
            rc = sc_env_report(ctx, &sc_env_rules[i], value, out);
    }
    if (rc != 0 && err && err_size)
        snprintf(err, err_size, "serializing-env: out of memory");
    return rc;
}
