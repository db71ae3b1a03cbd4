/* The interned-string table (src/preload/strings.c): one id per text, one STRING record per
 * id, whichever threads ask at once, and the NVTX share's cap held exactly. The library's
 * buffer, thread and loss functions are replaced here by stubs that count what the table
 * writes; no per-thread cache (sc_thread_claim gives none), so every lookup probes the table. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "preload/loss.h"
#include "preload/strings.h"
#include "preload/thread.h"
#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"

/* ---- stubs of the library around the table ------------------------------------------ */

__thread sc_thread *sc_thread_current __attribute__((tls_model("initial-exec")));
sc_thread *sc_thread_claim(void) { return NULL; }

enum { MAX_IDS = 1 << 17 };
static atomic_int written[MAX_IDS];     /* STRING records per id */
static char *written_text[MAX_IDS];     /* the text of each id's record */
static _Atomic uint64_t lost_names;
static _Thread_local uint8_t record[SC_TBUF_MAX_RECORD];

void *sc_tbuf_reserve(size_t size) { return size <= sizeof record ? record : NULL; }

/* Called on the workers' threads too, where cmocka cannot fail a test: counted instead. */
static atomic_int bad_records;

void sc_tbuf_commit(size_t size)
{
    sc_record_header h;
    memcpy(&h, record, sizeof h);
    sc_rec_string r;
    memcpy(&r, record + sizeof h, sizeof r);
    if (h.kind != SC_REC_STRING || h.size != size || r.id == 0 || r.id >= MAX_IDS) {
        atomic_fetch_add(&bad_records, 1);
        return;
    }
    if (atomic_fetch_add(&written[r.id], 1) == 0)
        written_text[r.id] = strdup((const char *)record + sizeof h + sizeof r);
}

void sc_loss_add(uint32_t cause, uint64_t n)
{
    if (cause == SC_LOSS_NAMES) atomic_fetch_add(&lost_names, n);
}

/* The table is never freed: the library keeps it for the process's life, and
 * sc_strings_reset forgets it (a forked child). Under LeakSanitizer each test's table is
 * allocated as one kept on purpose, which keeps the names it holds too. */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

static void fresh_table(void)
{
    sc_strings_reset();
    if (__lsan_disable) __lsan_disable();
    sc_strings_start();
    if (__lsan_enable) __lsan_enable();
    for (int i = 0; i < MAX_IDS; i++) {
        atomic_store(&written[i], 0);
        free(written_text[i]);
        written_text[i] = NULL;
    }
    atomic_store(&lost_names, 0);
    atomic_store(&bad_records, 0);
}

/* ---- one thread ---------------------------------------------------------------------- */

/* Twenty thousand names: many share a slot's tag (a byte of the hash) without sharing the
 * hash. Each keeps its id when asked again, and no two names share one. */
static void test_every_name_keeps_its_own_id(void **state)
{
    (void)state;
    fresh_table();
    enum { N = 20000 };
    static uint32_t id[N];
    char text[32];
    for (int i = 0; i < N; i++) {
        snprintf(text, sizeof text, "kernel_%d", i);
        id[i] = sc_string_id(text);
        assert_true(id[i] > 0 && id[i] < MAX_IDS);
        assert_int_equal(atomic_load(&written[id[i]]), 1);
        assert_string_equal(written_text[id[i]], text);
    }
    for (int i = N - 1; i >= 0; i--) {
        snprintf(text, sizeof text, "kernel_%d", i);
        assert_int_equal(sc_string_id(text), id[i]);
        assert_int_equal(atomic_load(&written[id[i]]), 1); /* not written again */
    }
    assert_int_equal(atomic_load(&lost_names), 0);
    assert_int_equal(atomic_load(&bad_records), 0);
}

/* Past the NVTX share, a new name gets the overflow name's id and is counted; a name
 * admitted before keeps its id; kernel names are still admitted. */
