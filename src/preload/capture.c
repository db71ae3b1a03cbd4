#include "preload/capture.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preload/activity.h"
#include "preload/agent.h"
#include "preload/callbacks.h"
#include "preload/clock.h"
#include "preload/crash_report.h"
#include "preload/cupti_loader.h"
#include "preload/loss.h"
#include "preload/modules.h"
#include "preload/nvtx.h"
#include "preload/options.h"
#include "preload/out_path.h"
#include "preload/python.h"
#include "preload/scope.h"
#include "preload/stack.h"
#include "preload/strings.h"
#include "preload/thread.h"
#include "preload/tracebuf.h"
#include "streamcheck/trace_format.h"
#include "trace/record.h"
#include "trace/writer.h"

extern char **environ;

enum sc_state { SC_IDLE, SC_RUNNING, SC_FINISHED, SC_OFF };
static _Atomic int sc_state = SC_IDLE;
static pthread_mutex_t sc_capture_lock = PTHREAD_MUTEX_INITIALIZER;
static sc_writer sc_trace_writer;
static _Atomic pid_t sc_capture_pid;  /* the process that records: not a forked child */
static _Atomic uint64_t sc_capture_t0;   /* CUPTI's clock when capture started */

/* streamcheck speaks on stderr only for what the user must know, prefixed, once each. */
static void sc_say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    int saved = errno;
    fprintf(stderr, "streamcheck: %s\n", line);
    errno = saved;
}

static void sc_note(uint32_t code, const char *text)
{
    sc_rec_note r = {.code = code};
    sc_tbuf_put(SC_REC_NOTE, &r, sizeof r, text, strlen(text) + 1);
}

/* Calls' times came from the CPU's counter (clock.h): if they drifted from CUPTI's clock, by
 * which GPU records are timed, by more than the 2 us that the analysis can ignore, the user
 * is told, and by how much; and whether CUPTI's clock moved so far from the counter that the
 * line was made afresh, or the counter left for CUPTI's clock (clock.c). */
static void sc_note_clock_drift(void)
{
    uint64_t worst = sc_clock_worst_error_ns();
    if (worst <= 2000) return;
    unsigned restarts = sc_clock_restart_count();
    char text[300];
    if (sc_clock_given_up())
        snprintf(text, sizeof text,
                 "CUPTI's clock moved apart from the CPU's counter %u times (up to %.1f us at "
                 "a check: a stepped or unsteady clock), and every call since read CUPTI's "
                 "clock; calls before that may be off by as much (STREAMCHECK_TSC=0 reads "
                 "CUPTI's clock at every call)", restarts, (double)worst / 1000.0);
    else
        snprintf(text, sizeof text,
                 "host call times came up to %.1f us from CUPTI's clock%s (STREAMCHECK_TSC=0 "
                 "reads CUPTI's clock at every call)", (double)worst / 1000.0,
                 restarts ? ", which moved apart from the CPU's counter: the line through it "
                            "was made afresh"
                          : "");
    sc_say("%s", text);
    sc_note(SC_NOTE_INFO, text);
}

static const char *sc_exe_base(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    buf[n > 0 ? n : 0] = '\0';
    const char *slash = strrchr(buf, '/');
    return slash ? slash + 1 : n > 0 ? buf : "process";
}

/* Compact records need a 2.0 reader; without them the file is a 1.5 one, which older
 * report tools read too (trace_format.h). */
static int sc_writer_open_here(const char *dir, const char *base, char *err, size_t err_size)
{
    uint16_t major = sc_opts.compact ? SC_TRACE_VERSION_MAJOR : SC_TRACE_FULL_MAJOR;
    uint16_t minor = sc_opts.compact ? SC_TRACE_VERSION_MINOR : SC_TRACE_FULL_MINOR;
    return sc_writer_open_version(&sc_trace_writer, dir, base, getpid(), major, minor, err,
                                  err_size);
}

/* The output folder's pattern is expanded here, in the process that starts CUDA, so a
 * forked child's %p is its own pid. An unwritable or unusable output folder loses nothing:
 * the trace goes to the temporary folder and the user is told where. */
