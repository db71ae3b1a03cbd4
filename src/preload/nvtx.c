#include "preload/nvtx.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <generated_nvtx_meta.h>

#include "preload/calls.h"
#include "preload/clock.h"
#include "preload/cupti_loader.h"
#include "preload/loss.h"
#include "preload/options.h"
#include "preload/scope.h"
#include "preload/strings.h"
#include "preload/thread.h"
#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"

#define SC_EXPORT __attribute__((visibility("default")))

/* ---- handing NVTX to CUPTI ---------------------------------------------------------- */

/* Called by NVTX on the program's first NVTX call, because the constructor named this
 * library in NVTX_INJECTION64_PATH. Loading CUPTI here does not start CUDA. */
SC_EXPORT int InitializeInjectionNvtx2(void *get_export_table)
{
    sc_options_read();
    if (sc_opts.disabled) return 0;
    char err[512];
    if (sc_cupti_load(sc_opts.cupti_path, err, sizeof err) != 0) return 0;
    int (*cupti_init)(void *) =
        (int (*)(void *))dlsym(sc_cupti_api.handle, "InitializeInjectionNvtx2");
    return cupti_init ? cupti_init(get_export_table) : 0;
}

/* ---- what the callbacks remember ---------------------------------------------------- */

/* No lock on any of these paths: push/pop keep their stack in the thread's block
 * (thread.h); start/end ranges and registered handles live in fixed tables whose slots are
 * claimed with compare-and-swap. Everything that does not fit is counted (loss.h). */

enum {
    SC_NVTX_OPEN_MAX = 4096,        /* start/end ranges open at once */
    SC_NVTX_OPEN_SLOTS = 8192,
    SC_NVTX_OPEN_WINDOW = 32,       /* slots a range id may land in */
    SC_NVTX_HANDLES_MAX = 1024,     /* registered strings and domains */
    SC_NVTX_HANDLE_SLOTS = 2048,
};

/* Start/end ranges may end on another thread: keyed by their id. */
typedef struct sc_open_slot {
    _Atomic uint64_t id;            /* 0: free */
    atomic_bool ready;              /* the fields below are written */
    uint32_t tid;
    sc_nvtx_open range;
} sc_open_slot;

/* Domain and registered-string handles name strings. Never removed. */
typedef struct sc_handle_slot {
    _Atomic uint64_t handle;        /* 0: free */
    _Atomic uint32_t name_id;       /* 0 while its claimer fills it; SC_NO_NAME: none */
} sc_handle_slot;
#define SC_NO_NAME UINT32_MAX

static sc_open_slot sc_open_ranges[SC_NVTX_OPEN_SLOTS];
static atomic_int sc_open_count;
static atomic_int sc_open_dropped;  /* dropped starts whose end has not come yet */
static sc_handle_slot sc_handles[SC_NVTX_HANDLE_SLOTS];
static atomic_int sc_handle_count;

static size_t sc_nvtx_hash(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key;
}

static void sc_handle_remember(uint64_t handle, const char *text)
{
    if (!handle || !text) return;
    uint32_t id = sc_string_id(text);
    if (!id) id = SC_NO_NAME;   /* no memory for the name: lookups must not wait for one */
    for (size_t probe = 0, j = sc_nvtx_hash(handle); probe < SC_NVTX_HANDLE_SLOTS; probe++, j++) {
        sc_handle_slot *s = &sc_handles[j % SC_NVTX_HANDLE_SLOTS];
        uint64_t seen = atomic_load_explicit(&s->handle, memory_order_acquire);
        if (seen == 0) {
            if (atomic_fetch_add(&sc_handle_count, 1) >= SC_NVTX_HANDLES_MAX) {
                atomic_fetch_sub(&sc_handle_count, 1);
                return;  /* its uses are counted when they find no name */
            }
            if (atomic_compare_exchange_strong(&s->handle, &seen, handle)) {
                atomic_store_explicit(&s->name_id, id, memory_order_release);
                return;
            }
            atomic_fetch_sub(&sc_handle_count, 1);
        }
        if (seen == handle) {   /* registered again: the newer name */
            atomic_store_explicit(&s->name_id, id, memory_order_release);
            return;
        }
    }
}

