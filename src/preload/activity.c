#include "preload/activity.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "preload/activity_kinds.h"
#include "preload/cupti_loader.h"
#include "preload/modules.h"
#include "preload/options.h"
#include "preload/scope.h"
#include "preload/strings.h"
#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"

enum { SC_CHECKPOINT_MS = 200 };

static atomic_uint_fast64_t sc_activity_count;

/* Buffers: see activity_kinds.h. */
static void CUPTIAPI sc_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *p = mmap(NULL, SC_ACTIVITY_BUFFER_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *buffer = p == MAP_FAILED ? NULL : p;
    *size = *buffer ? SC_ACTIVITY_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void sc_set_attribute(CUpti_ActivityAttribute attr, uint8_t value)
{
    size_t size = sizeof value;
    if (sc_cupti_api.ActivitySetAttribute) sc_cupti_api.ActivitySetAttribute(attr, &size, &value);
}

static void sc_put_kernel(const CUpti_ActivityKernel10 *k)
{
    sc_rec_kernel r = {
        .start_ns = k->start, .end_ns = k->end, .graph_node_id = k->graphNodeId,
        .device = k->deviceId, .context_id = k->contextId, .stream_id = k->streamId,
        .correlation_id = k->correlationId,
        .grid_x = k->gridX, .grid_y = k->gridY, .grid_z = k->gridZ,
        .block_x = k->blockX, .block_y = k->blockY, .block_z = k->blockZ,
        .registers_per_thread = k->registersPerThread,
        .static_shared = (uint32_t)k->staticSharedMemory,
        .dynamic_shared = (uint32_t)k->dynamicSharedMemory,
        .name_id = sc_string_id(k->name), .launch_type = k->launchType,
    };
    if (!sc_opts.compact) {
        sc_tbuf_put(SC_REC_KERNEL, &r, sizeof r, NULL, 0);
        return;
    }
    /* Compact when it fits, with what its buffer has not declared yet; else in full. */
    enum { FULL = sizeof(sc_record_header) + sizeof r };
    _Static_assert((int)FULL <= (int)SC_COMPACT_KERNEL_MAX, "the reserve holds the full one too");
    sc_compact_writer *w;
    uint8_t *dst = sc_tbuf_reserve_compact(SC_COMPACT_KERNEL_MAX, &w);
    if (!dst) return;
    size_t used = sc_compact_kernel(w, dst, &r);
    if (!used) used = (size_t)(sc_compact_put(dst, SC_REC_KERNEL, &r, sizeof r) - dst);
    sc_tbuf_commit(used);
}

static void sc_put_memcpy(const CUpti_ActivityMemcpy6 *c)
{
    sc_rec_memcpy r = {
        .start_ns = c->start, .end_ns = c->end, .bytes = c->bytes, .device = c->deviceId,
        .context_id = c->contextId, .stream_id = c->streamId, .correlation_id = c->correlationId,
        .copy_kind = c->copyKind, .src_kind = c->srcKind, .dst_kind = c->dstKind,
        .flags = c->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC ? SC_MEMCPY_ASYNC : 0,
        .src_device = c->deviceId, .dst_device = c->deviceId,
    };
    sc_tbuf_put(SC_REC_MEMCPY, &r, sizeof r, NULL, 0);
}

static void sc_put_memset(const CUpti_ActivityMemset4 *s)
{
    sc_rec_memset r = {
        .start_ns = s->start, .end_ns = s->end, .bytes = s->bytes, .device = s->deviceId,
        .context_id = s->contextId, .stream_id = s->streamId, .correlation_id = s->correlationId,
        .value = s->value, .memory_kind = s->memoryKind,
        .flags = s->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC ? 1 : 0,
    };
    sc_tbuf_put(SC_REC_MEMSET, &r, sizeof r, NULL, 0);
}

static void sc_put_stream(const CUpti_ActivityStream *s)
{
    sc_rec_stream r = {
        .device = UINT32_MAX, /* CUPTI's stream record names the context, not the device */
        .context_id = s->contextId, .stream_id = s->streamId, .flag = s->flag,
        .priority = (int32_t)s->priority, .correlation_id = s->correlationId,
    };
    sc_tbuf_put(SC_REC_STREAM, &r, sizeof r, NULL, 0);
}

static void sc_put_sync(const CUpti_ActivitySynchronization2 *s)
{
    sc_rec_sync r = {
        .start_ns = s->start, .end_ns = s->end, .type = s->type, .context_id = s->contextId,
        .stream_id = s->streamId, .correlation_id = s->correlationId, .event_id = s->cudaEventId,
    };
    sc_tbuf_put(SC_REC_SYNC, &r, sizeof r, NULL, 0);
}

static void sc_put_device(const CUpti_ActivityDevice5 *d)
{
    sc_rec_device r = {
        .device = d->id, .sm_count = d->numMultiprocessors,
        .max_threads_per_sm = d->maxWarpsPerMultiprocessor * d->numThreadsPerWarp,
        .max_blocks_per_sm = d->maxBlocksPerMultiprocessor,
        .max_regs_per_sm = d->maxRegistersPerMultiprocessor,
        .max_shared_per_sm = d->maxSharedMemoryPerMultiprocessor,
        .max_threads_per_block = d->maxThreadsPerBlock,
        .max_regs_per_block = d->maxRegistersPerBlock,
        .max_shared_per_block = d->maxSharedMemoryPerBlock,
        .cc_major = d->computeCapabilityMajor, .cc_minor = d->computeCapabilityMinor,
        .async_engines = d->numMemcpyEngines, .global_memory = d->globalMemorySize,
    };
    const char *name = d->name ? d->name : "";
    sc_tbuf_put(SC_REC_DEVICE, &r, sizeof r, name, strlen(name) + 1);
}

static void sc_put_overhead(const CUpti_ActivityOverhead3 *o)
{
    sc_rec_overhead r = {
        .start_ns = o->start, .end_ns = o->end, .kind = (uint32_t)o->overheadKind,
        .object_kind = (uint32_t)o->objectKind, .correlation_id = o->correlationId,
    };
    if (o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
        r.object_id[0] = o->objectId.pt.processId;
        r.object_id[1] = o->objectId.pt.threadId;
    } else {
        r.object_id[0] = o->objectId.dcs.deviceId;
        r.object_id[1] = o->objectId.dcs.contextId;
        r.object_id[2] = o->objectId.dcs.streamId;
    }
    sc_tbuf_put(SC_REC_OVERHEAD, &r, sizeof r, NULL, 0);
}

static void sc_put_unified(const CUpti_ActivityUnifiedMemoryCounter3 *u)
{
    sc_rec_unified r = {
        .start_ns = u->start, .end_ns = u->end, .address = u->address, .value = u->value,
        .kind = (uint32_t)u->counterKind, .flags = u->flags, .src_id = u->srcId,
        .dst_id = u->dstId,
    };
    sc_tbuf_put(SC_REC_UNIFIED, &r, sizeof r, NULL, 0);
}

void sc_activity_unified_start(void)
{
    static atomic_bool started;
    if (atomic_exchange(&started, true)) return;
    static const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
    };
    enum { N = sizeof kinds / sizeof *kinds };
    CUpti_ActivityUnifiedMemoryCounterConfig config[N];
    for (size_t i = 0; i < N; i++)   /* scope and device are ignored since CUDA 7 */
        config[i] = (CUpti_ActivityUnifiedMemoryCounterConfig){
            .scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE,
            .kind = kinds[i], .deviceId = 0, .enable = 1};
    CUptiResult rc = sc_cupti_api.ActivityConfigureUnifiedMemoryCounter
                         ? sc_cupti_api.ActivityConfigureUnifiedMemoryCounter(config, N)
                         : CUPTI_ERROR_NOT_SUPPORTED;
    if (rc == CUPTI_SUCCESS)
        rc = sc_cupti_api.ActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (rc == CUPTI_SUCCESS) return;
    char text[256];
    snprintf(text, sizeof text,
             "STREAMCHECK_UNIFIED_MEMORY=1: CUPTI's unified-memory counters could not be "
             "enabled (%s): managed-memory page faults are not traced",
             sc_cupti_error(rc));
    sc_rec_note r = {.code = SC_NOTE_ACTIVITY_FAILED};
    sc_tbuf_put(SC_REC_NOTE, &r, sizeof r, text, strlen(text) + 1);
}