static int sc_open_trace(void)
{
    char exe[4096], err[2600], fallback[512], dir[sizeof sc_opts.out_dir], why[512];
    char base[320], rank[64];
    sc_out_rank_tag(rank, sizeof rank);     /* one trace per rank, named with it */
    snprintf(base, sizeof base, "%.255s%s", sc_exe_base(exe, sizeof exe), rank);
    if (sc_out_path_expand(sc_opts.out_dir, getpid(), dir, sizeof dir, why, sizeof why) != 0) {
        snprintf(err, sizeof err, "output folder %s: %s", sc_opts.out_dir, why);
    } else {
        if (why[0]) sc_say("output folder %s: %s", sc_opts.out_dir, why);
        sc_out_path_make_parents(dir);
        if (sc_writer_open_here(dir, base, err, sizeof err) == 0)
            return 0;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(fallback, sizeof fallback, "%s/streamcheck-%d", tmp && *tmp ? tmp : "/tmp",
             (int)getuid());
    char err2[512];
    if (sc_writer_open_here(fallback, base, err2, sizeof err2) == 0) {
        sc_say("%s; writing the trace to %s instead", err, fallback);
        return 0;
    }
    sc_say("%s; %s; nothing is recorded", err, err2);
    return -1;
}

static void sc_write_process(uint32_t attach)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now = 0;
    if (sc_cupti_api.GetTimestamp) sc_cupti_api.GetTimestamp(&now);
    atomic_store_explicit(&sc_capture_t0, now, memory_order_relaxed);
    sc_rec_process r = {
        .pid = (uint32_t)getpid(), .ppid = (uint32_t)getppid(), .start_ns = now,
        .start_unix_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
        .attach = attach,
    };
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    sc_tbuf_put(SC_REC_PROCESS, &r, sizeof r, exe, strlen(exe) + 1);
}

/* Variables that change how CUDA schedules work (serializing-env and friends), and the ones
 * that say which rank of a job this process is: torchrun's RANK, LOCAL_RANK, WORLD_SIZE,
 * Open MPI's OMPI_COMM_WORLD_*, MPICH/Hydra's PMI_*, SLURM's SLURM_PROCID/SLURM_NTASKS
 * (the report names processes by rank and merges a job's ranks: src/report/ranks.c). The
 * '=' in each entry keeps RANK from matching RANKFILE. */
static void sc_write_env(void)
{
    static const char *const prefixes[] = {
        "CUDA_", "PYTORCH_", "NCCL_", "TORCH_", "RANK=", "LOCAL_RANK=", "WORLD_SIZE=",
        "LOCAL_WORLD_SIZE=", "OMPI_COMM_WORLD_RANK=", "OMPI_COMM_WORLD_SIZE=",
        "OMPI_COMM_WORLD_LOCAL_RANK=", "PMI_RANK=", "PMI_SIZE=", "SLURM_PROCID=",
        "SLURM_NTASKS=", "SLURM_LOCALID=",
    };
    for (char **e = environ; e && *e; e++) {
        for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
            if (strncmp(*e, prefixes[i], strlen(prefixes[i])) != 0) continue;
            if (strncmp(*e, "CUDA_INJECTION64_PATH=", 22) == 0) break;
            /* One too long for a record is counted (SC_LOSS_TOO_LARGE), not cut. */
            sc_tbuf_put(SC_REC_ENV, NULL, 0, *e, strlen(*e) + 1);
            break;
        }
    }
}

/* A crash must leave what was recorded: on a fatal signal the buffers are written out,
 * waiting a bounded time at most (a lock held by the crashed code stays held), with the
 * LOSS records after them, and the signal then does what it would have done. Installed
 * only where the program left the default action, so a program's own handlers are never
 * replaced. */
static const int sc_fatal_signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};

static void sc_on_fatal_signal(int sig, siginfo_t *info, void *ucontext)
{
    int saved = errno;
    sc_crash_report(sig, info, ucontext);
    sc_tbuf_flush_fatal();
    errno = saved;
    /* SA_RESETHAND restored the default action and the signal is blocked while we run:
     * this raise is delivered, with the default action, as soon as the handler returns
     * (a fault would also simply recur). */
    raise(sig);
}

