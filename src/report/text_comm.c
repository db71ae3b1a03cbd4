#include "report/text_comm.h"

#include <inttypes.h>

#include "report/units.h"

void sc_text_comm(FILE *out, const sc_comm *c)
{
    if (c->kernel_count == 0)
        return;
    char b1[SC_FMT_SIZE], b2[SC_FMT_SIZE], b3[SC_FMT_SIZE];
    /* the kernels above are compute only: say so where both exist */
    fprintf(out, "  communication  %" PRIu64 " NCCL kernel%s (not counted as compute above), "
            "%s: %s overlapped compute, %s exposed (%.1f%%)\n", c->kernel_count,
            c->kernel_count == 1 ? "" : "s", sc_report_fmt_ns(c->busy_ns, b1),
            sc_report_fmt_ns(c->overlapped_ns, b2), sc_report_fmt_ns(c->exposed_ns, b3),
            c->busy_ns ? 100.0 * (double)c->exposed_ns / (double)c->busy_ns : 0.0);
}
