/* sc_fake_driver: plays a CUDA program (through libsc_fake_cupti.so) under
 * libstreamcheck.so, without a GPU, so that the library's threading, buffering, sampling,
 * NVTX and loss accounting can be tested anywhere (test_preload.py).
 *
 *   LD_PRELOAD=libstreamcheck.so STREAMCHECK_CUPTI=libsc_fake_cupti.so sc_fake_driver MODE ...
 *
 *   work THREADS CALLS        each thread: CALLS rounds of a launch (3 kernels, 2 streams), an
 *                             event record, query and wait, a stream query, an async copy and
 *                             an NVTX push/pop; a device synchronize every 100 rounds
 *   burst THREADS             THREADS new threads make their first call at one moment; prints
 *                             the slowest and the median first call
 *   churn ROUNDS THREADS CALLS  threads that start, call and exit, round after round
 *   nvtx-names N              N push/pop ranges named "step 0" .. "step N-1" (one buffer)
 *   nvtx-limits               70 nested pushes, 71 pops, 5000 start/end ranges open at once,
 *                             3 pushes left open, a range in an unknown domain
 *   abort THREADS CALLS       work, then abort()
 *   abort-busy THREADS        threads that never stop calling; the main thread aborts
 *   end HOW THREADS CALLS     work, then the process ends by HOW: exit, _exit, _Exit,
 *                             quick_exit (after the work is done), or term, int, hup (a
 *                             signal to itself while THREADS threads are still calling), or
 *                             term-worker (SIGTERM to one calling thread, wherever it is:
 *                             inside a call, the fake's lock held, or inside a record), or
 *                             term-then-exit (work, SIGTERM to itself, and at once exit(7)),
 *                             or term-busy (as tests/samples/lifecycle term-busy: THREADS
 *                             threads never stop calling, the main thread raises SIGTERM
 *                             and then returns from main, running the exit handlers while
 *                             they call), or exit-term@getpid:N (work, then exit(7), and
 *                             SIGTERM reaches the exiting thread inside the Nth getpid() of
 *                             the exit: a chosen point of the library's finish; after the
 *                             library's exit handler when the exit makes fewer), or
 *                             exit-term@flush (the same, inside the finish's CUPTI flush),
 *                             or exit-term@race:US (SIGTERM to the process from another
 *                             thread, a random 0..US microseconds after exit() is called),
 *                             or exit-late-handler (an exit handler registered after CUDA
 *                             started writes "ran" to FAKE_DRIVER_LATE_HANDLER, then exit)
 *   ignored-term THREADS CALLS  SIGTERM ignored from the start (before CUDA), then work,
 *                             a SIGTERM to itself, and a normal exit
 *   fork-work THREADS CALLS   forks before CUDA starts; the child, then the parent, each
 *                             start CUDA and work; prints `child=PID parent=PID`
 *   scope STEPS               capture scope: per step a launch outside, then a range "step"
 *                             (push/pop on even steps, start/end on odd ones) holding a range
 *                             "inner" and two launches, the last of whose kernel runs 50 ms
 *                             after the step; a range "between" outside; then
 *                             cudaProfilerStart (runtime, then driver), a launch,
 *                             cudaProfilerStop, a launch. Prints each launch's correlation
 *                             id as `in=ID` (inside a step or the profiler's span: `step=ID`
 *                             or `profiler=ID`) or `out=ID`
 *   time CLASS N              N calls of one class (launch, event-query, event-record,
 *                             wait-event, stream-query, memcpy-async, nvtx: a push and a
 *                             pop) on one thread; prints `ns_per_call=` (what the library's own
 *                             work costs per call, on a CUPTI that costs nothing)
 * Prints `calls=N launches=N` (what it fired) for the test to compare with the trace. */
#include <cupti.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <generated_nvtx_meta.h>

#include "fake_cupti.h"

#define RT CUPTI_CB_DOMAIN_RUNTIME_API
#define RT_ID(name) CUPTI_RUNTIME_TRACE_CBID_##name

