/* Human units for the report: the analyzer's formatters (streamcheck/units.h), which the
 * findings' own texts use too, and the evidence values in their units. */
#include "report/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *sc_report_fmt_ns(uint64_t ns, char buf[SC_FMT_SIZE])
{
    return sc_fmt_ns(ns, buf);
}

const char *sc_report_fmt_bytes(double bytes, char buf[SC_FMT_SIZE])
{
    return sc_fmt_bytes(bytes, buf);
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

const char *sc_report_evidence_label(const sc_evidence *e, char *buf, size_t n)
{
    const char *key = e->key ? e->key : "?";
    const char *unit = e->unit ? e->unit : "";
    size_t len = strlen(key);
    /* "wait_us" beside "2.96 ms" would name a unit the value is not in: the formatter
     * chose the unit, so the key loses its suffix ("wait 2.96 ms") */
    if ((strcmp(unit, "us") == 0 || strcmp(unit, "ns") == 0) && e->value >= 0 && len > 3 &&
        key[len - 3] == '_' && strcmp(key + len - 2, unit) == 0)
        len -= 3;
    snprintf(buf, n, "%.*s", (int)len, key);
    return buf;
}
