#include "analyze/stage_clock.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef struct sc_stage_clock {
    bool on;
    struct rusage last;         /* at the mark before */
    sc_stage_rows rows;
} sc_stage_clock;

static _Thread_local sc_stage_clock sc_clock;

static uint64_t sc_tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* A "Name:   N kB" line's N, in bytes; 0 when the line is not in `status`. */
static uint64_t sc_status_kb(const char *status, const char *name)
{
    const char *at = strstr(status, name);
    unsigned long long kb;
    return at && sscanf(at + strlen(name), " %llu kB", &kb) == 1 ? (uint64_t)kb * 1024u : 0;
}

/* The process's resident memory and its peak so far (VmRSS, VmHWM of /proc/self/status);
 * zeros without /proc. Read with open and read, not stdio: nothing allocated between
 * stages. */
static void sc_resident(uint64_t *rss, uint64_t *peak)
{
    *rss = *peak = 0;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    *rss = sc_status_kb(buf, "\nVmRSS:");
    *peak = sc_status_kb(buf, "\nVmHWM:");
}

void sc_stage_clock_begin(void)
{
    memset(&sc_clock, 0, sizeof sc_clock);
    if (getrusage(RUSAGE_THREAD, &sc_clock.last) == 0)
        sc_clock.on = true;
}

void sc_stage_mark(const char *name)
{
    if (!sc_clock.on)
        return;
    struct rusage now;
    if (getrusage(RUSAGE_THREAD, &now) != 0)
        return;
    sc_stage_rows *r = &sc_clock.rows;
    if (r->n < SC_STAGE_MAX) {
        const struct rusage *was = &sc_clock.last;
        sc_stage_row *row = &r->rows[r->n++];
        *row = (sc_stage_row){
            .name = name,
            .user_ns = sc_tv_ns(now.ru_utime) - sc_tv_ns(was->ru_utime),
            .sys_ns = sc_tv_ns(now.ru_stime) - sc_tv_ns(was->ru_stime),
            .minor_faults = (uint64_t)(now.ru_minflt - was->ru_minflt),
        };
        sc_resident(&row->rss_bytes, &row->peak_bytes);
    } else {
        r->dropped++;
    }
    /* taken again after reading the memory: that read is not the next stage's */
    if (getrusage(RUSAGE_THREAD, &now) == 0)
        sc_clock.last = now;
}

bool sc_stage_clock_on(void)
{
    return sc_clock.on;
}

void sc_stage_rows_add(const sc_stage_rows *rows)
{
    if (!sc_clock.on)
        return;
    sc_stage_rows *r = &sc_clock.rows;
    for (size_t i = 0; i < rows->n; i++) {
        if (r->n < SC_STAGE_MAX) {
            r->rows[r->n] = rows->rows[i];
            r->rows[r->n++].beside = true;
        } else
            r->dropped++;
    }
    r->dropped += rows->dropped;
}

void sc_stage_clock_end(sc_stage_rows *out)
{
    if (out && sc_clock.on)
        *out = sc_clock.rows;
    else if (out)
        memset(out, 0, sizeof *out);
    if (sc_clock.on)    /* off, it holds nothing to clear: the report ends it for every trace */
        memset(&sc_clock, 0, sizeof sc_clock);
}