static atomic_ulong calls, launches;
static const char *const kernels[] = {"_Z5firstv", "_Z6secondv", "_Z5thirdv"};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static void call(CUpti_CallbackId cbid, const char *name, const void *params)
{
    fake_cupti_call(RT, cbid, name, params, NULL, 0);
    atomic_fetch_add(&calls, 1);
}

static void launch(int k, cudaStream_t stream, uint32_t stream_id)
{
    cudaLaunchKernel_v7000_params p = {.func = kernels[k], .stream = stream};
    fake_cupti_call(RT, RT_ID(cudaLaunchKernel_v7000), "cudaLaunchKernel", &p, kernels[k],
                    stream_id);
    atomic_fetch_add(&calls, 1);
    atomic_fetch_add(&launches, 1);
}

static void push(const char *name)
{
    nvtxRangePushA_params p = {.message = name};
    fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangePushA, "nvtxRangePushA", &p, NULL);
}

static void pop(void)
{
    fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangePop, "nvtxRangePop", NULL, NULL);
}

typedef struct worker_arg {
    int index, calls;
} worker_arg;

static void *worker(void *p)
{
    const worker_arg *a = p;
    cudaStream_t streams[2] = {(cudaStream_t)(uintptr_t)(0x1000 + 16 * a->index),
                               (cudaStream_t)(uintptr_t)(0x1008 + 16 * a->index)};
    cudaEvent_t ev = (cudaEvent_t)(uintptr_t)(0x9000 + 16 * a->index);
    char buf[64];
    for (int i = 0; i < a->calls; i++) {
        int s = i % 2;
        launch(i % 3, streams[s], (uint32_t)(100 + 2 * a->index + s));
        cudaEventRecord_v3020_params rec = {.event = ev, .stream = streams[s]};
        call(RT_ID(cudaEventRecord_v3020), "cudaEventRecord", &rec);
        cudaEventQuery_v3020_params q = {.event = ev};
        call(RT_ID(cudaEventQuery_v3020), "cudaEventQuery", &q);
        cudaStreamWaitEvent_v3020_params w = {.stream = streams[1 - s], .event = ev};
        call(RT_ID(cudaStreamWaitEvent_v3020), "cudaStreamWaitEvent", &w);
        cudaStreamQuery_v3020_params sq = {.stream = streams[s]};
        call(RT_ID(cudaStreamQuery_v3020), "cudaStreamQuery", &sq);
        cudaMemcpyAsync_v3020_params cp = {.dst = buf, .src = buf, .count = 64,
                                           .kind = cudaMemcpyHostToDevice, .stream = streams[s]};
        call(RT_ID(cudaMemcpyAsync_v3020), "cudaMemcpyAsync", &cp);
        push("step");
        pop();
        if (i % 100 == 99) call(RT_ID(cudaDeviceSynchronize_v3020), "cudaDeviceSynchronize", NULL);
    }
    return NULL;
}

static void run_threads(int n, int calls_each)
{
    pthread_t *t = calloc((size_t)n, sizeof *t);
    worker_arg *a = calloc((size_t)n, sizeof *a);
    for (int i = 0; i < n; i++) {
        a[i] = (worker_arg){i, calls_each};
        pthread_create(&t[i], NULL, worker, &a[i]);
    }
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    free(t);
    free(a);
}

/* ---- burst -------------------------------------------------------------------------- */

static pthread_barrier_t burst_barrier;
static double burst_us[256];

static void *burst_worker(void *p)
{
    int i = (int)(intptr_t)p;
    pthread_barrier_wait(&burst_barrier);
    double t0 = now_us();
    launch(0, (cudaStream_t)(uintptr_t)0x2, 7);
    burst_us[i] = now_us() - t0;
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void burst(int n)
{
    pthread_t t[256];
    if (n > 256) n = 256;
    pthread_barrier_init(&burst_barrier, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, burst_worker, (void *)(intptr_t)i);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    qsort(burst_us, (size_t)n, sizeof *burst_us, cmp_double);
    printf("first_call_us median=%.1f max=%.1f\n", burst_us[n / 2], burst_us[n - 1]);
}

/* ---- NVTX ---------------------------------------------------------------------------- */

static void nvtx_names(int n)
{
    char name[32];  /* one buffer, a new text every time: as "step %d" formatted per step */
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "step %d", i);
        push(name);
        pop();
    }
}

