/* The loader's read window (file_window.h) and the loader over records larger than it: bytes
 * come back as the file holds them wherever a request falls, a file that shrinks while open
 * ends early (no SIGBUS: nothing is mapped), and a record's claimed size is not trusted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "streamcheck/trace.h"
#include "streamcheck/trace_format.h"
#include "trace/file_window.h"
#include "trace/record.h"

static char path[256];

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/sc-window-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return unlink(path);
}

static uint8_t pattern_at(size_t i)
{
    return i < sizeof SC_TRACE_MAGIC ? (uint8_t)SC_TRACE_MAGIC[i] : (uint8_t)(i * 7 + i / 4096);
}

static void write_bytes(const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

enum { FILE_BYTES = 3500000 };

static void test_window_reads_what_the_file_holds(void **state)
{
    (void)state;
    uint8_t *all = malloc(FILE_BYTES);
    assert_non_null(all);
    for (size_t i = 0; i < FILE_BYTES; i++)
        all[i] = pattern_at(i);
    write_bytes(all, FILE_BYTES);
    free(all);
    sc_file_window w;
    const char *why = NULL;
    assert_int_equal(sc_file_window_open(path, &w, &why), 0);
    assert_int_equal(w.size, FILE_BYTES);
    /* Requests of growing size at growing offsets, some across the window's end, one larger
     * than the window, the last past the end of the file. */
    size_t off = 0, n = 8;
    while (off < FILE_BYTES) {
        const uint8_t *p = NULL;
        ptrdiff_t got = sc_file_window_at(&w, off, n, &p);
        size_t want = n < FILE_BYTES - off ? n : FILE_BYTES - off;
        assert_true(got >= (ptrdiff_t)want);
        for (size_t i = 0; i < want; i++)
            assert_int_equal(p[i], pattern_at(off + i));
        off += n / 2 + 8;
        n = n < 2500000 ? n * 3 : 100;
    }
    const uint8_t *p = NULL;
    assert_int_equal(sc_file_window_at(&w, FILE_BYTES, 8, &p), 0);
    sc_file_window_close(&w);
}

static void test_window_file_shrinks(void **state)
{
    (void)state;
    uint8_t *all = calloc(FILE_BYTES, 1);
    assert_non_null(all);
    memcpy(all, SC_TRACE_MAGIC, sizeof SC_TRACE_MAGIC);
    write_bytes(all, FILE_BYTES);
    free(all);
    sc_file_window w;
    const char *why = NULL;
    assert_int_equal(sc_file_window_open(path, &w, &why), 0);
    assert_int_equal(truncate(path, 1500000), 0);
    const uint8_t *p = NULL;
    /* Past the new end: nothing, and the end moves there. */
    assert_int_equal(sc_file_window_at(&w, 2000000, 64, &p), 0);
    assert_int_equal(w.size, 2000000);
    assert_int_equal(sc_file_window_at(&w, 2000000, 64, &p), 0);
    sc_file_window_close(&w);
    assert_int_equal(sc_file_window_open(path, &w, &why), 0);
    assert_int_equal(truncate(path, 1200000), 0);
    /* Across it (past the first window, read when the file was whole): what is left. */
    assert_int_equal(sc_file_window_at(&w, 1199000, 4096, &p), 1000);
    assert_int_equal(w.size, 1200000);
    sc_file_window_close(&w);
}

static void test_window_refuses(void **state)
{
    (void)state;
    sc_file_window w;
    const char *why = NULL;
    assert_int_equal(sc_file_window_open("/tmp", &w, &why), -1);
    assert_string_equal(why, "not a regular file");
    write_bytes("NOTATRACE", 9);
    assert_int_equal(sc_file_window_open(path, &w, &why), -1);
    assert_string_equal(why, "not a streamcheck trace (wrong magic)");
}

/* A trace whose ENV record holds `text_bytes` of text, then an END record. */
static size_t write_big_record_trace(size_t text_bytes, uint32_t claimed_size)
{
    size_t cap = sizeof(sc_file_header) + text_bytes + 256;
    uint8_t *buf = calloc(cap, 1);
    assert_non_null(buf);
    sc_file_header h = {.version_major = SC_TRACE_VERSION_MAJOR,
                        .version_minor = SC_TRACE_VERSION_MINOR, .header_size = sizeof h};
    memcpy(h.magic, SC_TRACE_MAGIC, sizeof h.magic);
    memcpy(buf, &h, sizeof h);
    size_t off = sizeof h;
    char *text = malloc(text_bytes);
    assert_non_null(text);
    memset(text, 'x', text_bytes - 1);
    memcpy(text, "BIG=", 4);
    text[text_bytes - 1] = '\0';
    size_t env_at = off;
    off += sc_record_encode(buf + off, SC_REC_ENV, NULL, 0, text, text_bytes);
    free(text);
    if (claimed_size) {
        sc_record_header rh;
        memcpy(&rh, buf + env_at, sizeof rh);
        rh.size = claimed_size;
        memcpy(buf + env_at, &rh, sizeof rh);
    }
    sc_rec_end e = {.end_ns = 1};
    off += sc_record_encode(buf + off, SC_REC_END, &e, sizeof e, NULL, 0);
    write_bytes(buf, off);
    free(buf);
    return off;
}

static void test_loader_record_larger_than_window(void **state)
{
    (void)state;
    char err[512];
    sc_trace t;
    enum { TEXT = 2500001 };
    size_t size = write_big_record_trace(TEXT, 0);
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.status, SC_TRACE_COMPLETE);
    assert_int_equal(t.n_env, 1);
    assert_int_equal(strlen(t.env[0]), TEXT - 1);
    assert_true(t.has_end);
    sc_trace_free(&t);
    /* Cut inside the big record: the prefix before it is kept, the cut is named. */
    assert_int_equal(truncate(path, (off_t)(size / 2)), 0);
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.status, SC_TRACE_TRUNCATED);
    assert_int_equal(t.n_env, 0);
    sc_trace_free(&t);
    /* A size far past the end of the file is a cut record, not an allocation of that size. */
    write_big_record_trace(64, 0xfffffff8u);
    assert_int_equal(sc_trace_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.status, SC_TRACE_TRUNCATED);
    assert_non_null(strstr(t.status_detail, "cut short at byte 16 of"));
    sc_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_reads_what_the_file_holds),
        cmocka_unit_test(test_window_file_shrinks),
        cmocka_unit_test(test_window_refuses),
        cmocka_unit_test(test_loader_record_larger_than_window),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
