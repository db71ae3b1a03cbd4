#include "preload/clock.h"

#include <stdio.h>
#include <string.h>

#include "preload/options.h"

sc_clock_line sc_clock_now_line;

/* A pair is good to about 50 ns (the CUPTI read between two counter reads). The rate comes
 * from the pair of up to SC_CLOCK_WINDOW rounds ago (the agent's rounds are 100 ms apart:
 * seconds, so 100 ns of error in the pairs is 3e-8 of the rate), the base from the latest;
 * the line is used only until the next round, so the time it gives drifts from CUPTI's by
 * the rate's error, and any change in CUPTI's clock's own rate (NTP slewing it, at most
 * 500 ppm, in practice a few ppm), over at most one round: well under a microsecond. */
enum { SC_CLOCK_WINDOW = 32, SC_CLOCK_TRIES = 5, SC_CLOCK_MAX_RESTARTS = 3 };
#define SC_CLOCK_MIN_WINDOW_NS 20000000ull /* 20 ms: the rate to 1e-5 before it is used */
/* A pair this far from the line in use (ten times what the analysis can ignore) means CUPTI's
 * clock moved other than the counter did: stepped (settimeofday), slewed hard, or a clock
 * that is not steady at all (a sandbox's CLOCK_REALTIME was seen running a sawtooth 470 us
 * off the counter). The line and its window are dropped, calls read CUPTI's clock until two
 * new pairs make a line again, and after SC_CLOCK_MAX_RESTARTS such pairs for good: a window
 * spanning a step would give a wrong rate for seconds. */
#define SC_CLOCK_RESTART_NS 20000ull

typedef struct sc_clock_pair {
    uint64_t counter, ns;
} sc_clock_pair;

static atomic_bool sc_clock_usable;
/* The agent's alone: only sc_clock_calibrate, on the agent's thread, touches them. */
static sc_clock_pair sc_clock_pairs[SC_CLOCK_WINDOW];
static unsigned sc_clock_n_pairs;
static _Atomic uint64_t sc_clock_worst;
static atomic_uint sc_clock_restarts;

/* Whether the kernel keeps time by this counter: it then checked that every CPU's counter
 * runs at one rate and in step. */
static bool sc_clock_kernel_uses_counter(void)
{
#if defined(__x86_64__)
    const char *want = "tsc";
#elif defined(__aarch64__)
    const char *want = "arch_sys_counter";
#else
    return false;
#endif
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f) return false;
    char source[64] = "";
    bool ok = fgets(source, sizeof source, f) != NULL;
    fclose(f);
    source[strcspn(source, "\n")] = '\0';
    return ok && strcmp(source, want) == 0;
}

/* Calls read CUPTI's clock again: seq is left odd, as while the line is written, until a
 * line is installed (seq only grows: a reader between its two loads sees it change). */
static void sc_clock_uninstall(void)
{
    uint32_t seq = atomic_load_explicit(&sc_clock_now_line.seq, memory_order_relaxed);
    if (!(seq & 1)) atomic_store_explicit(&sc_clock_now_line.seq, seq + 1, memory_order_release);
}

bool sc_clock_start(void)
{
    /* a capture starts with no line and no pairs (the agent is not running yet) */
    sc_clock_uninstall();
    sc_clock_n_pairs = 0;
    atomic_store(&sc_clock_worst, 0);
    atomic_store(&sc_clock_restarts, 0);
    bool usable = sc_opts.tsc && sc_clock_kernel_uses_counter();
    atomic_store(&sc_clock_usable, usable);
    return usable;
}

/* The tightest of a few (counter, CUPTI) pairs: the counter halfway across the CUPTI read. */
static sc_clock_pair sc_clock_pair_now(void)
{
    sc_clock_pair best = {0, 0};
    uint64_t best_span = UINT64_MAX;
    for (int i = 0; i < SC_CLOCK_TRIES; i++) {
        uint64_t before = sc_clock_counter();
        uint64_t ns = sc_clock_cupti();
        uint64_t after = sc_clock_counter();
        if (after - before < best_span) {
            best_span = after - before;
            best = (sc_clock_pair){before + (after - before) / 2, ns};
        }
    }
    return best;
}

