#include "preload/calls.h"

#include <cupti.h> /* brings the generated_*_meta.h params structs */
#include <stddef.h>

#include "preload/sample.h"
#include "streamcheck/trace_format.h"

#define H(p) ((uint64_t)(uintptr_t)(p))

/* Argument readers, one per parameter shape. Each names the CUPTI params struct it reads. */
#define SC_X(name, T, body)                                                \
    static void sc_x_##name(const void *pv, bool at_exit, sc_call_args *a) \
    {                                                                      \
        const T *p = pv;                                                   \
        (void)at_exit;                                                     \
        body;                                                              \
    }

/* runtime */
SC_X(rt_launch, cudaLaunchKernel_v7000_params, a->stream = H(p->stream))
SC_X(rt_launch_ex, cudaLaunchKernelExC_v11060_params, a->stream = p->config ? H(p->config->stream) : 0)
SC_X(rt_coop, cudaLaunchCooperativeKernel_v9000_params, a->stream = H(p->stream))
SC_X(rt_graph, cudaGraphLaunch_v10000_params, a->stream = H(p->stream); a->aux = H(p->graphExec))
SC_X(rt_memcpy, cudaMemcpy_v3020_params, a->bytes = p->count; a->aux2 = p->kind)
SC_X(rt_memcpy_async, cudaMemcpyAsync_v3020_params,
     a->bytes = p->count; a->aux2 = p->kind; a->stream = H(p->stream))
SC_X(rt_memcpy2d, cudaMemcpy2D_v3020_params, a->bytes = p->width * p->height; a->aux2 = p->kind)
SC_X(rt_memcpy2d_async, cudaMemcpy2DAsync_v3020_params,
     a->bytes = p->width * p->height; a->aux2 = p->kind; a->stream = H(p->stream))
SC_X(rt_memcpy3d_async, cudaMemcpy3DAsync_v3020_params, a->stream = H(p->stream))
SC_X(rt_to_symbol, cudaMemcpyToSymbol_v3020_params, a->bytes = p->count; a->aux2 = p->kind)
SC_X(rt_from_symbol, cudaMemcpyFromSymbol_v3020_params, a->bytes = p->count; a->aux2 = p->kind)
SC_X(rt_to_symbol_async, cudaMemcpyToSymbolAsync_v3020_params,
     a->bytes = p->count; a->aux2 = p->kind; a->stream = H(p->stream))
SC_X(rt_from_symbol_async, cudaMemcpyFromSymbolAsync_v3020_params,
     a->bytes = p->count; a->aux2 = p->kind; a->stream = H(p->stream))
SC_X(rt_peer_async, cudaMemcpyPeerAsync_v4000_params, a->bytes = p->count; a->stream = H(p->stream))
SC_X(rt_memset, cudaMemset_v3020_params, a->bytes = p->count)
SC_X(rt_memset_async, cudaMemsetAsync_v3020_params, a->bytes = p->count; a->stream = H(p->stream))
SC_X(rt_malloc, cudaMalloc_v3020_params, a->bytes = p->size)
SC_X(rt_malloc_managed, cudaMallocManaged_v6000_params, a->bytes = p->size)
SC_X(rt_malloc_pitch, cudaMallocPitch_v3020_params, a->bytes = p->width * p->height)
SC_X(rt_malloc_host, cudaMallocHost_v3020_params, a->bytes = p->size)
SC_X(rt_host_alloc, cudaHostAlloc_v3020_params, a->bytes = p->size; a->aux2 = p->flags)
SC_X(rt_host_register, cudaHostRegister_v4000_params, a->bytes = p->size; a->aux2 = p->flags)
SC_X(rt_malloc_async, cudaMallocAsync_v11020_params, a->bytes = p->size; a->stream = H(p->hStream))
SC_X(rt_free_async, cudaFreeAsync_v11020_params, a->stream = H(p->hStream))
SC_X(rt_stream_create, cudaStreamCreate_v3020_params,
     if (at_exit && p->pStream) a->aux = H(*p->pStream))
