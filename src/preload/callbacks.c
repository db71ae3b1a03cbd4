#include "preload/callbacks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "preload/activity.h"
#include "preload/agent.h"
#include "preload/calls.h"
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

static SC_TLS int sc_depth;       /* hooked calls in progress on this thread */
static SC_TLS bool sc_inside;     /* streamcheck's own CUDA calls */

/* Names of the calls already written, one byte per (domain, cbid): a byte, not a bit, so
 * that the check on every call is one load with no shift or mask. 4 KiB. */
enum { SC_NAME_SLOTS = SC_HOOK_SLOTS };
static atomic_uchar sc_named[2][SC_NAME_SLOTS]; /* [domain - 1]: driver, runtime */

/* Live contexts, for the exit path. Contexts are few; a small array under a spin of
 * atomics would do, but creation and destruction are rare, so a plain lock is fine. */
enum { SC_MAX_CONTEXTS = 64 };
static pthread_mutex_t sc_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext sc_ctx_live[SC_MAX_CONTEXTS];
static int sc_ctx_count;

void sc_callbacks_self(bool inside) { sc_inside = inside; }

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
    /* The context's records must leave CUPTI before it goes (cudaDeviceReset mid-run). */
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) sc_cupti_api.ActivityFlushAll(0);
}

static void sc_write_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name)
{
    /* hooked calls only: domain 1 (driver) or 2 (runtime), cbid below SC_HOOK_SLOTS */
    atomic_uchar *named = &sc_named[domain - 1][cbid];
    /* A plain load first: after the first call of each function this is all it costs. */
    if (atomic_load_explicit(named, memory_order_relaxed)) return;
    if (atomic_exchange(named, 1)) return;
    sc_rec_call_name r = {.domain = (uint16_t)domain, .cbid = (uint16_t)cbid};
    if (!name) name = "?";
    sc_tbuf_put(SC_REC_CALL_NAME, &r, sizeof r, name, strlen(name) + 1);
}

/* Where a call that shares another's stack names it: aux, unless aux holds a handle. */
static uint32_t sc_share_flag(uint16_t call_class)
{
    switch (call_class) {
    case SC_CALL_STREAM_CREATE:
        return 0;   /* aux: the new stream, aux2: its flags. Rare: it keeps its own stack. */
    case SC_CALL_GRAPH_LAUNCH:
    case SC_CALL_EVENT_RECORD:
    case SC_CALL_EVENT_WAIT:
    case SC_CALL_EVENT_SYNC:
    case SC_CALL_EVENT_QUERY:
    case SC_CALL_EVENT_READ:
    case SC_CALL_HOST_FUNC:
        return SC_API_STACK_SHARED_AUX2;
    default:
        return SC_API_STACK_SHARED;
    }
}

/* Whether this call takes a stack (sample.h); if not, the flag that says whose it shares,
 * with that call's correlation id set in args. */
static uint32_t sc_stack_share(sc_thread *t, const sc_hook *h, CUpti_CallbackId cbid,
                               const CUpti_CallbackData *cb, sc_call_args *args)
{
    uint32_t flag = sc_share_flag(h->call_class);
    const void *kernel = h->call_class == SC_CALL_LAUNCH ? cb->symbolName : NULL;
    /* A launch that does not say which kernel would share another kernel's site. */
    if (!flag || !t || (h->call_class == SC_CALL_LAUNCH && !kernel)) return 0;
    sc_sample_key key = {.stream = args->stream, .kernel = kernel, .cbid = (uint16_t)cbid,
                         .call_class = h->call_class,
                         .python = sc_python_active() ? sc_python_key() : 0};
    uint32_t shared = 0;
    if (sc_sample_take(&t->samples, &key, cb->correlationId, &shared)) return 0;
    if (flag == SC_API_STACK_SHARED) args->aux = shared;
    else args->aux2 = shared;
    return flag;
}

/* The time this call's stack took on the application's thread, as an OVERHEAD record of
 * streamcheck's own kind: the replay leaves it out of the costs (trace_format.h). Only calls
 * that took a stack pay for the second clock read. */
