/* The binary search that lists of structs sorted by one of their fields share. */
#ifndef SC_TRACE_LOWER_BOUND_H
#define SC_TRACE_LOWER_BOUND_H

#include <stddef.h>

/* The first position in v[0..n) whose `field` is not below x (n when none is), v sorted by
 * that field. A GNU C statement expression (the tree is gnu11) so that it serves any struct;
 * sort_u64.h's bounds are the same search over plain values. */
#define SC_LOWER_BOUND(v, n, field, x)                                                        \
    __extension__({                                                                           \
        size_t sc_lb_lo = 0, sc_lb_hi = (n);                                                  \
        while (sc_lb_lo < sc_lb_hi) {                                                         \
            size_t sc_lb_mid = sc_lb_lo + (sc_lb_hi - sc_lb_lo) / 2;                          \
            if ((v)[sc_lb_mid].field < (x))                                                   \
                sc_lb_lo = sc_lb_mid + 1;                                                     \
            else                                                                              \
                sc_lb_hi = sc_lb_mid;                                                         \
        }                                                                                     \
        sc_lb_lo;                                                                             \
    })

#endif
