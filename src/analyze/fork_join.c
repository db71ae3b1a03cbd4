/* See fork_join.h. */
#include "analyze/fork_join.h"

#include <pthread.h>

#include "analyze/stage_clock.h"

typedef struct sc_side {
    sc_part part;
    bool clocked;               /* the caller's stage clock is on: the side keeps one too */
    int rc;
    sc_stage_rows rows;
} sc_side;

static void *sc_side_run(void *arg)
{
    sc_side *s = arg;
    if (s->clocked)
        sc_stage_clock_begin();
    s->rc = s->part.run(s->part.arg);
    sc_stage_clock_end(s->clocked ? &s->rows : NULL);
    return NULL;
}

int sc_fork_join(bool two_threads, sc_part here, sc_part there)
{
    sc_side side = {.part = there, .clocked = sc_stage_clock_on(), .rc = -1};
    pthread_t thread;
    if (!two_threads || pthread_create(&thread, NULL, sc_side_run, &side) != 0) {
        int rc = here.run(here.arg);
        return rc != 0 ? rc : there.run(there.arg);
    }
    int rc = here.run(here.arg);
    pthread_join(thread, NULL);
    if (side.clocked)
        sc_stage_rows_add(&side.rows);
    return rc != 0 ? rc : side.rc;
}