static void sc_stack_time(const sc_thread *t, uint64_t since, uint32_t correlation_id)
{
    uint64_t now = 0;
    sc_cupti_api.GetTimestamp(&now);
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

static SC_OUT_OF_LINE void sc_on_exit(const sc_hook *h, CUpti_CallbackDomain domain,
                                      CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    uint64_t now = 0;
    sc_cupti_api.GetTimestamp(&now);
    sc_call_args args = {.stream = SC_STREAM_NONE};
    if (h->extract && cb->functionParams) h->extract(cb->functionParams, true, &args);

    size_t max_frames = (size_t)sc_opts.stack_depth;
    /* options.c keeps it so: the reserve below need not check the record's size */
    if (max_frames > SC_MAX_STACK_DEPTH) __builtin_unreachable();
    size_t size = sc_record_size(sizeof(sc_rec_api), max_frames * sizeof(uint64_t));
    uint8_t *dst = sc_tbuf_reserve_in(sc_thread_peek(), size);
    if (!dst) return;
    sc_thread *t = sc_thread_peek();    /* reserve claimed it */
    /* The record is built in place: fixed part, then frames straight from the unwinder. */
    sc_rec_api *r = (sc_rec_api *)(dst + sizeof(sc_record_header));
    uint64_t *frames = (uint64_t *)(r + 1);
    uint32_t shared = max_frames ? sc_stack_share(t, h, cbid, cb, &args) : 0;
    int n = shared ? 0 : sc_stack_capture(frames, (int)max_frames, 3);
    uint64_t start = cb->correlationData ? *cb->correlationData : now;
    int32_t result = cb->functionReturnValue ? *(const int32_t *)cb->functionReturnValue : 0;
    size_t used = 0;
    /* Compact (trace_format.h): a call that shares its stack through aux, whose other
     * values are 0. A launch, most often. */
    if (shared == SC_API_STACK_SHARED && !(args.bytes | args.aux2 | (uint32_t)result)) {
        used = sc_compact_call_declared(&t->compact, dst, h, args.stream, start, now,
                                        cb->correlationId, (uint32_t)args.aux,
                                        cb->contextUid);
        if (__builtin_expect(used != 0, 1)) {
            /* The common case ends here: its call's name was written (below) when its site
             * was declared in this buffer. */
            sc_tbuf_commit_api_in(t, used);
            if (h->call_class == SC_CALL_DEVICE_SYNC) sc_agent_request_checkpoint();
            return;
        }
        used = sc_write_compact_declaring(t, dst, h, args.stream, start, now, cb,
                                          (uint32_t)args.aux);
    }
    if (!used) {
        *r = (sc_rec_api){
            .start_ns = start, .end_ns = now, .stream = args.stream, .bytes = args.bytes,
            .aux = args.aux, .tid = t->tid, .correlation_id = cb->correlationId,
            .context_id = cb->contextUid, .flags = h->flags | shared,
            .domain = (uint16_t)domain, .cbid = (uint16_t)cbid, .call_class = h->call_class,
            .n_frames = (uint16_t)n, .result = result, .aux2 = args.aux2,
        };
        used = sc_record_size(sizeof(sc_rec_api), (size_t)n * sizeof(uint64_t));
        *(sc_record_header *)dst = (sc_record_header){
            .kind = SC_REC_API, .fixed = sizeof(sc_rec_api), .size = (uint32_t)used};
    }
    sc_tbuf_commit_api_in(t, used);
    /* After the record: it writes a record of its own (the first call of each function).
     * A reader names calls once it has read every record. */
    sc_write_name(domain, cbid, cb->functionName);     /* sc_hook_find checked both */
    if (n > 0 && sc_python_active()) sc_write_pystack(cb->correlationId);
    if (n > 0) sc_stack_time(t, now, cb->correlationId);
    /* CUPTI's buffers are handed over after a device-wide synchronization, by the agent:
     * never on the thread that synchronized. */
    if (h->call_class == SC_CALL_DEVICE_SYNC) sc_agent_request_checkpoint();
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
    uint64_t now = 0;
    sc_cupti_api.GetTimestamp(&now);
    sc_scope_profiler(what > 0, now);
}

static void CUPTIAPI sc_on_callback(void *userdata, CUpti_CallbackDomain domain,
                                    CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        sc_on_resource(cbid, data);
        return;
    }
    if (sc_inside) return;
    if (domain == CUPTI_CB_DOMAIN_NVTX) {
        sc_nvtx_on_callback(cbid, data);
        return;
    }
    const sc_hook *h = sc_hook_find(domain, cbid);
    const CUpti_CallbackData *cb = data;
    if (!h) {
        sc_on_profiler(domain, cbid, cb);
        return;
    }
    /* A runtime call reaches the driver: only the outermost hooked call is the
     * application's; its correlation id is the one the activity records carry. A call
     * made while the capture scope is closed is not recorded (scope.h): 0 says so. */
    if (cb->callbackSite == CUPTI_API_ENTER) {
        if (sc_depth++ == 0) {
            uint32_t scope = sc_scope_now();
            if (!(scope & SC_SCOPE_OPEN)) {
                if (cb->correlationData) *cb->correlationData = 0;
                return;
            }
            if (cb->correlationData) sc_cupti_api.GetTimestamp(cb->correlationData);
            if (scope & SC_SCOPE_SET) sc_scope_note_call(scope, cb->correlationId);
        } else if (cb->correlationData) {
            *cb->correlationData = 0;
        }
        return;
    }
    int outer = --sc_depth == 0;
    if (sc_depth < 0) sc_depth = 0; /* an exit without entry: subscribed mid-call */
    /* Without correlation data (an exit whose entry came before capture), the scope now. */
    if (outer && (cb->correlationData ? *cb->correlationData != 0
                                      : (sc_scope_now() & SC_SCOPE_OPEN) != 0))
        sc_on_exit(h, domain, cbid, cb);
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
