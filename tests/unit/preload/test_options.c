/* The library's settings (src/preload/options.c): STREAMCHECK_OPTIONS, the STREAMCHECK_*
 * variables over it, and the warnings for what is not understood; and the output folder's
 * pattern (src/preload/out_path.c). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "preload/options.h"
#include "preload/out_path.h"

static const char *const variables[] = {
    "STREAMCHECK_OPTIONS",     "STREAMCHECK_OUT",     "STREAMCHECK_SUMMARY",
    "STREAMCHECK_DISABLE",     "STREAMCHECK_CUPTI",   "STREAMCHECK_STACK_DEPTH",
    "STREAMCHECK_UNWINDER",    "STREAMCHECK_UNIFIED_MEMORY", "STREAMCHECK_CAPTURE",
    "STREAMCHECK_CAPTURE_RANGE", "STREAMCHECK_CAPTURE_SKIP",
};

static char warnings[16][1024];
static int n_warnings;

static void collect(const char *line)
{
    assert_true(n_warnings < 16);
    snprintf(warnings[n_warnings++], sizeof warnings[0], "%s", line);
}

static int clean_environment(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof variables / sizeof *variables; i++) unsetenv(variables[i]);
    n_warnings = 0;
    return 0;
}

static sc_options load(void)
{
    sc_options o;
    memset(&o, 0xA5, sizeof o);    /* every field must be set, whatever was there */
    sc_options_load(&o, collect);
    return o;
}

static void test_defaults(void **state)
{
    (void)state;
    sc_options o = load();
    assert_false(o.disabled);
    assert_true(o.summary);
    assert_int_equal(o.stack_depth, 24);
    assert_string_equal(o.out_dir, "streamcheck-out");
    assert_string_equal(o.cupti_path, "");
    assert_string_equal(o.unwinder, "");
    assert_false(o.unified_memory);
    assert_int_equal(n_warnings, 0);
}

static void test_every_key_in_the_options_variable(void **state)
{
    (void)state;
    setenv("STREAMCHECK_OPTIONS",
           "out=/runs/x:stack_depth=8:summary=0:disable=yes:cupti=/opt/libcupti.so.13:"
           "unwinder=libunwind:unified_memory=ON",
           1);
    sc_options o = load();
    assert_string_equal(o.out_dir, "/runs/x");
    assert_int_equal(o.stack_depth, 8);
    assert_false(o.summary);
    assert_true(o.disabled);
    assert_string_equal(o.cupti_path, "/opt/libcupti.so.13");
    assert_string_equal(o.unwinder, "libunwind");
    assert_true(o.unified_memory);
    assert_int_equal(n_warnings, 0);
}

static void test_commas_quotes_and_empty_pairs(void **state)
{
    (void)state;
    setenv("STREAMCHECK_OPTIONS", ",out='/a:b,c',,stack_depth=3:cupti=\"/x,y\":", 1);
    sc_options o = load();
    assert_string_equal(o.out_dir, "/a:b,c");
    assert_int_equal(o.stack_depth, 3);
    assert_string_equal(o.cupti_path, "/x,y");
    assert_int_equal(n_warnings, 0);
}

static void test_the_own_variable_wins(void **state)
{
    (void)state;
    setenv("STREAMCHECK_OPTIONS", "out=/from-options:summary=1:stack_depth=5", 1);
    setenv("STREAMCHECK_OUT", "/from-variable", 1);
    setenv("STREAMCHECK_SUMMARY", "0", 1);
    setenv("STREAMCHECK_STACK_DEPTH", "", 1);      /* empty: as if unset */
    sc_options o = load();
    assert_string_equal(o.out_dir, "/from-variable");
    assert_false(o.summary);
    assert_int_equal(o.stack_depth, 5);
    assert_int_equal(n_warnings, 0);
}

