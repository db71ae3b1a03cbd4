/* What the report knows about the sampled addresses of one module: symbol, inline chain and
 * the CUDA runtime's address ranges, whether read from the binary or from a .syms file. */
#ifndef SC_REPORT_SYM_TABLE_H
#define SC_REPORT_SYM_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/sym_dwarf.h"

typedef struct sc_sym_addr {
    uint64_t offset;            /* the return address's module offset, as recorded */
    char *symbol;               /* symbol table name as stored (mangled), NULL when none */
    uint64_t symbol_offset;     /* offset - the symbol's start */
    sc_sym_loc chain[SC_SYM_MAX_INLINE];    /* innermost first (sym_dwarf.h) */
    size_t n_chain;
    char *shown;                /* cache: the demangled name of the frame shown */
    size_t shown_index;         /* which chain entry is shown; n_chain: the symbol alone */
    bool shown_done;
} sc_sym_addr;

typedef struct sc_sym_range {
    uint64_t lo, hi;            /* ELF virtual addresses, [lo, hi) */
} sc_sym_range;

typedef struct sc_sym_table {
    sc_sym_addr *addrs;         /* sorted by offset */
    size_t n, cap;
    sc_sym_range *cuda;         /* the CUDA runtime linked into this module */
    size_t n_cuda;
} sc_sym_table;

/* The entry of `offset`, or NULL. */
sc_sym_addr *sc_sym_table_find(sc_sym_table *t, uint64_t offset);
/* A new empty entry for `offset` (which must not be there yet), kept in order; NULL when
 * out of memory. Pointers to entries stay valid only until the next insert. */
sc_sym_addr *sc_sym_table_insert(sc_sym_table *t, uint64_t offset);
/* True when vaddr lies in one of the CUDA runtime's ranges. */
bool sc_sym_table_in_cuda(const sc_sym_table *t, uint64_t vaddr);
void sc_sym_table_free(sc_sym_table *t);

#endif