static void nvtx_limits(void)
{
    for (int i = 0; i < 70; i++) push("deep");
    for (int i = 0; i < 71; i++) pop();     /* the last one has no push */
    static nvtxRangeId_t ids[5000];
    for (int i = 0; i < 5000; i++) {
        nvtxRangeStartA_params p = {.message = "open"};
        ids[i] = (nvtxRangeId_t)(i + 1);
        fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangeStartA, "nvtxRangeStartA", &p, &ids[i]);
    }
    for (int i = 0; i < 5000; i++) {
        nvtxRangeEnd_params p = {.id = ids[i]};
        fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangeEnd, "nvtxRangeEnd", &p, NULL);
    }
    nvtxRangeEnd_params never = {.id = 999999};  /* started before capture */
    fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangeEnd, "nvtxRangeEnd", &never, NULL);
    /* A domain created before capture started: its name is unknown. */
    nvtxEventAttributes_t attr = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                                  .messageType = NVTX_MESSAGE_TYPE_ASCII,
                                  .message.ascii = "in-domain"};
    nvtxDomainRangePushEx_params dp = {.domain = (nvtxDomainHandle_t)(uintptr_t)0x77,
                                       .core = {.eventAttrib = &attr}};
    fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, "nvtxDomainRangePushEx", &dp, NULL);
    fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxDomainRangePop, "nvtxDomainRangePop", NULL, NULL);
    for (int i = 0; i < 3; i++) push("left open");
}

/* ---- capture scope ------------------------------------------------------------------- */

#define DR CUPTI_CB_DOMAIN_DRIVER_API

static uint32_t scope_launch(int k, const char *tag)
{
    cudaLaunchKernel_v7000_params p = {.func = kernels[k], .stream = (cudaStream_t)0x10};
    uint32_t corr = fake_cupti_call(RT, RT_ID(cudaLaunchKernel_v7000), "cudaLaunchKernel", &p,
                                    kernels[k], 3);
    atomic_fetch_add(&calls, 1);
    atomic_fetch_add(&launches, 1);
    printf("%s=%u\n", tag, corr);
    return corr;
}

static void profiler(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name)
{
    fake_cupti_call(domain, cbid, name, NULL, NULL, 0);
}

static void scope_steps(int steps)
{
    for (int i = 0; i < steps; i++) {
        scope_launch(0, "out");
        nvtxRangeId_t id = (nvtxRangeId_t)(1000 + i);
        if (i % 2 == 0) {
            push("step");
        } else {
            nvtxRangeStartA_params p = {.message = "step"};
            fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangeStartA, "nvtxRangeStartA", &p, &id);
        }
        push("inner");
        scope_launch(1, "step");
        pop();
        uint64_t now;
        cuptiGetTimestamp(&now);
        fake_cupti_next_kernel(now + 50000000, now + 51000000);  /* runs after the step */
        scope_launch(2, "step");
        if (i % 2 == 0) {
            pop();
        } else {
            nvtxRangeEnd_params p = {.id = id};
            fake_cupti_nvtx(CUPTI_CBID_NVTX_nvtxRangeEnd, "nvtxRangeEnd", &p, NULL);
        }
        push("between");
        pop();
    }
    profiler(RT, RT_ID(cudaProfilerStart_v4000), "cudaProfilerStart");
    profiler(DR, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, "cuProfilerStart");
    scope_launch(0, "profiler");
    profiler(RT, RT_ID(cudaProfilerStop_v4000), "cudaProfilerStop");
    profiler(DR, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, "cuProfilerStop");
    scope_launch(1, "out");
}