/* Under a capture scope, device work is kept when its call was made inside (scope.h); what
 * no call made (CUPTI's own overhead, unified-memory migrations), when it began inside.
 * Streams and devices are always kept: the report needs them. */
static bool sc_in_scope(const CUpti_Activity *a)
{
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
        return sc_scope_keeps_call(((const CUpti_ActivityKernel10 *)a)->correlationId);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return sc_scope_keeps_call(((const CUpti_ActivityMemcpy6 *)a)->correlationId);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return sc_scope_keeps_call(((const CUpti_ActivityMemset4 *)a)->correlationId);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return sc_scope_keeps_call(((const CUpti_ActivitySynchronization2 *)a)->correlationId);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const CUpti_ActivityOverhead3 *o = (const CUpti_ActivityOverhead3 *)a;
        return o->correlationId ? sc_scope_keeps_call(o->correlationId)
                                : sc_scope_keeps_time(o->start);
    }
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
        return sc_scope_keeps_time(((const CUpti_ActivityUnifiedMemoryCounter3 *)a)->start);
    default:
        return true;
    }
}

static void sc_convert(const CUpti_Activity *a)
{
    if ((sc_scope_now() & SC_SCOPE_SET) && !sc_in_scope(a)) return;
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
        sc_put_kernel((const CUpti_ActivityKernel10 *)a);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: sc_put_memcpy((const CUpti_ActivityMemcpy6 *)a); break;
    case CUPTI_ACTIVITY_KIND_MEMSET: sc_put_memset((const CUpti_ActivityMemset4 *)a); break;
    case CUPTI_ACTIVITY_KIND_STREAM: sc_put_stream((const CUpti_ActivityStream *)a); break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        sc_put_sync((const CUpti_ActivitySynchronization2 *)a);
        break;
    case CUPTI_ACTIVITY_KIND_DEVICE: sc_put_device((const CUpti_ActivityDevice5 *)a); break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD: sc_put_overhead((const CUpti_ActivityOverhead3 *)a); break;
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
        sc_put_unified((const CUpti_ActivityUnifiedMemoryCounter3 *)a);
        break;
    default: return;
    }
    atomic_fetch_add_explicit(&sc_activity_count, 1, memory_order_relaxed);
}