SC_X(rt_stream_create_flags, cudaStreamCreateWithFlags_v5000_params,
     a->aux2 = p->flags; if (at_exit && p->pStream) a->aux = H(*p->pStream))
SC_X(rt_stream_create_prio, cudaStreamCreateWithPriority_v5050_params,
     a->aux2 = p->flags; if (at_exit && p->pStream) a->aux = H(*p->pStream))
SC_X(rt_stream, cudaStreamSynchronize_v3020_params, a->stream = H(p->stream))
SC_X(rt_event_record, cudaEventRecord_v3020_params, a->stream = H(p->stream); a->aux = H(p->event))
SC_X(rt_event_record_flags, cudaEventRecordWithFlags_v11010_params,
     a->stream = H(p->stream); a->aux = H(p->event))
SC_X(rt_wait_event, cudaStreamWaitEvent_v3020_params, a->stream = H(p->stream); a->aux = H(p->event))
SC_X(rt_event, cudaEventSynchronize_v3020_params, a->aux = H(p->event))
SC_X(rt_elapsed, cudaEventElapsedTime_v12080_params, a->aux = H(p->end))
SC_X(rt_host_func, cudaLaunchHostFunc_v10000_params, a->stream = H(p->stream); a->aux = H(p->fn))
SC_X(rt_callback, cudaStreamAddCallback_v5000_params,
     a->stream = H(p->stream); a->aux = H(p->callback))

/* driver */
SC_X(cu_launch, cuLaunchKernel_params, a->stream = H(p->hStream))
SC_X(cu_launch_ex, cuLaunchKernelEx_params, a->stream = p->config ? H(p->config->hStream) : 0)
SC_X(cu_coop, cuLaunchCooperativeKernel_params, a->stream = H(p->hStream))
SC_X(cu_graph, cuGraphLaunch_params, a->stream = H(p->hStream); a->aux = H(p->hGraph))
SC_X(cu_htod, cuMemcpyHtoD_v2_params, a->bytes = p->ByteCount; a->aux2 = 1)
SC_X(cu_dtoh, cuMemcpyDtoH_v2_params, a->bytes = p->ByteCount; a->aux2 = 2)
SC_X(cu_dtod, cuMemcpyDtoD_v2_params, a->bytes = p->ByteCount; a->aux2 = 3)
SC_X(cu_memcpy, cuMemcpy_params, a->bytes = p->ByteCount; a->aux2 = 4)
SC_X(cu_htod_async, cuMemcpyHtoDAsync_v2_params, a->bytes = p->ByteCount; a->aux2 = 1; a->stream = H(p->hStream))
SC_X(cu_dtoh_async, cuMemcpyDtoHAsync_v2_params, a->bytes = p->ByteCount; a->aux2 = 2; a->stream = H(p->hStream))
SC_X(cu_dtod_async, cuMemcpyDtoDAsync_v2_params, a->bytes = p->ByteCount; a->aux2 = 3; a->stream = H(p->hStream))
SC_X(cu_memcpy_async, cuMemcpyAsync_params, a->bytes = p->ByteCount; a->aux2 = 4; a->stream = H(p->hStream))
SC_X(cu_memset8, cuMemsetD8_v2_params, a->bytes = p->N)
SC_X(cu_memset32, cuMemsetD32_v2_params, a->bytes = p->N * 4)
SC_X(cu_memset8_async, cuMemsetD8Async_params, a->bytes = p->N; a->stream = H(p->hStream))
SC_X(cu_memset32_async, cuMemsetD32Async_params, a->bytes = p->N * 4; a->stream = H(p->hStream))
SC_X(cu_alloc, cuMemAlloc_v2_params, a->bytes = p->bytesize)
SC_X(cu_alloc_host, cuMemAllocHost_v2_params, a->bytes = p->bytesize)
SC_X(cu_host_alloc, cuMemHostAlloc_params, a->bytes = p->bytesize; a->aux2 = p->Flags)
SC_X(cu_host_register, cuMemHostRegister_v2_params, a->bytes = p->bytesize; a->aux2 = p->Flags)
SC_X(cu_alloc_async, cuMemAllocAsync_params, a->bytes = p->bytesize; a->stream = H(p->hStream))
SC_X(cu_free_async, cuMemFreeAsync_params, a->stream = H(p->hStream))
SC_X(cu_stream_create, cuStreamCreate_params,
     a->aux2 = p->Flags; if (at_exit && p->phStream) a->aux = H(*p->phStream))