static void *busy_worker(void *p)
{
    worker_arg a = {(int)(intptr_t)p, 1 << 30};
    return worker(&a);
}

/* ---- how the process ends ------------------------------------------------------------ */

/* end exit-term@...: a SIGTERM that lands inside the exit's finish, at a point chosen, not
 * left to chance. getpid() is defined here: the executable's definition wins over the C
 * library's for libstreamcheck.so too, so the library's own calls of it during the exit
 * become the points. Armed for the Nth call on the exiting thread; the signal goes to that
 * thread (tgkill), so its handler runs inside the call, before it returns. An exit that
 * makes fewer calls gets it from term_after_exit, an exit handler registered before CUDA
 * started, which runs after the library's (handlers run last-registered first). */
static atomic_int term_countdown;   /* calls to go; 0: not armed */
static atomic_long exiting_tid;

static void term_here(void)
{
    syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)syscall(SYS_gettid), SIGTERM);
    /* Delivered before the system call returns; under ThreadSanitizer, which holds a signal
     * back until the thread next blocks, here. */
    struct timespec moment = {0, 1000000};
    nanosleep(&moment, NULL);
}

__attribute__((visibility("default"))) pid_t getpid(void)
{
    if (atomic_load(&term_countdown) > 0 && syscall(SYS_gettid) == atomic_load(&exiting_tid) &&
        atomic_fetch_sub(&term_countdown, 1) == 1)
        term_here();
    return (pid_t)syscall(SYS_getpid);
}

static void term_after_exit(void)
{
    if (atomic_exchange(&term_countdown, 0) > 0) term_here();
}

static void late_handler(void)
{
    int fd = open(getenv("FAKE_DRIVER_LATE_HANDLER"), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0 && write(fd, "ran\n", 4) != 4) fprintf(stderr, "late_handler: short write\n");
    if (fd >= 0) close(fd);
}

static atomic_int race_go;

/* As `timeout` or a job scheduler would: to the process, at a moment nobody chose. */
static void *term_racer(void *arg)
{
    long us = (long)(intptr_t)arg;
    while (!atomic_load(&race_go)) {
    }
    double until = now_us() + (us > 0 ? rand() % us : 0);
    while (now_us() < until) {
    }
    kill((pid_t)syscall(SYS_getpid), SIGTERM);
    return NULL;
}

static void exit_term_at(const char *point)
{
    fflush(stdout);
    atomic_store(&exiting_tid, syscall(SYS_gettid));
    if (strncmp(point, "getpid:", 7) == 0) {
        atomic_store(&term_countdown, atoi(point + 7));
    } else if (strcmp(point, "flush") == 0) {
        fake_cupti_signal_in_flush(SIGTERM);
    } else if (strncmp(point, "race:", 5) == 0) {
        srand((unsigned)(now_us() * 1000));
        sigset_t term, old;  /* the racer must send it, not take it */
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &term, &old);
        pthread_t t;
        if (pthread_create(&t, NULL, term_racer, (void *)(intptr_t)atol(point + 5)) == 0)
            pthread_detach(t);  /* never joined: the run ends by its signal or by the exit */
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        atomic_store(&race_go, 1);
    }
    exit(7);
}

