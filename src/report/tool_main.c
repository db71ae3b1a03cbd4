/* streamcheck-report's entry: the allocator's policy first, before anything is allocated or
 * opened (it may run the program again), then the run (main.c). */
#include "report/malloc_policy.h"
#include "report/report_main.h"

int main(int argc, char **argv)
{
    sc_report_malloc_policy(argv);
    return sc_report_main(argc, argv);
}