SC_X(cu_stream_create_prio, cuStreamCreateWithPriority_params,
     a->aux2 = p->flags; if (at_exit && p->phStream) a->aux = H(*p->phStream))
SC_X(cu_stream, cuStreamSynchronize_params, a->stream = H(p->hStream))
SC_X(cu_event_record, cuEventRecord_params, a->stream = H(p->hStream); a->aux = H(p->hEvent))
SC_X(cu_wait_event, cuStreamWaitEvent_params, a->stream = H(p->hStream); a->aux = H(p->hEvent))
SC_X(cu_event, cuEventSynchronize_params, a->aux = H(p->hEvent))
SC_X(cu_elapsed, cuEventElapsedTime_params, a->aux = H(p->hEnd))
SC_X(cu_elapsed_v2, cuEventElapsedTime_v2_params, a->aux = H(p->hEnd))
SC_X(cu_host_func, cuLaunchHostFunc_params, a->stream = H(p->hStream); a->aux = H(p->fn))
SC_X(cu_callback, cuStreamAddCallback_params, a->stream = H(p->hStream); a->aux = H(p->callback))

#define RT(name, cls, x) {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##name, cls, 0, x}
#define RTP(name, cls, x) \
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##name, cls, SC_API_PER_THREAD, x}
#define DR(name, cls, x) \
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##name, cls, SC_API_DRIVER, x}
#define DRP(name, cls, x) \
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##name, cls, SC_API_DRIVER | SC_API_PER_THREAD, x}

