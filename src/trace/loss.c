/* Names of the loss causes (trace_format.h, enum sc_loss_cause), for --dump and the report:
 * one table, so every view words a cause the same way. */
#include <stddef.h>

#include "streamcheck/trace.h"

static const struct {
    const char *name;   /* stable: JSON users match on it */
    const char *text;
} sc_loss_causes[] = {
    [SC_LOSS_TOO_LARGE] = {"too-large", "records larger than a thread buffer takes"},
    [SC_LOSS_AFTER_CLOSE] = {"after-close", "records that arrived after the trace was closed"},
    [SC_LOSS_NO_MEMORY] = {"no-memory", "records lost for want of memory"},
    [SC_LOSS_NVTX_DEPTH] = {"nvtx-depth", "NVTX push/pop ranges nested deeper than 64"},
    [SC_LOSS_NVTX_OPEN] = {"nvtx-open", "NVTX start/end ranges past 4096 open at once"},
    [SC_LOSS_NVTX_UNCLOSED] = {"nvtx-unclosed",
                               "NVTX ranges still open when their thread or the process ended"},
    [SC_LOSS_NVTX_UNMATCHED] = {"nvtx-unmatched",
                                "NVTX pops and ends of ranges opened before capture started"},
    [SC_LOSS_NVTX_HANDLES] = {"nvtx-handles",
                              "NVTX registered strings and domains past 1024 (their ranges are "
                              "named \"?\")"},
    [SC_LOSS_NAMES] = {"names", "uses of names past the string table's cap (recorded under an "
                                "overflow name)"},
    [SC_LOSS_CRASH_UNWRITTEN] = {"crash-unwritten",
                                 "records the fatal-signal flush could not write"},
    [SC_LOSS_CONTEXTS] = {"contexts", "contexts past 64, not synchronized at exit (their last "
                                      "work may lack device records)"},
};

_Static_assert(sizeof sc_loss_causes / sizeof *sc_loss_causes == SC_LOSS_CAUSES + 1,
               "a loss cause without a name");

const char *sc_loss_cause_name(uint32_t cause)
{
    return cause > 0 && cause <= SC_LOSS_CAUSES ? sc_loss_causes[cause].name : "unknown";
}

const char *sc_loss_cause_text(uint32_t cause)
{
    return cause > 0 && cause <= SC_LOSS_CAUSES ? sc_loss_causes[cause].text
                                                : "records lost (a cause this version does not know)";
}