static void test_what_is_not_understood_is_said_once_and_ignored(void **state)
{
    (void)state;
    setenv("STREAMCHECK_OPTIONS",
           "bogus=1:stack_depth=abc:summary=maybe:unwinder=frames:justaword:out=/x/%z", 1);
    sc_options o = load();
    assert_int_equal(o.stack_depth, 24);
    assert_true(o.summary);
    assert_string_equal(o.unwinder, "");
    assert_string_equal(o.out_dir, "streamcheck-out");
    assert_int_equal(n_warnings, 6);
    assert_non_null(strstr(warnings[0], "unknown key 'bogus'"));
    assert_non_null(strstr(warnings[1], "stack_depth=abc: wants a number from 0 to 64 (ignored)"));
    assert_non_null(strstr(warnings[2], "summary=maybe: wants 1 or 0"));
    assert_non_null(strstr(warnings[3], "unwinder=frames: wants libgcc or libunwind"));
    assert_non_null(strstr(warnings[4], "'justaword' is not key=value"));
    assert_non_null(strstr(warnings[5], "out=/x/%z: unknown %-sequence '%z'"));
    for (int i = 0; i < n_warnings; i++) {
        assert_non_null(strstr(warnings[i], "STREAMCHECK_OPTIONS: "));
        assert_null(strchr(warnings[i], '\n'));
    }
}

static void test_a_bad_own_variable_leaves_the_options_value(void **state)
{
    (void)state;
    setenv("STREAMCHECK_OPTIONS", "stack_depth=5", 1);
    setenv("STREAMCHECK_STACK_DEPTH", "-3", 1);
    setenv("STREAMCHECK_DISABLE", "perhaps", 1);
    sc_options o = load();
    assert_int_equal(o.stack_depth, 5);
    assert_false(o.disabled);
    assert_int_equal(n_warnings, 2);
    assert_non_null(strstr(warnings[0], "STREAMCHECK_DISABLE=perhaps: wants 1 or 0"));
    assert_non_null(strstr(warnings[1], "STREAMCHECK_STACK_DEPTH=-3: wants a number"));
}

static void test_a_deep_stack_is_cut_to_the_maximum(void **state)
{
    (void)state;
    setenv("STREAMCHECK_OPTIONS", "stack_depth=100", 1);
    sc_options o = load();
    assert_int_equal(o.stack_depth, SC_MAX_STACK_DEPTH);
    assert_int_equal(n_warnings, 1);
    assert_non_null(strstr(warnings[0], "at most 64; 64 used"));
    assert_null(strstr(warnings[0], "ignored"));
}

static void test_an_unclosed_quote_ends_the_options(void **state)
{
    (void)state;
    setenv("STREAMCHECK_OPTIONS", "stack_depth=2:out='/a:summary=0", 1);
    sc_options o = load();
    assert_int_equal(o.stack_depth, 2);
    assert_string_equal(o.out_dir, "streamcheck-out");
    assert_true(o.summary);
    assert_int_equal(n_warnings, 1);
    assert_non_null(strstr(warnings[0], "out: the quote is not closed"));
}

static void test_too_long_a_value_is_refused(void **state)
{
    (void)state;
    char *value = malloc(3000);
    assert_non_null(value);
    memset(value, 'a', 2999);
    value[0] = '/';
    value[2999] = '\0';
    setenv("STREAMCHECK_OUT", value, 1);
    free(value);
    sc_options o = load();
    assert_string_equal(o.out_dir, "streamcheck-out");
    assert_int_equal(n_warnings, 1);
    assert_non_null(strstr(warnings[0], "longer than 2047 characters (ignored)"));
}

/* ---- the output folder's pattern ---------------------------------------------------- */

static void expect_expansion(const char *pattern, pid_t pid, const char *want)
{
    char buf[2048], msg[512];
    assert_int_equal(sc_out_path_expand(pattern, pid, buf, sizeof buf, msg, sizeof msg), 0);
    assert_string_equal(buf, want);
}

static void test_pid_host_variable_and_percent(void **state)
{
    (void)state;
    char host[256] = "";
    assert_int_equal(gethostname(host, sizeof host), 0);
    host[sizeof host - 1] = '\0';
    setenv("SC_TEST_RANK", "3", 1);
    char want[2048];
    snprintf(want, sizeof want, "/t/run-42/%s/rank3-100%%", host);
    char buf[2048], msg[512];
    assert_int_equal(sc_out_path_expand("/t/run-%p/%h/rank%q{SC_TEST_RANK}-100%%", 42, buf,
                                        sizeof buf, msg, sizeof msg),
                     0);
    assert_string_equal(msg, "");
    /* A host name of letters, digits, '-' and '.' comes through as it is. */
    if (strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") ==
        strlen(host))
        assert_string_equal(buf, want);
    assert_int_equal(strncmp(buf, "/t/run-42/", 10), 0);
    assert_string_equal(buf + strlen(buf) - 11, "/rank3-100%");
    expect_expansion("plain/folder", 7, "plain/folder");
    unsetenv("SC_TEST_RANK");
}

