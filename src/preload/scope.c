#include "preload/scope.h"

#include <pthread.h>
#include <string.h>

#include "preload/options.h"
#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"

_Atomic uint32_t sc_scope_state = SC_SCOPE_OPEN;   /* no scope: always open */

/* The last windows, by number modulo SC_SCOPE_RING: 32 KiB, however long the run. */
enum { SC_SCOPE_RING = 1024 };

typedef struct sc_scope_window {
    _Atomic uint32_t number;            /* 0: never used */
    _Atomic uint32_t lo, hi;            /* correlation ids of its calls; lo 0: none yet */
    _Atomic uint64_t open_ns, close_ns; /* close_ns UINT64_MAX while open */
} sc_scope_window;

static sc_scope_window sc_ring[SC_SCOPE_RING];
static pthread_mutex_t sc_scope_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set once at capture start, before any callback; read on every thread. */
static _Atomic uint32_t sc_scope_mode;  /* enum sc_scope_mode; 0: none */
static _Atomic uint32_t sc_scope_name;  /* capture_range's STRING id */
static uint32_t sc_occurrences;         /* openings seen (ranges of the name, profiler starts) */
static uint32_t sc_open_instances;      /* counted ranges of the name open now */
static uint32_t sc_window_occurrence;   /* the occurrence that opened the current window */
static _Atomic uint32_t sc_windows;     /* windows opened so far */
static _Atomic uint64_t sc_last_close_ns;

void sc_scope_start(uint32_t name_id)
{
    uint32_t mode = strcmp(sc_opts.capture, "profiler") == 0 ? SC_SCOPE_PROFILER
                    : sc_opts.capture_range[0]              ? SC_SCOPE_NVTX_RANGE
                                                            : 0;
    if (!mode) return;
    atomic_store(&sc_scope_name, name_id);
    atomic_store(&sc_scope_mode, mode);
    atomic_store(&sc_scope_state, SC_SCOPE_SET);    /* closed until the scope opens */
    sc_rec_scope r = {.mode = mode,
                      .skip = mode == SC_SCOPE_NVTX_RANGE ? (uint32_t)sc_opts.capture_skip : 0};
    const char *name = mode == SC_SCOPE_NVTX_RANGE ? sc_opts.capture_range : "";
    sc_tbuf_put(SC_REC_SCOPE, &r, sizeof r, name, strlen(name) + 1);
}

static uint32_t sc_mode(void)
{
    return atomic_load_explicit(&sc_scope_mode, memory_order_relaxed);
}

static sc_scope_window *sc_window(uint32_t number)
{
    return &sc_ring[number % SC_SCOPE_RING];
}

