/* Human units: three significant digits are what a reader compares at a glance; exact
 * values live in the JSON output. */
#include "report/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void fmt_scaled(double v, const char *unit, char buf[SC_FMT_SIZE])
{
    const char *f = v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s";
    snprintf(buf, SC_FMT_SIZE, f, v, unit);
}

const char *sc_report_fmt_ns(uint64_t ns, char buf[SC_FMT_SIZE])
{
    /* Thresholds sit just below the next unit so that 999.7 us prints as "1.00 ms",
     * not "1000 us". */
    if (ns < 1000)
        snprintf(buf, SC_FMT_SIZE, "%llu ns", (unsigned long long)ns);
    else if (ns < 999500)
        fmt_scaled(ns / 1e3, "us", buf);
    else if (ns < 999500000)
        fmt_scaled(ns / 1e6, "ms", buf);
    else
        fmt_scaled(ns / 1e9, "s", buf);
    return buf;
}

const char *sc_report_fmt_bytes(double bytes, char buf[SC_FMT_SIZE])
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
    fmt_scaled(bytes, units[i], buf);
    return buf;
}

const char *sc_report_fmt_evidence(const sc_evidence *e, char buf[SC_FMT_SIZE])
{
    const char *unit = e->unit ? e->unit : "";
    if (strcmp(unit, "us") == 0 && e->value >= 0)
        return sc_report_fmt_ns((uint64_t)llround(e->value * 1e3), buf);
    if (strcmp(unit, "ns") == 0 && e->value >= 0)
        return sc_report_fmt_ns((uint64_t)llround(e->value), buf);
    if (strcmp(unit, "bytes") == 0)
        return sc_report_fmt_bytes(e->value, buf);
    if (strcmp(unit, "ratio") == 0) {
        snprintf(buf, SC_FMT_SIZE, "%.2fx", e->value);
        return buf;
    }
    if (strcmp(unit, "count") == 0 || unit[0] == '\0') {
        snprintf(buf, SC_FMT_SIZE, "%.15g", e->value);
        return buf;
    }
    snprintf(buf, SC_FMT_SIZE, "%.15g %s", e->value, unit);
    return buf;
}

const char *sc_report_fmt_speedup(const sc_overlap *o, char buf[SC_FMT_SIZE])
{
    if (o->speedup > 0.0)
        snprintf(buf, SC_FMT_SIZE, "%.2fx", o->speedup);
    else
        snprintf(buf, SC_FMT_SIZE, "unknown");
    return buf;
}