static void test_a_value_stays_in_its_folder(void **state)
{
    (void)state;
    setenv("SC_TEST_RANK", "../../etc", 1);
    expect_expansion("/t/r%q{SC_TEST_RANK}", 1, "/t/r_._.._etc");
    setenv("SC_TEST_RANK", "..", 1);
    expect_expansion("/t/%q{SC_TEST_RANK}", 1, "/t/_.");
    setenv("SC_TEST_RANK", ".hidden", 1);
    expect_expansion("/t/%q{SC_TEST_RANK}", 1, "/t/_hidden");
    setenv("SC_TEST_RANK", "a b\tc$1.5", 1);
    expect_expansion("/t/%q{SC_TEST_RANK}", 1, "/t/a_b_c_1.5");
    unsetenv("SC_TEST_RANK");
}

static void test_an_unset_variable_expands_to_nothing_and_says_so(void **state)
{
    (void)state;
    unsetenv("SC_TEST_UNSET");
    char buf[256], msg[512];
    assert_int_equal(sc_out_path_expand("/t/rank%q{SC_TEST_UNSET}", 1, buf, sizeof buf, msg,
                                        sizeof msg),
                     0);
    assert_string_equal(buf, "/t/rank");
    assert_non_null(strstr(msg, "SC_TEST_UNSET is unset or empty"));
    setenv("SC_TEST_UNSET", "", 1);
    assert_int_equal(
        sc_out_path_expand("%q{SC_TEST_UNSET}", 1, buf, sizeof buf, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "empty folder name"));
    unsetenv("SC_TEST_UNSET");
}

static void test_malformed_patterns(void **state)
{
    (void)state;
    static const char *const bad[] = {"/t/%", "/t/%x", "/t/%q", "/t/%q{", "/t/%q{}",
                                      "/t/%q{RANK"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char buf[256], msg[512] = "";
        assert_int_equal(sc_out_path_check(bad[i], msg, sizeof msg), -1);
        assert_true(msg[0] != '\0');
        assert_int_equal(sc_out_path_expand(bad[i], 1, buf, sizeof buf, msg, sizeof msg), -1);
    }
    char msg[512];
    assert_int_equal(sc_out_path_check("/t/%p/%h/%q{X}/%%", msg, sizeof msg), 0);
}

static void test_an_expansion_too_long_is_refused(void **state)
{
    (void)state;
    char buf[16], msg[512];
    assert_int_equal(sc_out_path_expand("/t/%p", 123456, buf, 8, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "longer than 7 characters"));
    assert_int_equal(sc_out_path_expand("/t/%p", 123456, buf, sizeof buf, msg, sizeof msg), 0);
    assert_string_equal(buf, "/t/123456");
}

/* The trace file's rank tag: the first of the launchers' variables that is set, with the
 * same character rules as %q, and nothing without one. */
static void test_rank_tag(void **state)
{
    (void)state;
    static const char *const vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < 4; i++) unsetenv(vars[i]);
    char tag[64];
    sc_out_rank_tag(tag, sizeof tag);
    assert_string_equal(tag, "");
    setenv("SLURM_PROCID", "7", 1);
    sc_out_rank_tag(tag, sizeof tag);
    assert_string_equal(tag, "-rank7");
    setenv("OMPI_COMM_WORLD_RANK", "12", 1);
    sc_out_rank_tag(tag, sizeof tag);
    assert_string_equal(tag, "-rank12");            /* Open MPI's before SLURM's */
    setenv("RANK", "../3", 1);
    sc_out_rank_tag(tag, sizeof tag);
    assert_string_equal(tag, "-rank_._3");          /* torchrun's first; no folder climbing */
    setenv("RANK", "", 1);                          /* empty: as if unset */
    sc_out_rank_tag(tag, sizeof tag);
    assert_string_equal(tag, "-rank12");
    setenv("RANK", "1234567890", 1);
    sc_out_rank_tag(tag, 8);                        /* does not fit: no tag, not half of one */
    assert_string_equal(tag, "");
    for (size_t i = 0; i < 4; i++) unsetenv(vars[i]);
}

