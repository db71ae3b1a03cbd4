#include "trace/times.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sort_u64.h"

/* Where a list's records keep their times. */
typedef struct sc_timed_list {
    void *base;
    size_t *n;
    size_t size;
    size_t start_at, end_at;    /* offsets of start_ns and end_ns in one element; end_at
                                   SC_END_OF_CALL for the calls, whose end is sc_call_end */
} sc_timed_list;

#define SC_END_OF_CALL SIZE_MAX

static uint64_t sc_u64_at(const void *element, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)element + off, sizeof v);
    return v;
}

/* The median start over every list: the centre of a run whose PROCESS record is missing. */
static int sc_median_start(const sc_timed_list *lists, size_t n_lists, uint64_t *median)
{
    size_t total = 0;
    for (size_t l = 0; l < n_lists; l++)
        total += *lists[l].n;
    if (total == 0) {
        *median = 0;
        return 0;
    }
    uint64_t *starts = malloc(total * sizeof *starts);
    if (!starts)
        return -1;
    size_t k = 0;
    for (size_t l = 0; l < n_lists; l++)
        for (size_t i = 0; i < *lists[l].n; i++)
            starts[k++] = sc_u64_at((char *)lists[l].base + i * lists[l].size, lists[l].start_at);
    sc_sort_u64(starts, total);
    *median = starts[total / 2];
    free(starts);
    return 0;
}

static uint64_t sc_sub_floor(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

static uint64_t sc_add_ceil(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

bool sc_times_bounds(const sc_trace *t, uint64_t *lo, uint64_t *hi)
{
    if (!t->has_process)
        return false;
    *lo = sc_sub_floor(t->process.start_ns, SC_TIMES_MARGIN_NS);
    /* an END record that claims a run longer than the longest is itself damaged */
    *hi = sc_add_ceil(t->process.start_ns, SC_TIMES_LONGEST_RUN_NS);
    if (t->has_end && t->end.end_ns >= t->process.start_ns && t->end.end_ns < *hi)
        *hi = sc_add_ceil(t->end.end_ns, SC_TIMES_MARGIN_NS);
    return true;
}

int sc_trace_drop_impossible_times(sc_trace *t)
{
#define SC_LIST(arr, n, type, start, end)                                               \
    {t->arr, &t->n, sizeof(type), offsetof(type, start), offsetof(type, end)}
    sc_timed_list lists[] = {
        {t->calls, &t->n_calls, sizeof(sc_api_call), offsetof(sc_api_call, rec.start_ns),
         SC_END_OF_CALL},
        SC_LIST(kernels, n_kernels, sc_kernel, rec.start_ns, rec.end_ns),
        SC_LIST(copies, n_copies, sc_copy, start_ns, end_ns),
        SC_LIST(memsets, n_memsets, sc_memset, start_ns, end_ns),
        SC_LIST(syncs, n_syncs, sc_rec_sync, start_ns, end_ns),
        SC_LIST(ranges, n_ranges, sc_range, rec.start_ns, rec.end_ns),
        SC_LIST(overheads, n_overheads, sc_rec_overhead, start_ns, end_ns),
        SC_LIST(unified, n_unified, sc_rec_unified, start_ns, end_ns),
    };
#undef SC_LIST
    size_t n_lists = sizeof lists / sizeof *lists;
    uint64_t lo, hi;
    if (!sc_times_bounds(t, &lo, &hi)) {
        uint64_t median;
        if (sc_median_start(lists, n_lists, &median) != 0)
            return -1;
        lo = sc_sub_floor(median, SC_TIMES_LONGEST_RUN_NS);
        hi = sc_add_ceil(median, SC_TIMES_LONGEST_RUN_NS);
    }
    for (size_t l = 0; l < n_lists; l++) {
        const sc_timed_list *L = &lists[l];
        size_t kept = 0;
        for (size_t i = 0; i < *L->n; i++) {
            char *e = (char *)L->base + i * L->size;
            uint64_t start = sc_u64_at(e, L->start_at);
            uint64_t end = L->end_at == SC_END_OF_CALL ? sc_call_end(t, (const sc_api_call *)e)
                                                       : sc_u64_at(e, L->end_at);
            if (sc_times_impossible(start, end, lo, hi)) {
                t->impossible_times++;
                continue;
            }
            if (kept != i)
                memcpy((char *)L->base + kept * L->size, e, L->size);
            kept++;
        }
        *L->n = kept;
    }
    return 0;
}

int sc_trace_drop_impossible_times_seen(sc_trace *t, const sc_times_seen *seen)
{
    uint64_t lo, hi;
    if (seen->least_start > seen->most_end && !seen->backwards)
        return 0;   /* no timed record */
    if (sc_times_bounds(t, &lo, &hi) && !seen->backwards && seen->least_start >= lo &&
        seen->most_end <= hi)
        return 0;   /* every record starts and ends within the bounds, in that order */
    return sc_trace_drop_impossible_times(t);
}
