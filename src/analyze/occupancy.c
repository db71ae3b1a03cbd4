/* Resident-block arithmetic: see occupancy.h. */
#include "analyze/occupancy.h"

#include <stdio.h>

static uint64_t sc_occ_product(int32_t x, int32_t y, int32_t z)
{
    if (x <= 0 || y <= 0 || z <= 0)
        return 0;
    return (uint64_t)x * (uint64_t)y * (uint64_t)z;
}

/* Keeps the smaller candidate; on a tie the earlier limit (threads first) names the cause. */
static void sc_occ_consider(sc_occupancy *o, uint8_t limit, uint64_t budget, uint64_t per_block)
{
    if (budget == 0 || per_block == 0)
        return;
    uint64_t fit = budget / per_block;
    if (o->budget != 0 && fit >= o->blocks_per_sm)
        return;
    o->blocks_per_sm = (uint32_t)(fit > UINT32_MAX ? UINT32_MAX : fit);
    o->limit = limit;
    o->budget = budget;
    o->per_block = per_block;
}

bool sc_occupancy_compute(const sc_rec_device *dev, const sc_kernel_shape *k, sc_occupancy *out)
{
    *out = (sc_occupancy){0};
    uint64_t threads = sc_occ_product(k->block_x, k->block_y, k->block_z);
    out->blocks = sc_occ_product(k->grid_x, k->grid_y, k->grid_z);
    if (!dev->sm_count || !dev->max_threads_per_sm || !dev->max_blocks_per_sm || !threads ||
        threads > UINT32_MAX || !out->blocks)
        return false;
    out->threads_per_block = (uint32_t)threads;
    out->sm_count = dev->sm_count;
    out->warps_per_block = (uint32_t)((threads + SC_OCC_WARP - 1) / SC_OCC_WARP);
    sc_occ_consider(out, SC_OCC_BY_THREADS, dev->max_threads_per_sm, threads);
    if (k->registers_per_thread) {
        uint64_t raw = (uint64_t)k->registers_per_thread * SC_OCC_WARP;
        out->regs_per_warp =
            (uint32_t)((raw + SC_OCC_REG_UNIT - 1) / SC_OCC_REG_UNIT * SC_OCC_REG_UNIT);
        sc_occ_consider(out, SC_OCC_BY_REGISTERS, dev->max_regs_per_sm,
                        (uint64_t)out->regs_per_warp * out->warps_per_block);
    }
    out->shared_reserve = dev->cc_major >= 8 ? SC_OCC_SHARED_RESERVE : 0;
    uint64_t shared = (uint64_t)k->static_shared + k->dynamic_shared + out->shared_reserve;
    sc_occ_consider(out, SC_OCC_BY_SHARED, dev->max_shared_per_sm, shared);
    sc_occ_consider(out, SC_OCC_BY_BLOCKS, dev->max_blocks_per_sm, 1);
    if (out->blocks_per_sm == 0)
        return false;   /* one block does not fit an SM by this arithmetic: a field is off */
    out->wave = (uint64_t)out->sm_count * out->blocks_per_sm;
    return true;
}

bool sc_occupancy_full(const sc_occupancy *o)
{
    return o->wave > 0 && o->blocks >= o->wave;
}

void sc_occupancy_text(const sc_occupancy *o, char *buf, size_t size)
{
    unsigned long long budget = (unsigned long long)o->budget;
    unsigned long long per = (unsigned long long)o->per_block;
    switch (o->limit) {
    case SC_OCC_BY_THREADS:
        snprintf(buf, size, "%u blocks/SM by threads: %llu/%llu", o->blocks_per_sm, budget, per);
        break;
    case SC_OCC_BY_REGISTERS:
        snprintf(buf, size, "%u blocks/SM by registers: %llu/(%u per warp x %u warps)",
                 o->blocks_per_sm, budget, o->regs_per_warp, o->warps_per_block);
        break;
    case SC_OCC_BY_SHARED:
        if (o->shared_reserve)
            snprintf(buf, size, "%u blocks/SM by shared memory: %llu/(%llu+%u reserved bytes)",
                     o->blocks_per_sm, budget, per - o->shared_reserve, o->shared_reserve);
        else
            snprintf(buf, size, "%u blocks/SM by shared memory: %llu/%llu bytes",
                     o->blocks_per_sm, budget, per);
        break;
    default:
        snprintf(buf, size, "%u blocks/SM by the block limit", o->blocks_per_sm);
        break;
    }
}