/* What timeout, torchrun, SLURM and Ctrl-C send: with the default action the process would
 * end without its exit handlers, the trace .partial and CUPTI's buffers lost. The handler
 * only hands the signal to the agent and returns: the thread it interrupted may hold a lock
 * (a driver's, a record's) that the finish needs. The agent finishes the trace (the whole
 * exit path: CUPTI flushed, END written, the file renamed), then sends the signal again,
 * whose default action (SA_RESETHAND restored it) ends the process with the status it would
 * have had. Meanwhile the program runs on: an exit it reaches waits for that end
 * (sc_capture_finish), and a finish that cannot complete is cut short after
 * SC_TERM_WAIT_MS, with what the crash path can write.
 *
 * One thread finishes the trace: the first to claim it, an exit (exit's handler, _exit,
 * quick_exit, exec, on any thread) or the agent for a signal. Neither waits for the other
 * while holding anything the other needs. The agent that finds the finish claimed returns
 * at once (the exit that claimed it stops the agent, finishes, and ends the run by the
 * signal); an exit that finds it claimed waits for it to be done, holding nothing of the
 * library's (the agent's finish ends the run before that, or its watchdog does). A signal
 * that comes while a finish is under way is left to that finish, which ends the run by it
 * once the trace is complete; one that comes after, takes its default action at once.
 * (Before, an exit looked for a signal first and took the capture's lock after: a signal
 * that came in between went to the agent, which the exit then stopped and waited for while
 * the agent waited for the exit's lock or paused for good, until the watchdog ended the run
 * with a .partial trace; or the agent left on the stop without the finish it was handed,
 * and the exit went on with the signal lost. A signal that came after the exit had stopped
 * the agent ended the run in the middle of the finish, the trace .partial.) */
static const int sc_terminating_signals[] = {SIGTERM, SIGINT, SIGHUP};
static atomic_int sc_pending_signal;    /* set by the handler: the run ends by it */
#define SC_TERM_WAIT_MS 10000

enum sc_finish_state { SC_FINISH_NONE, SC_FINISH_UNDER_WAY, SC_FINISH_DONE };
static atomic_int sc_finish_state;
/* initial-exec, as the library's other thread-locals: no allocation on a first use */
static __thread __attribute__((tls_model("initial-exec"))) bool sc_finishing; /* claimed it */

static void sc_finish_run(uint32_t reason);
static void sc_cuda_resolve(void);

static void *sc_term_watchdog(void *arg)
{
    int sig = (int)(intptr_t)arg;
    struct timespec wait = {SC_TERM_WAIT_MS / 1000, 0};
    while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
    }
    sc_tbuf_flush_fatal();
    kill(getpid(), sig);
    return NULL;
}

/* The recording process's first claim wins; a forked child never claims. */
static bool sc_finish_claim(void)
{
    if (getpid() != atomic_load(&sc_capture_pid)) return false;
    int none = SC_FINISH_NONE;
    if (!atomic_compare_exchange_strong(&sc_finish_state, &none, SC_FINISH_UNDER_WAY))
        return false;
    sc_finishing = true;
    return true;
}

/* The trace is complete. A terminating signal that came meanwhile ends the run now, as it
 * would have without the library: its handler ran, so its default action is back (to the
 * process: the agent blocks every signal). The second look catches one whose handler saw
 * the finish still under way just before it was marked done. */
static void sc_finish_done(void)
{
    int sig = atomic_load(&sc_pending_signal);
    if (sig) kill(getpid(), sig);
    atomic_store(&sc_finish_state, SC_FINISH_DONE);
    if (!sig && (sig = atomic_load(&sc_pending_signal)) != 0) kill(getpid(), sig);
}

static void sc_finish_for_signal(int sig)
{
    if (!sc_finish_claim()) return;     /* an exit has it, and ends the run by the signal */
    pthread_t watchdog;
    if (pthread_create(&watchdog, NULL, sc_term_watchdog, (void *)(intptr_t)sig) == 0)
        pthread_detach(watchdog);
    sc_finish_run(SC_END_SIGNAL);
    sc_finish_done();
}

/* A signal while a finish is claimed: under way, that finish ends the run by it; done, the
 * signal does now what it would have done (SA_RESETHAND restored the default, and the raise
 * is delivered once the handler returns). Whether it was. */
static bool sc_signal_left_to_finish(int sig)
{
    int state = atomic_load(&sc_finish_state);
    if (state == SC_FINISH_DONE) raise(sig);
    return state != SC_FINISH_NONE;
}

