/* Item values in 32 bits, the few that do not fit in a sorted list beside (replay_wide.h). */
#include "analyze/replay_wide.h"

#include <stdlib.h>

#include "analyze/replay_graph.h"
#include "trace/grow.h"

static int sc_rp_wide_push(sc_rp_wides *w, sc_rp_sparse x)
{
    if (!SC_GROW(w->v, w->cap, w->n + 1, 16))
        return -1;
    w->v[w->n++] = x;
    return 0;
}

int sc_rp_wide_keep(sc_rp_wides *w, int32_t index, uint64_t v)
{
    return sc_rp_wide_push(w, (sc_rp_sparse){.index = index, .other = SC_RP_NONE, .value = v});
}

int sc_rp_wide_keep_signed(sc_rp_wides *w, int32_t index, int64_t v)
{
    return sc_rp_wide_push(w, (sc_rp_sparse){.index = index, .other = SC_RP_NONE,
                                             .held_lag = v});
}

uint64_t sc_rp_wide_lookup(const sc_rp_wides *w, int32_t index)
{
    const sc_rp_sparse *x = sc_rp_value_of(w->v, w->n, index);
    return x ? x->value : 0;
}

int64_t sc_rp_wide_lookup_signed(const sc_rp_wides *w, int32_t index)
{
    const sc_rp_sparse *x = sc_rp_value_of(w->v, w->n, index);
    return x ? x->held_lag : 0;
}
