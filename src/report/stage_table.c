#include "report/stage_table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool sc_stage_table_wanted(void)
{
    const char *v = getenv("STREAMCHECK_REPORT_STAGES");
    return v && *v && strcmp(v, "0") != 0;
}

static double sc_seconds(uint64_t ns)
{
    return (double)ns / 1e9;
}

static double sc_mib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

void sc_stage_table_print(FILE *out, const char *path, const sc_stage_rows *rows)
{
    char *text = NULL;
    size_t len = 0;
    FILE *b = open_memstream(&text, &len);
    if (!b)
        return;
    fprintf(b, "streamcheck-report: stages of %s (CPU time and faults: the thread that ran "
            "the stage, 1 the trace's, 2 a second one beside it; resident and peak: the "
            "process's at the stage's end)\n", path);
    fprintf(b, "  %-24s %9s %9s %10s %13s %9s %7s\n", "stage", "user s", "system s", "faults",
            "resident MiB", "peak MiB", "thread");
    uint64_t user = 0, sys = 0, faults = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const sc_stage_row *r = &rows->rows[i];
        user += r->user_ns, sys += r->sys_ns, faults += r->minor_faults;
        fprintf(b, "  %-24s %9.3f %9.3f %10llu %13.1f %9.1f %7d\n", r->name,
                sc_seconds(r->user_ns), sc_seconds(r->sys_ns),
                (unsigned long long)r->minor_faults, sc_mib(r->rss_bytes), sc_mib(r->peak_bytes),
                r->beside ? 2 : 1);
    }
    fprintf(b, "  %-24s %9.3f %9.3f %10llu\n", "total", sc_seconds(user), sc_seconds(sys),
            (unsigned long long)faults);
    if (rows->dropped)
        fprintf(b, "  (%zu later stages not kept)\n", rows->dropped);
    if (fclose(b) == 0 && text)
        fwrite(text, 1, len, out);   /* one write: tables of several threads do not mix */
    free(text);
}