static void end_by(const char *how, int threads, int n_calls)
{
    int to_worker = strcmp(how, "term-worker") == 0, busy = strcmp(how, "term-busy") == 0;
    int sig = strcmp(how, "term") == 0 || to_worker || busy ? SIGTERM
            : strcmp(how, "int") == 0 ? SIGINT : strcmp(how, "hup") == 0 ? SIGHUP : 0;
    if (sig) {
        /* the workers never stop: the signal comes in the middle of their calls */
        pthread_t t;
        for (int i = 0; i < threads; i++)
            pthread_create(&t, NULL, busy_worker, (void *)(intptr_t)i);
        while (atomic_load(&calls) < (unsigned long)n_calls) {     /* calls fired so far */
            struct timespec tick = {0, 1000000};
            nanosleep(&tick, NULL);
        }
        printf("signal=%d\n", sig);
        fflush(stdout);
        if (busy) {
            /* FAKE_DRIVER_LATE_HANDLER=PATH: an exit handler registered now, after CUDA
             * started (so it runs before the library's), that writes "ran" to PATH */
            if (getenv("FAKE_DRIVER_LATE_HANDLER")) atexit(late_handler);
            raise(sig);     /* to this thread, which then goes on as the program would */
            return;         /* main returns: exit(), with the workers calling */
        }
        if (to_worker)
            pthread_kill(t, sig);   /* the last worker made */
        else
            kill(getpid(), sig);
        for (;;)
            pause();    /* the signal ends the process */
    }
    run_threads(threads, n_calls);
    printf("calls=%lu launches=%lu\n", atomic_load(&calls), atomic_load(&launches));
    fflush(stdout);
    if (strcmp(how, "term-then-exit") == 0)
        kill(getpid(), SIGTERM);    /* the exit below races the signal's finish */
    if (strncmp(how, "exit-term@", 10) == 0)
        exit_term_at(how + 10);
    if (strcmp(how, "exit-late-handler") == 0)
        atexit(late_handler);   /* after CUDA started: runs first, with no signal to wait for */
    if (strcmp(how, "_exit") == 0)
        _exit(7);
    if (strcmp(how, "_Exit") == 0)
        _Exit(7);
    if (strcmp(how, "quick_exit") == 0)
        quick_exit(7);
    exit(7);
}

/* One call of a `time` class; the class is looked up once, not on every call. */
enum time_class { TIME_LAUNCH, TIME_EVENT_QUERY, TIME_EVENT_RECORD, TIME_WAIT_EVENT,
                  TIME_STREAM_QUERY, TIME_MEMCPY_ASYNC, TIME_NVTX, TIME_UNKNOWN };

static enum time_class time_class_of(const char *cls)
{
    static const char *const names[] = {"launch", "event-query", "event-record", "wait-event",
                                        "stream-query", "memcpy-async", "nvtx"};
    for (int i = 0; i < TIME_UNKNOWN; i++)
        if (strcmp(cls, names[i]) == 0) return (enum time_class)i;
    return TIME_UNKNOWN;
}

