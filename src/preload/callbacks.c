#include "preload/callbacks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "preload/activity.h"
#include "preload/agent.h"
#include "preload/calls.h"
#include "preload/clock.h"
#include "preload/cupti_loader.h"
#include "preload/loss.h"
#include "preload/nvtx.h"
#include "preload/options.h"
#include "preload/python.h"
#include "preload/sample.h"
#include "preload/scope.h"
#include "preload/stack.h"
#include "preload/thread.h"
#include "preload/tracebuf.h"
#include "trace/record.h"

#define SC_TLS __thread __attribute__((tls_model("initial-exec")))

static CUpti_SubscriberHandle sc_subscriber;
static atomic_bool sc_subscribed;

/* Per thread, in one variable: the callback finds both with one address. */
static SC_TLS struct {
    int depth;      /* hooked calls in progress on this thread */
    bool inside;    /* streamcheck's own CUDA calls */
} sc_self;

/* Live contexts, for the exit path. Contexts are few; a small array under a spin of
 * atomics would do, but creation and destruction are rare, so a plain lock is fine. */
enum { SC_MAX_CONTEXTS = 64 };
static pthread_mutex_t sc_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext sc_ctx_live[SC_MAX_CONTEXTS];
static int sc_ctx_count;

void sc_callbacks_self(bool inside) { sc_self.inside = inside; }

int sc_callbacks_contexts(CUcontext *out, int max)
{
    pthread_mutex_lock(&sc_ctx_lock);
    int n = sc_ctx_count < max ? sc_ctx_count : max;
    memcpy(out, sc_ctx_live, (size_t)n * sizeof *out);
    pthread_mutex_unlock(&sc_ctx_lock);
    return n;
}

/* Rare callbacks, and the exit's work, kept out of sc_on_callback: inlined, they would make
 * every entry callback save and restore the registers they use. */
#define SC_OUT_OF_LINE __attribute__((noinline))

static SC_OUT_OF_LINE void sc_on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *r)
{
    pthread_mutex_lock(&sc_ctx_lock);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
        if (sc_ctx_count < SC_MAX_CONTEXTS) sc_ctx_live[sc_ctx_count++] = r->context;
        else sc_loss_add(SC_LOSS_CONTEXTS, 1);
    } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        for (int i = 0; i < sc_ctx_count; i++)
            if (sc_ctx_live[i] == r->context) sc_ctx_live[i] = sc_ctx_live[--sc_ctx_count];
    }
    pthread_mutex_unlock(&sc_ctx_lock);
    /* the driver is initialized now: the unified-memory counters can be configured */
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && sc_opts.unified_memory)
        sc_activity_unified_start();
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) sc_activity_context_going();
}

/* The call's name, with the first call of each function: a record of its own, written
 * after the call's (a reader names calls once it has read every record). */
static SC_OUT_OF_LINE void sc_write_name_first(sc_hook_hot *h, const char *name)
{
    if (atomic_exchange(&h->named, 1)) return;
    sc_rec_call_name r = {.domain = h->hook->domain, .cbid = h->hook->cbid};
    if (!name) name = "?";
    sc_tbuf_put(SC_REC_CALL_NAME, &r, sizeof r, name, strlen(name) + 1);
}

/* After the first call of each function, one load. */
static inline void sc_write_name(sc_hook_hot *h, const char *name)
{
    if (__builtin_expect(!atomic_load_explicit(&h->named, memory_order_relaxed), 0))
        sc_write_name_first(h, name);
}

/* Whether this call shares the stack of an earlier call of the thread instead of taking one
 * (sample.h: the key's first calls and one in SC_SAMPLE_EVERY take one); *shared is then
 * that call's correlation id. A launch that does not say which kernel would share another
 * kernel's site, and a call whose hook never shares keeps its own. */
static inline bool sc_stack_shared(sc_thread *t, const sc_hook_hot *h,
                                   const CUpti_CallbackData *cb, uint64_t stream,
                                   uint32_t *shared)
{
    const void *kernel = h->launch ? cb->symbolName : NULL;
    if (!h->share || (h->launch && !kernel)) return false;
    uint64_t python = sc_python_active() ? sc_python_key() : 0;
    return !sc_sample_take_key(&t->samples, stream, kernel, python, h->sample_tag,
                               cb->correlationId, shared, sc_python_stack_key);
}

static inline void sc_put64(uint8_t *dst, uint64_t v) { memcpy(dst, &v, sizeof v); }