/* The name of a handle; 0 (counted) for one we never saw registered. */
static uint32_t sc_handle_name_id(uint64_t handle)
{
    if (!handle) return 0;
    for (size_t probe = 0, j = sc_nvtx_hash(handle); probe < SC_NVTX_HANDLE_SLOTS; probe++, j++) {
        sc_handle_slot *s = &sc_handles[j % SC_NVTX_HANDLE_SLOTS];
        uint64_t seen = atomic_load_explicit(&s->handle, memory_order_acquire);
        if (seen == 0) break;
        if (seen != handle) continue;
        uint32_t id;
        while ((id = atomic_load_explicit(&s->name_id, memory_order_acquire)) == 0) sched_yield();
        return id == SC_NO_NAME ? 0 : id;
    }
    sc_loss_add(SC_LOSS_NVTX_HANDLES, 1);
    return 0;
}

static uint32_t sc_unnamed_id(void)
{
    static _Atomic uint32_t id;
    uint32_t v = atomic_load_explicit(&id, memory_order_relaxed);
    if (!v) atomic_store_explicit(&id, v = sc_string_id("?"), memory_order_relaxed);
    return v;
}

static uint32_t sc_message_id(const nvtxEventAttributes_t *a)
{
    if (!a) return 0;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return sc_string_id_nvtx(a->message.ascii);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return sc_handle_name_id((uint64_t)(uintptr_t)a->message.registered);
    default: return sc_string_id("(unnamed range)");
    }
}


/* Built in place in the thread's buffer: a fixed-size record, no copy. */
static inline void sc_put_range(const sc_nvtx_open *r, uint64_t end_ns, uint32_t tid,
                                uint32_t depth)
{
    enum { SIZE = sizeof(sc_record_header) + sizeof(sc_rec_range) };
    _Static_assert(SIZE % 8 == 0, "a RANGE record needs no padding");
    uint8_t *dst = sc_tbuf_reserve_in(sc_thread_peek(), SIZE);
    if (!dst) return;
    *(sc_record_header *)dst = (sc_record_header){
        .kind = SC_REC_RANGE, .fixed = sizeof(sc_rec_range), .size = SIZE};
    *(sc_rec_range *)(dst + sizeof(sc_record_header)) = (sc_rec_range){
        .start_ns = r->start_ns, .end_ns = end_ns, .tid = tid, .name_id = r->name_id,
        .domain_id = r->domain_id, .depth = depth};
    sc_tbuf_commit_in(sc_thread_peek(), SIZE);   /* reserve claimed it */
}

/* ---- push/pop ---------------------------------------------------------------------- */

static void sc_push(uint32_t name_id, uint32_t domain_id)
{
    sc_thread *t = sc_thread_self();
    if (!t) {
        sc_loss_add(SC_LOSS_NO_MEMORY, 1);
        return;
    }
    uint32_t d = atomic_load_explicit(&t->nvtx_depth, memory_order_relaxed);
    atomic_store_explicit(&t->nvtx_depth, d + 1, memory_order_relaxed);
    if (d < SC_NVTX_MAX_DEPTH) {
        uint64_t now = sc_clock_now();
        uint32_t id = name_id ? name_id : sc_unnamed_id();
        /* Only a range whose pop will be seen may open the capture scope. Without a scope
         * set (the usual run), one load says so. */
        bool scope = (sc_scope_now() & SC_SCOPE_SET) && sc_scope_range_name(id) &&
                     sc_scope_range_opened(now);
        t->nvtx_open[d] = (sc_nvtx_open){now, id, domain_id, scope};
    } else {
        sc_loss_add(SC_LOSS_NVTX_DEPTH, 1);
    }
}

/* sc_close_range under a capture scope. */
static __attribute__((noinline)) void sc_close_range_scoped(const sc_nvtx_open *r, uint64_t now,
                                                            uint32_t tid, uint32_t depth)
{
    bool keep = sc_scope_keeps_range(r->start_ns);
    if (r->scope) sc_scope_range_closed(now);
    if (keep) sc_put_range(r, now, tid, depth);
}

/* Ends a range: written when it overlapped the capture scope (always, without one); the
 * scope's own range then closes the scope. */
static void sc_close_range(const sc_nvtx_open *r, uint32_t tid, uint32_t depth)
{
    uint64_t now = sc_clock_now();
    if (sc_scope_now() & SC_SCOPE_SET) sc_close_range_scoped(r, now, tid, depth);
    else sc_put_range(r, now, tid, depth);    /* no scope (the usual run): one load says so */
}