static void CUPTIAPI sc_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                         size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *record = NULL;
    while (valid > 0 &&
           sc_cupti_api.ActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
        sc_convert(record);
    munmap(buffer, size);
    /* Off the hot path: a good moment to notice libraries loaded since the last look, and
     * to write out what idle threads hold, so that a crash loses little. */
    sc_modules_update();
    sc_tbuf_flush_idle();
}

int sc_activity_start(char *failed, size_t failed_size)
{
    failed[0] = '\0';
    for (size_t i = 0; i < SC_ACTIVITY_ATTRIBUTES; i++)
        sc_set_attribute(sc_activity_attributes[i].attribute, sc_activity_attributes[i].value);
    CUptiResult rc = sc_cupti_api.ActivityRegisterCallbacks(sc_buffer_requested, sc_buffer_completed);
    if (rc != CUPTI_SUCCESS) {
        snprintf(failed, failed_size, "buffer callbacks (%s)", sc_cupti_error(rc));
        return (int)SC_ACTIVITY_KINDS;
    }
    /* CUPTI hands over its buffers at least this often (ms), full or not: the trace on disk
     * stays close to the run, however long the run and whatever happens at its end. */
    if (sc_cupti_api.ActivityFlushPeriod) sc_cupti_api.ActivityFlushPeriod(500);
    int n_failed = 0;
    for (size_t i = 0; i < SC_ACTIVITY_KINDS; i++) {
        rc = sc_cupti_api.ActivityEnable(sc_activity_kinds[i].kind);
        if (rc == CUPTI_SUCCESS) continue;
        size_t len = strlen(failed);
        snprintf(failed + len, failed_size - len, "%s%s (%s)", n_failed ? ", " : "",
                 sc_activity_kinds[i].name, sc_cupti_error(rc));
        n_failed++;
    }
    return n_failed;
}

