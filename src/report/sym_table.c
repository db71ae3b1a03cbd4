#include "report/sym_table.h"

#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"

static size_t lower_bound(const sc_sym_table *t, uint64_t offset)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->addrs[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

sc_sym_addr *sc_sym_table_find(sc_sym_table *t, uint64_t offset)
{
    size_t i = lower_bound(t, offset);
    return i < t->n && t->addrs[i].offset == offset ? &t->addrs[i] : NULL;
}

sc_sym_addr *sc_sym_table_insert(sc_sym_table *t, uint64_t offset)
{
    if (!SC_GROW(t->addrs, t->cap, t->n + 1, 64))
        return NULL;
    size_t i = lower_bound(t, offset);
    memmove(&t->addrs[i + 1], &t->addrs[i], (t->n - i) * sizeof *t->addrs);
    t->n++;
    memset(&t->addrs[i], 0, sizeof t->addrs[i]);
    t->addrs[i].offset = offset;
    return &t->addrs[i];
}

bool sc_sym_table_in_cuda(const sc_sym_table *t, uint64_t vaddr)
{
    for (size_t i = 0; i < t->n_cuda; i++)
        if (vaddr >= t->cuda[i].lo && vaddr < t->cuda[i].hi)
            return true;
    return false;
}

void sc_sym_table_free(sc_sym_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        sc_sym_addr *a = &t->addrs[i];
        free(a->symbol);
        free(a->shown);
        for (size_t j = 0; j < a->n_chain; j++)
            sc_sym_loc_free(&a->chain[j]);
    }
    free(t->addrs);
    free(t->cuda);
    memset(t, 0, sizeof *t);
}
