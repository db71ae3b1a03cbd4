// One process, two devices: a cross-device wait that serializes them, and its clean twin.
//   cross-wait    device 0 spins SPIN_MS on its stream and records an event; device 1's
//                 stream waits for that event (cudaStreamWaitEvent across devices), then
//                 spins SPIN_MS: the devices run one after the other, ~2 x SPIN_MS
//   independent   the same work, no wait: the devices run at once, ~SPIN_MS
// Device 1's spin reads nothing device 0 wrote: the wait is not a join the program needs, so
// cross-device-wait should price it at about SPIN_MS (what the clean twin measures less).
// Needs two devices: with fewer it says so and exits 77 (the test harness's "skipped").
#include <string.h>

#include "sample_util.h"
#include "sample_spin.cuh"

enum { SPIN_MS = 20, SPIN_BLOCKS = 4 };

struct Side {
    cudaStream_t stream;
    float *out;
    long long iters;
};

// A non-blocking stream on `dev`, its spin calibrated on that device.
static Side side_on(int dev)
{
    Side s = {};
    SC_CHECK(cudaSetDevice(dev));
    SC_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    SC_CHECK(cudaMalloc(&s.out, SPIN_BLOCKS * 32 * sizeof(float)));
    long long *d_cycles = nullptr, cycles[2];
    SC_CHECK(cudaMalloc(&d_cycles, 2 * sizeof(long long)));
    sc_spin_calibrate_enqueue(s.out, d_cycles, s.stream);
    SC_CHECK(cudaMemcpyAsync(cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost,
                             s.stream));
    SC_CHECK(cudaStreamSynchronize(s.stream));
    SC_CHECK(cudaFree(d_cycles));
    int khz = 0;
    SC_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    s.iters = sc_iters_for_us(SPIN_MS * 1000.0, sc_spin_cycles_per_iter(cycles),
                              khz > 0 ? khz : 1500000);
    // a warm-up spin of the measured shape: no module load inside the measured pass
    spin_kernel<<<SPIN_BLOCKS, 32, 0, s.stream>>>(s.out, 1, nullptr);
    SC_CHECK_LAUNCH();
    SC_CHECK(cudaStreamSynchronize(s.stream));
    return s;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    bool wait = strcmp(mode, "cross-wait") == 0;
    if (!wait && strcmp(mode, "independent") != 0) {
        fprintf(stderr, "usage: %s cross-wait|independent\n", argv[0]);
        return 2;
    }
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
        fprintf(stderr, "%s: needs two CUDA devices, found %d: skipped\n", mode, n);
        return 77;
    }
    Side d0 = side_on(0), d1 = side_on(1);
    cudaEvent_t done0;
    SC_CHECK(cudaSetDevice(0));
    SC_CHECK(cudaEventCreateWithFlags(&done0, cudaEventDisableTiming));

    const double t0 = sc_now_ms();
    spin_kernel<<<SPIN_BLOCKS, 32, 0, d0.stream>>>(d0.out, d0.iters, nullptr);
    SC_CHECK_LAUNCH();
    SC_CHECK(cudaEventRecord(done0, d0.stream));
    SC_CHECK(cudaSetDevice(1));
    if (wait)   // an event of device 0, waited for on device 1's stream
        SC_CHECK(cudaStreamWaitEvent(d1.stream, done0, 0));
    spin_kernel<<<SPIN_BLOCKS, 32, 0, d1.stream>>>(d1.out, d1.iters, nullptr);
    SC_CHECK_LAUNCH();
    SC_CHECK(cudaStreamSynchronize(d1.stream));
    SC_CHECK(cudaSetDevice(0));
    SC_CHECK(cudaStreamSynchronize(d0.stream));
    const double ms = sc_now_ms() - t0;
    printf("# %s: two %d ms spins on devices 0 and 1: %.2f ms\n", mode, SPIN_MS, ms);

    float h[2];     // both spins ran: the first element of each is the chain from 0
    SC_CHECK(cudaMemcpy(&h[1], d1.out, sizeof(float), cudaMemcpyDeviceToHost));
    SC_CHECK(cudaSetDevice(0));
    SC_CHECK(cudaMemcpy(&h[0], d0.out, sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < 2; k++)
        if (h[k] != sc_chain_ref(0.0f, k == 0 ? d0.iters : d1.iters)) {
            fprintf(stderr, "device %d: spin result %g is wrong\n", k, (double)h[k]);
            return 1;
        }
    return 0;
}