static void sc_on_terminating_signal(int sig)
{
    int saved = errno;
    int none = 0;
    atomic_compare_exchange_strong(&sc_pending_signal, &none, sig);
    /* Looked at again when no agent takes it: an exit may have claimed the finish and
     * stopped the agent meanwhile. */
    if (sc_signal_left_to_finish(sig) || sc_agent_request_finish(sig, sc_finish_for_signal) ||
        sc_signal_left_to_finish(sig)) {
        errno = saved;
        return;
    }
    sc_tbuf_flush_fatal();  /* no agent: what the crash path can do from here */
    errno = saved;
    raise(sig);     /* default action again (SA_RESETHAND), delivered once we return */
}

/* `sa` on each signal whose action is still the default. */
static void sc_install(const int *signals, size_t n, struct sigaction sa)
{
    sa.sa_flags |= SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < n; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        sigaction(signals[i], &sa, NULL);
    }
}

static void sc_install_fatal_handlers(void)
{
    sc_install(sc_fatal_signals, sizeof sc_fatal_signals / sizeof *sc_fatal_signals,
               (struct sigaction){.sa_sigaction = sc_on_fatal_signal, .sa_flags = SA_SIGINFO});
    sc_install(sc_terminating_signals,
               sizeof sc_terminating_signals / sizeof *sc_terminating_signals,
               (struct sigaction){.sa_handler = sc_on_terminating_signal});
}

static void sc_start_locked(uint32_t attach)
{
    char err[512];
    int cupti_ok = sc_cupti_load(sc_opts.cupti_path, err, sizeof err) == 0;
    if (sc_open_trace() != 0) {
        sc_state = SC_OFF;
        return;
    }
    /* Everything a thread's first call needs is made here, before any callback: the string
     * table, a pool of per-thread blocks, and the agent that keeps the pool full. */
    sc_strings_start();
    sc_thread_pool_start();
    sc_tbuf_start(&sc_trace_writer);
    sc_agent_start();   /* without it, buffers are written by the threads that fill them */
    atomic_store(&sc_capture_pid, getpid());
    sc_cuda_resolve();
    sc_write_process(attach);
    sc_write_env();
    sc_modules_update();
    /* Before any callback: the scope is closed until it opens. Its range's name is taken
     * from the general pool, so that a flood of NVTX names cannot crowd it out. */
    sc_scope_start(sc_opts.capture_range[0] ? sc_string_id(sc_opts.capture_range) : 0);
    sc_install_fatal_handlers();
    if (!cupti_ok) {
        sc_say("%s; only the process is recorded", err);
        sc_note(SC_NOTE_CUPTI_UNAVAILABLE, err);
        sc_state = SC_RUNNING;
        return;
    }
    sc_stack_init();
    sc_python_start();
    sc_clock_start();   /* the agent takes its pairs */
    CUptiResult rc = sc_callbacks_start();
    if (rc != CUPTI_SUCCESS) {
        /* Another profiler (nsys, ncu, compute-sanitizer, torch.profiler) holds the only
         * subscription. Activity records may still be had: keep what works. */
        snprintf(err, sizeof err,
                 "CUPTI is already in use by another profiler (%s): API calls, call sites "
                 "and host blocking are not recorded",
                 sc_cupti_error(rc));
        sc_say("%s", err);
        sc_note(SC_NOTE_CUPTI_TAKEN, err);
    }
    char failed[400];
    if (sc_activity_start(failed, sizeof failed) > 0) {
        snprintf(err, sizeof err, "activity kinds not recorded: %s", failed);
        sc_say("%s", err);
        sc_note(SC_NOTE_ACTIVITY_FAILED, err);
    }
    sc_state = SC_RUNNING;
}

bool sc_capture_running(uint64_t *start_ns)
{
    if (atomic_load_explicit(&sc_state, memory_order_acquire) != SC_RUNNING) return false;
    if (start_ns) *start_ns = atomic_load_explicit(&sc_capture_t0, memory_order_relaxed);
    return true;
}

void sc_capture_start(uint32_t attach)
{
    pthread_mutex_lock(&sc_capture_lock);
    if (sc_state == SC_IDLE) sc_start_locked(attach);
    pthread_mutex_unlock(&sc_capture_lock);
}

