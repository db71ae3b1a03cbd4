/* streamcheck_range_push/pop (include/streamcheck/range_api.h): named ranges without NVTX.
 *
 * NVTX's own ranges are seen only once CUPTI delivers them, that is after cuInit, and only
 * through libnvToolsExt. A test runner opens its range before the test's first CUDA call
 * (the first test is the one that starts CUDA), so these keep their own small stack per
 * thread: each entry holds a copy of the name and its start, or 0 when capture was not
 * running yet; the pop writes the RANGE record, starting no earlier than capture did.
 * Not the CUDA hot path: a test runner calls them twice per test. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preload/capture.h"
#include "preload/clock.h"
#include "preload/cupti_loader.h"
#include "preload/loss.h"
#include "preload/scope.h"
#include "preload/strings.h"
#include "preload/thread.h"
#include "preload/tracebuf.h"
#include "streamcheck/range_api.h"
#include "streamcheck/trace_format.h"

#define SC_EXPORT __attribute__((visibility("default")))

enum { SC_API_RANGE_DEPTH = 32 };

typedef struct sc_api_open {
    char *name;         /* our copy; NULL when there was no memory for it */
    uint64_t start_ns;  /* 0: opened before capture started */
} sc_api_open;

/* The default TLS model: the library may be dlopen'ed (CUDA_INJECTION64_PATH), where a
 * static-TLS block of this size might not be available. */
static __thread sc_api_open sc_api_stack[SC_API_RANGE_DEPTH];
static __thread uint32_t sc_api_depth;

static bool sc_api_now(uint64_t *now, uint64_t *capture_start)
{
    if (!sc_capture_running(capture_start) || !sc_cupti_api.GetTimestamp) return false;
    *now = sc_clock_now();
    return true;
}

SC_EXPORT void streamcheck_range_push(const char *name)
{
    int saved = errno;
    uint32_t d = sc_api_depth++;
    uint64_t now, t0;
    bool running = sc_api_now(&now, &t0);
    if (d >= SC_API_RANGE_DEPTH) {
        if (running) sc_loss_add(SC_LOSS_NVTX_DEPTH, 1);
        errno = saved;
        return;
    }
    sc_api_stack[d] = (sc_api_open){strdup(name ? name : "(unnamed range)"),
                                    running ? now : 0};
    errno = saved;
}

SC_EXPORT void streamcheck_range_pop(void)
{
    int saved = errno;
    uint64_t now, t0;
    bool running = sc_api_now(&now, &t0);
    if (sc_api_depth == 0) {
        if (running) sc_loss_add(SC_LOSS_NVTX_UNMATCHED, 1);
        errno = saved;
        return;
    }
    uint32_t d = --sc_api_depth;
    if (d >= SC_API_RANGE_DEPTH) {
        errno = saved;
        return;
    }
    sc_api_open open = sc_api_stack[d];
    sc_api_stack[d] = (sc_api_open){0};
    /* Outside the capture scope (scope.h), a range is not written. */
    if (running && sc_scope_keeps_range(open.start_ns > t0 ? open.start_ns : t0)) {
        /* Opened before capture started, or in the parent before a fork: from capture's
         * start, which is on the same clock. */
        uint64_t start = open.start_ns > t0 ? open.start_ns : t0;
        /* The general pool, not NVTX's 4096 names: every test of a suite has its own name. */
        uint32_t name_id = open.name ? sc_string_id(open.name) : 0;
        sc_thread *t = sc_thread_self();
        if (name_id && t) {
            sc_rec_range rec = {.start_ns = start, .end_ns = now, .tid = t->tid,
                                .name_id = name_id, .domain_id = 0, .depth = d};
            sc_tbuf_put(SC_REC_RANGE, &rec, sizeof rec, NULL, 0);
        } else {
            sc_loss_add(SC_LOSS_NO_MEMORY, 1);
        }
    }
    free(open.name);
    errno = saved;
}
