/* sc_json_out (src/report/json_out.h) writes what jansson's json_dumps(JSON_INDENT(2)) writes
 * for the same values: documents walked whole, values written directly (numbers at their
 * edges, strings that need escaping or are not UTF-8), and arrays filled while written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/json_out.h"
#include "report/json_str.h"

/* What the writer wrote for `write`, as a string (caller frees). */
static char *written(void (*write)(sc_json_out *, const void *), const void *arg)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    sc_json_out *w = sc_json_out_new(f);
    assert_non_null(w);
    write(w, arg);
    assert_int_equal(sc_json_out_finish(w), 0);
    fclose(f);
    return text;
}

static void assert_same_as_jansson(const json_t *doc, const char *ours)
{
    char *theirs = json_dumps(doc, JSON_INDENT(2) | JSON_ENCODE_ANY);
    assert_non_null(theirs);
    assert_string_equal(ours, theirs);
    free(theirs);
}

static void write_value(sc_json_out *w, const void *doc)
{
    sc_json_out_value(w, doc);
}

static const char *const strings[] = {
    "", "plain", "quote \" and backslash \\", "tab\tnewline\nreturn\r", "\x01\x1f control",
    "slash / stays", "caf\xc3\xa9", "\xe2\x80\xa8 line separator", "\xf0\x9f\x98\x80 emoji",
    "del \x7f",
};
static const double reals[] = {
    0.0, -0.0, 1.0, 0.1, 1.0 / 3.0, -2.5, 1e20, 1e21, 1e-5, 1e-7, 123456789012345678.0,
    1.7976931348623157e308, 4.9e-324, 2.0,
};
static const json_int_t ints[] = {
    0, 1, -1, 9, 10, 99, 100, 101, 999, 1000, 10001, -10, -100, 1000000007, 12345678901,
    INT64_MAX, INT64_MIN, INT64_MIN + 1,
};

/* A document with every kind of value, nested, with empty containers. */
static json_t *sample_doc(void)
{
    json_t *doc = json_object(), *arr = json_array(), *nested = json_object();
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        json_array_append_new(arr, json_string(strings[i]));
    for (size_t i = 0; i < sizeof reals / sizeof *reals; i++)
        json_array_append_new(arr, json_real(reals[i]));
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        json_array_append_new(arr, json_integer(ints[i]));
    json_array_append_new(arr, json_true());
    json_array_append_new(arr, json_false());
    json_array_append_new(arr, json_null());
    json_array_append_new(arr, json_object());
    json_array_append_new(arr, json_array());
    json_object_set_new(nested, "deeper", json_pack("{s:[i,[i,{}]],s:{}}", "x", 1, 2, "y"));
    json_object_set_new(nested, "key \"quoted\"\n", json_string("v"));
    json_object_set_new(doc, "values", arr);
    json_object_set_new(doc, "empty", json_object());
    json_object_set_new(doc, "nested", nested);
    json_object_set_new(doc, "last", json_integer(7));
    return doc;
}

static void test_a_jansson_document_reads_the_same(void **state)
{
    (void)state;
    json_t *doc = sample_doc();
    char *ours = written(write_value, doc);
    assert_same_as_jansson(doc, ours);
    free(ours);
    json_decref(doc);
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {   /* scalars at the top */
        json_t *s = json_string(strings[i]);
        ours = written(write_value, s);
        assert_same_as_jansson(s, ours);
        free(ours);
        json_decref(s);
    }
}

/* The same values written directly, in the order sample_doc builds them. */
static void write_direct(sc_json_out *w, const void *arg)
{
    (void)arg;
    sc_json_out_begin_object(w);
    sc_json_out_key(w, "values");
    sc_json_out_begin_array(w);
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        sc_json_out_string(w, strings[i]);
    for (size_t i = 0; i < sizeof reals / sizeof *reals; i++)
        sc_json_out_real(w, reals[i]);
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        sc_json_out_int(w, ints[i]);
    sc_json_out_bool(w, true);
    sc_json_out_bool(w, false);
    sc_json_out_null(w);
    sc_json_out_begin_object(w);
    sc_json_out_end_object(w);
    sc_json_out_begin_array(w);
    sc_json_out_end_array(w);
    sc_json_out_end_array(w);
    sc_json_out_key(w, "empty");
    sc_json_out_begin_object(w);
    sc_json_out_end_object(w);
    sc_json_out_key(w, "nested");
    sc_json_out_begin_object(w);
    sc_json_out_key(w, "deeper");
    json_t *deeper = json_pack("{s:[i,[i,{}]],s:{}}", "x", 1, 2, "y");
    sc_json_out_value(w, deeper);
    json_decref(deeper);
    sc_json_out_key(w, "key \"quoted\"\n");
    sc_json_out_string(w, "v");
    sc_json_out_end_object(w);
    sc_json_out_key(w, "last");
    sc_json_out_int(w, 7);
    sc_json_out_end_object(w);
}