/* An API record at dst, header included, its n frames already in place after it, written
 * as the ten little-endian words it is: the hook gives domain, cbid and class in one.
 * Returns its size. */
static inline size_t sc_put_api(uint8_t *dst, const sc_hook_hot *h, uint64_t start,
                                uint64_t end, const sc_call_args *a, uint32_t tid,
                                const CUpti_CallbackData *cb, uint32_t flags, int32_t result,
                                unsigned n)
{
    _Static_assert(sizeof(sc_record_header) + sizeof(sc_rec_api) == 80 &&
                       offsetof(sc_record_header, size) == 4 && offsetof(sc_rec_api, tid) == 40 &&
                       offsetof(sc_rec_api, context_id) == 48 &&
                       offsetof(sc_rec_api, domain) == 56 && offsetof(sc_rec_api, result) == 64 &&
                       offsetof(sc_rec_api, aux2) == 68,
                   "sc_put_api writes sc_rec_api as ten words");
    size_t size = sizeof(sc_record_header) + sizeof(sc_rec_api) + n * sizeof(uint64_t);
    sc_put64(dst, SC_REC_API | (uint64_t)sizeof(sc_rec_api) << 16 | (uint64_t)size << 32);
    sc_put64(dst + 8, start);
    sc_put64(dst + 16, end);
    sc_put64(dst + 24, a->stream);
    sc_put64(dst + 32, a->bytes);
    sc_put64(dst + 40, a->aux);
    sc_put64(dst + 48, tid | (uint64_t)cb->correlationId << 32);
    sc_put64(dst + 56, cb->contextUid | (uint64_t)flags << 32);
    sc_put64(dst + 64, h->api_word | (uint64_t)n << 48);
    sc_put64(dst + 72, (uint32_t)result | (uint64_t)a->aux2 << 32);
    return size;
}

/* The time this call's stack took on the application's thread, as an OVERHEAD record of
 * streamcheck's own kind: the replay leaves it out of the costs (trace_format.h). Only calls
 * that took a stack pay for the second clock read. */
static void sc_stack_time(const sc_thread *t, uint64_t since, uint32_t correlation_id)
{
    uint64_t now = sc_clock_now();
    sc_rec_overhead r = {.start_ns = since, .end_ns = now > since ? now : since,
                         .kind = SC_OVERHEAD_STREAMCHECK_STACK, .object_kind = 2,
                         .object_id = {0, t->tid, 0}, .correlation_id = correlation_id};
    sc_tbuf_put(SC_REC_OVERHEAD, &r, sizeof r, NULL, 0);
}

/* The Python stack of a call that took a native stack, right after its API record. */
static void sc_write_pystack(uint32_t correlation_id)
{
    sc_py_frame frames[SC_PYTHON_MAX_FRAMES];
    uint16_t state;
    int n = sc_python_stack(frames, SC_PYTHON_MAX_FRAMES, &state);
    sc_rec_pystack r = {.correlation_id = correlation_id, .n_frames = (uint16_t)n,
                        .state = state};
    sc_tbuf_put(SC_REC_PYSTACK, &r, sizeof r, frames, (size_t)n * sizeof *frames);
}

/* Calls are written as compact records (trace_format.h, 2.0) unless STREAMCHECK_OPTIONS
 * compact=0 said not to: then no site is ever declared, and every call that could be compact
 * finds that out in sc_write_compact_declaring. */
static bool sc_compact_calls;

/* The call as a compact record at dst when its site or time base must be declared first
 * (compact_write.h): out of line, once per site and buffer. The site is the hook's and the
 * stream's: the hook gives the call, its domain, class and flags; the thread is the buffer's
 * owner. Returns the bytes written, or 0: write the full record. */
static SC_OUT_OF_LINE size_t sc_write_compact_declaring(sc_thread *t, uint8_t *dst,
                                                        const sc_hook *h, uint64_t stream,
                                                        uint64_t start, uint64_t end,
                                                        const CUpti_CallbackData *cb,
                                                        uint32_t shared)
{
    if (!sc_compact_calls) return 0;
    sc_rec_call_site site = {.stream = stream, .tid = t->tid,
                             .flags = h->flags | SC_API_STACK_SHARED, .domain = h->domain,
                             .cbid = h->cbid, .call_class = h->call_class};
    sc_compact_call_in c = {.start_ns = start, .end_ns = end,
                            .correlation_id = cb->correlationId, .shared = shared,
                            .context_id = cb->contextUid};
    return sc_compact_call(&t->compact, dst, h, &site, &c);
}