static const sc_hook sc_hook_table[] = {
    /* kernel launches: <<<>>> in CUDA 13 arrives as __cudaLaunchKernel (GPU-FACTS.md) */
    RT(cudaLaunchKernel_v7000, SC_CALL_LAUNCH, sc_x_rt_launch),
    RTP(cudaLaunchKernel_ptsz_v7000, SC_CALL_LAUNCH, sc_x_rt_launch),
    RT(cudaLaunchKernelExC_v11060, SC_CALL_LAUNCH, sc_x_rt_launch_ex),
    RTP(cudaLaunchKernelExC_ptsz_v11060, SC_CALL_LAUNCH, sc_x_rt_launch_ex),
    RT(cudaLaunchCooperativeKernel_v9000, SC_CALL_LAUNCH, sc_x_rt_coop),
    RTP(cudaLaunchCooperativeKernel_ptsz_v9000, SC_CALL_LAUNCH, sc_x_rt_coop),
    RT(__cudaLaunchKernel_v13000, SC_CALL_LAUNCH, NULL),   /* no params struct in CUPTI */
    RTP(__cudaLaunchKernel_ptsz_v13000, SC_CALL_LAUNCH, NULL),
    RT(cudaGraphLaunch_v10000, SC_CALL_GRAPH_LAUNCH, sc_x_rt_graph),
    RTP(cudaGraphLaunch_ptsz_v10000, SC_CALL_GRAPH_LAUNCH, sc_x_rt_graph),
    /* copies */
    RT(cudaMemcpy_v3020, SC_CALL_MEMCPY, sc_x_rt_memcpy),
    RT(cudaMemcpy2D_v3020, SC_CALL_MEMCPY, sc_x_rt_memcpy2d),
    RT(cudaMemcpyToSymbol_v3020, SC_CALL_MEMCPY, sc_x_rt_to_symbol),
    RT(cudaMemcpyFromSymbol_v3020, SC_CALL_MEMCPY, sc_x_rt_from_symbol),
    RT(cudaMemcpy3D_v3020, SC_CALL_MEMCPY, NULL),
    RT(cudaMemcpyPeer_v4000, SC_CALL_MEMCPY, NULL),
    RTP(cudaMemcpy_ptds_v7000, SC_CALL_MEMCPY, sc_x_rt_memcpy),
    RT(cudaMemcpyAsync_v3020, SC_CALL_MEMCPY_ASYNC, sc_x_rt_memcpy_async),
    RTP(cudaMemcpyAsync_ptsz_v7000, SC_CALL_MEMCPY_ASYNC, sc_x_rt_memcpy_async),
    RT(cudaMemcpy2DAsync_v3020, SC_CALL_MEMCPY_ASYNC, sc_x_rt_memcpy2d_async),
    RTP(cudaMemcpy2DAsync_ptsz_v7000, SC_CALL_MEMCPY_ASYNC, sc_x_rt_memcpy2d_async),
    RT(cudaMemcpy3DAsync_v3020, SC_CALL_MEMCPY_ASYNC, sc_x_rt_memcpy3d_async),
    RTP(cudaMemcpy3DAsync_ptsz_v7000, SC_CALL_MEMCPY_ASYNC, sc_x_rt_memcpy3d_async),
    RT(cudaMemcpyToSymbolAsync_v3020, SC_CALL_MEMCPY_ASYNC, sc_x_rt_to_symbol_async),
    RTP(cudaMemcpyToSymbolAsync_ptsz_v7000, SC_CALL_MEMCPY_ASYNC, sc_x_rt_to_symbol_async),
    RT(cudaMemcpyFromSymbolAsync_v3020, SC_CALL_MEMCPY_ASYNC, sc_x_rt_from_symbol_async),
    RTP(cudaMemcpyFromSymbolAsync_ptsz_v7000, SC_CALL_MEMCPY_ASYNC, sc_x_rt_from_symbol_async),
    RT(cudaMemcpyPeerAsync_v4000, SC_CALL_MEMCPY_ASYNC, sc_x_rt_peer_async),
    /* memsets */
    RT(cudaMemset_v3020, SC_CALL_MEMSET, sc_x_rt_memset),
    RTP(cudaMemset_ptds_v7000, SC_CALL_MEMSET, sc_x_rt_memset),
    RT(cudaMemsetAsync_v3020, SC_CALL_MEMSET_ASYNC, sc_x_rt_memset_async),
    RTP(cudaMemsetAsync_ptsz_v7000, SC_CALL_MEMSET_ASYNC, sc_x_rt_memset_async),
    /* allocation */
    RT(cudaMalloc_v3020, SC_CALL_MALLOC, sc_x_rt_malloc),
    RT(cudaMallocPitch_v3020, SC_CALL_MALLOC, sc_x_rt_malloc_pitch),
    RT(cudaMallocManaged_v6000, SC_CALL_MALLOC, sc_x_rt_malloc_managed),
    RT(cudaFree_v3020, SC_CALL_FREE, NULL),
    RT(cudaMallocHost_v3020, SC_CALL_HOST_ALLOC, sc_x_rt_malloc_host),
    RT(cudaHostAlloc_v3020, SC_CALL_HOST_ALLOC, sc_x_rt_host_alloc),
    RT(cudaFreeHost_v3020, SC_CALL_HOST_FREE, NULL),
    RT(cudaHostRegister_v4000, SC_CALL_HOST_REGISTER, sc_x_rt_host_register),
    RT(cudaHostUnregister_v4000, SC_CALL_HOST_UNREGISTER, NULL),
    RT(cudaMallocAsync_v11020, SC_CALL_MALLOC_ASYNC, sc_x_rt_malloc_async),
    RTP(cudaMallocAsync_ptsz_v11020, SC_CALL_MALLOC_ASYNC, sc_x_rt_malloc_async),
    RT(cudaFreeAsync_v11020, SC_CALL_FREE_ASYNC, sc_x_rt_free_async),
    RTP(cudaFreeAsync_ptsz_v11020, SC_CALL_FREE_ASYNC, sc_x_rt_free_async),
    /* streams and events */
    RT(cudaStreamCreate_v3020, SC_CALL_STREAM_CREATE, sc_x_rt_stream_create),
    RT(cudaStreamCreateWithFlags_v5000, SC_CALL_STREAM_CREATE, sc_x_rt_stream_create_flags),
    RT(cudaStreamCreateWithPriority_v5050, SC_CALL_STREAM_CREATE, sc_x_rt_stream_create_prio),
    RT(cudaStreamDestroy_v5050, SC_CALL_STREAM_DESTROY, sc_x_rt_stream),
    RT(cudaEventRecord_v3020, SC_CALL_EVENT_RECORD, sc_x_rt_event_record),
    RTP(cudaEventRecord_ptsz_v7000, SC_CALL_EVENT_RECORD, sc_x_rt_event_record),
    RT(cudaEventRecordWithFlags_v11010, SC_CALL_EVENT_RECORD, sc_x_rt_event_record_flags),
    RTP(cudaEventRecordWithFlags_ptsz_v11010, SC_CALL_EVENT_RECORD, sc_x_rt_event_record_flags),
    RT(cudaStreamWaitEvent_v3020, SC_CALL_EVENT_WAIT, sc_x_rt_wait_event),
    RTP(cudaStreamWaitEvent_ptsz_v7000, SC_CALL_EVENT_WAIT, sc_x_rt_wait_event),
    /* synchronization */
    RT(cudaDeviceSynchronize_v3020, SC_CALL_DEVICE_SYNC, NULL),
    RT(cudaStreamSynchronize_v3020, SC_CALL_STREAM_SYNC, sc_x_rt_stream),
    RTP(cudaStreamSynchronize_ptsz_v7000, SC_CALL_STREAM_SYNC, sc_x_rt_stream),
    RT(cudaEventSynchronize_v3020, SC_CALL_EVENT_SYNC, sc_x_rt_event),
    RT(cudaStreamQuery_v3020, SC_CALL_STREAM_QUERY, sc_x_rt_stream),
    RTP(cudaStreamQuery_ptsz_v7000, SC_CALL_STREAM_QUERY, sc_x_rt_stream),
    RT(cudaEventQuery_v3020, SC_CALL_EVENT_QUERY, sc_x_rt_event),
    RT(cudaEventElapsedTime_v12080, SC_CALL_EVENT_READ, sc_x_rt_elapsed),
    /* host functions on a stream */
    RT(cudaLaunchHostFunc_v10000, SC_CALL_HOST_FUNC, sc_x_rt_host_func),
    RTP(cudaLaunchHostFunc_ptsz_v10000, SC_CALL_HOST_FUNC, sc_x_rt_host_func),
    RT(cudaStreamAddCallback_v5000, SC_CALL_HOST_FUNC, sc_x_rt_callback),
    RTP(cudaStreamAddCallback_ptsz_v7000, SC_CALL_HOST_FUNC, sc_x_rt_callback),
    RT(cudaDeviceSetLimit_v3020, SC_CALL_SET_LIMIT, NULL),
    RT(cudaDeviceSetCacheConfig_v3020, SC_CALL_SET_LIMIT, NULL),
    RT(cudaFuncSetCacheConfig_v3020, SC_CALL_SET_LIMIT, NULL),

    /* driver API: cuBLAS, Triton, CuPy, JAX launch here (GPU-FACTS.md) */
    DR(cuLaunchKernel, SC_CALL_LAUNCH, sc_x_cu_launch),
    DRP(cuLaunchKernel_ptsz, SC_CALL_LAUNCH, sc_x_cu_launch),
    DR(cuLaunchKernelEx, SC_CALL_LAUNCH, sc_x_cu_launch_ex),
    DRP(cuLaunchKernelEx_ptsz, SC_CALL_LAUNCH, sc_x_cu_launch_ex),
    DR(cuLaunchCooperativeKernel, SC_CALL_LAUNCH, sc_x_cu_coop),
    DRP(cuLaunchCooperativeKernel_ptsz, SC_CALL_LAUNCH, sc_x_cu_coop),
    DR(cuGraphLaunch, SC_CALL_GRAPH_LAUNCH, sc_x_cu_graph),
    DRP(cuGraphLaunch_ptsz, SC_CALL_GRAPH_LAUNCH, sc_x_cu_graph),
    DR(cuMemcpyHtoD_v2, SC_CALL_MEMCPY, sc_x_cu_htod),
    DR(cuMemcpyDtoH_v2, SC_CALL_MEMCPY, sc_x_cu_dtoh),
    DR(cuMemcpyDtoD_v2, SC_CALL_MEMCPY, sc_x_cu_dtod),
    DR(cuMemcpy, SC_CALL_MEMCPY, sc_x_cu_memcpy),
    DRP(cuMemcpyHtoD_v2_ptds, SC_CALL_MEMCPY, sc_x_cu_htod),
    DRP(cuMemcpyDtoH_v2_ptds, SC_CALL_MEMCPY, sc_x_cu_dtoh),
    DR(cuMemcpyHtoDAsync_v2, SC_CALL_MEMCPY_ASYNC, sc_x_cu_htod_async),
    DR(cuMemcpyDtoHAsync_v2, SC_CALL_MEMCPY_ASYNC, sc_x_cu_dtoh_async),
    DR(cuMemcpyDtoDAsync_v2, SC_CALL_MEMCPY_ASYNC, sc_x_cu_dtod_async),
    DR(cuMemcpyAsync, SC_CALL_MEMCPY_ASYNC, sc_x_cu_memcpy_async),
    DRP(cuMemcpyHtoDAsync_v2_ptsz, SC_CALL_MEMCPY_ASYNC, sc_x_cu_htod_async),
    DRP(cuMemcpyDtoHAsync_v2_ptsz, SC_CALL_MEMCPY_ASYNC, sc_x_cu_dtoh_async),
    DRP(cuMemcpyDtoDAsync_v2_ptsz, SC_CALL_MEMCPY_ASYNC, sc_x_cu_dtod_async),
    DRP(cuMemcpyAsync_ptsz, SC_CALL_MEMCPY_ASYNC, sc_x_cu_memcpy_async),
    DR(cuMemsetD8_v2, SC_CALL_MEMSET, sc_x_cu_memset8),
    DR(cuMemsetD32_v2, SC_CALL_MEMSET, sc_x_cu_memset32),
    DR(cuMemsetD8Async, SC_CALL_MEMSET_ASYNC, sc_x_cu_memset8_async),
    DR(cuMemsetD32Async, SC_CALL_MEMSET_ASYNC, sc_x_cu_memset32_async),
    DRP(cuMemsetD8Async_ptsz, SC_CALL_MEMSET_ASYNC, sc_x_cu_memset8_async),
    DRP(cuMemsetD32Async_ptsz, SC_CALL_MEMSET_ASYNC, sc_x_cu_memset32_async),
    DR(cuMemAlloc_v2, SC_CALL_MALLOC, sc_x_cu_alloc),
    DR(cuMemFree_v2, SC_CALL_FREE, NULL),
    DR(cuMemAllocHost_v2, SC_CALL_HOST_ALLOC, sc_x_cu_alloc_host),
    DR(cuMemHostAlloc, SC_CALL_HOST_ALLOC, sc_x_cu_host_alloc),
    DR(cuMemFreeHost, SC_CALL_HOST_FREE, NULL),
    DR(cuMemHostRegister_v2, SC_CALL_HOST_REGISTER, sc_x_cu_host_register),
    DR(cuMemHostUnregister, SC_CALL_HOST_UNREGISTER, NULL),
    DR(cuMemAllocAsync, SC_CALL_MALLOC_ASYNC, sc_x_cu_alloc_async),
    DRP(cuMemAllocAsync_ptsz, SC_CALL_MALLOC_ASYNC, sc_x_cu_alloc_async),
    DR(cuMemFreeAsync, SC_CALL_FREE_ASYNC, sc_x_cu_free_async),
    DRP(cuMemFreeAsync_ptsz, SC_CALL_FREE_ASYNC, sc_x_cu_free_async),
    DR(cuStreamCreate, SC_CALL_STREAM_CREATE, sc_x_cu_stream_create),
    DR(cuStreamCreateWithPriority, SC_CALL_STREAM_CREATE, sc_x_cu_stream_create_prio),
    DR(cuStreamDestroy_v2, SC_CALL_STREAM_DESTROY, sc_x_cu_stream),
    DR(cuEventRecord, SC_CALL_EVENT_RECORD, sc_x_cu_event_record),
    DRP(cuEventRecord_ptsz, SC_CALL_EVENT_RECORD, sc_x_cu_event_record),
    DR(cuStreamWaitEvent, SC_CALL_EVENT_WAIT, sc_x_cu_wait_event),
    DRP(cuStreamWaitEvent_ptsz, SC_CALL_EVENT_WAIT, sc_x_cu_wait_event),
    DR(cuCtxSynchronize, SC_CALL_DEVICE_SYNC, NULL),
    DR(cuStreamSynchronize, SC_CALL_STREAM_SYNC, sc_x_cu_stream),
    DRP(cuStreamSynchronize_ptsz, SC_CALL_STREAM_SYNC, sc_x_cu_stream),
    DR(cuEventSynchronize, SC_CALL_EVENT_SYNC, sc_x_cu_event),
    DR(cuStreamQuery, SC_CALL_STREAM_QUERY, sc_x_cu_stream),
    DRP(cuStreamQuery_ptsz, SC_CALL_STREAM_QUERY, sc_x_cu_stream),
    DR(cuEventQuery, SC_CALL_EVENT_QUERY, sc_x_cu_event),
    DR(cuEventElapsedTime, SC_CALL_EVENT_READ, sc_x_cu_elapsed),
    DR(cuEventElapsedTime_v2, SC_CALL_EVENT_READ, sc_x_cu_elapsed_v2),
    DR(cuLaunchHostFunc, SC_CALL_HOST_FUNC, sc_x_cu_host_func),
    DRP(cuLaunchHostFunc_ptsz, SC_CALL_HOST_FUNC, sc_x_cu_host_func),
    DR(cuStreamAddCallback, SC_CALL_HOST_FUNC, sc_x_cu_callback),
    DRP(cuStreamAddCallback_ptsz, SC_CALL_HOST_FUNC, sc_x_cu_callback),
    DR(cuCtxSetLimit, SC_CALL_SET_LIMIT, NULL),
    DR(cuCtxSetCacheConfig, SC_CALL_SET_LIMIT, NULL),
    DR(cuFuncSetCacheConfig, SC_CALL_SET_LIMIT, NULL),
    DR(cuKernelSetCacheConfig, SC_CALL_SET_LIMIT, NULL),
};

