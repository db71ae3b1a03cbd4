/* The one time and size formatter of findings and reports: see streamcheck/units.h. */
#include "streamcheck/units.h"

#include <stddef.h>
#include <stdio.h>

static void sc_fmt_scaled(double v, const char *unit, char buf[SC_FMT_SIZE])
{
    const char *f = v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s";
    snprintf(buf, SC_FMT_SIZE, f, v, unit);
}

const char *sc_fmt_ns(uint64_t ns, char buf[SC_FMT_SIZE])
{
    /* Thresholds sit just below the next unit so that 999.7 us prints as "1.00 ms",
     * not "1000 us". */
    if (ns < 1000)
        snprintf(buf, SC_FMT_SIZE, "%llu ns", (unsigned long long)ns);
    else if (ns < 999500)
        sc_fmt_scaled(ns / 1e3, "us", buf);
    else if (ns < 999500000)
        sc_fmt_scaled(ns / 1e6, "ms", buf);
    else
        sc_fmt_scaled(ns / 1e9, "s", buf);
    return buf;
}

const char *sc_fmt_bytes(double bytes, char buf[SC_FMT_SIZE])
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (!(bytes >= 1024)) {
        snprintf(buf, SC_FMT_SIZE, "%.0f B", bytes);
        return buf;
    }
    size_t i = 0;
    bytes /= 1024;
    while (bytes >= 1023.5 && i + 1 < sizeof units / sizeof units[0]) {
        bytes /= 1024;
        i++;
    }
    sc_fmt_scaled(bytes, units[i], buf);
    return buf;
}
