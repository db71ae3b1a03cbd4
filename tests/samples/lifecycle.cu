// lifecycle: a program that ends, forks, execs or threads in the ways real programs do, so the
// GPU tests can check that streamcheck loses nothing and changes nothing when it does.
//
//   lifecycle exit              work, print the checksum, return 0 (the baseline)
//   lifecycle abort             work, then abort()
//   lifecycle kill              work, then raise(SIGKILL)
//   lifecycle term              work, then raise(SIGTERM) (what timeout and SLURM send)
//   lifecycle int               work, then raise(SIGINT) (Ctrl-C)
//   lifecycle hup               work, then raise(SIGHUP) (a closed terminal)
//   lifecycle term-busy         work, then a thread launches kernels without end while main
//                               raises SIGTERM
//   lifecycle busy              work, then a thread launches kernels without end; main prints
//                               "busy" and waits to be killed from outside (as timeout does)
//   lifecycle _exit             work, then _exit(0): no exit handlers
//   lifecycle _Exit             work, then _Exit(3): no exit handlers, a status of its own
//   lifecycle quick-exit        work, then quick_exit(0): only at_quick_exit handlers
//   lifecycle fork              work, fork(); the child does no CUDA, prints and exit(0)s
//   lifecycle fork-cuda-child   fork() before any CUDA; the child works and exits, then the
//                               parent works and exits
//   lifecycle exec [PROG ARG...] work, then execv(PROG) (default /bin/true)
//   lifecycle nocuda            no CUDA at all
//   lifecycle threads           work, then 4 host threads each launching kernels on their own
//                               non-blocking stream; joined, then exit
//   lifecycle thread-alive      no CUDA on the main thread: a worker thread does the work and
//                               then blocks for good; main returns while it is still alive
//
// "Work" is LAUNCHES kernel launches on the legacy stream, a synchronous cudaMemcpy back and a
// cudaDeviceSynchronize. Its checksum is computed from what the GPU wrote, in integers, so it
// is the same on every run and the tests can compare runs with and without streamcheck.
// stdout holds "key value" lines; every line a test compares is free of pids, except the
// lines that say "pid" (fork) on purpose. stdout is flushed before every fork, exec, abort
// and kill, so nothing buffered is printed twice or lost.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sample_util.h"

enum {
    LAUNCHES = 4,         // kernels per work() call: 1 fill + 3 mix
    ELEMENTS = 1 << 16,
    THREADS = 256,
    WORKERS = 4,          // host threads in `threads`
    WORKER_LAUNCHES = 8,  // kernels each worker launches on its own stream
};

__global__ void fill_kernel(uint32_t *d, int n, uint32_t seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = (uint32_t)i * 2654435761u + seed;
}

// An integer mixing step (xorshift-multiply): cheap, exact, and every round changes every
// element, so a kernel that did not run changes the checksum.
__global__ void mix_kernel(uint32_t *d, int n, uint32_t round)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint32_t v = d[i] ^ (round * 0x9e3779b9u);
        v ^= v >> 16;
        v *= 0x7feb352du;
        v ^= v >> 15;
        d[i] = v;
    }
}

static uint64_t checksum(const uint32_t *h, int n)
{
    uint64_t sum = 0;
    for (int i = 0; i < n; ++i)
        sum = sum * 1099511628211ull + h[i];  // order matters: a misplaced element shows
    return sum;
}

