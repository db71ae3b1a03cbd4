/* The time of a call, in CUPTI's clock (cuptiGetTimestamp, which GPU records are converted
 * to), read where it is cheap.
 *
 * Reading CUPTI's clock is a clock_gettime: on the H200 host about 46 ns in a loop, but about
 * 115 ns a read inside a call's callbacks (the read's ordering fence waits for the driver's
 * stores in flight), and two reads a call were all of streamcheck's cost above the CUPTI
 * floor for event records, queries and waits (tools/bench/overhead; README, "Overhead").
 * The CPU's time-stamp counter costs about 20 ns and needs no fence: a call's times come
 * from it, converted by a line through (counter, CUPTI time) pairs that the agent thread
 * takes every round (agent.c), the rate from a window of seconds, the base from the latest
 * pair. Converted times stay within a microsecond of CUPTI's own (clock.c says why; the GPU
 * suite checks it).
 *
 * Until two pairs lie far enough apart (the agent's first two rounds, about 200 ms into the
 * capture), on a machine whose kernel does not keep time by the counter (then it may differ
 * between CPUs), and with STREAMCHECK_TSC=0, every read is CUPTI's. */
#ifndef SC_PRELOAD_CLOCK_H
#define SC_PRELOAD_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "preload/cupti_loader.h"

/* The line ns = base_ns + (counter - base_counter) * mult / 2^32, under a sequence count:
 * 0 while there is none, odd while the agent writes it. */
typedef struct sc_clock_line {
    _Atomic uint32_t seq;
    _Atomic uint64_t base_counter, base_ns, mult;
} sc_clock_line;

extern sc_clock_line sc_clock_now_line;

static inline uint64_t sc_clock_counter(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return 0;
#endif
}

/* The line's time at counter c. */
static inline uint64_t sc_clock_on_line(uint64_t base_counter, uint64_t base_ns, uint64_t mult,
                                        uint64_t c)
{
    /* signed: another CPU's counter, read before the base was taken, may be just below it */
    __int128 delta = (__int128)(int64_t)(c - base_counter) * (__int128)mult;
    return base_ns + (uint64_t)(int64_t)(delta >> 32);
}

static inline uint64_t sc_clock_cupti(void)
{
    uint64_t now = 0;
    sc_cupti_api.GetTimestamp(&now);
    return now;
}

/* Now, in CUPTI's clock. */
static inline uint64_t sc_clock_now(void)
{
    uint32_t seq = atomic_load_explicit(&sc_clock_now_line.seq, memory_order_acquire);
    if (__builtin_expect(seq == 0 || (seq & 1), 0)) return sc_clock_cupti();
    uint64_t c = sc_clock_counter();
    uint64_t base_counter = atomic_load_explicit(&sc_clock_now_line.base_counter, memory_order_relaxed);
    uint64_t base_ns = atomic_load_explicit(&sc_clock_now_line.base_ns, memory_order_relaxed);
    uint64_t mult = atomic_load_explicit(&sc_clock_now_line.mult, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (__builtin_expect(atomic_load_explicit(&sc_clock_now_line.seq, memory_order_relaxed) != seq, 0))
        return sc_clock_cupti();
    return sc_clock_on_line(base_counter, base_ns, mult, c);
}

/* Whether the counter may be used here (STREAMCHECK_TSC, the kernel's clock source), decided
 * once, when the capture starts; returns that. */
bool sc_clock_start(void);

/* A pair (counter, CUPTI time), and the line through it: the agent's, every round. */
void sc_clock_calibrate(void);

/* The largest distance seen between the line's time and CUPTI's, at the pairs taken while a
 * line was in use, in ns (for the GPU suite, through the trace's summary). */
uint64_t sc_clock_worst_error_ns(void);
/* How many times a pair lay so far from the line (clock.c: SC_CLOCK_RESTART_NS) that the
 * line was dropped and made afresh, and whether the counter was then left for good: every
 * call since read CUPTI's clock. */
unsigned sc_clock_restart_count(void);
bool sc_clock_given_up(void);

#endif
