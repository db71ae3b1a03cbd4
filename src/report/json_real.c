/* jansson's text for a real (json_real.h). */
#include "report/json_real.h"

#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/decimal.h"

#define SC_DIGITS 17                    /* "%.17g": significant digits */
#define SC_TEN16 sc_pow10[16]           /* the 17-digit numbers are [10^16, 10^17) */
#define SC_TEN17 sc_pow10[17]

/* v (positive, normal) as 17 significant digits, printf's rounding of its exact value to
 * nearest, ties to even: *digits in [10^16, 10^17), v ~ digits * 10^(*exp10 - 16). False
 * where the 128-bit product below cannot hold v * 10^(16 - exponent), or where the exponent
 * leaves [-3, 16] (the caller's fixed notation). */
static bool sc_digits(double v, uint64_t *digits, int *exp10)
{
    int e2;
    double f = frexp(v, &e2);                   /* v = f * 2^e2, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53);        /* exact: f has 53 bits */
    int e = e2 - 53;                            /* v = m * 2^e */
    int x = (int)floor(log10(v));               /* the decimal exponent, give or take one */
    for (int tries = 0; tries < 3; tries++) {
        int k = SC_DIGITS - 1 - x;              /* v * 10^k has 17 digits before its point */
        if (x < -3 || x > 16 || k < 0 || k > 19)
            return false;
        unsigned __int128 p = (unsigned __int128)m * sc_pow10[k], rem = 0, half = 0;
        if (e >= 0) {
            if (e > 8)                          /* v >= 2^61: above the fixed range anyway */
                return false;
            p <<= e;
        } else {
            int s = -e;
            if (s > 120)
                return false;
            unsigned __int128 mask = ((unsigned __int128)1 << s) - 1;
            rem = p & mask;
            half = (unsigned __int128)1 << (s - 1);
            p >>= s;
        }
        if (p < SC_TEN16) {                     /* log10 said one too many */
            x--;
            continue;
        }
        if (p >= SC_TEN17) {
            x++;
            continue;
        }
        uint64_t q = (uint64_t)p;
        if (rem > half || (rem == half && rem != 0 && (q & 1)))
            q++;
        if (q == SC_TEN17) {                    /* 9.99...95 rounded up to the next power */
            q = SC_TEN16;
            x++;
        }
        if (x > 16)
            return false;
        *digits = q;
        *exp10 = x;
        return true;
    }
    return false;
}

/* "%.17g" in fixed notation (exponents -4 to 16, which %g writes without an exponent):
 * trailing zeros of the fraction dropped, and the point with them; then jansson's ".0" for
 * a number left without a point. */
static int sc_fixed_text(bool negative, uint64_t digits, int x, char *out)
{
    char d[SC_DIGITS];
    for (int i = SC_DIGITS - 1; i >= 0; i--) {
        d[i] = (char)('0' + digits % 10);
        digits /= 10;
    }
    int last = SC_DIGITS - 1;                   /* the last digit kept */
    while (last > 0 && d[last] == '0')
        last--;
    char *p = out;
    if (negative)
        *p++ = '-';
    if (x >= 0) {
        memcpy(p, d, (size_t)x + 1);
        p += x + 1;
        *p++ = '.';
        if (last > x) {
            memcpy(p, d + x + 1, (size_t)(last - x));
            p += last - x;
        } else {
            *p++ = '0';                         /* jansson's ".0" */
        }
    } else {
        *p++ = '0';
        *p++ = '.';
        for (int z = 0; z < -x - 1; z++)
            *p++ = '0';
        memcpy(p, d, (size_t)last + 1);
        p += last + 1;
    }
    *p = '\0';
    return (int)(p - out);
}

/* Any finite v through snprintf, with jansson's changes to printf's text. */
static int sc_printf_text(double v, char out[SC_JSON_REAL_MAX])
{
    int n = snprintf(out, SC_JSON_REAL_MAX, "%.*g", SC_DIGITS, v);
    if (n < 0 || n + 3 > SC_JSON_REAL_MAX)
        return -1;
    char point = localeconv()->decimal_point[0];
    char *at = point && point != '.' ? strchr(out, point) : NULL;
    if (at)
        *at = '.';                              /* JSON's point, whatever the locale */
    if (!strchr(out, '.') && !strchr(out, 'e')) {
        memcpy(out + n, ".0", 3);
        n += 2;
    }
    char *e = strchr(out, 'e');
    if (e) {                                    /* "e+05" -> "e5", "e-05" -> "e-5" */
        char *from = e + 1;
        if (*from == '-')
            from++;
        char *to = from;
        if (*from == '+')
            from++;
        while (*from == '0' && from[1])
            from++;
        memmove(to, from, strlen(from) + 1);
        n = (int)strlen(out);
    }
    return n;
}

int sc_json_real_text(double v, char out[SC_JSON_REAL_MAX])
{
    if (!isfinite(v))
        return -1;
    uint64_t digits;
    int x;
    if (isnormal(v) && sc_digits(fabs(v), &digits, &x))
        return sc_fixed_text(signbit(v) != 0, digits, x, out);
    return sc_printf_text(v, out);
}