static void sc_clock_install(uint64_t base_counter, uint64_t base_ns, uint64_t mult)
{
    uint32_t seq = atomic_load_explicit(&sc_clock_now_line.seq, memory_order_relaxed) | 1;
    atomic_store_explicit(&sc_clock_now_line.seq, seq, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&sc_clock_now_line.base_counter, base_counter, memory_order_relaxed);
    atomic_store_explicit(&sc_clock_now_line.base_ns, base_ns, memory_order_relaxed);
    atomic_store_explicit(&sc_clock_now_line.mult, mult, memory_order_relaxed);
    atomic_store_explicit(&sc_clock_now_line.seq, seq + 1, memory_order_release);
}

void sc_clock_calibrate(void)
{
    if (!atomic_load(&sc_clock_usable) || !sc_cupti_api.GetTimestamp) return;
    sc_clock_pair now = sc_clock_pair_now();
    /* the agent's rounds come every 100 ms, and sooner when woken: a pair every 50 ms at most,
     * so that the window spans seconds (a clock stepped back is checked at once) */
    if (sc_clock_n_pairs > 0) {
        uint64_t last_ns = sc_clock_pairs[(sc_clock_n_pairs - 1) % SC_CLOCK_WINDOW].ns;
        if (now.ns >= last_ns && now.ns < last_ns + 50000000ull) return;
    }
    uint32_t seq = atomic_load_explicit(&sc_clock_now_line.seq, memory_order_relaxed);
    if (seq != 0 && !(seq & 1)) {  /* how far the line in use has come from CUPTI's clock */
        uint64_t on_line = sc_clock_on_line(
            atomic_load_explicit(&sc_clock_now_line.base_counter, memory_order_relaxed),
            atomic_load_explicit(&sc_clock_now_line.base_ns, memory_order_relaxed),
            atomic_load_explicit(&sc_clock_now_line.mult, memory_order_relaxed), now.counter);
        uint64_t error = on_line > now.ns ? on_line - now.ns : now.ns - on_line;
        if (error > atomic_load_explicit(&sc_clock_worst, memory_order_relaxed))
            atomic_store_explicit(&sc_clock_worst, error, memory_order_relaxed);
        if (error > SC_CLOCK_RESTART_NS) {
            sc_clock_uninstall();
            sc_clock_n_pairs = 0;   /* this pair starts the window afresh */
            if (atomic_fetch_add(&sc_clock_restarts, 1) + 1 >= SC_CLOCK_MAX_RESTARTS) {
                atomic_store(&sc_clock_usable, false);
                return;
            }
        }
    }
    unsigned slot = sc_clock_n_pairs % SC_CLOCK_WINDOW;
    sc_clock_pair oldest = sc_clock_n_pairs < SC_CLOCK_WINDOW ? sc_clock_pairs[0]
                                                             : sc_clock_pairs[slot];
    sc_clock_pairs[slot] = now;
    sc_clock_n_pairs++;
    if (sc_clock_n_pairs == 1 || now.ns < oldest.ns + SC_CLOCK_MIN_WINDOW_NS ||
        now.counter <= oldest.counter)
        return;
    uint64_t ticks = now.counter - oldest.counter;
    unsigned __int128 mult = ((unsigned __int128)(now.ns - oldest.ns) << 32) / ticks;
    /* a counter between 0.1 and 20 GHz, or the pairs are not what they seem: stay on CUPTI */
    if (mult < ((unsigned __int128)1 << 32) / 20 || mult > ((unsigned __int128)10 << 32)) return;
    sc_clock_install(now.counter, now.ns, (uint64_t)mult);
}

uint64_t sc_clock_worst_error_ns(void)
{
    return atomic_load_explicit(&sc_clock_worst, memory_order_relaxed);
}

unsigned sc_clock_restart_count(void)
{
    return atomic_load_explicit(&sc_clock_restarts, memory_order_relaxed);
}

bool sc_clock_given_up(void)
{
    return atomic_load_explicit(&sc_clock_restarts, memory_order_relaxed) >= SC_CLOCK_MAX_RESTARTS;
}