static void test_missing_parent_folders_are_made(void **state)
{
    (void)state;
    char root[] = "/tmp/sc-out-path-XXXXXX", dir[256], path[256];
    assert_non_null(mkdtemp(root));
    snprintf(dir, sizeof dir, "%s/a//b/c/run", root);
    sc_out_path_make_parents(dir);
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b/c", root);
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_not_equal(stat(dir, &st), 0);   /* the folder itself is the writer's */
    static const char *const made[] = {"/a/b/c", "/a/b", "/a", ""};
    for (size_t i = 0; i < sizeof made / sizeof *made; i++) {
        snprintf(path, sizeof path, "%s%s", root, made[i]);
        assert_int_equal(rmdir(path), 0);
    }
}

/* The capture scope's three settings (scope.h), by key and by their own variables. */
static void test_capture_scope(void **state)
{
    (void)state;
    sc_options o = load();
    assert_string_equal(o.capture, "all");
    assert_string_equal(o.capture_range, "");
    assert_int_equal(o.capture_skip, 0);
    setenv("STREAMCHECK_OPTIONS", "capture_range='train step':capture_skip=3", 1);
    o = load();
    assert_string_equal(o.capture_range, "train step");
    assert_int_equal(o.capture_skip, 3);
    assert_int_equal(n_warnings, 0);
    setenv("STREAMCHECK_CAPTURE_SKIP", "5", 1);     /* its own variable wins */
    setenv("STREAMCHECK_OPTIONS", "capture=Profiler", 1);
    o = load();
    assert_string_equal(o.capture, "profiler");
    /* a skip without a range skips nothing: said, and cleared */
    assert_int_equal(o.capture_skip, 0);
    assert_int_equal(n_warnings, 1);
    assert_non_null(strstr(warnings[0], "capture_skip=5: skips occurrences of capture_range"));
}

static void test_capture_scope_bad_values(void **state)
{
    (void)state;
    setenv("STREAMCHECK_OPTIONS", "capture=nvtx:capture_skip=-1:capture=profiler:"
           "capture_range=step", 1);
    sc_options o = load();
    assert_int_equal(n_warnings, 3);
    assert_non_null(strstr(warnings[0], "capture=nvtx: wants all or profiler (ignored)"));
    assert_non_null(strstr(warnings[1], "capture_skip=-1: wants a number from 0 to 999999999"));
    /* one scope at a time: the profiler's */
    assert_non_null(strstr(warnings[2], "capture=profiler and capture_range=step"));
    assert_string_equal(o.capture, "profiler");
    assert_string_equal(o.capture_range, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults, clean_environment),
        cmocka_unit_test_setup(test_every_key_in_the_options_variable, clean_environment),
        cmocka_unit_test_setup(test_commas_quotes_and_empty_pairs, clean_environment),
        cmocka_unit_test_setup(test_the_own_variable_wins, clean_environment),
        cmocka_unit_test_setup(test_what_is_not_understood_is_said_once_and_ignored,
                               clean_environment),
        cmocka_unit_test_setup(test_a_bad_own_variable_leaves_the_options_value,
                               clean_environment),
        cmocka_unit_test_setup(test_a_deep_stack_is_cut_to_the_maximum, clean_environment),
        cmocka_unit_test_setup(test_an_unclosed_quote_ends_the_options, clean_environment),
        cmocka_unit_test_setup(test_too_long_a_value_is_refused, clean_environment),
        cmocka_unit_test_setup(test_capture_scope, clean_environment),
        cmocka_unit_test_setup(test_capture_scope_bad_values, clean_environment),
        cmocka_unit_test(test_pid_host_variable_and_percent),
        cmocka_unit_test(test_a_value_stays_in_its_folder),
        cmocka_unit_test(test_an_unset_variable_expands_to_nothing_and_says_so),
        cmocka_unit_test(test_malformed_patterns),
        cmocka_unit_test(test_an_expansion_too_long_is_refused),
        cmocka_unit_test(test_rank_tag),
        cmocka_unit_test(test_missing_parent_folders_are_made),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
