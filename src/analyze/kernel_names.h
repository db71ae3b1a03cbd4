/* Kernel names as findings write them: each distinct name passed once through the report's
 * hook (sc_analyze_options.kernel_name, a demangler), remembered for the rest of the
 * analysis, so a rule that names a kernel per instance pays one lookup, not a demangling. */
#ifndef SC_ANALYZE_KERNEL_NAMES_H
#define SC_ANALYZE_KERNEL_NAMES_H

#include "analyze/internal.h"

typedef struct sc_kernel_names sc_kernel_names;

/* NULL when out of memory (sc_ctx_kernel_name then writes names as recorded). */
sc_kernel_names *sc_kernel_names_new(sc_kernel_name_fn fn);
void sc_kernel_names_free(sc_kernel_names *names);

/* Kernel k's name for a title or text: the hook's, or without one (or when it declines) the
 * recorded name; "?" for a kernel without a name. Never NULL, never cut; valid until the
 * context is freed. */
const char *sc_ctx_kernel_name(const sc_ctx *ctx, const sc_kernel *k);

#endif
