#include "preload/nvtx.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <generated_nvtx_meta.h>

#include "preload/cupti_loader.h"
#include "preload/options.h"
#include "preload/strings.h"
#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"

#define SC_EXPORT __attribute__((visibility("default")))

/* ---- handing NVTX to CUPTI ---------------------------------------------------------- */

static pthread_once_t sc_nvtx_options_once = PTHREAD_ONCE_INIT;
static void sc_nvtx_read_options(void) { sc_options_read(); }

/* Called by NVTX on the program's first NVTX call, because the constructor named this
 * library in NVTX_INJECTION64_PATH. Loading CUPTI here does not start CUDA. */
SC_EXPORT int InitializeInjectionNvtx2(void *get_export_table)
{
    pthread_once(&sc_nvtx_options_once, sc_nvtx_read_options);
    if (sc_opts.disabled) return 0;
    char err[512];
    if (sc_cupti_load(sc_opts.cupti_path, err, sizeof err) != 0) return 0;
    int (*cupti_init)(void *) =
        (int (*)(void *))dlsym(sc_cupti_api.handle, "InitializeInjectionNvtx2");
    return cupti_init ? cupti_init(get_export_table) : 0;
}

/* ---- what the callbacks remember ---------------------------------------------------- */

#define SC_TLS __thread __attribute__((tls_model("initial-exec")))

enum { SC_NVTX_MAX_DEPTH = 64, SC_NVTX_HANDLES = 1024, SC_NVTX_OPEN = 4096 };

typedef struct sc_open_range {
    uint64_t start_ns;
    uint32_t name_id, domain_id;
} sc_open_range;

/* Push/pop ranges nest per thread. */
typedef struct sc_range_stack {
    uint32_t depth;             /* pushes not yet popped, recorded or not */
    sc_open_range open[SC_NVTX_MAX_DEPTH];
} sc_range_stack;

static SC_TLS sc_range_stack *sc_stack;
static SC_TLS uint32_t sc_nvtx_tid;

/* Start/end ranges may end on another thread: keyed by their id. Domain and registered
 * string handles name strings. All rare: one lock. */
typedef struct sc_handle_name {
    uint64_t handle;
    uint32_t name_id;
} sc_handle_name;

typedef struct sc_open_by_id {
    uint64_t id;
    uint32_t tid;
    sc_open_range range;
} sc_open_by_id;

static pthread_mutex_t sc_nvtx_lock = PTHREAD_MUTEX_INITIALIZER;
static sc_handle_name sc_names[SC_NVTX_HANDLES];
static size_t sc_n_names;
static sc_open_by_id sc_open_ids[SC_NVTX_OPEN];
static size_t sc_n_open_ids;

static void sc_handle_remember(uint64_t handle, const char *text)
{
    if (!handle || !text) return;
    uint32_t id = sc_string_id(text);
    pthread_mutex_lock(&sc_nvtx_lock);
    if (sc_n_names < SC_NVTX_HANDLES) sc_names[sc_n_names++] = (sc_handle_name){handle, id};
    pthread_mutex_unlock(&sc_nvtx_lock);
}

static uint32_t sc_handle_name_id(uint64_t handle)
{
    uint32_t id = 0;
    pthread_mutex_lock(&sc_nvtx_lock);
    for (size_t i = 0; i < sc_n_names && !id; i++)
        if (sc_names[i].handle == handle) id = sc_names[i].name_id;
    pthread_mutex_unlock(&sc_nvtx_lock);
    return id;
}

static uint32_t sc_message_id(const nvtxEventAttributes_t *a)
{
    if (!a) return 0;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return sc_string_id(a->message.ascii);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return sc_handle_name_id((uint64_t)(uintptr_t)a->message.registered);
    default: return sc_string_id("(unnamed range)");
    }
}

static uint64_t sc_now(void)
{
    uint64_t t = 0;
    sc_cupti_api.GetTimestamp(&t);
    return t;
}

static uint32_t sc_tid_now(void)
{
    if (!sc_nvtx_tid) sc_nvtx_tid = (uint32_t)syscall(SYS_gettid);
    return sc_nvtx_tid;
}

static void sc_put_range(const sc_open_range *r, uint64_t end_ns, uint32_t tid, uint32_t depth)
{
    sc_rec_range rec = {.start_ns = r->start_ns, .end_ns = end_ns, .tid = tid,
                        .name_id = r->name_id, .domain_id = r->domain_id, .depth = depth};
    sc_tbuf_put(SC_REC_RANGE, &rec, sizeof rec, NULL, 0);
}

/* ---- push/pop ---------------------------------------------------------------------- */

