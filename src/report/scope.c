#include "report/scope.h"

#include <stdio.h>

#include "report/units.h"

const char *sc_report_scope_mode_name(uint32_t mode)
{
    switch (mode) {
    case SC_SCOPE_NVTX_RANGE: return "nvtx-range";
    case SC_SCOPE_PROFILER: return "profiler";
    default: return "unknown";
    }
}

const char *sc_report_scope_text(const sc_trace *t, char *buf, size_t size)
{
    if (!t->has_scope) return NULL;
    char what[400], skip[64] = "", open_at_end[64] = "", ns[SC_FMT_SIZE];
    if (t->scope.mode == SC_SCOPE_NVTX_RANGE)
        snprintf(what, sizeof what, "inside NVTX range '%.300s'",
                 t->scope_name ? t->scope_name : "?");
    else if (t->scope.mode == SC_SCOPE_PROFILER)
        snprintf(what, sizeof what, "between cudaProfilerStart and cudaProfilerStop");
    else
        snprintf(what, sizeof what, "inside a capture scope this version does not know "
                 "(mode %u)", t->scope.mode);
    if (t->scope.skip) snprintf(skip, sizeof skip, ", after skipping %u", t->scope.skip);
    size_t n = t->n_scope_windows;
    if (n && (t->scope_windows[n - 1].flags & SC_SCOPE_OPEN_AT_END))
        snprintf(open_at_end, sizeof open_at_end, ", the last open until the end");
    snprintf(buf, size, "recorded only %s%s: %zu window%s, %s%s%s", what, skip, n,
             n == 1 ? "" : "s", sc_report_fmt_ns(sc_trace_scope_ns(t), ns), open_at_end,
             n ? "" : " (nothing was recorded: the scope never opened)");
    return buf;
}