static const uint32_t sc_nvtx_ids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,         CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx,  CUPTI_CBID_NVTX_nvtxRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,     CUPTI_CBID_NVTX_nvtxRangeStartA,
    CUPTI_CBID_NVTX_nvtxRangeStartEx,       CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,
    CUPTI_CBID_NVTX_nvtxRangeEnd,           CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
    CUPTI_CBID_NVTX_nvtxDomainCreateA,      CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
};

static const uint32_t sc_resource_ids[] = {
    CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
};

/* capture=profiler (scope.h): the runtime's calls and the driver's they reach; enabled only
 * then, and never written as API records. */
static const sc_hook sc_profiler_table[] = {
    RT(cudaProfilerStart_v4000, SC_CALL_OTHER, NULL),
    RT(cudaProfilerStop_v4000, SC_CALL_OTHER, NULL),
    DR(cuProfilerStart, SC_CALL_OTHER, NULL),
    DR(cuProfilerStop, SC_CALL_OTHER, NULL),
};

const sc_hook *sc_profiler_hooks(unsigned *count)
{
    *count = sizeof sc_profiler_table / sizeof *sc_profiler_table;
    return sc_profiler_table;
}

int sc_profiler_call(uint16_t domain, uint16_t cbid)
{
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000  ? 1
               : cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 ? -1
                                                                           : 0;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        return cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart  ? 1
               : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop ? -1
                                                                  : 0;
    return 0;
}

