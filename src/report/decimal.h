/* Powers of ten in 64 bits, and how many decimal digits a number has: for the JSON writer's
 * integers (json_out.c) and reals (json_real.c). */
#ifndef SC_REPORT_DECIMAL_H
#define SC_REPORT_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* 10^0 to 10^19, every power that fits 64 bits */
static const uint64_t sc_pow10[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull,
};

/* How many digits m has: from its bits (log10(2) is about 1233 / 4096), then one compare;
 * m | 1 gives 0 its one digit, and moves no other m past a power of ten (those above 1 are
 * even). */
static inline size_t sc_decimal_digits(uint64_t m)
{
    unsigned t = (unsigned)(64 - __builtin_clzll(m | 1)) * 1233u >> 12;
    return t - ((m | 1) < sc_pow10[t]) + 1;
}

#endif
