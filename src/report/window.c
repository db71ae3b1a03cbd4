#include "report/window.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int sc_window_parse_time(const char *text, uint64_t *out_ns)
{
    static const struct {
        const char *suffix;
        double ns;
    } units[] = {{"", 1e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1.0}};
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !isfinite(v) || v < 0)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) != 0)
            continue;
        double ns = v * units[i].ns;
        if (ns >= 1.8e19)       /* past uint64_t */
            return -1;
        *out_ns = (uint64_t)llround(ns);
        return 0;
    }
    return -1;
}

static void earliest(bool *any, uint64_t *lo, uint64_t t)
{
    if (!*any || t < *lo)
        *lo = t;
    *any = true;
}

uint64_t sc_window_run_start(const sc_trace *t)
{
    if (t->loaded_between)      /* its first records were left out: the load read the start */
        return t->times_any ? t->run_start_ns : 0;
    bool any = false;
    uint64_t lo = 0;
    /* each array is sorted by start: its first record is its earliest */
    if (t->n_calls)
        earliest(&any, &lo, t->calls[0].rec.start_ns);
    if (t->n_kernels)
        earliest(&any, &lo, t->kernels[0].rec.start_ns);
    if (t->n_copies)
        earliest(&any, &lo, t->copies[0].start_ns);
    if (t->n_memsets)
        earliest(&any, &lo, t->memsets[0].start_ns);
    if (t->n_ranges)
        earliest(&any, &lo, t->ranges[0].rec.start_ns);
    return lo;
}

/* Narrows a start-sorted array of n elements of `size` bytes, whose start time lies at
 * byte `at` of each, to those starting in [lo, hi): sets *first and returns their count. */
static size_t cut(const void *base, size_t n, size_t size, size_t at, uint64_t lo,
                  uint64_t hi, size_t *first)
{
    const unsigned char *p = base;
    size_t i = 0;
    uint64_t t;
    while (i < n && (memcpy(&t, p + i * size + at, sizeof t), t < lo))
        i++;
    size_t j = i;
    while (j < n && (memcpy(&t, p + j * size + at, sizeof t), t < hi))
        j++;
    *first = i;
    return j - i;
}

/* Narrows out->FIELD (an array) and out->N_FIELD to the window; START is the member path
 * of an element's start time. */
#define SC_WINDOW_CUT(field, count, type, start)                                          \
    do {                                                                                  \
        size_t first_;                                                                    \
        out->count = cut(in->field, in->count, sizeof(type), offsetof(type, start), lo,   \
                         hi, &first_);                                                    \
        out->field = in->field ? in->field + first_ : NULL;                               \
    } while (0)

void sc_window_bounds(const sc_window *w, uint64_t run_start, uint64_t *lo, uint64_t *hi)
{
    *lo = w->has_from ? run_start + w->from_ns : 0;
    *hi = w->has_to ? run_start + w->to_ns : UINT64_MAX;
    if (w->has_from && *lo < run_start)     /* past the clock's end */
        *lo = UINT64_MAX;
    if (w->has_to && *hi < run_start)
        *hi = UINT64_MAX;
}

void sc_window_cut(const sc_trace *in, const sc_window *w, sc_trace *out)
{
    *out = *in;
    uint64_t lo, hi;
    sc_window_bounds(w, sc_window_run_start(in), &lo, &hi);
    SC_WINDOW_CUT(calls, n_calls, sc_api_call, rec.start_ns);
    SC_WINDOW_CUT(kernels, n_kernels, sc_kernel, rec.start_ns);
    SC_WINDOW_CUT(copies, n_copies, sc_copy, start_ns);
    SC_WINDOW_CUT(memsets, n_memsets, sc_memset, start_ns);
    SC_WINDOW_CUT(syncs, n_syncs, sc_rec_sync, start_ns);
    SC_WINDOW_CUT(ranges, n_ranges, sc_range, rec.start_ns);
    SC_WINDOW_CUT(overheads, n_overheads, sc_rec_overhead, start_ns);
    SC_WINDOW_CUT(unified, n_unified, sc_rec_unified, start_ns);
}