static void sc_pop(void)
{
    sc_thread *t = sc_thread_self();
    if (!t) return;
    /* A pop with nothing pushed since capture started: its push came before cuInit. */
    uint32_t d = atomic_load_explicit(&t->nvtx_depth, memory_order_relaxed);
    if (d == 0) {
        sc_loss_add(SC_LOSS_NVTX_UNMATCHED, 1);
        return;
    }
    atomic_store_explicit(&t->nvtx_depth, --d, memory_order_relaxed);
    if (d < SC_NVTX_MAX_DEPTH) sc_close_range(&t->nvtx_open[d], t->tid, d);
}

/* ---- start/end --------------------------------------------------------------------- */

static void sc_start(uint64_t id, uint32_t name_id, uint32_t domain_id)
{
    if (!id) return;    /* NVTX gave no id: there is no range to end */
    sc_thread *t = sc_thread_self();
    sc_nvtx_open r = {sc_clock_now(), name_id ? name_id : sc_unnamed_id(), domain_id, false};
    if (atomic_fetch_add(&sc_open_count, 1) < SC_NVTX_OPEN_MAX) {
        size_t h = sc_nvtx_hash(id);
        for (int k = 0; k < SC_NVTX_OPEN_WINDOW; k++) {
            sc_open_slot *s = &sc_open_ranges[(h + (size_t)k) % SC_NVTX_OPEN_SLOTS];
            uint64_t free_id = 0;
            if (atomic_load_explicit(&s->id, memory_order_relaxed) == 0 &&
                atomic_compare_exchange_strong(&s->id, &free_id, id)) {
                s->tid = t ? t->tid : 0;
                r.scope = sc_scope_range_name(r.name_id) && sc_scope_range_opened(r.start_ns);
                s->range = r;
                atomic_store_explicit(&s->ready, true, memory_order_release);
                return;
            }
        }
    }
    atomic_fetch_sub(&sc_open_count, 1);
    atomic_fetch_add(&sc_open_dropped, 1);
    sc_loss_add(SC_LOSS_NVTX_OPEN, 1);
}

static void sc_end(uint64_t id)
{
    size_t h = sc_nvtx_hash(id);
    for (int k = 0; id && k < SC_NVTX_OPEN_WINDOW; k++) {
        sc_open_slot *s = &sc_open_ranges[(h + (size_t)k) % SC_NVTX_OPEN_SLOTS];
        if (atomic_load_explicit(&s->id, memory_order_acquire) != id) continue;
        while (!atomic_load_explicit(&s->ready, memory_order_acquire)) sched_yield();
        sc_nvtx_open r = s->range;
        uint32_t tid = s->tid;
        atomic_store_explicit(&s->ready, false, memory_order_relaxed);
        atomic_store_explicit(&s->id, 0, memory_order_release);
        atomic_fetch_sub(&sc_open_count, 1);
        /* Not thread-bound: depth says so. */
        sc_close_range(&r, tid, UINT32_MAX);
        return;
    }
    /* Its start was dropped (counted then) or came before capture started. */
    int dropped = atomic_load(&sc_open_dropped);
    while (dropped > 0 && !atomic_compare_exchange_weak(&sc_open_dropped, &dropped, dropped - 1)) {
    }
    if (dropped <= 0) sc_loss_add(SC_LOSS_NVTX_UNMATCHED, 1);
}

void sc_nvtx_count_unclosed(void)
{
    uint64_t open = (uint64_t)atomic_load(&sc_open_count);
    for (sc_thread *t = sc_thread_first(); t; t = t->next)
        if (atomic_load_explicit(&t->owned, memory_order_relaxed))
        {
            uint32_t depth = atomic_load_explicit(&t->nvtx_depth, memory_order_relaxed);
            open += depth < SC_NVTX_MAX_DEPTH ? depth : SC_NVTX_MAX_DEPTH;
        }
    sc_loss_add(SC_LOSS_NVTX_UNCLOSED, open);
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
        sc_push(sc_string_id_nvtx(((const nvtxRangePushA_params *)p)->message), 0);
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
        sc_start(sc_return_u64(d), sc_string_id_nvtx(((const nvtxRangeStartA_params *)p)->message),
                 0);
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
    unsigned n = 0;
    const uint32_t *ids = sc_nvtx_hooks(&n);
    for (unsigned i = 0; i < n; i++)
        sc_cupti_api.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_NVTX, ids[i]);
}
