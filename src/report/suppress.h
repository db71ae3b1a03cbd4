/* Suppressions: findings the user has reviewed and chosen not to see again.
 *
 * A suppression names a rule id of the catalogue and, optionally, one pattern (a glob, as
 * fnmatch(3)) that every occurrence of the finding must match:
 *
 *     legacy-stream                       every legacy-stream finding
 *     legacy-stream:kernel=*sweep*        ... whose launches are all of kernels named so
 *     host-sync:site=*third_party*        ... whose call sites are all there
 *     implicit-sync:range=warmup*         ... whose occurrences all lie in such NVTX ranges
 *
 * A finding is suppressed whole or not at all: the analyzer keeps a finding's call sites
 * (deduplicated by stack), not each occurrence, so a pattern suppresses a finding only when
 * the sites it knows account for every occurrence and all of them match. */
#ifndef SC_REPORT_SUPPRESS_H
#define SC_REPORT_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "report/frame.h"
#include "streamcheck/analysis.h"

typedef enum sc_suppress_scope {
    SC_SUPPRESS_RULE,       /* the rule alone */
    SC_SUPPRESS_KERNEL,     /* kernel=PAT: the kernels its sites launched */
    SC_SUPPRESS_SITE,       /* site=PAT: its call sites, as the report shows them */
    SC_SUPPRESS_RANGE,      /* range=PAT: the NVTX ranges its occurrences lie in */
} sc_suppress_scope;

typedef struct sc_suppression {
    char *rule;
    sc_suppress_scope scope;
    char *pattern;          /* NULL for SC_SUPPRESS_RULE */
    char *origin;           /* "--suppress" or "FILE:LINE", for messages */
} sc_suppression;

typedef struct sc_suppress_set {
    sc_suppression *items;
    size_t n, cap;
} sc_suppress_set;

/* Adds one suppression in the syntax above. Returns 0, or -1 with a one-line message in err
 * (an unknown rule id, an unknown scope, an empty pattern). `origin` names where it came
 * from in later messages. */
int sc_suppress_add(sc_suppress_set *set, const char *text, const char *origin, char *err,
                    size_t err_size);

/* Adds every line of a file: one suppression per line, blank lines and '#' comments
 * skipped. Returns 0, or -1 with a message naming FILE:LINE (nothing of the file is kept). */
int sc_suppress_add_file(sc_suppress_set *set, const char *path, char *err, size_t err_size);

void sc_suppress_free(sc_suppress_set *set);

/* How site and kernel patterns see a finding: the resolver names call sites as the text
 * report does. */
typedef struct sc_suppress_env {
    sc_frame_resolver resolve;  /* NULL: sites are module+0xoffset */
    void *resolve_ctx;
} sc_suppress_env;

/* True when some suppression of the set covers finding `f` of analysis `a`. */
bool sc_suppress_matches(const sc_suppress_set *set, const sc_analysis *a, size_t f,
                         const sc_suppress_env *env);

#endif
