/* Hardware queues: see hw_queues.h. */
#include "analyze/hw_queues.h"

#include <stdlib.h>
#include <string.h>

uint32_t sc_hw_connections(const sc_trace *t)
{
    static const char name[] = "CUDA_DEVICE_MAX_CONNECTIONS=";
    for (size_t i = 0; i < t->n_env; i++)
        if (strncmp(t->env[i], name, sizeof name - 1) == 0) {
            long v = strtol(t->env[i] + sizeof name - 1, NULL, 10);
            if (v > 0)
                return v > SC_HW_MAX_CONNECTIONS ? SC_HW_MAX_CONNECTIONS : (uint32_t)v;
        }
    return SC_HW_DEFAULT_CONNECTIONS;
}

static bool sc_hw_same_context(const sc_stream_summary *a, const sc_stream_summary *b)
{
    return a->device == b->device && a->context_id == b->context_id;
}

uint32_t *sc_hw_slot_queues(const sc_ctx *ctx, uint32_t *queues)
{
    const sc_analysis *a = ctx->analysis;
    uint32_t n_q = sc_hw_connections(ctx->trace);
    uint32_t *slot_queue = malloc((a->n_streams + 1) * sizeof *slot_queue);
    uint32_t *rank = malloc((a->n_streams + 1) * sizeof *rank);
    if (!slot_queue || !rank) {
        free(slot_queue);
        free(rank);
        return NULL;
    }
    /* streams are sorted by device, then stream id: creation order within a context */
    for (size_t s = 0; s < a->n_streams; s++) {
        slot_queue[s] = UINT32_MAX;
        rank[s] = UINT32_MAX;
        if (!a->streams[s].created_by)
            continue;
        uint32_t r = 0;
        for (size_t q = 0; q < s; q++)
            if (rank[q] != UINT32_MAX && sc_hw_same_context(&a->streams[q], &a->streams[s]))
                r++;
        rank[s] = r;
        slot_queue[s] = (uint32_t)s;    /* the first of its queue, until one is found */
        for (size_t q = 0; q < s; q++)
            if (rank[q] == r % n_q && sc_hw_same_context(&a->streams[q], &a->streams[s])) {
                slot_queue[s] = (uint32_t)q;
                break;
            }
    }
    free(rank);
    *queues = n_q;
    return slot_queue;
}
