#include "trace/load_calls.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/grow.h"

/* Makes room for `more` frames; the table starts with one 0, where calls without frames
 * point (so sc_call_frames never gives NULL, and a 0-frame call reads no frame of another). */
static int sc_frames_hold(sc_call_loader *ld, sc_trace *t, size_t more)
{
    if (!t->call_frames) {
        ld->cap_frames = 64;
        t->call_frames = malloc(ld->cap_frames * sizeof *t->call_frames);
        if (!t->call_frames)
            return -1;
        t->call_frames[0] = 0;
        t->n_call_frames = 1;
    }
    /* a call keeps a 32-bit position */
    if (more > (size_t)UINT32_MAX - t->n_call_frames)
        return -1;
    return SC_GROW(t->call_frames, ld->cap_frames, t->n_call_frames + more, 64) ? 0 : -1;
}

/* sc_calls_add where it is not the inline case: frames, or an array to grow. */
int sc_calls_add_slow(sc_call_loader *ld, sc_trace *t, const sc_rec_api *r,
                      const uint8_t *frames)
{
    if (sc_frames_hold(ld, t, r->n_frames) != 0)
        return -1;
    if (!SC_GROW(t->calls, ld->cap_calls, t->n_calls + 1, 64))
        return -1;
    sc_api_call *c = &t->calls[t->n_calls++];
    *c = (sc_api_call){.rec = sc_call_narrow(r), .name_at = (uint32_t)r->domain << 16 | r->cbid};
    if (r->n_frames) {
        c->frames_at = (uint32_t)t->n_call_frames;
        memcpy(t->call_frames + t->n_call_frames, frames, r->n_frames * sizeof(uint64_t));
        t->n_call_frames += r->n_frames;
    }
    return 0;
}

int sc_name_entry_cmp(const void *a, const void *b)
{
    uint32_t x = ((const sc_name_entry *)a)->key, y = ((const sc_name_entry *)b)->key;
    return x < y ? -1 : x > y;
}

/* sc_calls_name's table of keys already looked up: a key, the position it names. */
#define SC_NAME_MEMO 64
typedef struct sc_name_memo {
    uint32_t key, at;
    bool known;
} sc_name_memo;

int sc_calls_name(sc_trace *t, const sc_name_entry *names, size_t n)
{
    /* entry 0 is "?"; entry 1 + i is names[i]'s (a call keeps a 32-bit position) */
    if (n >= UINT32_MAX)
        return -1;
    t->call_names = malloc((n + 1) * sizeof *t->call_names);
    if (!t->call_names)
        return -1;
    t->call_names[0] = "?";
    for (size_t i = 0; i < n; i++)
        t->call_names[1 + i] = names[i].name;
    t->n_call_names = n + 1;
    /* A run calls a few functions again and again: each key's answer is kept in a small
     * table before the search (which answers the same for the same key every time). */
    sc_name_memo memo[SC_NAME_MEMO] = {{0}};
    for (size_t i = 0; i < t->n_calls; i++) {
        uint32_t k = t->calls[i].name_at;
        sc_name_memo *m = &memo[(k ^ k >> 16) % SC_NAME_MEMO];
        if (!m->known || m->key != k) {
            sc_name_entry key = {.key = k};
            const sc_name_entry *e =
                n ? bsearch(&key, names, n, sizeof key, sc_name_entry_cmp) : NULL;
            m->key = k;
            m->at = e ? (uint32_t)(e - names) + 1 : 0;
            m->known = true;
        }
        t->calls[i].name_at = m->at;
    }
    return 0;
}