static void time_class(const char *cls, int n)
{
    cudaStream_t s = (cudaStream_t)(uintptr_t)0x1000, other = (cudaStream_t)(uintptr_t)0x1008;
    cudaEvent_t ev = (cudaEvent_t)(uintptr_t)0x9000;
    cudaEventQuery_v3020_params q = {.event = ev};
    cudaEventRecord_v3020_params rec = {.event = ev, .stream = s};
    cudaStreamWaitEvent_v3020_params w = {.stream = other, .event = ev};
    cudaStreamQuery_v3020_params sq = {.stream = s};
    char buf[64];
    cudaMemcpyAsync_v3020_params cp = {.dst = buf, .src = buf, .count = 64,
                                       .kind = cudaMemcpyHostToDevice, .stream = s};
    enum time_class c = time_class_of(cls);
    if (c == TIME_UNKNOWN) {
        fprintf(stderr, "sc_fake_driver: no time class %s\n", cls);
        exit(2);
    }
    for (int pass = 0; pass < 2; pass++) {  /* the first pass warms up */
        double t0 = now_us();
        for (int i = 0; i < n; i++) {
            switch (c) {
            case TIME_LAUNCH: launch(0, s, 7); break;
            case TIME_EVENT_QUERY: call(RT_ID(cudaEventQuery_v3020), "cudaEventQuery", &q); break;
            case TIME_EVENT_RECORD:
                call(RT_ID(cudaEventRecord_v3020), "cudaEventRecord", &rec);
                break;
            case TIME_WAIT_EVENT:
                call(RT_ID(cudaStreamWaitEvent_v3020), "cudaStreamWaitEvent", &w);
                break;
            case TIME_STREAM_QUERY:
                call(RT_ID(cudaStreamQuery_v3020), "cudaStreamQuery", &sq);
                break;
            case TIME_MEMCPY_ASYNC:
                call(RT_ID(cudaMemcpyAsync_v3020), "cudaMemcpyAsync", &cp);
                break;
            default:
                push("step");
                pop();
                break;
            }
        }
        if (pass) printf("ns_per_call=%.1f\n", (now_us() - t0) * 1000.0 / n);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int (*init)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "InitializeInjection");
    if (!init) {
        fprintf(stderr, "sc_fake_driver: run me with LD_PRELOAD=libstreamcheck.so\n");
        return 2;
    }
    if (strcmp(mode, "ignored-term") == 0)
        signal(SIGTERM, SIG_IGN);   /* the program's choice, made before CUDA starts */
    if (strcmp(mode, "end") == 0)
        atexit(term_after_exit);    /* before CUDA: runs after the library's exit handler */
    int a = argc > 2 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 0;
    if (strcmp(mode, "fork-work") == 0) {
        /* A child forked before CUDA starts may start it itself: it writes its own trace. */
        fflush(stdout);
        pid_t child = fork();
        if (child < 0) return 2;
        int status = 0;
        if (child > 0 && (waitpid(child, &status, 0) != child || status != 0)) return 2;
        if (child > 0) printf("child=%d parent=%d\n", (int)child, (int)getpid());
    }
    init();     /* what cuInit does */
    int c = argc > 4 ? atoi(argv[4]) : 0;
    if (strcmp(mode, "work") == 0 || strcmp(mode, "fork-work") == 0) {
        run_threads(a, b);
    } else if (strcmp(mode, "burst") == 0) {
        launch(0, (cudaStream_t)(uintptr_t)0x1, 7);     /* the main thread started first */
        burst(a);
    } else if (strcmp(mode, "churn") == 0) {
        for (int r = 0; r < a; r++) run_threads(b, c);
    } else if (strcmp(mode, "nvtx-names") == 0) {
        nvtx_names(a);
    } else if (strcmp(mode, "nvtx-limits") == 0) {
        nvtx_limits();
    } else if (strcmp(mode, "abort-busy") == 0) {
        pthread_t t;
        for (int i = 0; i < a; i++) pthread_create(&t, NULL, busy_worker, (void *)(intptr_t)i);
        /* Several buffers' worth of calls first, however busy the machine: at least 30 ms
         * and 4000 calls (at most 10 s of waiting for them). */
        struct timespec wait = {0, 30 * 1000000};
        nanosleep(&wait, NULL);
        for (int i = 0; i < 1000 && atomic_load(&calls) < 4000; i++) {
            struct timespec tick = {0, 10 * 1000000};
            nanosleep(&tick, NULL);
        }
        abort();
    } else if (strcmp(mode, "ignored-term") == 0) {
        run_threads(a, b);
        kill(getpid(), SIGTERM);    /* ignored, as the program asked: it goes on */
    } else if (strcmp(mode, "end") == 0) {
        end_by(argc > 2 ? argv[2] : "exit", b, c);
        return 1;   /* term-busy: after its signal, as lifecycle's main returns */
    } else if (strcmp(mode, "scope") == 0) {
        scope_steps(a);
    } else if (strcmp(mode, "time") == 0) {
        time_class(argc > 2 ? argv[2] : "launch", argc > 3 ? atoi(argv[3]) : 100000);
    } else if (strcmp(mode, "abort") == 0) {
        run_threads(a, b);
        call(RT_ID(cudaDeviceSynchronize_v3020), "cudaDeviceSynchronize", NULL);
        printf("calls=%lu launches=%lu\n", atomic_load(&calls), atomic_load(&launches));
        fflush(stdout);
        abort();
    } else {
        fprintf(stderr, "usage: sc_fake_driver work|burst|churn|nvtx-names|nvtx-limits|abort ...\n");
        return 2;
    }
    printf("calls=%lu launches=%lu\n", atomic_load(&calls), atomic_load(&launches));
    return 0;
}
