#include "report/text_copies.h"

#include <inttypes.h>

#include "report/units.h"

void sc_text_copy_rates(FILE *out, const sc_device_summary *d)
{
    static const char *const names[SC_COPY_DIRS] = {"HtoD", "DtoH", "peer"};
    const char *sep = "  copies  ";
    for (int dir = 0; dir < SC_COPY_DIRS; dir++) {
        const sc_copy_rate *r = &d->copy_rates[dir];
        if (r->count == 0)
            continue;
        char b1[SC_FMT_SIZE];
        /* GB/s as the copy engines' rates are quoted: 10^9 bytes a second */
        fprintf(out, "%s%s %" PRIu64 " (%s, %.1f GB/s)", sep, names[dir], r->count,
                sc_report_fmt_bytes((double)r->bytes, b1), r->bytes_per_s / 1e9);
        sep = "; ";
    }
    if (sep[0] == ';')
        fputc('\n', out);
}