static void sc_push(uint32_t name_id, uint32_t domain_id)
{
    if (!sc_stack && !(sc_stack = calloc(1, sizeof *sc_stack))) return;
    uint32_t d = sc_stack->depth++;
    if (d < SC_NVTX_MAX_DEPTH)
        sc_stack->open[d] = (sc_open_range){sc_now(), name_id ? name_id : sc_string_id("?"),
                                            domain_id};
}

static void sc_pop(void)
{
    /* A pop with nothing pushed since capture started: its push came before cuInit. */
    if (!sc_stack || sc_stack->depth == 0) return;
    uint32_t d = --sc_stack->depth;
    if (d < SC_NVTX_MAX_DEPTH) sc_put_range(&sc_stack->open[d], sc_now(), sc_tid_now(), d);
}

/* ---- start/end --------------------------------------------------------------------- */

static void sc_start(uint64_t id, uint32_t name_id, uint32_t domain_id)
{
    sc_open_by_id o = {id, sc_tid_now(), {sc_now(), name_id ? name_id : sc_string_id("?"),
                                          domain_id}};
    pthread_mutex_lock(&sc_nvtx_lock);
    if (sc_n_open_ids < SC_NVTX_OPEN) sc_open_ids[sc_n_open_ids++] = o;
    pthread_mutex_unlock(&sc_nvtx_lock);
}

static void sc_end(uint64_t id)
{
    uint64_t end = sc_now();
    sc_open_by_id found = {0};
    bool ok = false;
    pthread_mutex_lock(&sc_nvtx_lock);
    for (size_t i = 0; i < sc_n_open_ids; i++) {
        if (sc_open_ids[i].id != id) continue;
        found = sc_open_ids[i];
        sc_open_ids[i] = sc_open_ids[--sc_n_open_ids];
        ok = true;
        break;
    }
    pthread_mutex_unlock(&sc_nvtx_lock);
    /* Not thread-bound: depth says so. */
    if (ok) sc_put_range(&found.range, end, found.tid, UINT32_MAX);
}

static uint64_t sc_return_u64(const CUpti_NvtxData *d)
{
    return d->functionReturnValue ? *(const uint64_t *)d->functionReturnValue : 0;
}

void sc_nvtx_on_callback(CUpti_CallbackId cbid, const CUpti_NvtxData *d)
{
    const void *p = d->functionParams;
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        sc_push(sc_string_id(((const nvtxRangePushA_params *)p)->message), 0);
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        sc_push(sc_message_id(((const nvtxRangePushEx_params *)p)->eventAttrib), 0);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
        const nvtxDomainRangePushEx_params *q = p;
        sc_push(sc_message_id(q->core.eventAttrib),
                sc_handle_name_id((uint64_t)(uintptr_t)q->domain));
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        sc_pop();
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
        sc_start(sc_return_u64(d), sc_string_id(((const nvtxRangeStartA_params *)p)->message), 0);
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
        sc_start(sc_return_u64(d), sc_message_id(((const nvtxRangeStartEx_params *)p)->eventAttrib), 0);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
        const nvtxDomainRangeStartEx_params *q = p;
        sc_start(sc_return_u64(d), sc_message_id(q->core.eventAttrib),
                 sc_handle_name_id((uint64_t)(uintptr_t)q->domain));
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
        sc_end(((const nvtxRangeEnd_params *)p)->id);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
        sc_end(((const nvtxDomainRangeEnd_params *)p)->core.id);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainCreateA:
        sc_handle_remember(sc_return_u64(d), ((const nvtxDomainCreateA_params *)p)->name);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA: {
        const nvtxDomainRegisterStringA_params *q = p;
        sc_handle_remember(sc_return_u64(d), q->string);
        break;
    }
    default:
        break;
    }
}

void sc_nvtx_enable(CUpti_SubscriberHandle subscriber)
{
    static const CUpti_CallbackId ids[] = {
        CUPTI_CBID_NVTX_nvtxRangePushA,         CUPTI_CBID_NVTX_nvtxRangePushEx,
        CUPTI_CBID_NVTX_nvtxDomainRangePushEx,  CUPTI_CBID_NVTX_nvtxRangePop,
        CUPTI_CBID_NVTX_nvtxDomainRangePop,     CUPTI_CBID_NVTX_nvtxRangeStartA,
        CUPTI_CBID_NVTX_nvtxRangeStartEx,       CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,
        CUPTI_CBID_NVTX_nvtxRangeEnd,           CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
        CUPTI_CBID_NVTX_nvtxDomainCreateA,      CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
    };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        sc_cupti_api.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_NVTX, ids[i]);
}
