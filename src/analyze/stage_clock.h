/* Where a report's time and memory go, stage by stage: a diagnostic for whoever measures the
 * report tool (STREAMCHECK_REPORT_STAGES, streamcheck-report(1); README "How fast the report
 * tool is"). Off unless a thread turns it on: a stage's mark is then the test of a thread-local
 * flag. Each thread keeps its own rows and reads its own CPU time and faults: the report loads
 * and analyzes its traces on -j threads, each trace on one of them, but for the parts of its
 * context built on a second thread (fork_join.h), whose rows that thread hands back. */
#ifndef SC_ANALYZE_STAGE_CLOCK_H
#define SC_ANALYZE_STAGE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_STAGE_MAX 48

typedef struct sc_stage_row {
    const char *name;           /* the mark's: a string literal */
    uint64_t user_ns, sys_ns;   /* the thread's CPU time from the mark before to this one */
    uint64_t minor_faults;      /* the thread's minor page faults in that time */
    uint64_t rss_bytes;         /* the process's resident memory at this mark (0: unknown) */
    uint64_t peak_bytes;        /* the process's peak of resident memory so far (0: unknown):
                                   it rises in the stage that holds the most */
    bool beside;                /* run on a second thread, which handed the row back
                                   (sc_stage_rows_add) */
} sc_stage_row;

typedef struct sc_stage_rows {
    size_t n;
    size_t dropped;             /* marks past SC_STAGE_MAX, not kept */
    sc_stage_row rows[SC_STAGE_MAX];
} sc_stage_rows;

/* Turns this thread's clock on, its rows emptied; the first stage starts now. */
void sc_stage_clock_begin(void);

/* Ends the stage `name` (a string literal) when this thread's clock is on; nothing otherwise. */
void sc_stage_mark(const char *name);

/* Whether this thread's clock is on. */
bool sc_stage_clock_on(void);

/* Adds the rows another thread's clock kept (a part run there: fork_join.h) after this
 * thread's, as if marked here; past SC_STAGE_MAX they count as dropped. Nothing when this
 * thread's clock is off. */
void sc_stage_rows_add(const sc_stage_rows *rows);

/* Turns this thread's clock off and gives its rows (none if it was off; out NULL: drops
 * them). */
void sc_stage_clock_end(sc_stage_rows *out);

#endif
