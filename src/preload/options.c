#include "preload/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sc_options sc_opts;

static bool sc_env_flag(const char *name, bool fallback)
{
    const char *v = getenv(name);
    if (!v || !*v) return fallback;
    return !(strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "off") == 0 ||
             strcmp(v, "false") == 0);
}

void sc_options_read(void)
{
    sc_opts.disabled = sc_env_flag("STREAMCHECK_DISABLE", false);
    sc_opts.summary = sc_env_flag("STREAMCHECK_SUMMARY", true);
    sc_opts.stack_depth = 24;
    const char *depth = getenv("STREAMCHECK_STACK_DEPTH");
    if (depth && *depth) {
        long d = strtol(depth, NULL, 10);
        sc_opts.stack_depth = d < 0 ? 0 : d > SC_MAX_STACK_DEPTH ? SC_MAX_STACK_DEPTH : (int)d;
    }
    const char *out = getenv("STREAMCHECK_OUT");
    snprintf(sc_opts.out_dir, sizeof sc_opts.out_dir, "%s", out && *out ? out : "streamcheck-out");
    const char *cupti = getenv("STREAMCHECK_CUPTI");
    snprintf(sc_opts.cupti_path, sizeof sc_opts.cupti_path, "%s", cupti ? cupti : "");
    const char *unwinder = getenv("STREAMCHECK_UNWINDER");
    snprintf(sc_opts.unwinder, sizeof sc_opts.unwinder, "%s", unwinder ? unwinder : "");
    sc_opts.unified_memory = sc_env_flag("STREAMCHECK_UNIFIED_MEMORY", false);
}