/* What a call's record is made from. */
typedef struct sc_exit_call {
    sc_call_args args;
    uint64_t start, end;
    int32_t result;
} sc_exit_call;

/* A call that took a stack of its own (n frames, unwound straight into the buffer after
 * the record at dst), or none (stack_depth=0, a failed unwind): the full record, then what
 * follows a stack. Out of line, so that the calls that share a stack (all but 1 in
 * SC_SAMPLE_EVERY of each key) save no registers for it. With t's buffer reserved. */
static SC_OUT_OF_LINE void sc_exit_own_stack(sc_thread *t, sc_hook_hot *h, uint8_t *dst,
                                             const CUpti_CallbackData *cb,
                                             const sc_exit_call *c, int n)
{
    size_t used = sc_put_api(dst, h, c->start, c->end, &c->args, t->tid, cb, h->flags,
                             c->result, (unsigned)n);
    sc_tbuf_commit_api_in(t, used);
    sc_write_name(h, cb->functionName);
    if (n > 0 && sc_python_active()) sc_write_pystack(cb->correlationId);
    if (n > 0) sc_stack_time(t, c->end, cb->correlationId);
    /* CUPTI's buffers are handed over after a device-wide synchronization, by the agent:
     * never on the thread that synchronized. */
    if (h->device_sync) sc_agent_request_checkpoint();
}

/* The exit of a call the application made while the scope was open: its record. The common
 * call shares the stack of an earlier call of the same key (sample.h) and is written here,
 * as a compact record when it fits (trace_format.h: a call that shares its stack through aux
 * and whose other values are 0, most often a launch), else in full. */
static SC_OUT_OF_LINE void sc_on_exit(sc_hook_hot *h, const CUpti_CallbackData *cb)
{
    sc_exit_call c = {.args = {.stream = SC_STREAM_NONE}};
    c.end = sc_clock_now();   /* first: the call's end */
    if (h->extract && cb->functionParams) h->extract(cb->functionParams, true, &c.args);
    size_t max_frames = (size_t)sc_opts.stack_depth;
    /* options.c keeps it so: the reserve below need not check the record's size */
    if (max_frames > SC_MAX_STACK_DEPTH) __builtin_unreachable();
    /* Room for a whole stack, whether or not this call takes one: where a buffer fills
     * does not depend on the sampling. */
    size_t size = sc_record_size(sizeof(sc_rec_api), max_frames * sizeof(uint64_t));
    uint8_t *dst = sc_tbuf_reserve_in(sc_thread_peek(), size);
    if (!dst) return;
    sc_thread *t = sc_thread_peek();    /* reserve claimed it */
    c.start = cb->correlationData ? *cb->correlationData : c.end;
    c.result = cb->functionReturnValue ? *(const int32_t *)cb->functionReturnValue : 0;
    uint32_t shared;
    if (!max_frames || !sc_stack_shared(t, h, cb, c.args.stream, &shared)) {
        int n = sc_stack_capture_app(
            (uint64_t *)(dst + sizeof(sc_record_header) + sizeof(sc_rec_api)), (int)max_frames);
        sc_exit_own_stack(t, h, dst, cb, &c, n);
        return;
    }
    size_t used = 0;
    if (h->share == SC_API_STACK_SHARED) {
        if (!(c.args.bytes | c.args.aux2 | (uint32_t)c.result)) {
            used = sc_compact_call_declared(&t->compact, dst, h->hook, c.args.stream, c.start,
                                            c.end, cb->correlationId, shared, cb->contextUid);
            if (__builtin_expect(used != 0, 1)) {
                /* The common case ends here: its call's name was written (below) when its
                 * site was declared in this buffer. */
                sc_tbuf_commit_api_in(t, used);
                if (h->device_sync) sc_agent_request_checkpoint();
                return;
            }
            used = sc_write_compact_declaring(t, dst, h->hook, c.args.stream, c.start, c.end,
                                              cb, shared);
        }
        c.args.aux = shared;
    } else {
        c.args.aux2 = shared;
    }
    if (!used)
        used = sc_put_api(dst, h, c.start, c.end, &c.args, t->tid, cb, h->flags | h->share,
                          c.result, 0);
    sc_tbuf_commit_api_in(t, used);
    sc_write_name(h, cb->functionName);
    if (h->device_sync) sc_agent_request_checkpoint();
}

