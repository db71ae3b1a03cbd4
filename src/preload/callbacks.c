#include "preload/callbacks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/activity.h"
#include "preload/calls.h"
#include "preload/cupti_loader.h"
#include "preload/nvtx.h"
#include "preload/options.h"
#include "preload/stack.h"
#include "preload/tracebuf.h"
#include "trace/record.h"

#define SC_TLS __thread __attribute__((tls_model("initial-exec")))

static CUpti_SubscriberHandle sc_subscriber;
static atomic_bool sc_subscribed;

/* Launch stack sampling, per thread: a launch of a kernel gets a full stack for its first
 * SC_SAMPLE_FIRST launches from this thread, then one in SC_SAMPLE_EVERY; the others name
 * the last sampled launch of the same kernel. Unwinding is the one cost here that grows with
 * the program's stack depth; this keeps it to a few launches per kernel. */
enum { SC_SAMPLE_SLOTS = 256, SC_SAMPLE_FIRST = 16, SC_SAMPLE_EVERY = 256 };
typedef struct sc_launch_slot {
    const void *kernel;         /* CUPTI's symbolName pointer: one per kernel */
    uint32_t cbid;
    uint32_t launches;
    uint32_t sampled_correlation;
} sc_launch_slot;
typedef struct sc_thread_state {
    sc_launch_slot slots[SC_SAMPLE_SLOTS];
} sc_thread_state;

static SC_TLS uint32_t sc_tid;
static SC_TLS sc_thread_state *sc_thread;
static pthread_key_t sc_thread_key;
static SC_TLS int sc_depth;       /* hooked calls in progress on this thread */
static SC_TLS bool sc_inside;     /* streamcheck's own CUDA calls */

/* Names of the calls already written, one bit per (domain, cbid). */
enum { SC_NAME_BITS = 2048 };
static atomic_uchar sc_named[2][SC_NAME_BITS / 8];

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

static void sc_on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *r)
{
    pthread_mutex_lock(&sc_ctx_lock);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && sc_ctx_count < SC_MAX_CONTEXTS) {
        sc_ctx_live[sc_ctx_count++] = r->context;
    } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        for (int i = 0; i < sc_ctx_count; i++)
            if (sc_ctx_live[i] == r->context) sc_ctx_live[i] = sc_ctx_live[--sc_ctx_count];
    }
    pthread_mutex_unlock(&sc_ctx_lock);
    /* The context's records must leave CUPTI before it goes (cudaDeviceReset mid-run). */
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) sc_cupti_api.ActivityFlushAll(0);
}

static void sc_write_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name)
{
    int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
    unsigned char bit = (unsigned char)(1u << (cbid % 8));
    /* A plain load first: after the first call of each function this is all it costs. */
    if (atomic_load_explicit(&sc_named[d][cbid / 8], memory_order_relaxed) & bit) return;
    if (atomic_fetch_or(&sc_named[d][cbid / 8], bit) & bit) return;
    sc_rec_call_name r = {.domain = (uint16_t)domain, .cbid = (uint16_t)cbid};
    if (!name) name = "?";
    sc_tbuf_put(SC_REC_CALL_NAME, &r, sizeof r, name, strlen(name) + 1);
}

static void sc_thread_release(void *state)
{
    free(state);
    sc_thread = NULL;
}

/* Whether this launch takes a stack; if not, *shared is the correlation id to point at. */
static bool sc_launch_wants_stack(const CUpti_CallbackData *cb, CUpti_CallbackId cbid,
                                  uint32_t *shared)
{
    if (!sc_thread) {
        sc_thread = calloc(1, sizeof *sc_thread);
        if (!sc_thread) return true;
        pthread_setspecific(sc_thread_key, sc_thread);
    }
    const void *kernel = cb->symbolName;
    uintptr_t h = ((uintptr_t)kernel >> 4) ^ cbid * 0x9E3779B1u;
    sc_launch_slot *slot = &sc_thread->slots[h % SC_SAMPLE_SLOTS];
    if (slot->kernel != kernel || slot->cbid != cbid)
        *slot = (sc_launch_slot){.kernel = kernel, .cbid = (uint32_t)cbid};
    uint32_t n = slot->launches++;
    if (n < SC_SAMPLE_FIRST || n % SC_SAMPLE_EVERY == 0 || !kernel) {
        slot->sampled_correlation = cb->correlationId;
        return true;
    }
    *shared = slot->sampled_correlation;
    return false;
}