const uint32_t *sc_nvtx_hooks(unsigned *count)
{
    *count = sizeof sc_nvtx_ids / sizeof *sc_nvtx_ids;
    return sc_nvtx_ids;
}

const uint32_t *sc_resource_hooks(unsigned *count)
{
    *count = sizeof sc_resource_ids / sizeof *sc_resource_ids;
    return sc_resource_ids;
}

sc_hook_hot *sc_hook_slots[2][SC_HOOK_SLOTS];
static sc_hook_hot sc_hook_hots[sizeof sc_hook_table / sizeof sc_hook_table[0]];

/* calls.h's inline lookup counts on these values */
_Static_assert(CUPTI_CB_DOMAIN_DRIVER_API == 1 && CUPTI_CB_DOMAIN_RUNTIME_API == 2,
               "sc_hook_find: domain numbering");
_Static_assert(offsetof(sc_rec_api, cbid) == offsetof(sc_rec_api, domain) + 2 &&
                   offsetof(sc_rec_api, call_class) == offsetof(sc_rec_api, domain) + 4 &&
                   offsetof(sc_rec_api, n_frames) == offsetof(sc_rec_api, domain) + 6,
               "sc_hook_hot.api_word: one word of sc_rec_api");

const sc_hook *sc_hooks(unsigned *count)
{
    *count = sizeof sc_hook_table / sizeof sc_hook_table[0];
    return sc_hook_table;
}

