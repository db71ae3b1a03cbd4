/* streamcheck's own thread: everything that must not run on an application thread.
 *
 * It writes the record buffers threads hand over (tracebuf.c), writes idle threads' buffers
 * every 500 ms, keeps a pool of per-thread blocks ready for new threads (thread.c) and hands
 * CUPTI's buffers over after a device-wide synchronization (activity.c) instead of the
 * synchronizing thread. Started with the capture (at cuInit), stopped first at exit; it
 * blocks every signal. If it cannot start, the same work happens where it did before: on the
 * thread that fills a buffer, on CUPTI's buffer thread and on the synchronizing thread. */
#ifndef SC_PRELOAD_AGENT_H
#define SC_PRELOAD_AGENT_H

#include <stdbool.h>

/* Returns 0, or -1 when the thread could not be made. */
int sc_agent_start(void);
/* Does what is queued, then stops the thread and waits for it (called on the agent itself,
 * by a finish it runs: only marks it stopped). */
void sc_agent_stop(void);
bool sc_agent_running(void);
/* Whether the calling thread is the agent. */
bool sc_agent_is_self(void);

/* Wake-ups, all async-signal-safe and non-blocking. */
void sc_agent_wake(void); /* a buffer was handed over */
void sc_agent_request_flush_idle(void);
void sc_agent_request_checkpoint(void); /* a device-wide synchronization returned */
void sc_agent_request_pool(void);       /* a thread took a block from the pool */

/* A terminating signal (capture.c): the agent runs finish(sig), off the signal handler, and
 * stops. Async-signal-safe; false when no agent runs to do it. */
bool sc_agent_request_finish(int sig, void (*finish)(int sig));

/* The crash path: waits up to max_ms for the agent to finish what it holds (a batch of
 * buffers, a checkpoint asked for before the crash). */
void sc_agent_wait_idle(int max_ms);
/* A forked child: the thread does not exist there. */
void sc_agent_forget(void);

#endif