static void test_nvtx_names_past_the_share(void **state)
{
    (void)state;
    fresh_table();
    char text[32];
    uint32_t first = sc_string_id_nvtx("step 0");
    for (int i = 1; i < SC_STRINGS_MAX_NVTX; i++) {
        snprintf(text, sizeof text, "step %d", i);
        assert_int_not_equal(sc_string_id_nvtx(text), 0);
    }
    assert_int_equal(atomic_load(&lost_names), 0);
    uint32_t over = sc_string_id_nvtx("step 4096");
    assert_string_equal(written_text[over], "(NVTX names past 4096)");
    assert_int_equal(sc_string_id_nvtx("step 4097"), over);
    assert_int_equal(atomic_load(&lost_names), 2);
    assert_int_equal(sc_string_id_nvtx("step 0"), first);
    uint32_t kernel = sc_string_id("a_kernel");
    assert_true(kernel != 0 && kernel != over);
    assert_string_equal(written_text[kernel], "a_kernel");
    assert_int_equal(atomic_load(&lost_names), 2);
}

/* ---- threads at once ----------------------------------------------------------------- */

enum { THREADS = 8, KERNELS = 3000, STEPS = 6000 };

typedef struct worker {
    int seed;
    uint32_t kernel[KERNELS];
    uint32_t step[STEPS];
} worker;

static pthread_barrier_t start;

/* Every thread asks for the same names, each in its own order, all at the same moment. */
static void *work(void *p)
{
    worker *w = p;
    char text[32];
    pthread_barrier_wait(&start);
    for (int k = 0; k < KERNELS + STEPS; k++) {
        int i = (int)(((unsigned)k * 7919u + (unsigned)w->seed * 104729u) % (KERNELS + STEPS));
        if (i < KERNELS) {
            snprintf(text, sizeof text, "kernel_%d", i);
            w->kernel[i] = sc_string_id(text);
        } else {
            snprintf(text, sizeof text, "step %d", i - KERNELS);
            w->step[i - KERNELS] = sc_string_id_nvtx(text);
        }
    }
    return NULL;
}

static void test_threads_at_once_agree(void **state)
{
    (void)state;
    fresh_table();
    static worker w[THREADS];
    pthread_t tid[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int t = 0; t < THREADS; t++) {
        w[t].seed = t + 1;
        assert_int_equal(pthread_create(&tid[t], NULL, work, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&start);

    /* Kernel names, far below their cap: one id each, the same in every thread. */
    static int owner[MAX_IDS];
    memset(owner, -1, sizeof owner);
    for (int i = 0; i < KERNELS; i++) {
        uint32_t id = w[0].kernel[i];
        assert_true(id > 0 && id < MAX_IDS);
        for (int t = 1; t < THREADS; t++) assert_int_equal(w[t].kernel[i], id);
        assert_int_equal(owner[id], -1);
        owner[id] = i;
        assert_int_equal(atomic_load(&written[id]), 1);
    }
    /* NVTX names: exactly the share admitted, each admitted name under one id of its own (a
     * thread that asked just as the share filled may have had the overflow id for it), and
     * every overflow use counted. */
    uint32_t over = 0;
    uint64_t over_uses = 0;
    int admitted = 0;
    for (int i = 0; i < STEPS; i++) {
        uint32_t own = 0;
        for (int t = 0; t < THREADS; t++) {
            uint32_t id = w[t].step[i];
            assert_true(id > 0 && id < MAX_IDS);
            assert_non_null(written_text[id]);
            if (strcmp(written_text[id], "(NVTX names past 4096)") == 0) {
                if (!over) over = id;
                assert_int_equal(id, over);
                over_uses++;
                continue;
            }
            char text[32];
            snprintf(text, sizeof text, "step %d", i);
            assert_string_equal(written_text[id], text);
            if (!own) own = id;
            assert_int_equal(id, own);
        }
        if (own) {
            admitted++;
            assert_int_equal(owner[own], -1);
            owner[own] = KERNELS + i;
        }
    }
    assert_int_equal(admitted, SC_STRINGS_MAX_NVTX);
    assert_int_equal(atomic_load(&lost_names), over_uses);
    for (uint32_t id = 1; id < MAX_IDS; id++) assert_true(atomic_load(&written[id]) <= 1);
    assert_int_equal(atomic_load(&bad_records), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_name_keeps_its_own_id),
        cmocka_unit_test(test_nvtx_names_past_the_share),
        cmocka_unit_test(test_threads_at_once_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
