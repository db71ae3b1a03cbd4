/* The load/report pipeline: see pipeline.h. */
#include "report/pipeline.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct sc_pipe_state {
    const sc_pipeline *p;
    pthread_mutex_t lock;
    pthread_cond_t changed;     /* an item is done, or one was consumed */
    size_t next;                /* the next item to claim */
    size_t consumed;            /* items 0 .. consumed-1 are consumed */
    bool *done;
} sc_pipe_state;

static void *sc_pipe_worker(void *arg)
{
    sc_pipe_state *s = arg;
    const sc_pipeline *p = s->p;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (s->next < p->n && s->next >= s->consumed + p->window)
            pthread_cond_wait(&s->changed, &s->lock);
        if (s->next >= p->n)
            break;
        size_t i = s->next++;
        pthread_mutex_unlock(&s->lock);
        p->work(p->ctx, i);
        pthread_mutex_lock(&s->lock);
        s->done[i] = true;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void sc_pipe_serial(const sc_pipeline *p)
{
    for (size_t i = 0; i < p->n; i++) {
        p->work(p->ctx, i);
        if (p->consume)
            p->consume(p->ctx, i);
    }
}

void sc_pipeline_run(const sc_pipeline *p)
{
    size_t jobs = p->jobs < p->n ? p->jobs : p->n;
    sc_pipe_state s = {.p = p};
    pthread_t *threads = jobs > 1 ? calloc(jobs, sizeof *threads) : NULL;
    s.done = threads ? calloc(p->n, sizeof *s.done) : NULL;
    if (!threads || !s.done) {
        free(threads);
        free(s.done);
        sc_pipe_serial(p);
        return;
    }
    sc_pipeline q = *p;
    if (q.window < jobs)
        q.window = jobs;
    s.p = &q;
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.changed, NULL);
    size_t started = 0;
    for (size_t t = 0; t < jobs; t++)
        if (pthread_create(&threads[started], NULL, sc_pipe_worker, &s) == 0)
            started++;
    for (size_t i = 0; i < q.n; i++) {
        pthread_mutex_lock(&s.lock);
        if (started == 0 && s.next == i) {
            s.next++;               /* no worker: this thread does the item itself */
            pthread_mutex_unlock(&s.lock);
            q.work(q.ctx, i);
            pthread_mutex_lock(&s.lock);
            s.done[i] = true;
        }
        while (!s.done[i])
            pthread_cond_wait(&s.changed, &s.lock);
        pthread_mutex_unlock(&s.lock);
        if (q.consume)
            q.consume(q.ctx, i);
        pthread_mutex_lock(&s.lock);
        s.consumed = i + 1;
        pthread_cond_broadcast(&s.changed);
        pthread_mutex_unlock(&s.lock);
    }
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    pthread_cond_destroy(&s.changed);
    pthread_mutex_destroy(&s.lock);
    free(threads);
    free(s.done);
}

size_t sc_pipeline_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (size_t)CPU_COUNT(&set);
    return 1;
}
