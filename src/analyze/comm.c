/* Communication kernels: see comm.h. */
#include "analyze/comm.h"

#include <ctype.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/overlap.h"

/* The identifier a kernel name starts with: a plain (extern "C") name as it is, an Itanium
 * mangled one ("_Z29ncclDevKernel_AllReduce_...") past its "_Z" and length. Sets *len
 * (0 for a mangled name cut short). */
static const char *sc_comm_ident(const char *name, size_t *len)
{
    if (strncmp(name, "_Z", 2) == 0 && isdigit((unsigned char)name[2])) {
        size_t n = 0;
        const char *p = name + 2;
        while (isdigit((unsigned char)*p) && n < 4096)
            n = n * 10 + (size_t)(*p++ - '0');
        *len = strnlen(p, n) == n ? n : 0;   /* a length past the end: not a name */
        return p;
    }
    *len = strcspn(name, "(<");
    return name;
}

/* NCCL's kernel names over its versions: ncclDevKernel_AllReduce_Sum_f32_RING_LL and
 * ncclDevKernel_Generic (2.19 on), ncclKernel_AllReduce_RING_LL_Sum_float (2.8 to 2.18),
 * ncclAllReduceRingLLKernel_sum_f32 and ncclSendRecvKernel_copy_i8 (before 2.8), and the
 * debug builds' ncclKernelDebug_...: "nccl", then a first word ending in "Kernel" or
 * "KernelDebug", then '_'. ncclDevFunc_... are device functions, never launched. */
bool sc_kernel_is_comm(const char *name)
{
    if (!name)
        return false;
    size_t len;
    const char *id = sc_comm_ident(name, &len);
    if (len < 4 || strncmp(id, "nccl", 4) != 0)
        return false;
    const char *us = memchr(id + 4, '_', len - 4);
    if (!us)
        return false;
    size_t w = (size_t)(us - id);   /* "nccl" + the first word */
    static const char *const ends[] = {"Kernel", "KernelDebug"};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        size_t e = strlen(ends[i]);
        if (w >= 4 + e && memcmp(id + w - e, ends[i], e) == 0)
            return true;
    }
    return false;
}

/* The union of one device's kernels of one kind (comm or compute), in start order. */
static int sc_comm_busy(const sc_trace *t, const bool *shape_comm, uint32_t device, bool comm,
                        sc_busy_list *out, sc_comm *c)
{
    for (size_t k = 0; k < t->n_kernels; k++) {
        const sc_kernel *kr = &t->kernels[k];
        if (sc_kernel_device(t, kr) != device || shape_comm[kr->rec.shape] != comm)
            continue;
        if (c) {
            c->kernel_count++;
            c->kernel_sum_ns += sc_dur(kr->rec.start_ns, kr->rec.end_ns);
        }
        if (sc_busy_append(out, kr->rec.start_ns, kr->rec.end_ns) != 0)
            return -1;
    }
    return 0;
}

int sc_comm_measure(const sc_trace *t, const bool *shape_comm, sc_analysis *a)
{
    for (size_t d = 0; d < a->n_devices; d++) {
        sc_comm *c = &a->devices[d].comm;
        memset(c, 0, sizeof *c);
        sc_busy_list comm = {0}, compute = {0};
        int rc = sc_comm_busy(t, shape_comm, a->devices[d].device, true, &comm, c);
        if (rc == 0 && c->kernel_count)
            rc = sc_comm_busy(t, shape_comm, a->devices[d].device, false, &compute, NULL);
        for (size_t i = 0; rc == 0 && i < comm.n; i++) {
            uint64_t len = comm.ivals[i].end_ns - comm.ivals[i].start_ns;
            uint64_t bare = sc_busy_uncovered(&compute, comm.ivals[i].start_ns,
                                              comm.ivals[i].end_ns);
            c->busy_ns += len;
            c->exposed_ns += bare;
            c->overlapped_ns += len - bare;
        }
        sc_busy_free(&comm);
        sc_busy_free(&compute);
        if (rc != 0)
            return -1;
    }
    return 0;
}
