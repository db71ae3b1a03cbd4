/* A scratch folder for a test group's trace files: made before the group, removed after
 * (cmocka group setup and teardown). Included by one test file each. */
#ifndef SC_TEST_SCRATCH_DIR_H
#define SC_TEST_SCRATCH_DIR_H

#include <stdio.h>
#include <stdlib.h>

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sc-trace-test-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
