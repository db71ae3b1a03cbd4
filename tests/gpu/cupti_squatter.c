// libcupti_squatter.so: takes CUPTI's one subscriber slot before streamcheck can, the way
// nsys, ncu, compute-sanitizer or an active torch.profiler do, so the GPU tests can check
// that streamcheck says so once, keeps what still works and changes nothing in the program.
//
//   LD_PRELOAD=libcupti_squatter.so:libstreamcheck.so ./app
//
// The constructor subscribes (a callback that does nothing, no domain enabled: holding the
// subscription is enough). It runs when the library is loaded, before main and so before
// the program's first CUDA call, at whose cuInit the driver calls streamcheck's
// InitializeInjection; whichever order the two libraries are preloaded in, the squatter
// is first to subscribe. Listing the squatter first makes the loader run streamcheck's
// constructor (which only sets CUDA_INJECTION64_PATH) before this one, so even a CUPTI that
// started the driver inside cuptiSubscribe would still find streamcheck named.
//
// It says on stderr, once, whether it holds the slot, so a test can tell "streamcheck did not
// notice" from "the squatter never subscribed". It links libcupti, so CUPTI is already loaded
// when streamcheck looks for it, and both share the one copy (same soname).
#include <cupti.h>
#include <stdio.h>

static CUpti_SubscriberHandle squatter_subscriber;

static void CUPTIAPI squatter_callback(void *userdata, CUpti_CallbackDomain domain,
                                       CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
}

__attribute__((constructor)) static void squatter_init(void)
{
    CUptiResult r = cuptiSubscribe(&squatter_subscriber, squatter_callback, NULL);
    if (r == CUPTI_SUCCESS) {
        fprintf(stderr, "cupti_squatter: subscribed\n");
        return;
    }
    const char *msg = NULL;
    cuptiGetResultString(r, &msg);
    fprintf(stderr, "cupti_squatter: cuptiSubscribe failed: %s\n", msg != NULL ? msg : "?");
}
