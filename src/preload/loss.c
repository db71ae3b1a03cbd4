#include "preload/loss.h"

#include <stdatomic.h>

static _Atomic uint64_t sc_losses[SC_LOSS_CAUSES + 1];

void sc_loss_add(uint32_t cause, uint64_t n)
{
    if (cause > 0 && cause <= SC_LOSS_CAUSES && n)
        atomic_fetch_add_explicit(&sc_losses[cause], n, memory_order_relaxed);
}

uint64_t sc_loss_get(uint32_t cause)
{
    return cause > 0 && cause <= SC_LOSS_CAUSES
               ? atomic_load_explicit(&sc_losses[cause], memory_order_relaxed)
               : 0;
}

size_t sc_loss_encode(uint8_t buf[SC_LOSS_BYTES])
{
    size_t used = 0;
    for (uint32_t cause = 1; cause <= SC_LOSS_CAUSES; cause++) {
        sc_rec_loss r = {.cause = cause, .count = sc_loss_get(cause)};
        used += sc_record_encode(buf + used, SC_REC_LOSS, &r, sizeof r, NULL, 0);
    }
    return used;
}

void sc_loss_reset(void)
{
    for (uint32_t cause = 0; cause <= SC_LOSS_CAUSES; cause++)
        atomic_store_explicit(&sc_losses[cause], 0, memory_order_relaxed);
}