/* capture=profiler: a start opens the scope once it has happened (its exit: the first one
 * may be the call that started CUDA, whose entry came before capture); a stop closes it as
 * it begins. */
static SC_OUT_OF_LINE void sc_on_profiler(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                           const CUpti_CallbackData *cb)
{
    int what = sc_profiler_call((uint16_t)domain, (uint16_t)cbid);
    bool enter = cb->callbackSite == CUPTI_API_ENTER;
    if (!what || enter != (what < 0)) return;
    sc_scope_profiler(what > 0, sc_clock_now());
}

/* The callbacks that are neither a hooked call nor NVTX: resources, the profiler's calls. */
static SC_OUT_OF_LINE void sc_on_other(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                       const void *data)
{
    if (domain == CUPTI_CB_DOMAIN_RESOURCE)
        sc_on_resource(cbid, data);
    else if (!sc_self.inside)
        sc_on_profiler(domain, cbid, data);
}

/* The entry of a call made while a capture scope is set: its id joins the scope's window,
 * then its entry time. */
static SC_OUT_OF_LINE void sc_on_enter_scoped(uint32_t scope, const CUpti_CallbackData *cb)
{
    sc_scope_note_call(scope, cb->correlationId);
    if (cb->correlationData) *cb->correlationData = sc_clock_now();
}

static void CUPTIAPI sc_on_callback(void *userdata, CUpti_CallbackDomain domain,
                                    CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    sc_hook_hot *h = sc_hook_find(domain, cbid);
    if (__builtin_expect(!h, 0)) {
        if (domain != CUPTI_CB_DOMAIN_NVTX)
            sc_on_other(domain, cbid, data);
        else if (!sc_self.inside)
            sc_nvtx_on_callback(cbid, data);
        return;
    }
    if (sc_self.inside) return;
    const CUpti_CallbackData *cb = data;
    /* A runtime call reaches the driver: only the outermost hooked call is the
     * application's; its correlation id is the one the activity records carry. A call
     * made while the capture scope is closed is not recorded (scope.h): 0 says so. Each
     * path ends in one call, so that none saves registers. */
    if (cb->callbackSite == CUPTI_API_ENTER) {
        uint32_t scope = sc_self.depth++ == 0 ? sc_scope_now() : 0;
        if (!(scope & SC_SCOPE_OPEN)) {
            if (cb->correlationData) *cb->correlationData = 0;
        } else if (scope & SC_SCOPE_SET) {
            sc_on_enter_scoped(scope, cb);
        } else if (cb->correlationData) {
            *cb->correlationData = sc_clock_now();
        }
        return;
    }
    int depth = sc_self.depth - 1;
    sc_self.depth = depth > 0 ? depth : 0; /* below 0: an exit without entry (subscribed
                                              mid-call) */
    /* Without correlation data (an exit whose entry came before capture), the scope now. */
    if (depth == 0 && (cb->correlationData ? *cb->correlationData != 0
                                           : (sc_scope_now() & SC_SCOPE_OPEN) != 0))
        sc_on_exit(h, cb);
}

CUptiResult sc_callbacks_start(void)
{
    sc_hooks_init();
    sc_compact_calls = sc_opts.compact;
    CUptiResult rc = sc_cupti_api.Subscribe(&sc_subscriber, sc_on_callback, NULL);
    if (rc != CUPTI_SUCCESS) return rc;
    atomic_store(&sc_subscribed, true);
    unsigned n = 0;
    const sc_hook *hooks = sc_hooks(&n);
    for (unsigned i = 0; i < n; i++)
        sc_cupti_api.EnableCallback(1, sc_subscriber, hooks[i].domain, hooks[i].cbid);
    const uint32_t *resource = sc_resource_hooks(&n);
    for (unsigned i = 0; i < n; i++)
        sc_cupti_api.EnableCallback(1, sc_subscriber, CUPTI_CB_DOMAIN_RESOURCE, resource[i]);
    sc_nvtx_enable(sc_subscriber);
    if (strcmp(sc_opts.capture, "profiler") == 0) {
        hooks = sc_profiler_hooks(&n);
        for (unsigned i = 0; i < n; i++)
            sc_cupti_api.EnableCallback(1, sc_subscriber, hooks[i].domain, hooks[i].cbid);
    }
    return CUPTI_SUCCESS;
}

void sc_callbacks_stop(void)
{
    if (atomic_exchange(&sc_subscribed, false)) sc_cupti_api.Unsubscribe(sc_subscriber);
}
