/* How the report tool's allocator is set up before anything is allocated (malloc_policy.c). */
#ifndef SC_REPORT_MALLOC_POLICY_H
#define SC_REPORT_MALLOC_POLICY_H

/* Fixes glibc's mapping threshold and asks for transparent huge pages on the large arrays,
 * which may run the program again (its path read from /proc/self/exe) with GLIBC_TUNABLES
 * added: call it first in main, with main's argv, before any output or file is opened.
 * Returns when the policy is set or cannot be (then the defaults stay; nothing else
 * differs). */
void sc_report_malloc_policy(char **argv);

#endif
