/* Resident-block arithmetic: how many blocks of a kernel fit on one SM at once, and so how
 * many blocks make one full wave over the device. The no-room rule explains a kernel that
 * could not start with it ("1056 blocks of 256 threads fill all 132 SMs: 8 blocks/SM by
 * threads, 2048/256").
 *
 * blocks/SM = the smallest of
 *   threads    floor(max_threads_per_sm / threads_per_block)
 *   registers  floor(max_regs_per_sm / (regs per warp x warps per block)), regs per warp =
 *              registers_per_thread x 32 rounded up to a multiple of 256 (the allocation
 *              unit of every architecture since Maxwell), warps per block = ceil(threads/32)
 *   shared     floor(max_shared_per_sm / (static + dynamic shared per block + reserve)),
 *              reserve = 1 KiB per block on compute capability 8.0 and later (the driver
 *              keeps it for itself: cudaDevAttrReservedSharedMemoryPerBlock), 0 before
 *   blocks     max_blocks_per_sm
 * A limit whose device or kernel field is 0 (not recorded) is left out. The result is an
 * upper bound: the driver may pick a smaller shared-memory carveout than max_shared_per_sm,
 * and shared memory is allocated in units this arithmetic ignores. An upper bound is the safe
 * side here: a grid called "full" by it is at least that full on the device.
 */
#ifndef SC_ANALYZE_OCCUPANCY_H
#define SC_ANALYZE_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamcheck/trace.h"

#define SC_OCC_WARP 32u
#define SC_OCC_REG_UNIT 256u                /* registers are allocated per warp in these */
#define SC_OCC_SHARED_RESERVE 1024u         /* per block, compute capability >= 8.0 */

typedef enum sc_occ_limit {
    SC_OCC_BY_THREADS = 0,
    SC_OCC_BY_REGISTERS = 1,
    SC_OCC_BY_SHARED = 2,
    SC_OCC_BY_BLOCKS = 3,
} sc_occ_limit;

typedef struct sc_occupancy {
    uint64_t blocks;            /* the grid: grid_x * grid_y * grid_z */
    uint32_t threads_per_block;
    uint32_t sm_count;
    uint32_t blocks_per_sm;     /* resident blocks per SM */
    uint8_t limit;              /* sc_occ_limit: which resource gave blocks_per_sm */
    uint64_t budget;            /* that resource per SM: threads, registers, bytes, blocks */
    uint64_t per_block;         /* what one block takes of it (1 for the block limit) */
    uint32_t regs_per_warp;     /* registers: the rounded per-warp allocation */
    uint32_t warps_per_block;
    uint32_t shared_reserve;    /* shared: the reserve included in per_block */
    uint64_t wave;              /* sm_count * blocks_per_sm */
} sc_occupancy;

/* Returns false when the device record lacks the SM count, the thread or block limits, or
 * the kernel has an empty grid or block (nothing can be said then). */
bool sc_occupancy_compute(const sc_rec_device *dev, const sc_kernel_shape *k, sc_occupancy *out);

/* The grid fills at least one whole wave: no block of another kernel fits until its last
 * wave drains. */
bool sc_occupancy_full(const sc_occupancy *o);

/* How the limit came about, as a person would say it: "8 blocks/SM by threads: 2048/256".
 * A buffer of SC_OCCUPANCY_TEXT_SIZE holds the longest one uncut (the shared-memory text with
 * every number at its widest: 108 characters). */
#define SC_OCCUPANCY_TEXT_SIZE 128
void sc_occupancy_text(const sc_occupancy *o, char *buf, size_t size);

#endif