static void sc_on_exit(const sc_hook *h, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                       const CUpti_CallbackData *cb)
{
    uint64_t now = 0;
    sc_cupti_api.GetTimestamp(&now);
    if (!sc_tid) sc_tid = (uint32_t)syscall(SYS_gettid);
    if (cbid < SC_NAME_BITS) sc_write_name(domain, cbid, cb->functionName);

    sc_call_args args = {.stream = SC_STREAM_NONE};
    if (h->extract && cb->functionParams) h->extract(cb->functionParams, true, &args);

    size_t max_frames = (size_t)sc_opts.stack_depth;
    size_t size = sc_record_size(sizeof(sc_rec_api), max_frames * sizeof(uint64_t));
    uint8_t *dst = sc_tbuf_reserve(size);
    if (!dst) return;
    /* The record is built in place: fixed part, then frames straight from the unwinder. */
    sc_rec_api *r = (sc_rec_api *)(dst + sizeof(sc_record_header));
    uint64_t *frames = (uint64_t *)(r + 1);
    uint32_t shared = 0, flags = h->flags;
    int n = 0;
    if (h->call_class != SC_CALL_LAUNCH || sc_launch_wants_stack(cb, cbid, &shared))
        n = sc_stack_capture(frames, (int)max_frames, 3);
    else {
        flags |= SC_API_STACK_SHARED;
        args.aux = shared;
    }
    *r = (sc_rec_api){
        .start_ns = cb->correlationData ? *cb->correlationData : now, .end_ns = now,
        .stream = args.stream, .bytes = args.bytes, .aux = args.aux,
        .tid = sc_tid, .correlation_id = cb->correlationId, .context_id = cb->contextUid,
        .flags = flags, .domain = (uint16_t)domain, .cbid = (uint16_t)cbid,
        .call_class = h->call_class, .n_frames = (uint16_t)n,
        .result = cb->functionReturnValue ? *(const int32_t *)cb->functionReturnValue : 0,
        .aux2 = args.aux2,
    };
    size_t used = sc_record_size(sizeof(sc_rec_api), (size_t)n * sizeof(uint64_t));
    *(sc_record_header *)dst = (sc_record_header){.kind = SC_REC_API, .size = (uint32_t)used};
    sc_tbuf_count_api();
    sc_tbuf_commit(used);
    if (h->call_class == SC_CALL_DEVICE_SYNC) {
        sc_inside = true;
        sc_activity_checkpoint();
        sc_inside = false;
    }
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
    const sc_hook *h = sc_hook_find((uint16_t)domain, (uint16_t)cbid);
    if (!h) return;
    const CUpti_CallbackData *cb = data;
    /* A runtime call reaches the driver: only the outermost hooked call is the
     * application's; its correlation id is the one the activity records carry. */
    if (cb->callbackSite == CUPTI_API_ENTER) {
        if (sc_depth++ == 0) {
            if (cb->correlationData) sc_cupti_api.GetTimestamp(cb->correlationData);
        } else if (cb->correlationData) {
            *cb->correlationData = 0;
        }
        return;
    }
    int outer = --sc_depth == 0;
    if (sc_depth < 0) sc_depth = 0; /* an exit without entry: subscribed mid-call */
    if (outer && (!cb->correlationData || *cb->correlationData)) sc_on_exit(h, domain, cbid, cb);
}

CUptiResult sc_callbacks_start(void)
{
    sc_hooks_init();
    pthread_key_create(&sc_thread_key, sc_thread_release);
    CUptiResult rc = sc_cupti_api.Subscribe(&sc_subscriber, sc_on_callback, NULL);
    if (rc != CUPTI_SUCCESS) return rc;
    atomic_store(&sc_subscribed, true);
    unsigned n = 0;
    const sc_hook *hooks = sc_hooks(&n);
    for (unsigned i = 0; i < n; i++)
        sc_cupti_api.EnableCallback(1, sc_subscriber, hooks[i].domain, hooks[i].cbid);
    sc_cupti_api.EnableCallback(1, sc_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    sc_cupti_api.EnableCallback(1, sc_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    sc_nvtx_enable(sc_subscriber);
    return CUPTI_SUCCESS;
}

void sc_callbacks_stop(void)
{
    if (atomic_exchange(&sc_subscribed, false)) sc_cupti_api.Unsubscribe(sc_subscriber);
}