void sc_scope_note_call(uint32_t state, uint32_t correlation_id)
{
    uint32_t number = state >> 2;
    sc_scope_window *w = sc_window(number);
    /* acquire: pairs with the release that made the window; a slot taken by a window 1024
     * later (this thread slept that long) is not touched */
    if (atomic_load_explicit(&w->number, memory_order_acquire) != number) return;
    uint32_t lo = atomic_load_explicit(&w->lo, memory_order_relaxed);
    while ((lo == 0 || correlation_id < lo) &&
           !atomic_compare_exchange_weak_explicit(&w->lo, &lo, correlation_id,
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
    uint32_t hi = atomic_load_explicit(&w->hi, memory_order_relaxed);
    while (correlation_id > hi &&
           !atomic_compare_exchange_weak_explicit(&w->hi, &hi, correlation_id,
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
}

/* Newest window first: a device record comes soon after its call. Windows follow each
 * other, and so do their id intervals (two neighbours may overlap by the calls of threads
 * that raced the close): once a window lies wholly before the id, one more is looked at. */
bool sc_scope_keeps_call(uint32_t correlation_id)
{
    if (!sc_mode()) return true;
    uint32_t n = atomic_load_explicit(&sc_windows, memory_order_acquire);
    int before = 0;
    for (uint32_t k = n; k >= 1 && n - k < SC_SCOPE_RING; k--) {
        sc_scope_window *w = sc_window(k);
        if (atomic_load_explicit(&w->number, memory_order_acquire) != k) return false;
        uint32_t lo = atomic_load_explicit(&w->lo, memory_order_relaxed);
        uint32_t hi = atomic_load_explicit(&w->hi, memory_order_relaxed);
        if (lo == 0) continue;  /* no call in it */
        if (correlation_id >= lo && correlation_id <= hi) return true;
        if (correlation_id > hi && ++before == 2) return false;
    }
    /* Older than every window remembered: it may belong to one; kept, not dropped unasked.
     * Before the first window (warm-up) it is out. */
    return n >= SC_SCOPE_RING && before == 0;
}

bool sc_scope_keeps_time(uint64_t start_ns)
{
    if (!sc_mode()) return true;
    uint32_t n = atomic_load_explicit(&sc_windows, memory_order_acquire);
    for (uint32_t k = n; k >= 1 && n - k < SC_SCOPE_RING; k--) {
        sc_scope_window *w = sc_window(k);
        if (atomic_load_explicit(&w->number, memory_order_acquire) != k) return false;
        if (start_ns >= atomic_load_explicit(&w->open_ns, memory_order_relaxed))
            return start_ns <= atomic_load_explicit(&w->close_ns, memory_order_relaxed);
    }
    return n >= SC_SCOPE_RING;
}

/* Windows never overlap: a range overlapped one if one is open now or the last closed after
 * the range began. */
bool sc_scope_keeps_range(uint64_t start_ns)
{
    if (!sc_mode()) return true;
    return (sc_scope_now() & SC_SCOPE_OPEN) ||
           atomic_load_explicit(&sc_last_close_ns, memory_order_relaxed) >= start_ns;
}

/* Under sc_scope_lock. */
static void sc_window_open(uint64_t now_ns)
{
    uint32_t number = atomic_load_explicit(&sc_windows, memory_order_relaxed) + 1;
    sc_scope_window *w = sc_window(number);
    atomic_store_explicit(&w->number, 0, memory_order_relaxed);
    atomic_store_explicit(&w->lo, 0, memory_order_relaxed);
    atomic_store_explicit(&w->hi, 0, memory_order_relaxed);
    atomic_store_explicit(&w->open_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&w->close_ns, UINT64_MAX, memory_order_relaxed);
    atomic_store_explicit(&w->number, number, memory_order_release);
    atomic_store_explicit(&sc_windows, number, memory_order_release);
    sc_window_occurrence = sc_occurrences;
    atomic_store_explicit(&sc_scope_state, number << 2 | SC_SCOPE_SET | SC_SCOPE_OPEN,
                          memory_order_release);
}

/* Under sc_scope_lock. */
static void sc_window_close(uint64_t now_ns, uint32_t flags)
{
    uint32_t state = atomic_load_explicit(&sc_scope_state, memory_order_relaxed);
    if (!(state & SC_SCOPE_OPEN)) return;
    atomic_store_explicit(&sc_scope_state, state & ~SC_SCOPE_OPEN, memory_order_release);
    sc_scope_window *w = sc_window(state >> 2);
    uint64_t open_ns = atomic_load_explicit(&w->open_ns, memory_order_relaxed);
    atomic_store_explicit(&w->close_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&sc_last_close_ns, now_ns, memory_order_relaxed);
    sc_rec_scope_window r = {.open_ns = open_ns, .close_ns = now_ns > open_ns ? now_ns : open_ns,
                             .occurrence = sc_window_occurrence, .flags = flags};
    sc_tbuf_put(SC_REC_SCOPE_WINDOW, &r, sizeof r, NULL, 0);
}

bool sc_scope_range_name(uint32_t name_id)
{
    return name_id && sc_mode() == SC_SCOPE_NVTX_RANGE &&
           name_id == atomic_load_explicit(&sc_scope_name, memory_order_relaxed);
}

bool sc_scope_range_opened(uint64_t now_ns)
{
    pthread_mutex_lock(&sc_scope_lock);
    bool counted = ++sc_occurrences > (uint32_t)sc_opts.capture_skip;
    if (counted && sc_open_instances++ == 0) sc_window_open(now_ns);
    pthread_mutex_unlock(&sc_scope_lock);
    return counted;
}

void sc_scope_range_closed(uint64_t now_ns)
{
    pthread_mutex_lock(&sc_scope_lock);
    if (sc_open_instances > 0 && --sc_open_instances == 0) sc_window_close(now_ns, 0);
    pthread_mutex_unlock(&sc_scope_lock);
}

void sc_scope_profiler(bool start, uint64_t now_ns)
{
    if (sc_mode() != SC_SCOPE_PROFILER) return;
    pthread_mutex_lock(&sc_scope_lock);
    bool open = atomic_load_explicit(&sc_scope_state, memory_order_relaxed) & SC_SCOPE_OPEN;
    /* cudaProfilerStart reaches cuProfilerStart: both fire; the second finds it open. */
    if (start && !open) {
        sc_occurrences++;
        sc_window_open(now_ns);
    } else if (!start && open) {
        sc_window_close(now_ns, 0);
    }
    pthread_mutex_unlock(&sc_scope_lock);
}

void sc_scope_finish(uint64_t now_ns)
{
    if (!sc_mode()) return;
    pthread_mutex_lock(&sc_scope_lock);
    sc_window_close(now_ns, SC_SCOPE_OPEN_AT_END);
    pthread_mutex_unlock(&sc_scope_lock);
}

void sc_scope_reset(void)
{
    pthread_mutex_init(&sc_scope_lock, NULL);
    atomic_store(&sc_scope_mode, 0);
    atomic_store(&sc_scope_name, 0);
    sc_occurrences = sc_open_instances = sc_window_occurrence = 0;
    atomic_store(&sc_windows, 0);
    atomic_store(&sc_last_close_ns, 0);
    memset(sc_ring, 0, sizeof sc_ring);
    atomic_store(&sc_scope_state, SC_SCOPE_OPEN);
}
