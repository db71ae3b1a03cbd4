/* The report tool's allocator policy. The analysis allocates arrays of up to hundreds of MB,
 * one stage after another, and frees most of them before the next.
 *
 * The mapping threshold: glibc raises it to the size of each large block freed, so the later
 * arrays come from the heap, where a freed one below a live one stays resident: the peak then
 * holds dead arrays (7% of a 10M-record report's). Fixed, every large array is mapped afresh
 * and given back when freed, so the peak is what the analysis holds at once; the price is the
 * kernel zeroing those pages again.
 *
 * Huge pages: those fresh pages are faulted in 4 KiB at a time, about 400 000 faults for a
 * 10M-record report, a quarter of its CPU time in the kernel. glibc maps its large blocks
 * with transparent huge pages (where the system's setting is `madvise`, the common default)
 * only when its tunable glibc.malloc.hugetlb=1 is set, and tunables are read once, when the
 * program starts: so the tool runs itself again with the tunable added to what the user's
 * GLIBC_TUNABLES holds. The README's "How fast the report tool is" has both measured. */
#include "report/malloc_policy.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define SC_HUGETLB_TUNABLE "glibc.malloc.hugetlb"

/* Runs the program again with glibc.malloc.hugetlb=1 in GLIBC_TUNABLES, unless the user's
 * tunables name it already (theirs is kept, and the program run again names it: no loop).
 * Not in a secure-execution program, whose loader drops GLIBC_TUNABLES (it would run itself
 * again forever). The program's own path is read from /proc/self/exe rather than executed
 * through it, so that a tool that runs the program on a virtual CPU (valgrind) runs the
 * program again, not itself. Whatever fails (no /proc, a path too long, the exec) returns
 * with the environment as it was: the program goes on with 4 KiB pages. */
static void sc_reexec_with_huge_pages(char **argv)
{
    const char *tunables = getenv("GLIBC_TUNABLES");
    if (tunables && strstr(tunables, SC_HUGETLB_TUNABLE))
        return;
    if (getauxval(AT_SECURE) || !argv || !argv[0])
        return;
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0 || (size_t)len >= sizeof self - 1)
        return;
    self[len] = '\0';
    char kept[4096], value[4096 + sizeof SC_HUGETLB_TUNABLE + 4];
    int n = snprintf(kept, sizeof kept, "%s", tunables ? tunables : "");
    if (n < 0 || (size_t)n >= sizeof kept)
        return;
    snprintf(value, sizeof value, "%s%s" SC_HUGETLB_TUNABLE "=1", kept, *kept ? ":" : "");
    if (setenv("GLIBC_TUNABLES", value, 1) != 0)
        return;
    execv(self, argv);
    if (tunables)
        setenv("GLIBC_TUNABLES", kept, 1);
    else
        unsetenv("GLIBC_TUNABLES");
}

void sc_report_malloc_policy(char **argv)
{
    sc_reexec_with_huge_pages(argv);
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}