/* The driver's calls the exit's synchronization makes, looked up when capture starts (cuInit
 * has loaded the driver by then), so that the finish takes no loader lock: an exit handler of
 * a library being unloaded may hold it while it waits for a signal's finish (exits.c). Looked
 * up again at the finish where the driver was not loaded at the start. */
static struct {
    CUresult (*_Atomic push)(CUcontext);
    CUresult (*_Atomic pop)(CUcontext *);
    CUresult (*_Atomic sync)(void);
} sc_cuda;

static void sc_cuda_resolve(void)
{
    if (atomic_load(&sc_cuda.sync)) return;
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda) return;
    /* the driver stays loaded: the handle is kept */
    atomic_store(&sc_cuda.push, (CUresult(*)(CUcontext))dlsym(cuda, "cuCtxPushCurrent_v2"));
    atomic_store(&sc_cuda.pop, (CUresult(*)(CUcontext *))dlsym(cuda, "cuCtxPopCurrent_v2"));
    atomic_store(&sc_cuda.sync, (CUresult(*)(void))dlsym(cuda, "cuCtxSynchronize"));
}

/* Waits for the device work still in flight, so that its records exist before the
 * flush. Only contexts the program created, only at exit, and never cuInit. */
static void sc_sync_contexts_now(void)
{
    sc_cuda_resolve();
    CUresult (*push)(CUcontext) = atomic_load(&sc_cuda.push);
    CUresult (*pop)(CUcontext *) = atomic_load(&sc_cuda.pop);
    CUresult (*sync)(void) = atomic_load(&sc_cuda.sync);
    if (!push || !pop || !sync) return;
    CUcontext ctx[64];
    int n = sc_callbacks_contexts(ctx, 64);
    for (int i = 0; i < n; i++) {
        if (push(ctx[i]) != CUDA_SUCCESS) continue;
        sync();
        CUcontext popped;
        pop(&popped);
    }
}

static atomic_bool sc_sync_done;

static void *sc_sync_thread(void *arg)
{
    (void)arg;
    sc_callbacks_self(true);
    sc_sync_contexts_now();
    atomic_store(&sc_sync_done, true);
    return NULL;
}

/* The same, bounded: a kernel that never ends (or a driver lock held by a thread a signal
 * stopped) must not hang the program's exit. The wait runs on a thread of its own; after
 * SC_EXIT_SYNC_MS the exit goes on without it, and the trace says so. */
#define SC_EXIT_SYNC_MS 5000
static void sc_sync_contexts(void)
{
    atomic_store(&sc_sync_done, false);
    pthread_t th;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* the program's signals are not its */
    int rc = pthread_create(&th, NULL, sc_sync_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        sc_sync_contexts_now();
        return;
    }
    for (int ms = 0; ms < SC_EXIT_SYNC_MS && !atomic_load(&sc_sync_done); ms++) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    if (atomic_load(&sc_sync_done)) {
        pthread_join(th, NULL);
        return;
    }
    pthread_detach(th);
    char text[160];
    snprintf(text, sizeof text, "device work was still running %d s after the program ended: "
             "what it did after that is not in the trace", SC_EXIT_SYNC_MS / 1000);
    sc_say("%s", text);
    sc_note(SC_NOTE_EXIT_SYNC_TIMEOUT, text);
}

/* Another thread claimed the finish: the agent for a signal (its finish ends the run, or its
 * watchdog does) or another exit. Nothing of the library's is held here. */
static void sc_finish_wait(void)
{
    while (atomic_load(&sc_finish_state) != SC_FINISH_DONE) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
}

void sc_capture_finish(uint32_t reason)
{
    /* Nothing to finish in a forked child or before capture started. On the thread that
     * is finishing (a program's signal handler that calls _exit in the middle of it), the
     * exit goes on: waiting there would wait for itself. */
    if (sc_finishing || getpid() != atomic_load(&sc_capture_pid)) return;
    if (!sc_finish_claim()) {
        sc_finish_wait();
        return;
    }
    sc_finish_run(reason);
    sc_finish_done();
}

void sc_capture_exit_gate(void)
{
    if (sc_finishing || !atomic_load(&sc_pending_signal) ||
        getpid() != atomic_load(&sc_capture_pid))
        return;
    sc_finish_wait();
}

