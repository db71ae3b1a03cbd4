/* The report tool's run, apart from the process's entry (tool_main.c), so that the fuzz target
 * (tests/fuzz/fuzz_report.c) calls the same run without the allocator policy, which may run
 * the program again. */
#ifndef SC_REPORT_REPORT_MAIN_H
#define SC_REPORT_REPORT_MAIN_H

/* Everything main does (main.c's header comment has the exit statuses). */
int sc_report_main(int argc, char **argv);

#endif
