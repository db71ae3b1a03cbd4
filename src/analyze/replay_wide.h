/* Host items keep their rarely large times in 32 or 16 bits (replay_graph.h, sc_rp_item): a
 * call's duration, what tracing and streamcheck's stacks added to it, and how long a waiting
 * call ran on after what it waited for take microseconds. A value that does not fit is kept
 * whole in a list beside the items, sorted by item, and its field holds the mark below: every
 * value is exact, and an item costs 4 or 6 bytes less for each. */
#ifndef SC_ANALYZE_REPLAY_WIDE_H
#define SC_ANALYZE_REPLAY_WIDE_H

#include <stddef.h>
#include <stdint.h>

#define SC_RP_WIDE UINT32_MAX           /* an unsigned field's value is in its list */
#define SC_RP_WIDE16 UINT16_MAX         /* a 16-bit field's value is in its list */
#define SC_RP_WIDE_SIGNED INT32_MIN     /* a signed field's value is in its list */

typedef struct sc_rp_sparse sc_rp_sparse;

/* A list of the values that did not fit, sorted by item: appended in item order. */
typedef struct sc_rp_wides {
    sc_rp_sparse *v;
    size_t n, cap;
} sc_rp_wides;

/* Appends v for item `index` to the list (the put functions' rare case). Returns 0, or -1
 * without memory. */
int sc_rp_wide_keep(sc_rp_wides *w, int32_t index, uint64_t v);
int sc_rp_wide_keep_signed(sc_rp_wides *w, int32_t index, int64_t v);

/* Stores v for item `index` (items in increasing order, each once) in *field, or the mark in
 * *field and v in the list. Returns 0, or -1 without memory. Inline: the build puts three
 * values for every item, and nearly all of them fit. */
static inline int sc_rp_wide_put(sc_rp_wides *w, int32_t index, uint64_t v, uint32_t *field)
{
    if (v < SC_RP_WIDE) {
        *field = (uint32_t)v;
        return 0;
    }
    *field = SC_RP_WIDE;
    return sc_rp_wide_keep(w, index, v);
}

static inline int sc_rp_wide_put_signed(sc_rp_wides *w, int32_t index, int64_t v,
                                        int32_t *field)
{
    if (v > SC_RP_WIDE_SIGNED && v <= INT32_MAX) {
        *field = (int32_t)v;
        return 0;
    }
    *field = SC_RP_WIDE_SIGNED;
    return sc_rp_wide_keep_signed(w, index, v);
}

static inline int sc_rp_wide_put16(sc_rp_wides *w, int32_t index, uint64_t v, uint16_t *field)
{
    if (v < SC_RP_WIDE16) {
        *field = (uint16_t)v;
        return 0;
    }
    *field = SC_RP_WIDE16;
    return sc_rp_wide_keep(w, index, v);
}

/* The value kept in the list for item `index` (0 when it has none). */
uint64_t sc_rp_wide_lookup(const sc_rp_wides *w, int32_t index);
int64_t sc_rp_wide_lookup_signed(const sc_rp_wides *w, int32_t index);

/* The value of item `index` whose field holds `field`: the pass reads these for every item,
 * so the field is tested inline and only the mark costs a search. */
static inline uint64_t sc_rp_wide_of(const sc_rp_wides *w, int32_t index, uint32_t field)
{
    return field != SC_RP_WIDE ? field : sc_rp_wide_lookup(w, index);
}

static inline uint64_t sc_rp_wide16_of(const sc_rp_wides *w, int32_t index, uint16_t field)
{
    return field != SC_RP_WIDE16 ? field : sc_rp_wide_lookup(w, index);
}

static inline int64_t sc_rp_wide_signed_of(const sc_rp_wides *w, int32_t index, int32_t field)
{
    return field != SC_RP_WIDE_SIGNED ? field : sc_rp_wide_lookup_signed(w, index);
}

#endif