/* The whole finish, on the thread that claimed it. */
static void sc_finish_run(uint32_t reason)
{
    pthread_mutex_lock(&sc_capture_lock);
    if (sc_state != SC_RUNNING) {
        pthread_mutex_unlock(&sc_capture_lock);
        return;
    }
    sc_state = SC_FINISHED;
    int saved_errno = errno;
    /* First: from here on the exit path does the agent's work itself, in order. */
    sc_agent_stop();
    sc_callbacks_self(true);
    uint64_t dropped = 0;
    if (sc_cupti_api.handle) {
        sc_sync_contexts();
        dropped = sc_activity_finish();
        /* Unsubscribing changes CUPTI's state while other threads may be inside its
         * callbacks. When a signal ends the run right after this finish, that buys nothing:
         * the process ends before CUPTI is torn down. Calls made meanwhile are recorded
         * until the close and counted as after-close from then on, as those of a thread
         * still calling at an exit are. At an exit CUPTI is told, before its own exit
         * handlers and the runtime's teardown run. */
        if (!atomic_load(&sc_pending_signal)) sc_callbacks_stop();
    }
    sc_modules_update();
    uint64_t now = 0;
    if (sc_cupti_api.GetTimestamp) sc_cupti_api.GetTimestamp(&now);
    sc_nvtx_count_unclosed();
    sc_note_clock_drift();
    sc_scope_finish(now);
    /* Every buffered record first, then what was lost, then END, written directly: END must
     * be the file's last record, whichever thread's buffer held what. */
    uint64_t unwritten = sc_tbuf_close();
    /* counted once nothing more is taken: threads still calling (a signal's exit) add none */
    uint64_t api_records = sc_tbuf_api_records();
    uint8_t loss[SC_LOSS_BYTES];
    sc_writer_append(&sc_trace_writer, loss, sc_loss_encode(loss));
    /* A terminating signal that came before END ends the run (sc_finish_done): END says so,
     * whoever finished. */
    int sig = atomic_load(&sc_pending_signal);
    if (sig) reason = SC_END_SIGNAL;
    sc_rec_end end = {.end_ns = now, .dropped_records = dropped, .api_records = api_records,
                      .activity_records = sc_activity_records(), .reason = reason,
                      .signal = (uint32_t)sig};
    uint8_t rec[sizeof(sc_record_header) + sizeof end];
    sc_writer_append(&sc_trace_writer, rec,
                     sc_record_encode(rec, SC_REC_END, &end, sizeof end, NULL, 0));
    char err[512];
    if (sc_trace_writer.failed)
        sc_say("writing %s failed (disk full?); the trace holds what was written before, "
               "%llu records were not written",
               sc_trace_writer.partial_path, (unsigned long long)unwritten);
    else if (sc_writer_finish(&sc_trace_writer, err, sizeof err) != 0)
        sc_say("%s", err);
    else if (sc_opts.summary && (reason == SC_END_EXIT || reason == SC_END_SIGNAL))
        /* The library only records: the analysis runs outside the application, in the
         * report tool (or the wrapper, which sets STREAMCHECK_SUMMARY=0 and summarizes
         * every process of the run at once). */
        sc_say("trace written: %s (report: streamcheck-report %s)",
               sc_trace_writer.final_path, sc_trace_writer.final_path);
    errno = saved_errno;
    pthread_mutex_unlock(&sc_capture_lock);
}

void sc_capture_forked_child(void)
{
    /* CUDA cannot be used in a child of a process that initialized it; what the parent
     * recorded is the parent's to write. The child stays silent and writes nothing. */
    pthread_mutex_init(&sc_capture_lock, NULL);
    /* The parent's finish (under way on another of its threads, or done) and the signal it
     * was for are the parent's: a signal here takes the child's own path. */
    atomic_store(&sc_finish_state, SC_FINISH_NONE);
    atomic_store(&sc_pending_signal, 0);
    sc_finishing = false;
    if (sc_state == SC_RUNNING) {
        sc_agent_forget();
        sc_writer_abandon(&sc_trace_writer);
        sc_tbuf_drop_all();
        sc_thread_drop_all();
        sc_strings_reset();
        sc_modules_reset();
        sc_loss_reset();
        sc_scope_reset();
        sc_state = SC_OFF;
    }
}
