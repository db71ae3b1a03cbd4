/* Rule peer-access and the replay of a staged peer copy made direct. Devices 0 and 1
 * (compute capability 9.0: the default direct rate is 300 GB/s); stream 20 on device 0, 30
 * on device 1. Expected numbers are worked out in the comments from src/analyze/peer_copy.h,
 * peer_access.c and replay.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "synthetic.h"

#define MIB (1024ull * 1024ull)

static void staged(syn *s, uint32_t corr, uint64_t d2h, uint64_t h2d)
{
    syn_copy_shape(s, syn_copy(s, 0, 20, d2h, d2h + US(22), 64 * MIB, corr, SC_MEMCPY_ASYNC,
                               SC_MEM_DEVICE, SC_MEM_DEVICE))->copy_kind = 2;
    syn_copy_shape(s, syn_copy(s, 1, 30, h2d, h2d + US(22), 64 * MIB, corr, SC_MEMCPY_ASYNC,
                               SC_MEM_DEVICE, SC_MEM_DEVICE))->copy_kind = 1;
}

/*   cudaMemcpyPeerAsync 0 .. 400 us: halves 1800 .. 1822 (device 0) and 1828 .. 1850 (1)
 *   cudaMemcpyPeerAsync 400 .. 800: halves 3600 .. 3622 and 3628 .. 3650
 * Staged: the first from its call (0) to 1850, the second from the first's end (1850) to
 * 3650: waited 3650 us; each 64 MiB would take 67108864 / 300 = 223696 ns direct.
 * The replay: no lag samples (staged halves say how long the driver staged), so the
 * defaults: issue 5 us, stream 1 us; each half keeps its delay beyond that as recorded:
 * unchanged it is the recording, 3650 us. Peer access on: each call returns after the
 * default async call time, 5 us (0 .. 5, 5 .. 10); the first copy runs 5 .. 228.696, the
 * second after it on its stream, 229.696 .. 453.392, the halves on device 1 take nothing.
 * Saving 3650 - 453.392 = 3196.608 us, 87.6% of the run: error. */
static void test_staged_peer_copies_are_error(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_device(&s, 0, 132)->rec.cc_major = 9;
    syn_device(&s, 1, 132)->rec.cc_major = 9;
    syn_stream(&s, 0, 20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_stream(&s, 1, 30, SC_STREAM_FLAG_NON_BLOCKING, 0);
    for (uint32_t k = 0; k < 2; k++) {
        sc_api_call *c = syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(400 * k), US(400 * k + 400),
                                  1 + k, "cudaMemcpyPeerAsync", NULL, 0);
        syn_call_stream(&s, c, 0xA0);
        syn_call_bytes(&s, c, 64 * MIB);
        staged(&s, 1 + k, US(1800 + 1800 * k), US(1828 + 1800 * k));
    }
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_int_equal(a.replay.replay_span_ns, US(3650));
    const sc_finding *f = syn_finding(&a, "peer-access");
    assert_non_null(f);
    assert_int_equal(f->count, 2);
    assert_int_equal(f->waited_ns, US(3650));
    assert_int_equal(f->cost_ns, 3196608);
    assert_int_equal(f->severity, SC_SEV_ERROR);
    assert_true(syn_evidence(f->totals, f->n_totals, "bytes") == (double)(128 * MIB));
    assert_true(syn_ev(&f->first, "direct_estimate_us") == 223.696);
    assert_true(syn_ev(&f->first, "src_device") == 0.0);
    assert_true(syn_ev(&f->first, "dst_device") == 1.0);
    assert_non_null(strstr(f->fix, "cudaDeviceEnablePeerAccess"));
    assert_non_null(strstr(f->first.text, "from device 0 to device 1"));
    sc_analysis_free(&a);
    syn_free(&s);
}

/* A direct peer copy (CUPTI's PtoP kind) and an ordinary device-to-device copy: nothing. */
static void test_direct_copies_are_silent(void **state)
{
    (void)state;
    syn s;
    syn_init(&s);
    syn_device(&s, 0, 132)->rec.cc_major = 9;
    syn_stream(&s, 0, 20, SC_STREAM_FLAG_NON_BLOCKING, 0);
    syn_call_stream(
        &s, syn_call(&s, SC_CALL_MEMCPY_ASYNC, 0, US(5), 1, "cudaMemcpyPeerAsync", NULL, 0), 0xA0);
    syn_copy_shape(&s, syn_copy(&s, 0, 20, US(10), US(230), 64 * MIB, 1, SC_MEMCPY_ASYNC,
                                SC_MEM_DEVICE, SC_MEM_DEVICE))->copy_kind = 10;
    syn_call_stream(
        &s, syn_call(&s, SC_CALL_MEMCPY_ASYNC, US(5), US(10), 2, "cudaMemcpyAsync", NULL, 0), 0xA0);
    syn_copy_shape(&s, syn_copy(&s, 0, 20, US(230), US(300), 64 * MIB, 2, SC_MEMCPY_ASYNC,
                                SC_MEM_DEVICE, SC_MEM_DEVICE))->copy_kind = 8;
    sc_analysis a;
    syn_analyze(&s, &a);
    assert_null(syn_finding(&a, "peer-access"));
    sc_analysis_free(&a);
    syn_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staged_peer_copies_are_error),
        cmocka_unit_test(test_direct_copies_are_silent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