// fill + (launches - 1) mixes on stream s, copied back; returns the checksum of the result.
static uint64_t run_kernels(cudaStream_t s, uint32_t seed, int launches)
{
    uint32_t *d = nullptr;
    uint32_t *h = (uint32_t *)malloc(ELEMENTS * sizeof(uint32_t));
    if (!h) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    SC_CHECK(cudaMalloc(&d, ELEMENTS * sizeof(uint32_t)));
    const int blocks = (ELEMENTS + THREADS - 1) / THREADS;
    fill_kernel<<<blocks, THREADS, 0, s>>>(d, ELEMENTS, seed);
    SC_CHECK_LAUNCH();
    for (int r = 1; r < launches; ++r) {
        mix_kernel<<<blocks, THREADS, 0, s>>>(d, ELEMENTS, (uint32_t)r);
        SC_CHECK_LAUNCH();
    }
    if (s == 0) {
        SC_CHECK(cudaMemcpy(h, d, ELEMENTS * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    } else {
        SC_CHECK(cudaMemcpyAsync(h, d, ELEMENTS * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
        SC_CHECK(cudaStreamSynchronize(s));
    }
    SC_CHECK(cudaFree(d));
    uint64_t sum = checksum(h, ELEMENTS);
    free(h);
    return sum;
}

// The work every CUDA mode does first: something for streamcheck to record.
static void work(const char *who, uint32_t seed)
{
    uint64_t sum = run_kernels(0, seed, LAUNCHES);
    SC_CHECK(cudaDeviceSynchronize());
    printf("%skernels %d\n", who, LAUNCHES);
    printf("%schecksum %016llx\n", who, (unsigned long long)sum);
    fflush(stdout);
}

static int mode_fork(void)
{
    work("", 1);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        // No CUDA here: a forked child of a CUDA process may not use it. exit(), not
        // _exit(): the exit handlers (streamcheck's among them) run in the child too, and
        // must leave the parent's trace alone.
        printf("child pid %d\n", (int)getpid());
        fflush(stdout);
        exit(0);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child) {
        perror("waitpid");
        return 1;
    }
    printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int mode_fork_cuda_child(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        work("child ", 2);
        exit(0);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child) {
        perror("waitpid");
        return 1;
    }
    printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    work("parent ", 3);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int mode_exec(int argc, char **argv)
{
    work("", 1);
    static char default_prog[] = "/bin/true";
    char *default_argv[] = {default_prog, nullptr};
    char **prog_argv = argc > 2 ? argv + 2 : default_argv;
    printf("exec %s\n", prog_argv[0]);
    fflush(stdout);
    execv(prog_argv[0], prog_argv);
    fprintf(stderr, "execv %s: %s\n", prog_argv[0], strerror(errno));
    return 127;
}

// Which CUDA libraries this process has mapped: a program that never calls CUDA has none,
// and a preloaded tool must not change that (it would mean it started CUDA itself).
static int mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, name) != nullptr;
    fclose(f);
    return found;
}

static int mode_nocuda(void)
{
    printf("nocuda\n");
    printf("libcuda mapped %s\n", mapped("libcuda.so") ? "yes" : "no");
    printf("libcupti mapped %s\n", mapped("libcupti") ? "yes" : "no");
    return 0;
}

struct worker {
    pthread_t thread;
    int index;
    uint64_t sum;
};

static void *worker_main(void *p)
{
    worker *w = (worker *)p;
    cudaStream_t s;
    SC_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    w->sum = run_kernels(s, 100 + (uint32_t)w->index, WORKER_LAUNCHES);
    SC_CHECK(cudaStreamDestroy(s));
    return nullptr;
}

static int mode_threads(void)
{
    work("", 1);
    worker workers[WORKERS];
    for (int i = 0; i < WORKERS; ++i) {
        workers[i].index = i;
        int rc = pthread_create(&workers[i].thread, nullptr, worker_main, &workers[i]);
        if (rc != 0) {
            fprintf(stderr, "pthread_create: %s\n", strerror(rc));
            return 1;
        }
    }
    for (int i = 0; i < WORKERS; ++i)
        pthread_join(workers[i].thread, nullptr);
    SC_CHECK(cudaDeviceSynchronize());
    printf("workers %d\n", WORKERS);
    printf("worker kernels %d\n", WORKER_LAUNCHES);
    for (int i = 0; i < WORKERS; ++i)
        printf("worker %d checksum %016llx\n", i, (unsigned long long)workers[i].sum);
    return 0;
}

// A worker that starts CUDA and outlives main's return: daemon threads of this kind (a
// loader, a server loop) are common, and their records are still in their buffers at exit.
static pthread_mutex_t alive_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t alive_cond = PTHREAD_COND_INITIALIZER;
static int alive_done;

static void *alive_main(void *)
{
    work("worker ", 1);
    pthread_mutex_lock(&alive_lock);
    alive_done = 1;
    pthread_cond_signal(&alive_cond);
    pthread_mutex_unlock(&alive_lock);
    for (;;)
        pause();
    return nullptr;
}

static int mode_thread_alive(void)
{
    pthread_t t;
    int rc = pthread_create(&t, nullptr, alive_main, nullptr);
    if (rc != 0) {
        fprintf(stderr, "pthread_create: %s\n", strerror(rc));
        return 1;
    }
    pthread_detach(t);
    pthread_mutex_lock(&alive_lock);
    while (!alive_done)
        pthread_cond_wait(&alive_cond, &alive_lock);
    pthread_mutex_unlock(&alive_lock);
    printf("main returns with the worker alive\n");
    return 0;
}

// A training loop stopped by timeout: a thread keeps launching while the signal comes.
static void *busy_main(void *)
{
    cudaStream_t s;
    SC_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (uint32_t i = 0;; ++i)
        run_kernels(s, 200 + i, WORKER_LAUNCHES);
    return nullptr;
}

static int start_busy_thread(void)
{
    pthread_t t;
    int rc = pthread_create(&t, nullptr, busy_main, nullptr);
    if (rc != 0) fprintf(stderr, "pthread_create: %s\n", strerror(rc));
    return rc;
}

static int mode_term_busy(void)
{
    work("", 1);
    if (start_busy_thread() != 0) return 1;
    usleep(200 * 1000);     // the thread is launching by now
    printf("term while busy\n");
    fflush(stdout);
    raise(SIGTERM);
    return 1;  // not reached
}

// The signal comes from another process, to whichever thread the kernel picks.
static int mode_busy(void)
{
    work("", 1);
    if (start_busy_thread() != 0) return 1;
    usleep(200 * 1000);
    printf("busy\n");
    fflush(stdout);
    for (;;) pause();
}

static int raise_after_work(int sig)
{
    work("", 1);
    raise(sig);
    return 1;  // not reached
}

static int usage(void)
{
    fprintf(stderr, "usage: lifecycle exit|abort|kill|term|int|hup|term-busy|busy|_exit|_Exit|"
                    "quick-exit|fork|"
                    "fork-cuda-child|exec [PROG ARG...]|nocuda|threads|thread-alive\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    const char *mode = argv[1];
    if (strcmp(mode, "exit") == 0) {
        work("", 1);
        return 0;
    }
    if (strcmp(mode, "abort") == 0) {
        work("", 1);
        abort();
    }
    if (strcmp(mode, "kill") == 0) {
        work("", 1);
        raise(SIGKILL);
        return 1;  // not reached
    }
    if (strcmp(mode, "term") == 0) return raise_after_work(SIGTERM);
    if (strcmp(mode, "int") == 0) return raise_after_work(SIGINT);
    if (strcmp(mode, "hup") == 0) return raise_after_work(SIGHUP);
    if (strcmp(mode, "term-busy") == 0) return mode_term_busy();
    if (strcmp(mode, "busy") == 0) return mode_busy();
    if (strcmp(mode, "_exit") == 0) {
        work("", 1);
        _exit(0);
    }
    if (strcmp(mode, "_Exit") == 0) {
        work("", 1);
        _Exit(3);
    }
    if (strcmp(mode, "quick-exit") == 0) {
        work("", 1);
        quick_exit(0);
    }
    if (strcmp(mode, "fork") == 0) return mode_fork();
    if (strcmp(mode, "fork-cuda-child") == 0) return mode_fork_cuda_child();
    if (strcmp(mode, "exec") == 0) return mode_exec(argc, argv);
    if (strcmp(mode, "nocuda") == 0) return mode_nocuda();
    if (strcmp(mode, "threads") == 0) return mode_threads();
    if (strcmp(mode, "thread-alive") == 0) return mode_thread_alive();
    return usage();
}