/* Where a call that shares another's stack names it: aux, unless aux holds a handle. */
static uint32_t sc_share_flag(uint16_t call_class)
{
    switch (call_class) {
    case SC_CALL_STREAM_CREATE:
        return 0;   /* aux: the new stream, aux2: its flags. Rare: it keeps its own stack. */
    case SC_CALL_GRAPH_LAUNCH:
    case SC_CALL_EVENT_RECORD:
    case SC_CALL_EVENT_WAIT:
    case SC_CALL_EVENT_SYNC:
    case SC_CALL_EVENT_QUERY:
    case SC_CALL_EVENT_READ:
    case SC_CALL_HOST_FUNC:
        return SC_API_STACK_SHARED_AUX2;
    default:
        return SC_API_STACK_SHARED;
    }
}

void sc_hooks_init(void)
{
    for (unsigned i = 0; i < sizeof sc_hook_table / sizeof sc_hook_table[0]; i++) {
        const sc_hook *h = &sc_hook_table[i];
        if (h->cbid >= SC_HOOK_SLOTS) continue;
        sc_hook_hot *hot = &sc_hook_hots[i];
        hot->hook = h;
        hot->extract = h->extract;
        hot->api_word = h->domain | (uint64_t)h->cbid << 16 | (uint64_t)h->call_class << 32;
        hot->share = sc_share_flag(h->call_class);
        hot->sample_tag = sc_sample_tag_of(h->cbid, h->call_class);
        hot->call_class = h->call_class;
        hot->flags = h->flags;
        hot->launch = h->call_class == SC_CALL_LAUNCH;
        hot->device_sync = h->call_class == SC_CALL_DEVICE_SYNC;
        /* the name written stays written: capture starts once per process */
        sc_hook_slots[h->domain - 1][h->cbid] = hot;
    }
}