static void test_values_written_directly_read_the_same(void **state)
{
    (void)state;
    json_t *doc = sample_doc();
    char *ours = written(write_direct, NULL);
    assert_same_as_jansson(doc, ours);
    free(ours);
    json_decref(doc);
}

/* Not UTF-8: jansson refuses the string, the report writes it with '?' for its non-ASCII
 * bytes (sc_json_str), and so does the writer. Not finite: null. */
static void write_odd(sc_json_out *w, const void *arg)
{
    (void)arg;
    sc_json_out_begin_array(w);
    sc_json_out_string(w, "bad \xff\xfe utf-8 \xc3");
    sc_json_out_string(w, NULL);
    sc_json_out_real(w, 1.0 / 0.0);
    sc_json_out_real(w, 0.0 / 0.0);
    sc_json_out_end_array(w);
}

static void test_what_jansson_cannot_hold_reads_as_the_report_wrote_it(void **state)
{
    (void)state;
    json_t *doc = json_array();
    json_array_append_new(doc, sc_json_str("bad \xff\xfe utf-8 \xc3"));
    json_array_append_new(doc, sc_json_str(NULL));
    json_array_append_new(doc, json_null());
    json_array_append_new(doc, json_null());
    char *ours = written(write_odd, NULL);
    assert_same_as_jansson(doc, ours);
    assert_non_null(strstr(ours, "bad ?? utf-8 ?"));
    free(ours);
    json_decref(doc);
}

/* Deferred arrays: the elements written by the fill stand where jansson would have written
 * the same elements appended to the array; other empty arrays stay empty. */
static void fill_three(sc_json_out *w, const void *arg)
{
    const int *base = arg;
    for (int i = 0; i < 3; i++) {
        sc_json_out_begin_object(w);
        sc_json_out_key(w, "n");
        sc_json_out_int(w, *base + i);
        sc_json_out_key(w, "list");
        sc_json_out_begin_array(w);
        sc_json_out_real(w, 0.5 * i);
        sc_json_out_end_array(w);
        sc_json_out_end_object(w);
    }
}

typedef struct deferred_case {
    json_t *doc, *slot_a, *slot_b;
    int base_a, base_b;
} deferred_case;

static void write_deferred(sc_json_out *w, const void *arg)
{
    const deferred_case *c = arg;
    sc_json_out_defer(w, c->slot_a, fill_three, &c->base_a);
    sc_json_out_defer(w, c->slot_b, fill_three, &c->base_b);
    sc_json_out_value(w, c->doc);
}

static void test_deferred_arrays_are_filled_in_place(void **state)
{
    (void)state;
    deferred_case c = {json_object(), json_array(), json_array(), 10, 20};
    json_object_set_new(c.doc, "before", json_array());
    json_object_set_new(c.doc, "a", c.slot_a);
    json_object_set_new(c.doc, "inner", json_pack("{s:o,s:i}", "b", c.slot_b, "after", 1));
    char *ours = written(write_deferred, &c);
    json_t *expected = json_pack("{s:[],s:[{s:i,s:[f]},{s:i,s:[f]},{s:i,s:[f]}],"
                                 "s:{s:[{s:i,s:[f]},{s:i,s:[f]},{s:i,s:[f]}],s:i}}",
                                 "before", "a", "n", 10, "list", 0.0, "n", 11, "list", 0.5,
                                 "n", 12, "list", 1.0, "inner", "b", "n", 20, "list", 0.0,
                                 "n", 21, "list", 0.5, "n", 22, "list", 1.0, "after", 1);
    assert_non_null(expected);
    assert_same_as_jansson(expected, ours);
    free(ours);
    json_decref(expected);
    json_decref(c.doc);
}

/* A document larger than the writer's block, nested deeper than its indent string. */
static void test_large_and_deep_documents_read_the_same(void **state)
{
    (void)state;
    json_t *doc = json_array();
    for (int i = 0; i < 20000; i++)
        json_array_append_new(doc, json_pack("{s:i,s:s}", "i", i, "s", "some text"));
    json_t *deep = json_integer(1);
    for (int d = 0; d < 50; d++)
        deep = json_pack("[o]", deep);
    json_array_append_new(doc, deep);
    char *ours = written(write_value, doc);
    assert_same_as_jansson(doc, ours);
    free(ours);
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_jansson_document_reads_the_same),
        cmocka_unit_test(test_values_written_directly_read_the_same),
        cmocka_unit_test(test_what_jansson_cannot_hold_reads_as_the_report_wrote_it),
        cmocka_unit_test(test_deferred_arrays_are_filled_in_place),
        cmocka_unit_test(test_large_and_deep_documents_read_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
