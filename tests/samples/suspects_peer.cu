// peer-copy / peer-access: copies from device 0 to device 1 with cudaMemcpyPeerAsync, on a
// stream of device 0, with and without peer access enabled. Without it the driver may stage
// each copy through host memory instead of copying over the link between the devices.
//   peer-copy     steps x 64 MiB, device 0 to device 1, peer access left off (the default)
//   peer-access   the same after cudaDeviceEnablePeerAccess both ways
// Needs two devices that can reach each other (exits 2 otherwise). Each side prints the rate
// it copied at; the checksum covers what arrived on device 1.
#include "suspects.h"

static const size_t PEER_BYTES = 64u << 20;
static const size_t PEER_N = PEER_BYTES / sizeof(float);
enum { MAX_PEER_STEPS = 16 };

static void require_peers(const Ctx &c)
{
    int n = 0, can = 0;
    SC_CHECK(cudaGetDeviceCount(&n));
    if (n >= 2)
        SC_CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    printf("# devices: %d; device 0 can reach device 1: %s\n", n, can ? "yes" : "no");
    if (n < 2 || !can || c.steps > MAX_PEER_STEPS) {
        fprintf(stderr, "%s: needs two devices that can reach each other and at most %d steps\n",
                c.mode, MAX_PEER_STEPS);
        exit(2);
    }
}

void mode_peer(Ctx &c, int variant)
{
    require_peers(c);
    float *src = nullptr, *dst = nullptr;
    SC_CHECK(cudaSetDevice(1));
    SC_CHECK(cudaMalloc(&dst, (size_t)c.steps * PEER_BYTES));
    if (variant == PEER_ACCESS)
        SC_CHECK(cudaDeviceEnablePeerAccess(0, 0));
    SC_CHECK(cudaSetDevice(0));
    SC_CHECK(cudaMalloc(&src, (size_t)c.steps * PEER_BYTES));
    if (variant == PEER_ACCESS)
        SC_CHECK(cudaDeviceEnablePeerAccess(1, 0));
    for (int s = 0; s < c.steps; ++s)
        launch_scale(c.a, src + (size_t)s * PEER_N, PEER_N, 0.0f, 1.0f + (float)s,
                     4 * c.prop.multiProcessorCount);
    SC_CHECK(cudaStreamSynchronize(c.a));

    measure_begin(c);
    for (int s = 0; s < c.steps; ++s)
        SC_CHECK(cudaMemcpyPeerAsync(dst + (size_t)s * PEER_N, 1, src + (size_t)s * PEER_N, 0,
                                     PEER_BYTES, c.a));
    const double ms = measure_end(c);
    printf("# %d copies of 64 MiB, device 0 to device 1, peer access %s: %.2f GB/s\n", c.steps,
           variant == PEER_ACCESS ? "on" : "off",
           (double)c.steps * PEER_BYTES / (ms * 1e-3) / 1e9);

    float *h = (float *)host_alloc(c.steps * sizeof(float) * 2);
    for (int s = 0; s < c.steps; ++s) {     // the first and the last element of each copy
        SC_CHECK(cudaMemcpy(h + 2 * s, dst + (size_t)s * PEER_N, sizeof(float),
                            cudaMemcpyDefault));
        SC_CHECK(cudaMemcpy(h + 2 * s + 1, dst + (size_t)(s + 1) * PEER_N - 1, sizeof(float),
                            cudaMemcpyDefault));
        check("peer copy", (size_t)s, h[2 * s], 1.0f + (float)s);
        check("peer copy", (size_t)s, h[2 * s + 1], 1.0f + (float)s);
    }
    result_add(h, c.steps * sizeof(float) * 2);
    printf("# verified both ends of %d copies ok\n", c.steps);
    free(h);
}