/* Set once the finish flushes: from then on no checkpoint asks CUPTI for anything. With the
 * agent stopped, a checkpoint runs on the thread that synchronized: an application thread
 * still calling (a signal's finish, an exit while others work) would flush CUPTI's buffers
 * beside the final forced flush and after it, into a trace that takes nothing more. */
static atomic_bool sc_activity_finishing;
/* Flushes that passed the check above and have not returned. A flag alone is a check then an
 * act: a thread that read it just before the finish set it still flushes after the forced
 * flush began. Each flush counts itself before it checks (both sequentially consistent), so
 * either it sees the flag or the finish sees it counted and waits for it. */
static atomic_uint sc_flushes_in_flight;
/* Whether this thread may be counted there: a signal's finish may run in the handler on a
 * thread interrupted inside one of those flushes, which must not wait for itself. Set before
 * the count is raised and cleared after it is lowered, so that a handler never finds its
 * thread counted and its mark clear. */
static __thread __attribute__((tls_model("initial-exec"))) volatile sig_atomic_t
    sc_flushing_here;

enum { SC_FLUSH_WAIT_NS = 1000000000, SC_FLUSH_POLL_NS = 200000 };

static bool sc_flush_begin(void)
{
    sc_flushing_here = 1;
    atomic_fetch_add(&sc_flushes_in_flight, 1);
    if (atomic_load(&sc_activity_finishing)) {
        atomic_fetch_sub(&sc_flushes_in_flight, 1);
        sc_flushing_here = 0;
        return false;
    }
    return true;
}

static void sc_flush_end(void)
{
    atomic_fetch_sub(&sc_flushes_in_flight, 1);
    sc_flushing_here = 0;
}

static int64_t sc_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Bounded by the clock: a flush that never returns (CUPTI stuck, its thread stopped or
 * cancelled inside it) costs the finish a second, not the trace. */
static void sc_flushes_wait(void)
{
    unsigned own = sc_flushing_here ? 1u : 0u;
    if (atomic_load(&sc_flushes_in_flight) <= own)
        return;
    struct timespec poll = {0, SC_FLUSH_POLL_NS};
    for (int64_t until = sc_monotonic_ns() + SC_FLUSH_WAIT_NS;
         atomic_load(&sc_flushes_in_flight) > own && sc_monotonic_ns() < until;)
        nanosleep(&poll, NULL);
}

uint64_t sc_activity_finish(void)
{
    atomic_store(&sc_activity_finishing, true);
    sc_flushes_wait();
    sc_cupti_api.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t dropped = 0;
    if (sc_cupti_api.ActivityGetNumDroppedRecords(NULL, 0, &dropped) != CUPTI_SUCCESS) dropped = 0;
    return dropped;
}

static _Atomic uint64_t sc_checkpoint_last_ms;   /* 0: none yet */

static uint64_t sc_coarse_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);   /* the vDSO, no system call */
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool sc_activity_checkpoint_due(void)
{
    if (atomic_load_explicit(&sc_activity_finishing, memory_order_relaxed)) return false;
    uint64_t last = atomic_load_explicit(&sc_checkpoint_last_ms, memory_order_relaxed);
    return !last || sc_coarse_now_ms() - last >= SC_CHECKPOINT_MS;
}

void sc_activity_context_going(void)
{
    if (!sc_flush_begin()) return;
    sc_cupti_api.ActivityFlushAll(0);
    sc_flush_end();
}

void sc_activity_checkpoint(void)
{
    if (atomic_load(&sc_activity_finishing)) return;
    uint64_t now = sc_coarse_now_ms();
    uint64_t last = atomic_load_explicit(&sc_checkpoint_last_ms, memory_order_relaxed);
    if (last && now - last < SC_CHECKPOINT_MS) return;
    if (!atomic_compare_exchange_strong(&sc_checkpoint_last_ms, &last, now)) return;
    if (!sc_flush_begin()) return;
    sc_cupti_api.ActivityFlushAll(0);
    sc_flush_end();
}

uint64_t sc_activity_records(void)
{
    return atomic_load_explicit(&sc_activity_count, memory_order_relaxed);
}
